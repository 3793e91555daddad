"""The nested containers the function transforms accept, flattened to leaves and back.

Tuples, lists, dicts and named tuples are containers; anything else is a leaf.  A spec prints
as PyTorch's ``TreeSpec`` does, since transform errors show one.
"""

from __future__ import annotations

from typing import Any


class Spec:
    """How leaves nest: a container type with its keys (dicts) and child specs, or a leaf."""

    __slots__ = ("children", "context", "kind")

    def __init__(self, kind: type | None, context: Any = None, children: list[Spec] | None = None):
        self.kind = kind
        self.context = context
        self.children = children or []

    @property
    def is_leaf(self) -> bool:
        return self.kind is None

    @property
    def num_leaves(self) -> int:
        return 1 if self.is_leaf else sum(c.num_leaves for c in self.children)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Spec)
            and self.kind is other.kind
            and self.context == other.context
            and self.children == other.children
        )

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf:
            return "*"
        assert self.kind is not None
        text = f"TreeSpec({self.kind.__name__}, {self.context}, ["
        if self.children:
            indent += 2
            text += self.children[0].__repr__(indent)
            text += "," if len(self.children) > 1 else ""
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return text + "])"


LEAF = Spec(None)


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten(tree: Any) -> tuple[list[Any], Spec]:
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> Spec:
    if isinstance(tree, dict):
        keys = list(tree)
        return Spec(type(tree), keys, [_flatten(tree[k], leaves) for k in keys])
    if _is_namedtuple(tree):
        return Spec(type(tree), type(tree), [_flatten(v, leaves) for v in tree])
    if type(tree) in (tuple, list):
        return Spec(type(tree), None, [_flatten(v, leaves) for v in tree])
    leaves.append(tree)
    return LEAF


def unflatten(leaves: list[Any], spec: Spec) -> Any:
    it = iter(leaves)
    return _build(it, spec)


def _build(it: Any, spec: Spec) -> Any:
    if spec.is_leaf:
        return next(it)
    values = [_build(it, c) for c in spec.children]
    kind = spec.kind
    if kind is not None and issubclass(kind, dict):
        return kind(zip(spec.context, values, strict=True))
    if kind is not None and spec.context is kind:
        return kind(*values)
    assert kind is not None
    return kind(values)


def tree_map(fn: Any, tree: Any) -> Any:
    leaves, spec = flatten(tree)
    return unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix: Any, spec: Spec) -> list[Any] | None:
    """``prefix`` (a tree whose leaves stand for whole subtrees of ``spec``) repeated out to
    one value per leaf of ``spec``; None where its structure does not match."""
    if spec.is_leaf or not isinstance(prefix, (tuple, list, dict)):
        if isinstance(prefix, (tuple, list, dict)) and spec.is_leaf:
            return None
        return [prefix] * spec.num_leaves
    _, prefix_spec = flatten(prefix)
    if prefix_spec.kind is not spec.kind:
        return None
    if len(prefix_spec.children) != len(spec.children):
        return None
    if spec.kind is not None and issubclass(spec.kind, dict):
        if set(prefix) != set(spec.context):
            return None
        items = [prefix[k] for k in spec.context]
    else:
        items = list(prefix)
    out: list[Any] = []
    for item, child in zip(items, spec.children, strict=True):
        sub = broadcast_prefix(item, child)
        if sub is None:
            return None
        out.extend(sub)
    return out
