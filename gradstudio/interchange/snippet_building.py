"""Building the document a snippet describes: nodes of catalogue types, their edges and
params, from values already read.  The static importer and Run to Import share it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import engine
from gradstudio.catalogue import PortType
from gradstudio.document.model import Document
from gradstudio.document.values import EditError
from gradstudio.evaluation.budget import DEFAULT_BUDGET, over_budget, source_bytes
from gradstudio.interchange.snippet_binding import (
    bind,
    device_const,
    inplace_twin,
    python_arguments,
)
from gradstudio.interchange.snippet_values import (
    Const,
    DefaultDevice,
    ImportProblem,
    ListRef,
    ResultRef,
    TensorList,
    TensorRef,
    Value,
)
from gradstudio.params import DTYPES

TO_METHODS = {
    "cuda": ("cuda", None),
    "cpu": ("cpu", None),
    "double": ("keep", "float64"),
    "float": ("keep", "float32"),
    "half": ("keep", "float16"),
    "long": ("keep", "int64"),
    "int": ("keep", "int32"),
}


@dataclass
class GraphBuilder:
    """The document being built; ``no_grad`` marks the nodes added inside ``torch.no_grad()``."""

    doc: Document = field(default_factory=Document)
    no_grad: bool = False
    #: Bytes of tensor data a run may hold: a source bigger than this is refused.
    memory_budget: int | None = DEFAULT_BUDGET

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
                device = device_const([value], line)
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
        args, kwargs = python_arguments(node_type, args, kwargs)
        if "inplace" in kwargs:
            value = kwargs.pop("inplace")
            if not isinstance(value, Const) or not isinstance(value.value, bool):
                raise ImportProblem(f"{node_type.title}(): inplace must be True or False", line)
            if value.value:
                twin = inplace_twin(self.doc.catalogue, node_type)
                if twin is None:
                    raise ImportProblem(
                        f"{node_type.title}(inplace=True) cannot be imported: GradStudio has no "
                        f"in-place {node_type.title} node (inplace=False computes the same "
                        "values, with a grad_fn of its own)",
                        line,
                    )
                type_id, node_type = twin.id, twin
        inputs, params = bind(node_type, args, kwargs, line, self.plain)
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
            node = self.doc.new_node(type_id, params=params, label=short_label(label))
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


def short_label(text: str) -> str:
    """A label on one line, at most 40 characters (a card's title)."""
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= 40 else text[:37] + "..."
