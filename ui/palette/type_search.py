"""Finding node types by what a learner types: ``add``, ``mul``, ``F.linear``, ``backward``.

Shared by the palette's search field and the canvas's Tab search, so both rank the
same way: a title that starts with the query first, then words inside titles and names,
then categories and descriptions, then loose subsequence matches (``lsm`` finds
``log_softmax``).  A type's namespace (``Tensor.`` of ``Tensor.add_``) counts only when
the query names one (has a dot): otherwise ``tensor`` would list every in-place method
before the descriptions that are about tensors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gradstudio.catalogue import NodeType, PortType

ALIASES = {"f.": "torch.nn.functional.", "nn.functional.": "torch.nn.functional."}


def _subsequence(query: str, text: str) -> bool:
    it = iter(text)
    return all(ch in it for ch in query)


def score(node_type: NodeType, query: str) -> int | None:
    """Higher is better; None when the type does not match at all."""
    q = query.strip().lower()
    if not q:
        return 0
    for short, full in ALIASES.items():
        if q.startswith(short):
            q = full + q[len(short) :]
    title = node_type.title.lower()
    tid = node_type.id.lower()
    name = tid.rsplit(".", 1)[-1]
    if title == q or tid == q or tid.endswith("." + q):
        return 100
    if title.startswith(q):
        return 80
    if name.startswith(q):
        return 70
    if q in title:
        return 60
    if q in (tid if "." in q else name):
        return 50
    if q in node_type.category.lower():
        return 30
    if q in node_type.doc.lower():
        return 15
    if len(q) >= 2 and _subsequence(q, title):
        return 10
    if q in tid:  # the namespace only
        return 5
    return None


def search(types: Iterable[NodeType], query: str) -> list[NodeType]:
    """Matching types, best first (palette order among equals)."""
    scored = []
    for index, t in enumerate(types):
        s = score(t, query)
        if s is not None:
            scored.append((-s, index, t))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [t for _, _, t in scored]


def accepting(port_type: PortType, from_output: bool) -> Callable[[NodeType], bool]:
    """Types that can take a wire dragged from a port of ``port_type``.

    Dragged from an output: types with an input of that type; from an input: types
    with such an output.
    """

    def ok(t: NodeType) -> bool:
        ports = t.inputs if from_output else t.outputs
        return any(p.type is port_type for p in ports)

    return ok


def first_port(node_type: NodeType, port_type: PortType, inputs: bool) -> str | None:
    """The port a dropped wire connects to on a new node of ``node_type``."""
    ports = node_type.inputs if inputs else node_type.outputs
    for p in ports:
        if p.type is port_type:
            return p.name
    return None


def short_module(type_id: str) -> str:
    """How PyTorch code spells a type's namespace: ``F``, ``torch``, ``Tensor``."""
    head, _, _name = type_id.rpartition(".")
    return {"torch.nn.functional": "F", "torch.Tensor": "Tensor"}.get(head, head or type_id)


def display_names(types: Iterable[NodeType]) -> dict[str, str]:
    """Palette text per type id: the title, qualified where two types share it (relu, F.relu)."""
    types = list(types)
    counts: dict[str, int] = {}
    for t in types:
        counts[t.title] = counts.get(t.title, 0) + 1
    return {
        t.id: (f"{short_module(t.id)}.{t.title}" if counts[t.title] > 1 else t.title) for t in types
    }
