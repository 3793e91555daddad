"""Which hook registrations a snippet may hold, and the check that a hook's code is
self-contained: a hook node holds only its own code, none of the program's variables."""

from __future__ import annotations

import builtins
import dis
import types

from gradstudio.interchange.snippet_values import ImportProblem

#: Hook registrations the static importer reads: method -> the hook node's ``on``.
HOOK_METHODS = {
    "register_hook": "tensor",
    "register_post_accumulate_grad_hook": "post_accumulate_grad",
}
GRAD_FN_HOOK_METHODS = {"register_hook": "grad_fn", "register_prehook": "grad_fn_pre"}
#: Names a hook node's code may use without defining them: what its namespace holds.
HOOK_NAMES = frozenset({"torch", "F", "Function"}) | frozenset(dir(builtins))


def outside_names(code: types.CodeType) -> list[str]:
    """Globals a hook's code reads that its node would not have (the program's own
    variables): attribute names (``grad.clamp``) are not globals."""
    attributes = {
        str(i.argval)
        for i in dis.get_instructions(code)
        if i.opname in ("LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR")
    }
    return sorted(set(code.co_names) - HOOK_NAMES - attributes)


def hook_code(source: str, line: int | None) -> types.CodeType:
    """The code object of the one function a hook node's source defines."""
    try:
        module = compile(source, "<hook>", "exec")
    except SyntaxError as exc:
        raise ImportProblem(f"the hook's code does not compile: {exc.msg}", line) from None
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))
