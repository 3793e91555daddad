"""Import a PyTorch snippet as a document — by reading it (``ast``), never by running it.

Each statement becomes nodes in program order: calls are matched against the
catalogue (``torch.add``, ``F.linear``, ``x.sum()``, operators), the snippet's
variable names become node labels, ``class X(Function)`` definitions become
custom Function nodes holding their source.  Anything the studio cannot represent
raises ``ImportProblem`` with the line number.
"""

from __future__ import annotations

import ast
import builtins
import dis
import inspect
import re
import types
from dataclasses import dataclass, field
from typing import Any

import engine
from gradstudio.catalogue import NodeKind, NodeType, PortType
from gradstudio.document.index_key import IndexKey, Placeholder, Slice, check_key
from gradstudio.document.layout import auto_layout
from gradstudio.document.model import Document, EditError
from gradstudio.evaluation.budget import DEFAULT_BUDGET, over_budget, source_bytes
from gradstudio.function_args import forward_returns, named_arguments
from gradstudio.interchange.folding import Folder, FoldLimit
from gradstudio.interchange.quoting import one_line
from gradstudio.interchange.trust import admit
from gradstudio.params import DTYPE_ALIASES, DTYPES

MODULES = {
    "torch": "torch",
    "torch.nn": "torch.nn",
    "torch.nn.functional": "torch.nn.functional",
    "torch.autograd": "torch.autograd",
}
INSPECTION_ATTRS = {
    "is_leaf",
    "requires_grad",
    "grad",
    "grad_fn",
    "data",
    "shape",
    "dtype",
    "device",
    "retains_grad",
    "_version",
    "next_functions",
    "is_cuda",
    "ndim",
    "T",
    "mT",
}
IGNORED_CALLS = {"print", "display", "repr", "str", "len", "type"}
BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "torch.add",
    ast.Sub: "torch.sub",
    ast.Mult: "torch.mul",
    ast.Div: "torch.div",
    ast.MatMult: "torch.matmul",
    ast.Pow: "torch.pow",
}
INPLACE_OPS: dict[type[ast.operator], str] = {
    ast.Add: "Tensor.add_",
    ast.Sub: "Tensor.sub_",
    ast.Mult: "Tensor.mul_",
    ast.Div: "Tensor.div_",
}
COMPARE = {
    ast.Eq: "torch.eq",
    ast.NotEq: "torch.ne",
    ast.Lt: "torch.lt",
    ast.LtE: "torch.le",
    ast.Gt: "torch.gt",
    ast.GtE: "torch.ge",
}
TO_METHODS = {
    "cuda": ("cuda", None),
    "cpu": ("cpu", None),
    "double": ("keep", "float64"),
    "float": ("keep", "float32"),
    "half": ("keep", "float16"),
    "long": ("keep", "int64"),
    "int": ("keep", "int32"),
}


class ImportProblem(Exception):
    """A snippet GradStudio cannot represent; ``lineno`` is the line in the snippet."""

    def __init__(self, message: str, lineno: int | None = None) -> None:
        message = one_line(message)  # it may quote a program's output: one clean line
        super().__init__(f"line {lineno}: {message}" if lineno else message)
        self.message = message
        self.lineno = lineno


# ------------------------------------------------------------------------- values


@dataclass(frozen=True)
class TensorRef:
    node_id: str
    port: str = "out"


@dataclass(frozen=True)
class ResultRef(TensorRef):
    """The whole result of a call with several outputs (``torch.sort(x)``): its first
    output where a tensor is wanted, ``r[1]`` its second."""


@dataclass(frozen=True)
class ListRef:
    node_id: str
    port: str


@dataclass(frozen=True)
class Const:
    value: Any


@dataclass(frozen=True)
class Module:
    path: str


@dataclass(frozen=True)
class FunctionClass:
    name: str
    source: str


@dataclass(frozen=True)
class HookDef:
    """A top-level ``def``: code a hook node may hold once it is registered."""

    name: str
    source: str


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


def _hook_code(source: str, line: int | None) -> types.CodeType:
    """The code object of the one function a hook node's source defines."""
    try:
        module = compile(source, "<hook>", "exec")
    except SyntaxError as exc:
        raise ImportProblem(f"the hook's code does not compile: {exc.msg}", line) from None
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


@dataclass(frozen=True)
class DefaultDevice:
    """``device`` computed from ``torch.cuda.is_available()``: the document's device."""


@dataclass(frozen=True)
class TensorList:
    items: tuple[TensorRef, ...]


Value = TensorRef | ListRef | Const | Module | FunctionClass | HookDef | DefaultDevice | TensorList


def _strip_prompts(source: str) -> str:
    """Doctest-style snippets (``>>> x = ...``) keep only their code lines."""
    lines = source.splitlines()
    if not any(line.lstrip().startswith(">>>") for line in lines):
        return source
    code = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(">>>") or stripped.startswith("..."):
            code.append(stripped[4:] if len(stripped) > 3 and stripped[3] == " " else stripped[3:])
        else:
            code.append("")  # output lines: keep the numbering
    return "\n".join(code)


#: A teaching snippet is a page or two; a megabyte is already a thousand pages.
MAX_SNIPPET_CHARS = 1_000_000


@dataclass
class _Importer:
    source: str
    doc: Document = field(default_factory=Document)
    env: dict[str, Value] = field(default_factory=dict)
    no_grad: bool = False
    folder: Folder = field(default_factory=Folder)
    #: Bytes of tensor data a run may hold: a source bigger than this is refused.
    memory_budget: int | None = DEFAULT_BUDGET

    # -- statements ---------------------------------------------------------------

    def run(self, tree: ast.Module) -> None:
        for stmt in tree.body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        line = stmt.lineno
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            self.imports(stmt)
        elif isinstance(stmt, ast.ClassDef):
            self.class_def(stmt)
        elif isinstance(stmt, ast.FunctionDef):
            first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
            lines = self.source.splitlines()[first - 1 : stmt.end_lineno]
            self.env[stmt.name] = HookDef(stmt.name, "\n".join(lines) + "\n")
        elif isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1:
                raise ImportProblem("chained assignment (a = b = ...) is not supported", line)
            self.assign(stmt.targets[0], stmt.value, stmt)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, stmt.value, stmt)
        elif isinstance(stmt, ast.AugAssign):
            self.aug_assign(stmt)
        elif isinstance(stmt, ast.Expr):
            self.expression_statement(stmt)
        elif isinstance(stmt, ast.With):
            self.with_block(stmt)
        elif isinstance(stmt, ast.Pass):
            pass
        else:
            kind = type(stmt).__name__
            raise ImportProblem(
                f"GradStudio cannot represent a {kind} statement (it shows straight-line code)",
                line,
            )

    def imports(self, stmt: ast.Import | ast.ImportFrom) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name not in MODULES:
                    raise ImportProblem(
                        f"only torch can be imported, not {alias.name}", stmt.lineno
                    )
                if alias.asname:
                    self.env[alias.asname] = Module(alias.name)
                else:
                    self.env[alias.name.split(".")[0]] = Module(alias.name.split(".")[0])
            return
        base = stmt.module or ""
        for alias in stmt.names:
            path = f"{base}.{alias.name}"
            if (
                path in MODULES
                or path == "torch.autograd.Function"
                or (base in MODULES and alias.name != "*")
            ):
                self.env[alias.asname or alias.name] = Module(path)
            else:
                raise ImportProblem(f"only torch can be imported, not {path}", stmt.lineno)

    def class_def(self, stmt: ast.ClassDef) -> None:
        bases = [self.expr(b) for b in stmt.bases]
        if not any(isinstance(b, Module) and b.path == "torch.autograd.Function" for b in bases):
            raise ImportProblem(
                f"class {stmt.name} is not an autograd.Function; only those can be imported",
                stmt.lineno,
            )
        first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
        lines = self.source.splitlines()[first - 1 : stmt.end_lineno]
        self.env[stmt.name] = FunctionClass(stmt.name, "\n".join(lines) + "\n")

    def assign(self, target: ast.expr, value: ast.expr, stmt: ast.stmt) -> None:
        line = stmt.lineno
        if isinstance(target, ast.Name) and isinstance(value, ast.Lambda):
            text = " ".join((ast.get_source_segment(self.source, value) or "").split())
            self.env[target.id] = HookDef(target.id, f"{target.id} = {text}\n")
        elif isinstance(target, ast.Name):
            self.env[target.id] = self.expr(value, label=target.id)
        elif isinstance(target, ast.Tuple | ast.List) and all(
            isinstance(t, ast.Name) for t in target.elts
        ):
            result = self.expr(value)
            if isinstance(result, ListRef):
                for i, t in enumerate(target.elts):
                    node = self.add("gradstudio.select", {"index": i}, t.id, line)  # type: ignore[attr-defined]
                    self.connect(result, node, "list", line)
                    self.env[t.id] = TensorRef(node)  # type: ignore[attr-defined]
            elif isinstance(result, ResultRef) and len(self.outputs_of(result)) > 1:
                # ``values, indices = x.max(1)``, ``Q, R = torch.linalg.qr(A)``: one name a port
                outputs = self.outputs_of(result)
                if len(outputs) != len(target.elts):
                    raise ImportProblem(
                        f"cannot unpack {len(outputs)} results into {len(target.elts)} names",
                        line,
                    )
                for t, port in zip(target.elts, outputs, strict=True):
                    self.env[t.id] = TensorRef(result.node_id, port)  # type: ignore[attr-defined]
            elif isinstance(result, Const) and isinstance(result.value, list | tuple):
                if len(result.value) != len(target.elts):
                    raise ImportProblem("cannot unpack: the number of values differs", line)
                for t, v in zip(target.elts, result.value, strict=True):
                    self.env[t.id] = Const(v)  # type: ignore[attr-defined]
            else:
                raise ImportProblem(
                    "only autograd.grad results can be unpacked into several names", line
                )
        elif isinstance(target, ast.Subscript):
            self.setitem(target, value, stmt)
        elif isinstance(target, ast.Attribute):
            owner = self.tensor(target.value, line)
            rhs = self.expr(value)
            if target.attr == "grad" and rhs == Const(None):
                node = self.add(
                    "gradstudio.zero_grad", {"set_to_none": True}, _segment(self.source, stmt), line
                )
                self.connect(owner, node, "tensors", line)
            elif (
                target.attr == "requires_grad"
                and isinstance(rhs, Const)
                and isinstance(rhs.value, bool)
            ):
                node = self.add(
                    "Tensor.requires_grad_",
                    {"requires_grad": rhs.value, "form": "attribute"},
                    _segment(self.source, stmt),
                    line,
                )
                self.connect(owner, node, "input", line)
            else:
                raise ImportProblem(f"assigning to .{target.attr} is not supported", line)
        else:
            raise ImportProblem("this kind of assignment is not supported", line)

    def aug_assign(self, stmt: ast.AugAssign) -> None:
        line = stmt.lineno
        if not isinstance(stmt.target, ast.Name):
            raise ImportProblem("augmented assignment is supported on names only", line)
        current = self.env.get(stmt.target.id)
        if isinstance(current, Const):
            self.env[stmt.target.id] = self.expr(
                ast.BinOp(ast.Name(stmt.target.id), stmt.op, stmt.value)
            )
            return
        type_id = INPLACE_OPS.get(type(stmt.op))
        if type_id is None:
            raise ImportProblem(f"{type(stmt.op).__name__}= on a tensor is not supported", line)
        target = self.tensor(stmt.target, line)
        other = self.expr(stmt.value)
        node = self.add(type_id, {}, _segment(self.source, stmt), line)
        self.connect(target, node, "input", line)
        self.feed(node, "other", other, line)
        self.env[stmt.target.id] = TensorRef(node)

    def expression_statement(self, stmt: ast.Expr) -> None:
        value = stmt.value
        if isinstance(value, ast.Constant):
            return  # a docstring or a stray literal
        if isinstance(value, ast.Attribute) and value.attr in INSPECTION_ATTRS:
            return  # ``a.is_leaf`` typed to look at a fact: the studio shows it anyway
        if isinstance(value, ast.Name):
            return
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in IGNORED_CALLS
        ):
            return
        if isinstance(value, ast.Call) and self.dotted(value.func) == "torch.manual_seed":
            seed = self.const(value.args[0], value.lineno) if value.args else 0
            try:
                self.doc.set_setting("seed", seed)
            except EditError as exc:
                raise ImportProblem(exc.message, value.lineno) from None
            return
        self.expr(value, label=_segment(self.source, stmt), statement=True)

    def with_block(self, stmt: ast.With) -> None:
        if len(stmt.items) != 1:
            raise ImportProblem("only `with torch.no_grad():` blocks are supported", stmt.lineno)
        name = (
            self.dotted(stmt.items[0].context_expr.func)
            if isinstance(stmt.items[0].context_expr, ast.Call)
            else None
        )
        if name not in ("torch.no_grad", "torch.enable_grad"):
            raise ImportProblem("only `with torch.no_grad():` blocks are supported", stmt.lineno)
        outer = self.no_grad
        self.no_grad = name == "torch.no_grad"
        try:
            for inner in stmt.body:
                self.statement(inner)
        finally:
            self.no_grad = outer

    # -- expressions ----------------------------------------------------------------

    def dotted(self, node: ast.expr) -> str | None:
        """``torch.nn.functional.linear`` for ``F.linear`` (through import aliases)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        bound = self.env.get(node.id)
        if not isinstance(bound, Module):
            return None
        return ".".join([bound.path, *reversed(parts)])

    def const(self, node: ast.expr, line: int) -> Any:
        value = self.expr(node)
        if not isinstance(value, Const):
            raise ImportProblem("expected a plain value here", line)
        return value.value

    def tensor(self, node: ast.expr, line: int | None) -> TensorRef:
        value = self.expr(node)
        if not isinstance(value, TensorRef):
            raise ImportProblem(f"{_segment(self.source, node) or 'this'} is not a tensor", line)
        return value

    def expr(self, node: ast.expr, label: str | None = None, statement: bool = False) -> Value:
        line = getattr(node, "lineno", None)
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            if node.id in ("True", "False", "None"):
                return Const({"True": True, "False": False, "None": None}[node.id])
            if node.id not in self.env:
                raise ImportProblem(f"name {node.id!r} is not defined above", line)
            return self.env[node.id]
        if isinstance(node, ast.List | ast.Tuple):
            items = [self.expr(e) for e in node.elts]
            if all(isinstance(i, Const) for i in items):
                return Const([i.value for i in items])  # type: ignore[union-attr]
            if all(isinstance(i, TensorRef) for i in items):
                return TensorList(tuple(items))  # type: ignore[arg-type]
            raise ImportProblem("a list must hold only numbers or only tensors", line)
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand)
            if isinstance(operand, Const) and isinstance(node.op, ast.USub | ast.UAdd):
                try:
                    return Const(-operand.value if isinstance(node.op, ast.USub) else operand.value)
                except TypeError:
                    raise ImportProblem("cannot negate this value", line) from None
            if isinstance(operand, TensorRef) and isinstance(node.op, ast.USub):
                return self.op_node(
                    "torch.neg", [operand], {}, label or _segment(self.source, node), line
                )
            if isinstance(node.op, ast.Not) and isinstance(operand, Const):
                return Const(not operand.value)
            raise ImportProblem("this unary operation is not supported", line)
        if isinstance(node, ast.BinOp):
            return self.binop(node, label, line)
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1 or type(node.ops[0]) not in COMPARE:
                raise ImportProblem("only single comparisons (a < b) are supported", line)
            left, right = self.expr(node.left), self.expr(node.comparators[0])
            if isinstance(left, TensorRef):
                return self.op_node(
                    COMPARE[type(node.ops[0])],
                    [left, right],
                    {},
                    label or _segment(self.source, node),
                    line,
                )
            raise ImportProblem("comparisons must have a tensor on the left", line)
        if isinstance(node, ast.IfExp):
            if (
                isinstance(node.test, ast.Call)
                and self.dotted(node.test.func) == "torch.cuda.is_available"
            ):
                return DefaultDevice()
            raise ImportProblem("conditional expressions are not supported", line)
        if isinstance(node, ast.Attribute):
            return self.attribute(node, label, line)
        if isinstance(node, ast.Subscript):
            container = self.expr(node.value)
            returned = self.outputs_of(container) if isinstance(container, ResultRef) else []
            if len(returned) > 1 and isinstance(node.slice, ast.Constant):
                position = node.slice.value
                if isinstance(position, int) and -len(returned) <= position < len(returned):
                    return TensorRef(container.node_id, returned[position])  # type: ignore[union-attr]
            if isinstance(container, TensorRef):
                return self.getitem(container, node, label or _segment(self.source, node), line)
            index = self.expr(node.slice)
            if (
                isinstance(container, ListRef)
                and isinstance(index, Const)
                and isinstance(index.value, int)
            ):
                n = self.add(
                    "gradstudio.select",
                    {"index": index.value},
                    label or _segment(self.source, node),
                    line,
                )
                self.connect(container, n, "list", line)
                return TensorRef(n)
            if isinstance(container, Const) and isinstance(index, Const):
                try:
                    return Const(container.value[index.value])
                except (TypeError, IndexError, KeyError):
                    raise ImportProblem("this index does not fit the value", line) from None
            raise ImportProblem("this value cannot be indexed in GradStudio", line)
        if isinstance(node, ast.Call):
            return self.call(node, label, line, statement)
        raise ImportProblem(f"GradStudio cannot represent {type(node).__name__} expressions", line)

    def index_key(self, node: ast.Subscript, line: int | None) -> tuple[str, list[TensorRef]]:
        """The key text of ``x[...]`` and the tensors its ``index`` placeholders stand for."""
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        items: list[Any] = []
        tensors: list[TensorRef] = []
        for element in elements:
            if isinstance(element, ast.Slice):
                parts = [
                    None if part is None else self.key_int(part, line, in_slice=True)
                    for part in (element.lower, element.upper, element.step)
                ]
                items.append(Slice(*parts))
                continue
            value = self.expr(element)
            if isinstance(value, TensorRef):
                items.append(Placeholder())
                tensors.append(value)
            elif isinstance(value, Const) and (
                value.value is None or value.value is Ellipsis or _is_int(value.value)
            ):
                items.append(value.value)
            elif isinstance(value, Const) and _is_index_list(value.value):
                source = self.add(
                    "torch.tensor", {"data": value.value}, _segment(self.source, element), line
                )
                items.append(Placeholder())
                tensors.append(TensorRef(source))
            else:
                raise ImportProblem(
                    f"the index {_segment(self.source, element)} cannot be represented: an index "
                    "holds integers, slices, None, ..., lists of integers and tensors",
                    line,
                )
        key = IndexKey(tuple(items), isinstance(node.slice, ast.Tuple))
        try:
            return check_key(key.text()), tensors
        except ValueError as exc:
            raise ImportProblem(str(exc), line) from None

    def key_int(self, node: ast.expr, line: int | None, in_slice: bool = False) -> int | None:
        value = self.expr(node)
        if isinstance(value, Const) and (value.value is None or _is_int(value.value)):
            return value.value
        where = "a slice" if in_slice else "an index"
        raise ImportProblem(
            f"{_segment(self.source, node)} in {where} must be an integer or None", line
        )

    def getitem(self, owner: TensorRef, node: ast.Subscript, label: str, line: int | None) -> Value:
        key, tensors = self.index_key(node, line)
        n = self.add("Tensor.__getitem__", {"key": key}, label, line)
        self.connect(owner, n, "input", line)
        for tensor in tensors:
            self.connect(tensor, n, "index", line)
        return TensorRef(n)

    def setitem(self, target: ast.Subscript, value: ast.expr, stmt: ast.stmt) -> None:
        """``x[key] = value``: an in-place assign-at-index node; ``x`` then names its output."""
        line = stmt.lineno
        rhs = self.expr(value)  # Python evaluates the right-hand side first
        owner = self.expr(target.value)
        if not isinstance(owner, TensorRef):
            raise ImportProblem(
                f"{_segment(self.source, target.value)} is not a tensor: only tensors can be "
                "assigned into by index",
                line,
            )
        key, tensors = self.index_key(target, line)
        if not isinstance(rhs, TensorRef) and not (
            isinstance(rhs, Const)
            and isinstance(rhs.value, int | float)
            and not isinstance(rhs.value, bool)
        ):
            raise ImportProblem("the value assigned at an index must be a tensor or a number", line)
        n = self.add("Tensor.__setitem__", {"key": key}, _segment(self.source, stmt), line)
        self.connect(owner, n, "input", line)
        self.feed(n, "value", rhs, line)
        for tensor in tensors:
            self.connect(tensor, n, "index", line)
        if isinstance(target.value, ast.Name):
            self.env[target.value.id] = TensorRef(n)

    def binop(self, node: ast.BinOp, label: str | None, line: int | None) -> Value:
        left, right = self.expr(node.left), self.expr(node.right)
        label = label or _segment(self.source, node)
        if isinstance(left, Const) and isinstance(right, Const):
            try:
                return Const(self.folder.fold(node.op, left.value, right.value))
            except FoldLimit as exc:
                raise ImportProblem(f"cannot fold this constant: {exc}", line) from None
            except Exception:
                raise ImportProblem("this arithmetic on constants fails", line) from None
        type_id = BINOPS.get(type(node.op))
        if type_id is None:
            raise ImportProblem(
                f"the operator {type(node.op).__name__} is not supported on tensors", line
            )
        if isinstance(left, TensorRef):
            return self.op_node(type_id, [left, right], {}, label, line)
        if isinstance(left, Const) and isinstance(right, TensorRef):
            if isinstance(node.op, ast.Add | ast.Mult):
                return self.op_node(type_id, [right, left], {}, label, line)
            if isinstance(node.op, ast.Div):
                recip = self.op_node(
                    "torch.reciprocal", [right], {}, f"1/{_segment(self.source, node.right)}", line
                )
                return self.op_node("torch.mul", [recip, left], {}, label, line)
            if isinstance(node.op, ast.Sub) and self.doc.catalogue.by_function("torch.rsub"):
                return self.op_node("torch.rsub", [right, left], {}, label, line)
            if isinstance(node.op, ast.Pow):
                return self.op_node("torch.pow", [left, right], {}, label, line)
        raise ImportProblem("this operation between a number and a tensor is not supported", line)

    def attribute(self, node: ast.Attribute, label: str | None, line: int | None) -> Value:
        path = self.dotted(node)
        if path is not None:
            name = path.removeprefix("torch.")
            if name in DTYPES or name in DTYPE_ALIASES:
                return Const(DTYPE_ALIASES.get(name, name))
            return Module(path)
        owner = self.expr(node.value)
        attribute = self.doc.catalogue.by_attribute(node.attr)
        if isinstance(owner, TensorRef) and attribute is not None:
            n = self.add(attribute.id, {}, label or _segment(self.source, node), line)
            self.connect(owner, n, "input", line)
            return TensorRef(n)
        if isinstance(owner, FunctionClass) and node.attr == "apply":
            return Module(f"{owner.name}.apply")
        raise ImportProblem(f"the attribute .{node.attr} cannot be used as a value here", line)

    def float_call(self, node: ast.Call, line: int | None) -> Const:
        """``float("-inf")`` (an attention mask's fill), ``float(2)``: a number."""
        args = [self.expr(a) for a in node.args]
        if len(args) == 1 and not node.keywords and isinstance(args[0], Const):
            value = args[0].value
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                try:
                    return Const(float(value))
                except ValueError:
                    pass
        raise ImportProblem("float() is supported on a number or a text such as '-inf'", line)

    def call(self, node: ast.Call, label: str | None, line: int | None, statement: bool) -> Value:
        label = label or _segment(self.source, node)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise ImportProblem("*args and **kwargs are not supported", line)
        func = node.func
        path = self.dotted(func)
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Attribute)
            and func.value.attr == "grad_fn"
            and func.attr in GRAD_FN_HOOK_METHODS
        ):
            target = self.tensor(func.value.value, line)
            return self.hook(target, GRAD_FN_HOOK_METHODS[func.attr], node, line)
        if isinstance(func, ast.Attribute) and path is None:
            owner = self.expr(func.value)
            if isinstance(owner, TensorRef) and func.attr in HOOK_METHODS:
                return self.hook(owner, HOOK_METHODS[func.attr], node, line)
            if isinstance(owner, FunctionClass) and func.attr == "apply":
                return self.function_apply(owner, node, label, line)
            if isinstance(owner, TensorRef):
                return self.method(owner, func.attr, node, label, line, statement)
            if isinstance(owner, ListRef | TensorList):
                raise ImportProblem(f"calling .{func.attr}() on a list is not supported", line)
            raise ImportProblem(f"cannot call .{func.attr}() on this value", line)
        if path is None and isinstance(func, ast.Name) and func.id == "float":
            return self.float_call(node, line)
        if path is None:
            name = func.id if isinstance(func, ast.Name) else _segment(self.source, func)
            raise ImportProblem(f"{name}() is not a PyTorch function GradStudio knows", line)
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg}
        if path == "torch.device":
            if len(args) == 1 and isinstance(args[0], DefaultDevice):
                return args[0]
            return Const(_device_const(args, line))
        if path == "torch.autograd.grad":
            return self.autograd_grad(args, kwargs, label, line)
        if path == "torch.autograd.backward":
            return self.autograd_backward(args, kwargs, label, line)
        if path == "torch.arange" and len(args) == 1 and "end" not in kwargs:
            args = [Const(0), *args]  # torch.arange(end) starts at 0
        node_type = self.doc.catalogue.by_function(path)
        if node_type is None:
            raise ImportProblem(f"{path}() is not in GradStudio's catalogue", line)
        if node_type.id == "torch.Tensor":
            return self.legacy(path, args, kwargs, label, line)
        return self.op_node(node_type.id, args, kwargs, label, line)

    def hook(self, target: TensorRef, on: str, node: ast.Call, line: int | None) -> Value:
        """``t.register_hook(h)`` (and kin) with a top-level ``def h`` or a lambda: a hook
        node holding that code, wired to the tensor."""
        if len(node.args) != 1 or node.keywords:
            raise ImportProblem("a hook is registered with one function argument", line)
        arg = node.args[0]
        if isinstance(arg, ast.Lambda):
            taken = {n.params.get("name") for n in self.doc.nodes()}
            name, count = "hook", 1
            while name in taken:
                count += 1
                name = f"hook_{count}"
            text = " ".join((ast.get_source_segment(self.source, arg) or "").split())
            found: Value = HookDef(name, f"{name} = {text}\n")
        else:
            found = self.expr(arg)
        if not isinstance(found, HookDef):
            raise ImportProblem("register a hook with a function defined above or a lambda", line)
        code = _hook_code(found.source, line)
        if code.co_freevars or outside_names(code):
            used = ", ".join(code.co_freevars or outside_names(code))
            raise ImportProblem(
                f"the hook uses {used} from the program; a hook node holds only its own code",
                line,
            )
        params = {"on": on, "name": found.name, "source": found.source}
        n = self.add("gradstudio.hook", params, found.name, line)
        self.connect(target, n, "tensor", line)
        return Const(None)

    def method(
        self,
        owner: TensorRef,
        name: str,
        node: ast.Call,
        label: str,
        line: int | None,
        statement: bool,
    ) -> Value:
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg}
        if name == "backward":
            return self.backward(owner, args, kwargs, label, line)
        if name == "requires_grad_":
            flag = args[0] if args else kwargs.get("requires_grad", Const(True))
            if not isinstance(flag, Const):
                raise ImportProblem("requires_grad_ takes True or False", line)
            n = self.add("Tensor.requires_grad_", {"requires_grad": flag.value}, label, line)
            self.connect(owner, n, "input", line)
            return TensorRef(n)
        if name == "to" or name in TO_METHODS:
            return self.to(owner, name, args, kwargs, label, line)
        if name == "zero_" and self.is_grad_of(owner):
            # ``x.grad.zero_()``: the zero-grads node, not an in-place op on a new node
            return self.zero_grad_of(owner, label, line)
        node_type = self.doc.catalogue.by_method(name)
        if node_type is None:
            raise ImportProblem(
                f"the tensor method .{name}() is not in GradStudio's catalogue", line
            )
        if not node_type.outputs and not statement:
            raise ImportProblem(f".{name}() returns None; use it as a statement of its own", line)
        return self.op_node(node_type.id, [owner, *args], kwargs, label, line)

    def is_grad_of(self, ref: TensorRef) -> bool:
        return self.doc.node(ref.node_id).type_id == "Tensor.grad"

    def zero_grad_of(self, grad_ref: TensorRef, label: str, line: int | None) -> Value:
        grad_node = grad_ref.node_id
        (edge,) = self.doc.inputs_of(grad_node, "input")
        if not self.doc.successors(grad_node):
            self.doc.remove_node(grad_node)  # it was made only to reach .zero_()
        n = self.add("gradstudio.zero_grad", {"set_to_none": False}, label, line)
        self.connect(TensorRef(edge.src, edge.src_port), n, "tensors", line)
        return Const(None)

    def to(
        self,
        owner: TensorRef,
        name: str,
        args: list[Value],
        kwargs: dict[str, Value],
        label: str,
        line: int | None,
    ) -> Value:
        device, dtype = TO_METHODS.get(name, ("keep", None))
        for value in [*args, *kwargs.values()]:
            if isinstance(value, DefaultDevice):
                device = "default"
            elif isinstance(value, Const) and value.value in DTYPES:
                dtype = value.value
            elif isinstance(value, Const) and isinstance(value.value, str):
                device = _device_const([value], line)
            else:
                raise ImportProblem(".to() takes a device and/or a dtype", line)
        n = self.add("Tensor.to", {"device": device, "dtype": dtype}, label, line)
        self.connect(owner, n, "input", line)
        return TensorRef(n)

    def backward(
        self,
        target: TensorRef,
        args: list[Value],
        kwargs: dict[str, Value],
        label: str,
        line: int | None,
    ) -> Value:
        names = ["gradient", "retain_graph", "create_graph"]
        bound = dict(zip(names, args, strict=False))
        bound.update(kwargs)
        if set(bound) - set(names):
            raise ImportProblem(
                f"backward() got {sorted(set(bound) - set(names))[0]}=, which is not supported",
                line,
            )
        params = {k: self.plain(v, line) for k, v in bound.items() if k != "gradient"}
        n = self.add("Tensor.backward", params, label, line)
        self.connect(target, n, "input", line)
        gradient = bound.get("gradient")
        if gradient is not None and gradient != Const(None):
            if not isinstance(gradient, TensorRef):
                raise ImportProblem("the gradient of backward() must be a tensor", line)
            self.connect(gradient, n, "gradient", line)
        return Const(None)

    def autograd_grad(
        self, args: list[Value], kwargs: dict[str, Value], label: str, line: int | None
    ) -> Value:
        names = ["outputs", "inputs", "grad_outputs", "retain_graph", "create_graph"]
        n = self.list_call("torch.autograd.grad", names, 3, args, kwargs, label, line)
        return ListRef(n, "grads")

    def autograd_backward(
        self, args: list[Value], kwargs: dict[str, Value], label: str, line: int | None
    ) -> Value:
        """``torch.autograd.backward(tensors, grad_tensors)``: every tensor, not the first."""
        if not args and "tensors" not in kwargs:
            raise ImportProblem("torch.autograd.backward needs a tensor", line)
        names = ["tensors", "grad_tensors", "retain_graph", "create_graph"]
        self.list_call("torch.autograd.backward", names, 2, args, kwargs, label, line)
        return Const(None)

    def list_call(
        self,
        type_id: str,
        names: list[str],
        n_lists: int,
        args: list[Value],
        kwargs: dict[str, Value],
        label: str,
        line: int | None,
    ) -> str:
        """A node whose first ``n_lists`` arguments are tensors or lists of tensors."""
        bound = dict(zip(names, args, strict=False))
        bound.update(kwargs)
        ports = names[:n_lists]
        params = {k: self.plain(v, line) for k, v in bound.items() if k not in ports}
        n = self.add(type_id, params, label, line)
        for port in ports:
            value = bound.get(port)
            if value is None or value == Const(None):
                continue
            items = value.items if isinstance(value, TensorList) else (value,)
            for item in items:
                if not isinstance(item, TensorRef):
                    short = type_id.removeprefix("torch.")
                    raise ImportProblem(f"{short}'s {port} must be tensors", line)
                self.connect(item, n, port, line)
        return n

    def function_apply(
        self, cls: FunctionClass, node: ast.Call, label: str, line: int | None
    ) -> Value:
        args = [self.expr(a) for a in node.args]
        if node.keywords:
            raise ImportProblem("Function.apply takes positional arguments only", line)
        template: list[dict[str, Any]] = []
        tensors: list[TensorRef] = []
        for a in args:
            if isinstance(a, TensorRef):
                template.append({"input": len(tensors)})
                tensors.append(a)
            elif isinstance(a, Const):
                template.append({"value": a.value})
            else:
                raise ImportProblem("Function.apply takes tensors and plain values", line)
        named, where = named_arguments(template, len(tensors), cls.source, cls.name)
        params: dict[str, Any] = {"class_name": cls.name, "source": cls.source, "args": named}
        outputs = forward_returns(cls.source, cls.name) or 1
        if outputs > 1:  # ``v, i = Sort.apply(x)``: an output port per returned tensor
            params["outputs"] = outputs
        n = self.add("torch.autograd.Function", params, label, line)
        for t, ports in zip(tensors, where, strict=True):
            for port, _ in ports:
                self.connect(t, n, port, line)
        return ResultRef(n, "out0") if outputs > 1 else TensorRef(n)

    def legacy(
        self, path: str, args: list[Value], kwargs: dict[str, Value], label: str, line: int | None
    ) -> Value:
        if kwargs:
            raise ImportProblem(f"{path}() takes no keyword arguments in GradStudio", line)
        cls = path.rsplit(".", 1)[1]
        values = [self.plain(a, line) for a in args]
        if len(values) == 1 and isinstance(values[0], list):
            params = {"cls": cls, "data": values[0], "sizes": None}
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            params = {"cls": cls, "data": None, "sizes": values}
        else:
            raise ImportProblem(f"{path}() takes sizes or one list of data", line)
        return TensorRef(self.add("torch.Tensor", params, label, line))

    def op_node(
        self,
        type_id: str,
        args: list[Value],
        kwargs: dict[str, Value],
        label: str,
        line: int | None,
    ) -> Value:
        """A node of a catalogue type, binding call arguments to its ports and params."""
        node_type = self.doc.catalogue.get(type_id)
        args, kwargs = _python_arguments(node_type, args, kwargs)
        if "inplace" in kwargs:
            value = kwargs.pop("inplace")
            if not isinstance(value, Const) or not isinstance(value.value, bool):
                raise ImportProblem(f"{node_type.title}(): inplace must be True or False", line)
            if value.value:
                twin = _inplace_twin(self.doc.catalogue, node_type)
                if twin is None:
                    raise ImportProblem(
                        f"{node_type.title}(inplace=True) cannot be imported: GradStudio has no "
                        f"in-place {node_type.title} node (inplace=False computes the same "
                        "values, with a grad_fn of its own)",
                        line,
                    )
                type_id, node_type = twin.id, twin
        inputs, params = _bind(node_type, args, kwargs, line, self.plain)
        n = self.add(type_id, params, label, line)
        for port, value in inputs:
            self.feed(n, port, value, line)
        if not node_type.outputs:
            return Const(None)
        if len(node_type.outputs) > 1:
            return ResultRef(n, node_type.outputs[0].name)
        if node_type.outputs[0].type is PortType.TENSORS:
            return ListRef(n, node_type.outputs[0].name)
        return TensorRef(n, node_type.outputs[0].name)

    def outputs_of(self, ref: TensorRef) -> list[str]:
        """The output ports the call of node ``ref`` returns, in order."""
        node = self.doc.node(ref.node_id)
        return self.doc.catalogue.get(node.type_id).returned(node.params)

    # -- building -------------------------------------------------------------------

    def plain(self, value: Value, line: int | None) -> Any:
        if isinstance(value, Const):
            return value.value
        if isinstance(value, DefaultDevice):
            return "default"
        raise ImportProblem("expected a plain value (number, bool, list) here", line)

    def add(self, type_id: str, params: dict[str, Any], label: str, line: int | None) -> str:
        node_type = self.doc.catalogue.get(type_id)
        if self.no_grad and node_type.has_param("no_grad"):
            params = {**params, "no_grad": True}
        try:
            node = self.doc.new_node(type_id, params=params, label=_label(label))
            self.doc.add_node(node)
        except EditError as exc:
            raise ImportProblem(exc.message, line) from None
        nbytes = source_bytes(node.type, node.params, engine)
        refusal = over_budget(f"'{node.label}'", nbytes, self.memory_budget)
        if refusal is not None:
            raise ImportProblem(refusal, line)
        return node.id

    def connect(
        self, value: TensorRef | ListRef, node_id: str, port: str, line: int | None
    ) -> None:
        try:
            self.doc.connect(value.node_id, value.port, node_id, port)
        except EditError as exc:
            raise ImportProblem(exc.message, line) from None

    def feed(self, node_id: str, port: str, value: Value, line: int | None) -> None:
        """Connect a tensor (or tensors) to a port, or store a number in its scalar param."""
        node_type = self.doc.node(node_id).type
        if isinstance(value, TensorRef):
            self.connect(value, node_id, port, line)
        elif isinstance(value, TensorList):
            for item in value.items:
                self.connect(item, node_id, port, line)
        elif isinstance(value, Const) and node_type.input(port).scalar_ok:
            try:
                self.doc.set_param(node_id, port, value.value)
            except EditError as exc:
                raise ImportProblem(exc.message, line) from None
        else:
            raise ImportProblem(f"{node_type.title}: {port} must be a tensor", line)


def _python_arguments(
    node_type: NodeType, args: list[Value], kwargs: dict[str, Value]
) -> tuple[list[Value], dict[str, Value]]:
    """The call with the arguments a node does not hold named by the engine function's
    Python signature, and dropped where they are that function's defaults: modules pass
    every argument positionally (``nn.MaxPool2d`` gives ``max_pool2d`` its ``dilation=1,
    ceil_mode=False, return_indices=False``, ``nn.LeakyReLU`` its ``inplace``).
    Arguments that change the result stay, for ``_bind`` to refuse by name."""
    parameters = _python_parameters(node_type)
    if parameters is None:
        return args, kwargs
    held = {p.name for p in node_type.inputs} | {p.name for p in node_type.params}
    names = list(parameters)
    args, kwargs = list(args), dict(kwargs)
    first_unheld = next((i for i, n in enumerate(names) if n not in held), len(names))
    if first_unheld < len(args) <= len(names):  # more than it takes: ``_bind`` says so
        for name, value in zip(names[first_unheld:], args[first_unheld:], strict=False):
            kwargs.setdefault(name, value)
        args = args[:first_unheld]
    for name in [n for n in kwargs if n not in held and n in parameters]:
        value, default = kwargs[name], parameters[name].default
        if name != "inplace" and isinstance(value, Const) and _same_default(value.value, default):
            del kwargs[name]
    if "inplace" in kwargs and kwargs["inplace"] == Const(False):
        del kwargs["inplace"]
    return args, kwargs


def _same_default(value: Any, default: Any) -> bool:
    """``value`` is what the function would take anyway (``(1, 1)`` for a default 1 is
    not: only the same value)."""
    if default is inspect.Parameter.empty:
        return False
    return type(value) is type(default) and value == default


def _inplace_twin(catalogue: Any, node_type: NodeType) -> NodeType | None:
    """The in-place node ``inplace=True`` stands for: ``F.leaky_relu_`` for
    ``F.leaky_relu``, the method ``x.relu_()`` for ``F.relu``."""
    for qualname in node_type.functions:
        twin = catalogue.by_function(f"{qualname}_")
        if twin is not None and twin.kind is NodeKind.INPLACE:
            return twin
    twin = catalogue.by_method(f"{node_type.title}_")
    return twin if twin is not None and twin.kind is NodeKind.INPLACE else None


def _python_parameters(node_type: NodeType) -> Any:
    """The engine function's Python parameters, for a node made from a function without
    ``*args`` (None otherwise: methods, ``einsum``'s operands)."""
    from engine.catalog import FUNCTIONS

    for qualname in node_type.functions:
        sig = FUNCTIONS.get(qualname)
        if sig is None or sig.fn is None:
            continue
        parameters = inspect.signature(sig.fn).parameters
        if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters.values()):
            return None
        return parameters
    return None


#: NumPy's argument names that PyTorch takes for its own (``x.sum(axis=0, keepdims=True)``).
NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def _bind(
    node_type: NodeType, args: list[Value], kwargs: dict[str, Value], line: int | None, plain: Any
) -> tuple[list[tuple[str, Value]], dict[str, Any]]:
    """Match call arguments to ports (tensors) then params, by position and by name."""
    scalar_ports = {p.name for p in node_type.inputs if p.scalar_ok}
    param_names = [
        p.name
        for p in node_type.params
        if p.name not in scalar_ports and p.name not in ("no_grad", "device")
    ]
    slots = [p.name for p in node_type.inputs] + param_names
    if node_type.call_order:  # the Python signature's order (``einsum(equation, *operands)``)
        slots = [n for n in node_type.call_order if n in slots]
    variadic = {p.name for p in node_type.inputs if p.variadic}
    greedy = _takes_trailing_sizes(node_type)
    bound: dict[str, Value] = {}
    rest = list(args)
    for name in slots:
        if not rest:
            break
        if name in variadic and isinstance(rest[0], TensorRef):
            bound[name] = TensorList(tuple(rest))  # type: ignore[arg-type]
            rest = []
            break
        spec = (
            node_type.param(name)
            if node_type.has_param(name) and name not in scalar_ports
            else None
        )
        if (
            spec is not None
            and spec.kind in ("shape", "optional_shape")
            and greedy(name)
            and all(
                isinstance(a, Const) and isinstance(a.value, int) and not isinstance(a.value, bool)
                for a in rest
            )
            and len(rest) > 1
        ):
            bound[name] = Const([a.value for a in rest])  # type: ignore[union-attr]
            rest = []
            break
        bound[name] = rest.pop(0)
    if rest:
        raise ImportProblem(f"{node_type.title}() got more arguments than GradStudio knows", line)
    for key, value in kwargs.items():
        alias = NUMPY_ALIASES.get(key)
        if alias is not None and alias in slots and key not in slots:
            key = alias
        if key in bound:
            raise ImportProblem(f"{node_type.title}() got {key} twice", line)
        bound[key] = value
    inputs: list[tuple[str, Value]] = []
    params: dict[str, Any] = {}
    port_names = {p.name for p in node_type.inputs}
    for name, value in bound.items():
        if name in port_names:
            if isinstance(value, Const) and value.value is None and node_type.input(name).optional:
                continue
            inputs.append((name, value))
        elif node_type.has_param(name):
            v = plain(value, line)
            shape = node_type.param(name).kind in ("shape", "optional_shape")
            if shape and isinstance(v, int) and not isinstance(v, bool):
                v = [v]  # ``zeros(size=3)``: one size (``local_response_norm``'s is a count)
            params[name] = v
        else:
            raise ImportProblem(
                f"{node_type.title}() got an argument {name!r} GradStudio does not know", line
            )
    if node_type.kind is NodeKind.SOURCE and "device" in kwargs and node_type.has_param("device"):
        params["device"] = _device_param(kwargs["device"], line)
    return inputs, params


def _takes_trailing_sizes(node_type: NodeType) -> Any:
    """Whether a size param may take the rest of the call's ints (``x.view(2, 3)``,
    ``zeros(2, 3)``): where the engine function takes ``*sizes``, or the param is its last
    positional one; never before another (``roll(x, 1, 1)`` is shifts 1, dims 1)."""
    parameters = _python_parameters(node_type)
    if parameters is None:
        return lambda name: True
    positional = [
        n
        for n, p in parameters.items()
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    return lambda name: bool(positional) and name == positional[-1]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_index_list(value: Any) -> bool:
    """A (nested) list of integers or of bools: ``x[[0, 2]]`` indexes with a tensor."""
    if not isinstance(value, list) or not value:
        return False
    flat: list[Any] = []
    stack = list(value)
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        else:
            flat.append(item)
    return all(_is_int(v) for v in flat) or all(isinstance(v, bool) for v in flat)


def _device_param(value: Value, line: int | None) -> str:
    """``device=None`` is the default device, as in PyTorch (``as_tensor`` passes it on)."""
    if isinstance(value, DefaultDevice) or (isinstance(value, Const) and value.value is None):
        return "default"
    return _device_const([value], line)


def _device_const(args: list[Value], line: int | None) -> str:
    if len(args) == 1 and isinstance(args[0], DefaultDevice):
        return "default"
    if len(args) != 1 or not isinstance(args[0], Const) or not isinstance(args[0].value, str):
        raise ImportProblem("a device is 'cpu' or 'cuda'", line)
    name = args[0].value.split(":")[0]
    if name not in ("cpu", "cuda"):
        raise ImportProblem(f"unknown device {args[0].value!r}", line)
    return name


def _segment(source: str, node: ast.AST) -> str:
    return ast.get_source_segment(source, node) or type(node).__name__


def _label(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= 40 else text[:37] + "..."


def import_snippet(
    source: str,
    filename: str = "<snippet>",
    trusted: bool = False,
    memory_budget: int | None = DEFAULT_BUDGET,
) -> Document:
    """A document for a PyTorch snippet; its code is parsed, never run.

    A document with custom Function code is trusted only if ``trusted`` says so:
    the snippet may come from anywhere.  A tensor made from a shape bigger than
    ``memory_budget`` (the studio's Run > Memory Budget) is refused at its line,
    naming its size and the budget.
    """
    if len(source) > MAX_SNIPPET_CHARS:
        raise ImportProblem(
            f"the snippet is {len(source):,} characters long; "
            f"GradStudio imports snippets of up to {MAX_SNIPPET_CHARS:,}"
        )
    source = _strip_prompts(source)
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        raise ImportProblem(f"the snippet is not valid Python ({exc.msg})", exc.lineno) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ImportProblem(f"the snippet cannot be parsed ({exc})") from None
    importer = _Importer(source, memory_budget=memory_budget)
    try:
        importer.run(tree)
    except RecursionError:
        raise ImportProblem("the snippet is nested too deeply") from None
    doc = importer.doc
    for node_id, (x, y) in auto_layout(doc).items():
        doc.move_node(node_id, x, y)
    return admit(doc, trusted)
