"""Reading a snippet's statements in program order: imports, ``class X(Function)`` and
hook ``def``s, assignments (to names, indices, ``.grad``), expression statements and
``with torch.no_grad():`` blocks."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from gradstudio.document.values import EditError
from gradstudio.interchange.snippet_building import GraphBuilder
from gradstudio.interchange.snippet_expressions import ExpressionReader, segment
from gradstudio.interchange.snippet_values import (
    Const,
    FunctionClass,
    HookDef,
    ImportProblem,
    ListRef,
    Module,
    ResultRef,
    TensorRef,
)

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
INPLACE_OPS: dict[type[ast.operator], str] = {
    ast.Add: "Tensor.add_",
    ast.Sub: "Tensor.sub_",
    ast.Mult: "Tensor.mul_",
    ast.Div: "Tensor.div_",
}


@dataclass
class StatementReader:
    """A snippet read statement by statement into ``build``'s document."""

    source: str
    build: GraphBuilder
    read: ExpressionReader = field(init=False)

    def __post_init__(self) -> None:
        self.read = ExpressionReader(self.source, self.build)

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
            self.read.env[stmt.name] = HookDef(stmt.name, "\n".join(lines) + "\n")
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
                    self.read.env[alias.asname] = Module(alias.name)
                else:
                    self.read.env[alias.name.split(".")[0]] = Module(alias.name.split(".")[0])
            return
        base = stmt.module or ""
        for alias in stmt.names:
            path = f"{base}.{alias.name}"
            if (
                path in MODULES
                or path == "torch.autograd.Function"
                or (base in MODULES and alias.name != "*")
            ):
                self.read.env[alias.asname or alias.name] = Module(path)
            else:
                raise ImportProblem(f"only torch can be imported, not {path}", stmt.lineno)

    def class_def(self, stmt: ast.ClassDef) -> None:
        bases = [self.read.expr(b) for b in stmt.bases]
        if not any(isinstance(b, Module) and b.path == "torch.autograd.Function" for b in bases):
            raise ImportProblem(
                f"class {stmt.name} is not an autograd.Function; only those can be imported",
                stmt.lineno,
            )
        first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
        lines = self.source.splitlines()[first - 1 : stmt.end_lineno]
        self.read.env[stmt.name] = FunctionClass(stmt.name, "\n".join(lines) + "\n")

    def assign(self, target: ast.expr, value: ast.expr, stmt: ast.stmt) -> None:
        line = stmt.lineno
        if isinstance(target, ast.Name) and isinstance(value, ast.Lambda):
            text = " ".join((ast.get_source_segment(self.source, value) or "").split())
            self.read.env[target.id] = HookDef(target.id, f"{target.id} = {text}\n")
        elif isinstance(target, ast.Name):
            self.read.env[target.id] = self.read.expr(value, label=target.id)
        elif isinstance(target, ast.Tuple | ast.List) and all(
            isinstance(t, ast.Name) for t in target.elts
        ):
            result = self.read.expr(value)
            if isinstance(result, ListRef):
                for i, t in enumerate(target.elts):
                    node = self.build.add("gradstudio.select", {"index": i}, t.id, line)  # type: ignore[attr-defined]
                    self.build.connect(result, node, "list", line)
                    self.read.env[t.id] = TensorRef(node)  # type: ignore[attr-defined]
            elif isinstance(result, ResultRef) and len(self.build.outputs_of(result)) > 1:
                # ``values, indices = x.max(1)``, ``Q, R = torch.linalg.qr(A)``: one name a port
                outputs = self.build.outputs_of(result)
                if len(outputs) != len(target.elts):
                    raise ImportProblem(
                        f"cannot unpack {len(outputs)} results into {len(target.elts)} names",
                        line,
                    )
                for t, port in zip(target.elts, outputs, strict=True):
                    self.read.env[t.id] = TensorRef(result.node_id, port)  # type: ignore[attr-defined]
            elif isinstance(result, Const) and isinstance(result.value, list | tuple):
                if len(result.value) != len(target.elts):
                    raise ImportProblem("cannot unpack: the number of values differs", line)
                for t, v in zip(target.elts, result.value, strict=True):
                    self.read.env[t.id] = Const(v)  # type: ignore[attr-defined]
            else:
                raise ImportProblem(
                    "only autograd.grad results can be unpacked into several names", line
                )
        elif isinstance(target, ast.Subscript):
            self.setitem(target, value, stmt)
        elif isinstance(target, ast.Attribute):
            owner = self.read.tensor(target.value, line)
            rhs = self.read.expr(value)
            if target.attr == "grad" and rhs == Const(None):
                node = self.build.add(
                    "gradstudio.zero_grad", {"set_to_none": True}, segment(self.source, stmt), line
                )
                self.build.connect(owner, node, "tensors", line)
            elif (
                target.attr == "requires_grad"
                and isinstance(rhs, Const)
                and isinstance(rhs.value, bool)
            ):
                node = self.build.add(
                    "Tensor.requires_grad_",
                    {"requires_grad": rhs.value, "form": "attribute"},
                    segment(self.source, stmt),
                    line,
                )
                self.build.connect(owner, node, "input", line)
            else:
                raise ImportProblem(f"assigning to .{target.attr} is not supported", line)
        else:
            raise ImportProblem("this kind of assignment is not supported", line)

    def aug_assign(self, stmt: ast.AugAssign) -> None:
        line = stmt.lineno
        if not isinstance(stmt.target, ast.Name):
            raise ImportProblem("augmented assignment is supported on names only", line)
        current = self.read.env.get(stmt.target.id)
        if isinstance(current, Const):
            self.read.env[stmt.target.id] = self.read.expr(
                ast.BinOp(ast.Name(stmt.target.id), stmt.op, stmt.value)
            )
            return
        type_id = INPLACE_OPS.get(type(stmt.op))
        if type_id is None:
            raise ImportProblem(f"{type(stmt.op).__name__}= on a tensor is not supported", line)
        target = self.read.tensor(stmt.target, line)
        other = self.read.expr(stmt.value)
        node = self.build.add(type_id, {}, segment(self.source, stmt), line)
        self.build.connect(target, node, "input", line)
        self.build.feed(node, "other", other, line)
        self.read.env[stmt.target.id] = TensorRef(node)

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
        if isinstance(value, ast.Call) and self.read.dotted(value.func) == "torch.manual_seed":
            seed = self.read.const(value.args[0], value.lineno) if value.args else 0
            try:
                self.build.doc.set_setting("seed", seed)
            except EditError as exc:
                raise ImportProblem(exc.message, value.lineno) from None
            return
        self.read.expr(value, label=segment(self.source, stmt), statement=True)

    def with_block(self, stmt: ast.With) -> None:
        if len(stmt.items) != 1:
            raise ImportProblem("only `with torch.no_grad():` blocks are supported", stmt.lineno)
        name = (
            self.read.dotted(stmt.items[0].context_expr.func)
            if isinstance(stmt.items[0].context_expr, ast.Call)
            else None
        )
        if name not in ("torch.no_grad", "torch.enable_grad"):
            raise ImportProblem("only `with torch.no_grad():` blocks are supported", stmt.lineno)
        outer = self.build.no_grad
        self.build.no_grad = name == "torch.no_grad"
        try:
            for inner in stmt.body:
                self.statement(inner)
        finally:
            self.build.no_grad = outer

    def setitem(self, target: ast.Subscript, value: ast.expr, stmt: ast.stmt) -> None:
        """``x[key] = value``: an in-place assign-at-index node; ``x`` then names its output."""
        line = stmt.lineno
        rhs = self.read.expr(value)  # Python evaluates the right-hand side first
        owner = self.read.expr(target.value)
        if not isinstance(owner, TensorRef):
            raise ImportProblem(
                f"{segment(self.source, target.value)} is not a tensor: only tensors can be "
                "assigned into by index",
                line,
            )
        key, tensors = self.read.index_key(target, line)
        if not isinstance(rhs, TensorRef) and not (
            isinstance(rhs, Const)
            and isinstance(rhs.value, int | float)
            and not isinstance(rhs.value, bool)
        ):
            raise ImportProblem("the value assigned at an index must be a tensor or a number", line)
        n = self.build.add("Tensor.__setitem__", {"key": key}, segment(self.source, stmt), line)
        self.build.connect(owner, n, "input", line)
        self.build.feed(n, "value", rhs, line)
        for tensor in tensors:
            self.build.connect(tensor, n, "index", line)
        if isinstance(target.value, ast.Name):
            self.read.env[target.value.id] = TensorRef(n)
