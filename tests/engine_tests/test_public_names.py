"""Every public function of the engine is in its table, or says why it cannot be.

The studio offers exactly what ``engine.catalog`` declares, so a public function with
no declaration is one a learner's program uses and the studio refuses (``x.argmax()``).
Each public name must be declared with ``engine.catalog.public`` next to its
implementation, be the very function of a declaration under a second name
(``torch.abs_`` is ``Tensor.abs_``), or be listed in ``engine.not_ops.NOT_OPS``.
"""

from __future__ import annotations

import types
from collections import Counter
from collections.abc import Iterator
from typing import Any

import engine
import engine.linalg
import engine.nn.functional
from engine.catalog import FUNCTIONS, functions
from engine.not_ops import NOT_OPS, not_an_op

NAMESPACES: dict[str, Any] = {
    "torch": engine,
    "torch.nn.functional": engine.nn.functional,
    "torch.linalg": engine.linalg,
}


def public_functions() -> Iterator[tuple[str, Any]]:
    """(qualified name, object) of each public function: classes (``Tensor``, dtypes,
    context managers) and modules are not functions."""
    for namespace, module in NAMESPACES.items():
        for name in dir(module):
            value = getattr(module, name)
            if name.startswith("_") or isinstance(value, types.ModuleType | type):
                continue
            if callable(value):
                yield f"{namespace}.{name}", value


def declared_objects() -> set[int]:
    """The ids of every declared function, as declared and as its namespace exports it
    (``engine.add`` wraps the declaration for ``out=``)."""
    functions()
    ids = set()
    for sig in FUNCTIONS.values():
        ids.add(id(sig.fn))
        module = NAMESPACES.get(sig.namespace)
        if module is not None and hasattr(module, sig.name):
            ids.add(id(getattr(module, sig.name)))
    return ids


def test_every_public_function_is_declared_or_listed_as_not_an_op() -> None:
    ids = declared_objects()
    missing = [
        qualname
        for qualname, value in public_functions()
        if qualname not in FUNCTIONS and id(value) not in ids and not_an_op(qualname) is None
    ]
    assert not missing, (
        f"{len(missing)} public functions have no declaration: {missing}. Declare each "
        "with engine.catalog.public (ports, params, category, doc, Example) next to its "
        "implementation, or add it to engine.not_ops.NOT_OPS with the reason it cannot be a node."
    )


def test_the_not_ops_table_lists_only_existing_undeclared_names_once() -> None:
    listed = [name for names in NOT_OPS.values() for name in names]
    assert [n for n, count in Counter(listed).items() if count > 1] == []
    public = dict(public_functions())
    assert [n for n in listed if n not in public] == [], "listed but not a public function"
    ids = declared_objects()
    declared = [n for n in listed if n in FUNCTIONS or id(public[n]) in ids]
    assert declared == [], "listed as not an op, but declared: drop it from NOT_OPS"


def test_the_enumeration_sees_what_it_must() -> None:
    names = dict(public_functions())
    for qualname in (
        "torch.add",
        "torch.argmax",
        "torch.nn.functional.dropout",
        "torch.linalg.det",
    ):
        assert qualname in names
    assert "torch.Tensor" not in names and "torch.no_grad" not in names  # classes
    assert "torch.nn" not in names  # a module
