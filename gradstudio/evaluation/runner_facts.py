"""Reading the facts of a run from the live engine objects: tensors' values and
autograd state, each ``grad_fn`` with its ``next_functions`` and saved values, and
after a backward-like step only what it can have changed (cheap fingerprints, the
grad_fns it ran).

The base of ``Runner``: it keeps the live objects and the caches the facts are read
from, keyed so that ids stay unique for the run's life.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from gradstudio.evaluation.facts import (
    GradFnFacts,
    GradValue,
    NextFunction,
    OutputRef,
    SavedValue,
    StepResult,
    TensorFacts,
)


def display_name(fn: Any) -> str:
    """A grad_fn's name as PyTorch prints it (``MulBackward0``, without its C++ namespace)."""
    return str(fn.name()).removeprefix("torch::autograd::")


@functools.lru_cache(maxsize=64)
def dtype_name(dtype: Any) -> str:
    """``float32`` for ``torch.float32``; cached, as every tensor fact asks."""
    return str(dtype).rsplit(".", 1)[-1]


@functools.lru_cache(maxsize=64)
def device_name(device: Any) -> str:
    """The device's text; cached, as every tensor fact asks."""
    return str(device)


class RunnerFacts:
    """The live objects of a run and the facts read from them (the base of ``Runner``)."""

    def __init__(self) -> None:
        self.live: dict[OutputRef, Any] = {}
        self.last: dict[OutputRef, TensorFacts | None] = {}
        self.owner: dict[int, OutputRef] = {}  # id(tensor) -> first output holding it
        self.keep: list[Any] = []  # keeps objects alive so their ids stay unique
        self.tensor_ids: dict[int, int] = {}
        self.dir_cache: dict[type, list[str]] = {}
        self.fn_next: dict[int, tuple[NextFunction | None, ...]] = {}
        self.fn_names: dict[int, str] = {}
        self.fn_tensors: dict[int, list[OutputRef]] = {}  # grad_fn key -> outputs it made
        self.fingerprints: dict[OutputRef, tuple[Any, ...]] = {}
        self.fn_keys: dict[int, int] = {}
        self.fn_objects: dict[int, Any] = {}
        self.fn_last: dict[int, GradFnFacts] = {}

    def array_of(self, t: Any) -> np.ndarray:
        """A private copy of the tensor's values."""
        data = getattr(t, "_data", None)
        if type(data) is np.ndarray:  # the engine on the CPU: its array, no detached wrapper
            return np.array(data, copy=True)
        d = t.detach()
        if d.is_cuda:
            d = d.cpu()
        return np.array(d.numpy(), copy=True)

    def value_of(self, t: Any) -> GradValue:
        return GradValue(
            self.array_of(t),
            tuple(t.shape),
            dtype_name(t.dtype),
            device_name(t.device),
        )

    def fn_key(self, fn: Any) -> int:
        key = self.fn_keys.get(id(fn))
        if key is None:
            key = len(self.fn_keys)
            self.fn_keys[id(fn)] = key
            self.fn_objects[key] = fn
            self.keep.append(fn)
        return key

    def next_of(self, fn: Any) -> tuple[NextFunction | None, ...]:
        """``next_functions`` as facts (fixed for a grad_fn's life, so read once)."""
        key = self.fn_key(fn)
        nexts = self.fn_next.get(key)
        if nexts is None:
            nexts = self.fn_next[key] = tuple(
                None if nxt is None else NextFunction(self.fn_key(nxt), self.fn_name(nxt), index)
                for nxt, index in fn.next_functions
            )
        return nexts

    def fn_name(self, fn: Any) -> str:
        key = self.fn_key(fn)
        name = self.fn_names.get(key)
        if name is None:
            name = self.fn_names[key] = display_name(fn)
        return name

    def saved_names(self, fn: Any) -> list[str]:
        """The ``_saved_*`` attributes, as torchviz lists them (engine nodes say directly)."""
        names = getattr(fn, "saved_names", None)
        if callable(names):
            return [f"_saved_{n}" for n in names()]
        cls = type(fn)
        if cls not in self.dir_cache:
            self.dir_cache[cls] = [a for a in dir(fn) if a.startswith("_saved_")]
        return self.dir_cache[cls]

    def saved_of(self, fn: Any) -> tuple[SavedValue, ...]:
        saved = []
        for name in self.saved_names(fn):
            short = name.removeprefix("_saved_")
            try:
                value = getattr(fn, name)
            except RuntimeError as exc:
                kind = "modified" if "inplace" in str(exc) else "freed"
                saved.append(SavedValue(short, kind, str(exc) if kind == "modified" else None))
                continue
            except AttributeError:
                continue
            if value is None:
                saved.append(SavedValue(short, "none"))
            elif hasattr(value, "grad_fn") and hasattr(value, "shape"):
                ref = self.owner.get(id(value))
                last = self.last.get(ref) if ref is not None else None
                if last is not None and last.version == value._version:
                    grad_value = GradValue(last.array, last.shape, last.dtype, last.device)
                else:
                    grad_value = self.value_of(value)
                saved.append(SavedValue(short, "tensor", grad_value, ref))
            else:
                saved.append(SavedValue(short, "value", repr(value)))
        return tuple(saved)

    def fn_facts(self, fn: Any) -> GradFnFacts:
        variable = getattr(fn, "variable", None)
        return GradFnFacts(
            key=self.fn_key(fn),
            name=self.fn_name(fn),
            next_functions=self.next_of(fn),
            saved=self.saved_of(fn),
            variable=None if variable is None else self.owner.get(id(variable)),
        )

    def capture_graph(self, fn: Any, result: StepResult) -> GradFnFacts:
        """Facts of ``fn`` and of every node behind it not yet recorded."""
        top = None
        stack = [fn]
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            key = self.fn_key(node)
            if key in seen:
                continue
            seen.add(key)
            if key in self.fn_last:
                facts = self.fn_last[key]
            else:
                facts = self.fn_facts(node)
                if not facts.same_as(self.fn_last.get(key)):
                    self.fn_last[key] = facts
                    result.grad_fns[key] = facts
                facts = self.fn_last[key]
                stack.extend(n for n, _ in node.next_functions if n is not None)
            if top is None:
                top = facts
        assert top is not None
        return top

    def fingerprint(self, t: Any) -> tuple[Any, ...]:
        """What a backward-like step can change about a tensor, read cheaply."""
        is_leaf, retains = t.is_leaf, t.retains_grad
        g = t.grad if (is_leaf or retains) else None
        grad = None if g is None else (id(g), g._version)
        return (t.requires_grad, is_leaf, retains, t._version, id(t.grad_fn), grad)

    def tensor_facts(
        self, t: Any, result: StepResult, array: np.ndarray | None = None
    ) -> TensorFacts:
        is_leaf = bool(t.is_leaf)
        retains = bool(t.retains_grad)
        grad = None
        if is_leaf or retains:
            g = t.grad
            grad = None if g is None else self.value_of(g)
        fn = t.grad_fn
        return TensorFacts(
            tensor_id=self.tensor_id(t),
            array=self.array_of(t) if array is None else array,
            shape=tuple(t.shape),
            dtype=dtype_name(t.dtype),
            device=device_name(t.device),
            requires_grad=bool(t.requires_grad),
            is_leaf=is_leaf,
            grad_fn=None if fn is None else self.capture_graph(fn, result),
            grad=grad,
            retains_grad=retains,
            version=int(t._version),
            grad_access_warns=not is_leaf and not retains,
            base_id=self.base_id(t),
        )

    def base_id(self, t: Any) -> int | None:
        base = getattr(t, "_base", None)
        return None if base is None else self.tensor_ids.get(id(base))

    def tensor_id(self, t: Any) -> int:
        key = self.tensor_ids.get(id(t))
        if key is None:
            key = self.tensor_ids[id(t)] = len(self.tensor_ids)
            self.keep.append(t)
        return key

    def record(self, ref: OutputRef, value: Any, result: StepResult) -> None:
        if value is not None and not (hasattr(value, "grad_fn") and hasattr(value, "shape")):
            return
        if value is not None and id(value) not in self.owner:
            self.owner[id(value)] = ref
            self.keep.append(value)
        self.live[ref] = value
        facts = None if value is None else self.tensor_facts(value, result)
        self.remember(ref, facts)
        result.changed[ref] = facts
        if facts is not None:
            self.fingerprints[ref] = self.fingerprint(value)

    def remember(self, ref: OutputRef, facts: TensorFacts | None) -> None:
        """``facts`` are now what ``ref`` shows; its grad_fn (which an in-place op may
        have changed since ``ref`` was made) will mark it stale when backward changes
        that node's facts (its saved values freed)."""
        self.last[ref] = facts
        if facts is not None and facts.grad_fn is not None:
            refs = self.fn_tensors.setdefault(facts.grad_fn.key, [])
            if ref not in refs:
                refs.append(ref)

    def refresh_grads(self, result: StepResult, fn_keys: set[int] | None) -> None:
        """After backward, autograd.grad, zero grads, retain_grad, requires_grad_.

        Tensor values cannot change here, so only a cheap fingerprint is compared
        (gradients by identity and version), and only the grad_fns backward ran are
        re-read (``None``: all of them).
        """
        stale: set[OutputRef] = set()
        keys = list(self.fn_objects) if fn_keys is None else fn_keys
        for key in keys:
            fn = self.fn_facts(self.fn_objects[key])
            if not fn.same_as(self.fn_last.get(key)):
                self.fn_last[key] = fn
                result.grad_fns[key] = fn
                stale.update(self.fn_tensors.get(key, ()))
        for ref, value in self.live.items():
            if value is None:
                continue
            fingerprint = self.fingerprint(value)
            if fingerprint == self.fingerprints.get(ref) and ref not in stale:
                continue
            last = self.last[ref]
            kept = last.array if last is not None and last.version == value._version else None
            facts = self.tensor_facts(value, result, kept)
            self.fingerprints[ref] = fingerprint
            if not facts.same_as(last):
                self.remember(ref, facts)
                result.changed[ref] = facts

    def refresh_all(self, result: StepResult) -> None:
        for key, fn in list(self.fn_objects.items()):
            fn_facts = self.fn_facts(fn)
            if not fn_facts.same_as(self.fn_last.get(key)):
                self.fn_last[key] = fn_facts
                result.grad_fns[key] = fn_facts
        for ref, value in self.live.items():
            if value is None:
                continue
            facts = self.tensor_facts(value, result)
            self.fingerprints[ref] = self.fingerprint(value)
            if not facts.same_as(self.last.get(ref)):
                self.remember(ref, facts)
                result.changed[ref] = facts
