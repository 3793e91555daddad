"""The oracle: run a PyTorch snippet against a torch-like module and record facts.

Every differential test in the project goes through this one helper, so that the
engine and PyTorch are always observed the same way.  ``run_program`` executes a
snippet with ``torch`` bound to the module under test and returns plain,
JSON-serialisable *facts* (the observable autograd state of every tensor left in
the namespace, the warnings emitted and the exception raised); ``compare`` turns
two fact sets into human-readable differences.  Golden files store exactly the
structure ``run_program`` returns, so the engine can be checked without torch.

Extraction never trusts the module under test: a missing attribute or a failing
method becomes a fact value such as ``"<missing: AttributeError: ...>"``, so an
incomplete engine yields a readable difference instead of a crash.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import math
import re
import types
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: A JSON-serialisable record of everything observable after a snippet ran.
Facts = dict[str, Any]

#: Version of the fact format; golden files carry it so stale files are noticed.
FACTS_FORMAT = 1

#: How deep ``next_functions`` is expanded below a tensor's own ``grad_fn``.
MAX_GRAPH_DEPTH = 8

#: Marker stored instead of a fact that a scenario asked to ignore.
IGNORED = "<ignored>"

# C++ warnings and errors carry a build-specific source location; it is not part
# of what a learner reads and differs between PyTorch builds, so it is dropped.
_TRIGGERED_RE = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?\s*$")

_SIMPLE_TYPES = (bool, int, float, str, type(None))


def normalise_message(text: str) -> str:
    """Strip build-specific suffixes from a warning or error message."""
    return _TRIGGERED_RE.sub("", text)


def _describe_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {normalise_message(str(exc))}"


def _missing(exc: BaseException) -> str:
    """The fact value recorded when reading an attribute failed."""
    kind = "missing" if isinstance(exc, AttributeError) else "error"
    return f"<{kind}: {_describe_error(exc)}>"


def _guard(read: Callable[[], Any]) -> Any:
    """Run one fact reader; an exception becomes a readable fact value."""
    try:
        return read()
    except Exception as exc:  # the module under test may fail in any way
        return _missing(exc)


def _make_import(torch_module: Any) -> Callable[..., Any]:
    """An ``__import__`` that maps ``torch`` and its submodules to the module.

    Snippets copied from tutorials start with ``import torch`` or
    ``from torch.autograd import Function``; they must reach the module under
    test, never the real PyTorch.
    """
    real_import = builtins.__import__

    def resolve(dotted: str) -> Any:
        obj = torch_module
        for part in dotted.split(".")[1:]:
            obj = getattr(obj, part)
        return obj

    def fake_import(
        name: str,
        globals: Mapping[str, Any] | None = None,
        locals: Mapping[str, Any] | None = None,
        fromlist: Iterable[str] | None = (),
        level: int = 0,
    ) -> Any:
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            try:
                return resolve(name) if fromlist else torch_module
            except AttributeError as exc:
                raise ModuleNotFoundError(f"No module named '{name}'") from exc
        return real_import(name, globals, locals, fromlist or (), level)

    return fake_import


def make_namespace(torch_module: Any) -> dict[str, Any]:
    """A fresh global namespace with ``torch`` (and ``F``) bound to the module."""
    namespace: dict[str, Any] = {"__name__": "__scenario__"}
    custom_builtins = dict(vars(builtins))
    custom_builtins["__import__"] = _make_import(torch_module)
    namespace["__builtins__"] = custom_builtins
    namespace["torch"] = torch_module
    with contextlib.suppress(AttributeError):
        namespace["F"] = torch_module.nn.functional
    return namespace


class Execution:
    """The raw result of running a snippet: namespace, stdout, warnings, error."""

    def __init__(
        self,
        namespace: dict[str, Any],
        stdout: str,
        warning_records: list[dict[str, str]],
        exception: dict[str, str] | None,
    ) -> None:
        self.namespace = namespace
        self.stdout = stdout
        self.warnings = warning_records
        self.exception = exception


def _warning_record(w: warnings.WarningMessage) -> dict[str, str]:
    return {
        "category": w.category.__name__,
        "message": normalise_message(str(w.message)),
    }


def execute(source: str, torch_module: Any) -> Execution:
    """Run ``source`` once, recording stdout, warnings and the exception raised.

    The snippet stops at the first uncaught exception; what it had built so far
    stays in the namespace and still counts.
    """
    namespace = make_namespace(torch_module)
    out = io.StringIO()
    exception: dict[str, str] | None = None
    grad_mode = _guard(lambda: bool(torch_module.is_grad_enabled()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(out):
            try:
                code = compile(source, "<scenario>", "exec")
                exec(code, namespace)
            except Exception as exc:
                exception = {
                    "type": type(exc).__name__,
                    "message": normalise_message(str(exc)),
                }
            finally:
                # a snippet that dies inside set_grad_enabled(False) must not
                # leak the mode into the next snippet
                if isinstance(grad_mode, bool):
                    with contextlib.suppress(Exception):
                        torch_module.set_grad_enabled(grad_mode)
    return Execution(namespace, out.getvalue(), [_warning_record(w) for w in caught], exception)


# --------------------------------------------------------------------------
# fact extraction


def _plain(value: Any) -> Any:
    """Nested Python numbers from ``tolist()``; floats stay floats, NaN as text."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return float(value)
    if isinstance(value, complex):
        return [_plain(value.real), _plain(value.imag)]
    # numpy scalars and the like
    try:
        return _plain(value.item())
    except Exception:
        return f"<unconvertible: {type(value).__name__}>"


def _tensor_value(t: Any) -> Any:
    try:
        detached = t.detach()
    except Exception:
        detached = t
    return _plain(detached.tolist())


def _is_tensor(obj: Any, torch_module: Any) -> bool:
    tensor_cls = getattr(torch_module, "Tensor", None)
    if isinstance(tensor_cls, type):
        return isinstance(obj, tensor_cls)
    return hasattr(obj, "grad_fn") and hasattr(obj, "requires_grad")


def _is_node(obj: Any) -> bool:
    return hasattr(obj, "next_functions") and hasattr(obj, "name")


def _node_name(node: Any) -> Any:
    return _guard(lambda: str(node.name()))


class _Extractor:
    """Walks a finished namespace and builds the ``tensors``/``values`` facts."""

    def __init__(
        self,
        torch_module: Any,
        ignore_values: Iterable[str],
        ignore_graph: Iterable[str],
        ignore_versions: Iterable[str] = (),
    ) -> None:
        self.torch = torch_module
        self.ignore_values = set(ignore_values)
        self.ignore_graph = set(ignore_graph)
        self.ignore_versions = set(ignore_versions)
        self.tensors: dict[str, Any] = {}  # name -> tensor object
        self.values: dict[str, Any] = {}  # name -> non-tensor object
        self.keep_alive: list[Any] = []  # objects whose id() we rely on

    # -- collection ----------------------------------------------------------

    def collect(self, namespace: Mapping[str, Any]) -> None:
        for name in sorted(namespace):
            if name.startswith("_") or name in ("torch", "F"):
                continue
            self._collect_one(name, namespace[name], depth=0)

    def _collect_one(self, name: str, obj: Any, depth: int) -> None:
        if _is_tensor(obj, self.torch):
            self.tensors[name] = obj
        elif isinstance(obj, (list, tuple)) and depth < 2:
            self.values[name] = obj
            # plain data (``tolist()`` results, sizes) is one fact; containers
            # holding tensors (``autograd.grad`` results) are opened up
            if not all(isinstance(v, (*_SIMPLE_TYPES, list)) for v in obj):
                for i, item in enumerate(obj):
                    self._collect_one(f"{name}[{i}]", item, depth + 1)
        elif isinstance(obj, (types.ModuleType, types.FunctionType, type, types.MethodType)):
            return
        else:
            self.values[name] = obj

    def _ignored(self, name: str, options: set[str]) -> bool:
        if "*" in options:
            return True
        base = name.split("[", 1)[0]
        return name in options or base in options

    # -- non-tensor values ---------------------------------------------------

    def value_fact(self, obj: Any) -> Any:
        """A fact for a Python value left in the namespace, or None to skip it."""
        torch_module = self.torch
        dtype_cls = getattr(torch_module, "dtype", None)
        device_cls = getattr(torch_module, "device", None)
        size_cls = getattr(torch_module, "Size", None)
        if isinstance(obj, _SIMPLE_TYPES):
            return {"kind": type(obj).__name__, "value": _plain(obj)}
        if isinstance(dtype_cls, type) and isinstance(obj, dtype_cls):
            return {"kind": "dtype", "value": str(obj)}
        if isinstance(device_cls, type) and isinstance(obj, device_cls):
            return {"kind": "device", "value": str(obj)}
        if isinstance(size_cls, type) and isinstance(obj, size_cls):
            return {"kind": "Size", "value": [_plain(v) for v in obj]}
        if isinstance(obj, (list, tuple)):
            kind = "list" if isinstance(obj, list) else "tuple"
            if all(isinstance(v, _SIMPLE_TYPES) for v in obj) or all(
                isinstance(v, list) for v in obj
            ):
                return {"kind": kind, "value": _guard(lambda: _plain(list(obj)))}
            return {"kind": kind, "len": len(obj)}
        if _is_node(obj):
            return {"kind": "node", "value": _node_name(obj)}
        if type(obj).__module__ == "numpy" or type(obj).__name__ == "ndarray":
            return {
                "kind": "ndarray",
                "dtype": _guard(lambda: str(obj.dtype)),
                "value": _guard(lambda: _plain(obj.tolist())),
            }
        return None

    # -- tensors -------------------------------------------------------------

    def tensor_facts(self) -> dict[str, Any]:
        grad_fn_owner: dict[int, str] = {}
        for name, t in self.tensors.items():
            try:
                node = t.grad_fn
            except Exception:
                continue
            if node is not None and id(node) not in grad_fn_owner:
                self.keep_alive.append(node)
                grad_fn_owner[id(node)] = name
        var_owner: dict[int, str] = {}
        for name, t in self.tensors.items():
            var_owner.setdefault(id(t), name)

        result: dict[str, Any] = {}
        for name, t in self.tensors.items():
            result[name] = self._one_tensor(name, t, grad_fn_owner, var_owner)
        return result

    def _one_tensor(
        self,
        name: str,
        t: Any,
        grad_fn_owner: dict[int, str],
        var_owner: dict[int, str],
    ) -> dict[str, Any]:
        facts: dict[str, Any] = {}
        # read the version first: nothing below may bump it, but be safe
        if self._ignored(name, self.ignore_versions):
            facts["_version"] = IGNORED
        else:
            facts["_version"] = _guard(lambda: int(t._version))
        facts["shape"] = _guard(lambda: [int(s) for s in t.shape])
        facts["dtype"] = _guard(lambda: str(t.dtype))
        facts["device"] = _guard(lambda: str(t.device))
        facts["requires_grad"] = _guard(lambda: bool(t.requires_grad))
        facts["is_leaf"] = _guard(lambda: bool(t.is_leaf))
        facts["retains_grad"] = _guard(lambda: bool(t.retains_grad))
        if self._ignored(name, self.ignore_values):
            facts["value"] = IGNORED
        else:
            facts["value"] = _guard(lambda: _tensor_value(t))

        try:
            node = t.grad_fn
        except Exception as exc:
            facts["grad_fn"] = _missing(exc)
            facts["next_functions"] = None
        else:
            if node is None:
                facts["grad_fn"] = None
                facts["next_functions"] = None
            elif self._ignored(name, self.ignore_graph):
                facts["grad_fn"] = IGNORED
                facts["next_functions"] = IGNORED
            else:
                facts["grad_fn"] = _node_name(node)
                node_type = type(node).__name__
                if node_type != facts["grad_fn"]:
                    facts["grad_fn_type"] = node_type
                seen: dict[int, str] = {id(node): f"{name}.grad_fn"}
                facts["next_functions"] = self._next_functions(
                    node, f"{name}.grad_fn", 1, seen, grad_fn_owner, var_owner
                )

        facts.update(self._grad_facts(name, t))
        return facts

    def _grad_facts(self, name: str, t: Any) -> dict[str, Any]:
        """``.grad`` read with warnings captured: the non-leaf warning is a fact."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                grad = t.grad
            except Exception as exc:
                grad = _missing(exc)
        facts: dict[str, Any] = {
            "grad_warnings": [_warning_record(w) for w in caught],
        }
        if grad is None or isinstance(grad, str):
            facts["grad"] = grad
            return facts
        g: dict[str, Any] = {
            "shape": _guard(lambda: [int(s) for s in grad.shape]),
            "dtype": _guard(lambda: str(grad.dtype)),
            "requires_grad": _guard(lambda: bool(grad.requires_grad)),
            "has_grad_fn": _guard(lambda: grad.grad_fn is not None),
        }
        if self._ignored(name, self.ignore_values):
            g["value"] = IGNORED
        else:
            g["value"] = _guard(lambda: _tensor_value(grad))
        facts["grad"] = g
        return facts

    def _next_functions(
        self,
        node: Any,
        path: str,
        depth: int,
        seen: dict[int, str],
        grad_fn_owner: dict[int, str],
        var_owner: dict[int, str],
    ) -> Any:
        try:
            pairs = list(node.next_functions)
        except Exception as exc:
            return _missing(exc)
        if depth > MAX_GRAPH_DEPTH:
            return "<depth limit>"
        out: list[Any] = []
        for i, pair in enumerate(pairs):
            child_path = f"{path}.next[{i}]"
            try:
                child, input_nr = pair
            except Exception as exc:
                out.append(f"<bad pair: {_describe_error(exc)}>")
                continue
            if child is None:
                out.append(None)
                continue
            self.keep_alive.append(child)
            desc: dict[str, Any] = {
                "name": _node_name(child),
                "input_nr": _guard(lambda nr=input_nr: int(nr)),
            }
            child_type = type(child).__name__
            if child_type != desc["name"]:
                desc["type"] = child_type
            if hasattr(child, "variable") or child_type == "AccumulateGrad":
                try:
                    var = child.variable
                except Exception as exc:
                    desc["variable"] = _missing(exc)
                else:
                    desc["variable"] = var_owner.get(id(var))
            elif id(child) in grad_fn_owner:
                desc["of"] = grad_fn_owner[id(child)]
            elif id(child) in seen:
                desc["same_as"] = seen[id(child)]
            else:
                seen[id(child)] = child_path
                desc["next"] = self._next_functions(
                    child, child_path, depth + 1, seen, grad_fn_owner, var_owner
                )
            out.append(desc)
        return out

    def value_facts(self) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for name, obj in self.values.items():
            fact = self.value_fact(obj)
            if fact is None:
                continue
            if self._ignored(name, self.ignore_values) and "value" in fact:
                fact["value"] = IGNORED
            result[name] = fact
        return result


def extract_facts(
    execution: Execution,
    torch_module: Any,
    *,
    ignore_values: Iterable[str] = (),
    ignore_graph: Iterable[str] = (),
    ignore_versions: Iterable[str] = (),
) -> Facts:
    """Facts of a finished execution (see ``run_program``)."""
    extractor = _Extractor(torch_module, ignore_values, ignore_graph, ignore_versions)
    extractor.collect(execution.namespace)
    with warnings.catch_warnings(record=True) as stray:
        warnings.simplefilter("always")
        tensors = extractor.tensor_facts()
        values = extractor.value_facts()
    facts: Facts = {
        "exception": execution.exception,
        "warnings": execution.warnings,
        "tensors": tensors,
        "values": values,
    }
    # warnings emitted while merely inspecting (other than the .grad read,
    # recorded per tensor) would be spurious; keep them visible as a fact
    extra = [_warning_record(w) for w in stray]
    if extra:
        facts["inspection_warnings"] = extra
    return facts


def run_program(
    source: str,
    torch_module: Any,
    *,
    ignore_values: Iterable[str] = (),
    ignore_graph: Iterable[str] = (),
    ignore_versions: Iterable[str] = (),
) -> Facts:
    """Run a snippet with ``torch`` bound to ``torch_module`` and return its facts.

    ``ignore_values`` names tensors (or ``"*"``) whose values are random or
    uninitialised: their value and grad value are recorded as ``"<ignored>"``.
    ``ignore_graph`` names tensors whose grad_fn is compared only as present or
    absent (second-order graphs whose node names are implementation detail).
    ``ignore_versions`` names tensors whose ``_version`` is left out.
    stdout is captured and discarded: printed reprs are tested separately.
    """
    execution = execute(source, torch_module)
    return extract_facts(
        execution,
        torch_module,
        ignore_values=ignore_values,
        ignore_graph=ignore_graph,
        ignore_versions=ignore_versions,
    )


# --------------------------------------------------------------------------
# comparison


def _numbers_close(expected: Any, actual: Any, rtol: float, atol: float) -> bool:
    """Nested numeric equality within tolerance; NaN/inf are stored as text."""
    if isinstance(expected, list) or isinstance(actual, list):
        if not (isinstance(expected, list) and isinstance(actual, list)):
            return False
        if len(expected) != len(actual):
            return False
        return all(_numbers_close(e, a, rtol, atol) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, str) or isinstance(actual, str):
        return expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return abs(float(expected) - float(actual)) <= atol + rtol * abs(float(expected))
    return bool(expected == actual)


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value) if not isinstance(value, str) else value
    if value is None:
        text = "None"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _graph_text(desc: Any) -> str:
    """A compact one-line rendering of a next_functions structure."""
    if desc is None:
        return "None"
    if isinstance(desc, str):
        return desc
    if isinstance(desc, list):
        return "(" + ", ".join(_graph_text(d) for d in desc) + ")"
    name = str(desc.get("name"))
    if "variable" in desc:
        return f"{name}[{desc['variable']}]"
    if "of" in desc:
        return f"{name}<{desc['of']}.grad_fn>"
    if "same_as" in desc:
        return f"{name}<same as {desc['same_as']}>"
    inner = _graph_text(desc.get("next"))
    return f"{name}{inner}"


def _compare_graph(
    where: str, expected: Any, actual: Any, diffs: list[str], depth: int = 0
) -> None:
    """Report the first structural differences of two next_functions trees."""
    if expected == actual:
        return
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            _compare_graph(f"{where}[{i}]", e, a, diffs, depth + 1)
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        if expected.get("name") != actual.get("name"):
            diffs.append(f"{where}: expected {expected.get('name')}, got {actual.get('name')}")
            return
        for key in sorted(set(expected) | set(actual)):
            if key == "next":
                _compare_graph(
                    f"{where}.next",
                    expected.get("next"),
                    actual.get("next"),
                    diffs,
                    depth + 1,
                )
            elif expected.get(key) != actual.get(key):
                diffs.append(
                    f"{where}.{key}: expected {_short(expected.get(key))}, "
                    f"got {_short(actual.get(key))}"
                )
        return
    diffs.append(f"{where}: expected {_graph_text(expected)}, got {_graph_text(actual)}")


def _compare_messages(
    where: str, expected: list[dict[str, str]], actual: list[dict[str, str]]
) -> list[str]:
    if expected == actual:
        return []
    return [f"{where}: expected {_messages_text(expected)}, got {_messages_text(actual)}"]


def _messages_text(records: list[dict[str, str]]) -> str:
    if not records:
        return "none"
    return "; ".join(f"{r['category']}: {r['message']!r}" for r in records)


def _compare_tensor(
    name: str,
    expected: dict[str, Any],
    actual: dict[str, Any],
    rtol: float,
    atol: float,
) -> list[str]:
    diffs: list[str] = []
    keys = sorted(set(expected) | set(actual))
    for key in keys:
        e = expected.get(key, "<absent>")
        a = actual.get(key, "<absent>")
        where = f"{name}.{key}"
        if key == "value":
            if e == IGNORED or a == IGNORED:
                continue
            if not _numbers_close(e, a, rtol, atol):
                diffs.append(f"{where}: expected {_short(e)}, got {_short(a)}")
        elif key == "next_functions":
            if isinstance(e, list) and isinstance(a, list):
                _compare_graph(f"{name}.grad_fn.next_functions", e, a, diffs)
            elif e != a:
                diffs.append(
                    f"{name}.grad_fn.next_functions: expected {_graph_text(e)}, "
                    f"got {_graph_text(a)}"
                )
        elif key == "grad_warnings":
            diffs.extend(_compare_messages(f"{name}.grad (warnings)", e, a))
        elif key == "grad":
            if isinstance(e, dict) and isinstance(a, dict):
                diffs.extend(_compare_tensor(f"{name}.grad", e, a, rtol, atol))
            elif e != a:
                diffs.append(f"{where}: expected {_short(e)}, got {_short(a)}")
        elif e != a:
            diffs.append(f"{where}: expected {_short(e)}, got {_short(a)}")
    return diffs


_FLOAT_RE = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def messages_agree(expected: str, actual: str) -> bool:
    """The same message, its float64 numbers within a few ulps (``rel`` 1e-12): a
    number a message prints with all 17 digits (gradcheck's fast-mode ``v·J·u``) ends in
    the last bits of a dot product whose order of additions is the BLAS's, so it varies
    with the host's kernels; any other difference, in text or a number, still counts."""
    if expected == actual:
        return True
    e_parts, a_parts = _FLOAT_RE.split(expected), _FLOAT_RE.split(actual)
    if e_parts != a_parts:
        return False
    return all(
        math.isclose(float(e), float(a), rel_tol=1e-12, abs_tol=0.0)
        for e, a in zip(_FLOAT_RE.findall(expected), _FLOAT_RE.findall(actual), strict=True)
    )


def compare(expected: Facts, actual: Facts, rtol: float = 1e-5, atol: float = 1e-6) -> list[str]:
    """Human-readable differences between two fact sets (empty when equal)."""
    diffs: list[str] = []
    e_exc, a_exc = expected.get("exception"), actual.get("exception")
    if e_exc != a_exc:
        if e_exc is None or a_exc is None:
            diffs.append(f"exception: expected {_exc_text(e_exc)}, got {_exc_text(a_exc)}")
        else:
            if e_exc["type"] != a_exc["type"]:
                diffs.append(f"exception type: expected {e_exc['type']}, got {a_exc['type']}")
            if not messages_agree(e_exc["message"], a_exc["message"]):
                diffs.append(
                    f"exception message: expected {e_exc['message']!r}, got {a_exc['message']!r}"
                )
    diffs.extend(
        _compare_messages("warnings", expected.get("warnings", []), actual.get("warnings", []))
    )
    diffs.extend(
        _compare_messages(
            "inspection warnings",
            expected.get("inspection_warnings", []),
            actual.get("inspection_warnings", []),
        )
    )

    e_t, a_t = expected.get("tensors", {}), actual.get("tensors", {})
    for name in sorted(set(e_t) | set(a_t)):
        if name not in a_t:
            diffs.append(f"{name}: expected a tensor, got {_value_text(actual, name)}")
        elif name not in e_t:
            diffs.append(f"{name}: expected {_value_text(expected, name)}, got a tensor")
        else:
            diffs.extend(_compare_tensor(name, e_t[name], a_t[name], rtol, atol))

    e_v, a_v = expected.get("values", {}), actual.get("values", {})
    for name in sorted(set(e_v) | set(a_v)):
        if name in e_t or name in a_t:
            continue  # already reported as a tensor/non-tensor mismatch
        ev, av = e_v.get(name), a_v.get(name)
        if ev == av:
            continue
        if (
            isinstance(ev, dict)
            and isinstance(av, dict)
            and ev.get("kind") == av.get("kind")
            and set(ev) == set(av)
            and "value" in ev
            and (
                ev["value"] == IGNORED
                or av["value"] == IGNORED
                or _numbers_close(ev["value"], av["value"], rtol, atol)
            )
            and all(ev[k] == av[k] for k in ev if k != "value")
        ):
            continue
        diffs.append(f"{name}: expected {_short(ev)}, got {_short(av)}")
    return diffs


def _exc_text(exc: dict[str, str] | None) -> str:
    if exc is None:
        return "no exception"
    return f"{exc['type']}: {exc['message']!r}"


def _value_text(facts: Facts, name: str) -> str:
    value = facts.get("values", {}).get(name)
    return "nothing" if value is None else _short(value)
