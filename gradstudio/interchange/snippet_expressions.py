"""Reading a snippet's expressions: names, constants, operators, indexing, attribute
reads and calls become values, and the nodes they stand for are added to the document."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from gradstudio.document.index_key import IndexKey, Placeholder, Slice, check_key
from gradstudio.function_args import forward_returns, named_arguments
from gradstudio.interchange.folding import Folder, FoldLimit
from gradstudio.interchange.snippet_binding import device_const
from gradstudio.interchange.snippet_building import TO_METHODS, GraphBuilder
from gradstudio.interchange.snippet_hooks import (
    GRAD_FN_HOOK_METHODS,
    HOOK_METHODS,
    hook_code,
    outside_names,
)
from gradstudio.interchange.snippet_values import (
    Const,
    DefaultDevice,
    FunctionClass,
    HookDef,
    ImportProblem,
    ListRef,
    Module,
    ResultRef,
    TensorList,
    TensorRef,
    Value,
)
from gradstudio.params import DTYPE_ALIASES, DTYPES

BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "torch.add",
    ast.Sub: "torch.sub",
    ast.Mult: "torch.mul",
    ast.Div: "torch.div",
    ast.MatMult: "torch.matmul",
    ast.Pow: "torch.pow",
}
COMPARE = {
    ast.Eq: "torch.eq",
    ast.NotEq: "torch.ne",
    ast.Lt: "torch.lt",
    ast.LtE: "torch.le",
    ast.Gt: "torch.gt",
    ast.GtE: "torch.ge",
}


@dataclass
class ExpressionReader:
    """The snippet's names (``env``) and the reading of one expression into a value."""

    source: str
    build: GraphBuilder
    env: dict[str, Value] = field(default_factory=dict)
    folder: Folder = field(default_factory=Folder)

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
            raise ImportProblem(f"{segment(self.source, node) or 'this'} is not a tensor", line)
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
                return self.build.op_node(
                    "torch.neg", [operand], {}, label or segment(self.source, node), line
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
                return self.build.op_node(
                    COMPARE[type(node.ops[0])],
                    [left, right],
                    {},
                    label or segment(self.source, node),
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
            returned = self.build.outputs_of(container) if isinstance(container, ResultRef) else []
            if len(returned) > 1 and isinstance(node.slice, ast.Constant):
                position = node.slice.value
                if isinstance(position, int) and -len(returned) <= position < len(returned):
                    return TensorRef(container.node_id, returned[position])  # type: ignore[union-attr]
            if isinstance(container, TensorRef):
                return self.getitem(container, node, label or segment(self.source, node), line)
            index = self.expr(node.slice)
            if (
                isinstance(container, ListRef)
                and isinstance(index, Const)
                and isinstance(index.value, int)
            ):
                n = self.build.add(
                    "gradstudio.select",
                    {"index": index.value},
                    label or segment(self.source, node),
                    line,
                )
                self.build.connect(container, n, "list", line)
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
                source = self.build.add(
                    "torch.tensor", {"data": value.value}, segment(self.source, element), line
                )
                items.append(Placeholder())
                tensors.append(TensorRef(source))
            else:
                raise ImportProblem(
                    f"the index {segment(self.source, element)} cannot be represented: an index "
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
            f"{segment(self.source, node)} in {where} must be an integer or None", line
        )

    def getitem(self, owner: TensorRef, node: ast.Subscript, label: str, line: int | None) -> Value:
        key, tensors = self.index_key(node, line)
        n = self.build.add("Tensor.__getitem__", {"key": key}, label, line)
        self.build.connect(owner, n, "input", line)
        for tensor in tensors:
            self.build.connect(tensor, n, "index", line)
        return TensorRef(n)

    def binop(self, node: ast.BinOp, label: str | None, line: int | None) -> Value:
        left, right = self.expr(node.left), self.expr(node.right)
        label = label or segment(self.source, node)
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
            return self.build.op_node(type_id, [left, right], {}, label, line)
        if isinstance(left, Const) and isinstance(right, TensorRef):
            if isinstance(node.op, ast.Add | ast.Mult):
                return self.build.op_node(type_id, [right, left], {}, label, line)
            if isinstance(node.op, ast.Div):
                recip = self.build.op_node(
                    "torch.reciprocal", [right], {}, f"1/{segment(self.source, node.right)}", line
                )
                return self.build.op_node("torch.mul", [recip, left], {}, label, line)
            if isinstance(node.op, ast.Sub) and self.build.doc.catalogue.by_function("torch.rsub"):
                return self.build.op_node("torch.rsub", [right, left], {}, label, line)
            if isinstance(node.op, ast.Pow):
                return self.build.op_node("torch.pow", [left, right], {}, label, line)
        raise ImportProblem("this operation between a number and a tensor is not supported", line)

    def attribute(self, node: ast.Attribute, label: str | None, line: int | None) -> Value:
        path = self.dotted(node)
        if path is not None:
            name = path.removeprefix("torch.")
            if name in DTYPES or name in DTYPE_ALIASES:
                return Const(DTYPE_ALIASES.get(name, name))
            return Module(path)
        owner = self.expr(node.value)
        attribute = self.build.doc.catalogue.by_attribute(node.attr)
        if isinstance(owner, TensorRef) and attribute is not None:
            n = self.build.add(attribute.id, {}, label or segment(self.source, node), line)
            self.build.connect(owner, n, "input", line)
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
        label = label or segment(self.source, node)
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
            name = func.id if isinstance(func, ast.Name) else segment(self.source, func)
            raise ImportProblem(f"{name}() is not a PyTorch function GradStudio knows", line)
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg}
        if path == "torch.device":
            if len(args) == 1 and isinstance(args[0], DefaultDevice):
                return args[0]
            return Const(device_const(args, line))
        if path == "torch.autograd.grad":
            return self.build.autograd_grad(args, kwargs, label, line)
        if path == "torch.autograd.backward":
            return self.build.autograd_backward(args, kwargs, label, line)
        if path == "torch.arange" and len(args) == 1 and "end" not in kwargs:
            args = [Const(0), *args]  # torch.arange(end) starts at 0
        node_type = self.build.doc.catalogue.by_function(path)
        if node_type is None:
            raise ImportProblem(f"{path}() is not in GradStudio's catalogue", line)
        if node_type.id == "torch.Tensor":
            return self.build.legacy(path, args, kwargs, label, line)
        return self.build.op_node(node_type.id, args, kwargs, label, line)

    def hook(self, target: TensorRef, on: str, node: ast.Call, line: int | None) -> Value:
        """``t.register_hook(h)`` (and kin) with a top-level ``def h`` or a lambda: a hook
        node holding that code, wired to the tensor."""
        if len(node.args) != 1 or node.keywords:
            raise ImportProblem("a hook is registered with one function argument", line)
        arg = node.args[0]
        if isinstance(arg, ast.Lambda):
            taken = {n.params.get("name") for n in self.build.doc.nodes()}
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
        code = hook_code(found.source, line)
        if code.co_freevars or outside_names(code):
            used = ", ".join(code.co_freevars or outside_names(code))
            raise ImportProblem(
                f"the hook uses {used} from the program; a hook node holds only its own code",
                line,
            )
        params = {"on": on, "name": found.name, "source": found.source}
        n = self.build.add("gradstudio.hook", params, found.name, line)
        self.build.connect(target, n, "tensor", line)
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
            return self.build.backward(owner, args, kwargs, label, line)
        if name == "requires_grad_":
            flag = args[0] if args else kwargs.get("requires_grad", Const(True))
            if not isinstance(flag, Const):
                raise ImportProblem("requires_grad_ takes True or False", line)
            n = self.build.add("Tensor.requires_grad_", {"requires_grad": flag.value}, label, line)
            self.build.connect(owner, n, "input", line)
            return TensorRef(n)
        if name == "to" or name in TO_METHODS:
            return self.build.to(owner, name, args, kwargs, label, line)
        if name == "zero_" and self.build.is_grad_of(owner):
            # ``x.grad.zero_()``: the zero-grads node, not an in-place op on a new node
            return self.build.zero_grad_of(owner, label, line)
        node_type = self.build.doc.catalogue.by_method(name)
        if node_type is None:
            raise ImportProblem(
                f"the tensor method .{name}() is not in GradStudio's catalogue", line
            )
        if not node_type.outputs and not statement:
            raise ImportProblem(f".{name}() returns None; use it as a statement of its own", line)
        return self.build.op_node(node_type.id, [owner, *args], kwargs, label, line)

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
        n = self.build.add("torch.autograd.Function", params, label, line)
        for t, ports in zip(tensors, where, strict=True):
            for port, _ in ports:
                self.build.connect(t, n, port, line)
        return ResultRef(n, "out0") if outputs > 1 else TensorRef(n)


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


def segment(source: str, node: ast.AST) -> str:
    return ast.get_source_segment(source, node) or type(node).__name__
