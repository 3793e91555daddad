"""The inspector's pages when no single node is shown: a grad_fn picked on the backward
view, several nodes (or a group) selected, or nothing (the document's story); and the
links of ``next_functions`` and of a backward trace, which select the grad_fn clicked."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtWidgets import QWidget

from gradstudio.document.groups import Group, whole_groups
from gradstudio.document.model import Document
from gradstudio.evaluation.facts import BackwardTrace, GradFnFacts
from gradstudio.evaluation.grad_fn_index import GradFnIndex
from ui.backward.model import parse_key
from ui.inspector.fact_text import Muted, saved_html
from ui.inspector.sections import LinkList, Section, make_form, value_label
from ui.inspector.value_view import WrapLabel, tensor_text
from ui.state import StudioState

MANY_LISTED = 12  # nodes named on the page of a multi-selection

#: A link of a ``LinkList``: text, tooltip, what a click does (None: plain text), current.
Link = tuple[str, str, Callable[[], None] | None, bool]
#: Selects a grad_fn by its key, and the node that owns it.
OpenGradFn = Callable[[int], None]


@dataclass
class Page:
    """The inspector's heading and the widgets of its body."""

    title: str
    subtitle: str
    widgets: list[QWidget] = field(default_factory=list)


def selected_group(doc: Document, selected: list[str]) -> Group | None:
    """The outermost group whose nodes are exactly ``selected`` (a selected frame), or None."""
    chosen = set(selected)
    exact = [gid for gid in whole_groups(doc.groups, chosen) if doc.group_members(gid) == chosen]
    outer = [gid for gid in exact if doc.group(gid).parent not in exact]
    return doc.group(outer[0]) if outer else None


def next_function_links(
    fn: GradFnFacts, index: GradFnIndex | None, open_grad_fn: OpenGradFn
) -> list[Link]:
    """``fn.next_functions``, each naming the node that owns it."""
    links: list[Link] = []
    for i, nxt in enumerate(fn.next_functions):
        if nxt is None:
            links.append((f"[{i}] None", "this input does not require grad", None, False))
            continue
        owner = index.node_for(nxt.key) if index is not None else None
        where = f" → {index.label(owner)}" if owner is not None and index is not None else ""
        tip = "select this grad_fn" + (
            f" and its node {index.label(owner)}" if where and index else ""
        )
        links.append(
            (
                f"[{i}] ({nxt.name}, {nxt.index}){where}",
                tip,
                lambda _=False, k=nxt.key: open_grad_fn(k),
                False,
            )
        )
    return links


def trace_links(
    trace: BackwardTrace, index: GradFnIndex, done: int | None, open_grad_fn: OpenGradFn
) -> list[Link]:
    """The grad_fns backward ran, in order; ``done`` of them so far while it replays."""
    links: list[Link] = []
    for i, ex in enumerate(trace.executions):
        owner = index.node_for(ex.key)
        where = f" → {index.label(owner)}" if owner else ""
        grad = ex.incoming[0] if ex.incoming else None
        g = f"  ∂ = {tensor_text(grad.array, grad.dtype, grad.device)}" if grad is not None else ""
        current = done is not None and i == done - 1
        pending = done is not None and i >= done
        text = f"{i + 1}. {ex.name}{where}{'  (not yet)' if pending else ''}"
        links.append(
            (
                text,
                f"gradient in{g}" if g else ex.name,
                lambda _=False, k=ex.key: open_grad_fn(k),
                current,
            )
        )
    return links


def blank_page(state: StudioState, parent: QWidget, muted: Muted, open_grad_fn: OpenGradFn) -> Page:
    """The page without one node: the selection, the grad_fn picked, or the document."""
    selected = [n for n in state.selection if n in state.document]
    if len(selected) > 1:
        return selection_page(state, selected, parent, muted)
    key = parse_key(state.grad_fn_key)
    playhead = state.playhead
    ev, snap, index = playhead.evaluation, playhead.snapshot(), playhead.index
    if (
        key is not None
        and ev is not None
        and index is not None
        and snap is not None
        and key in snap.grad_fns()
    ):
        fn = snap.grad_fn(key)
        owner = index.node_for(key)
        page = Page(
            fn.name,
            muted(
                f"the grad_fn of {ev.plan.labels.get(owner, owner)}"
                if owner is not None
                else "a grad_fn inside an operation: no node of the graph owns it"
            ),
        )
        section = Section("grad_fn", parent)
        w, form = make_form()
        links = LinkList()
        links.set_links(next_function_links(fn, playhead.index, open_grad_fn))
        form.addRow("next_functions", links)
        saved = value_label("savedTensors")
        saved.setText(saved_html(fn, muted))
        form.addRow("saved", saved)
        section.add(w)
        page.widgets.append(section)
        return page
    page = Page("Inspector", muted("Select a node on the canvas to see and edit it."))
    meta = state.document.meta
    story = meta.get("description", "")
    if story:  # what the example (or the user's document) is about
        about = WrapLabel(
            f"<b>{html.escape(meta.get('title', ''))}</b><br>{html.escape(story)}"
            if meta.get("title")
            else html.escape(story)
        )
        about.setObjectName("documentDescription")
        about.setWordWrap(True)
        page.widgets.append(about)
    hint = WrapLabel(
        muted(
            "Each node shows what PyTorch would report about its tensor: value, "
            "requires_grad, is_leaf, grad_fn, .grad — at the step the timeline shows."
        )
    )
    hint.setWordWrap(True)
    page.widgets.append(hint)
    return page


def selection_page(state: StudioState, selected: list[str], parent: QWidget, muted: Muted) -> Page:
    """Several nodes selected: say which (each selects itself alone when clicked)."""
    doc = state.document
    page = Page(f"{len(selected)} nodes selected", muted("Select one node to see and edit it."))
    group = selected_group(doc, selected)
    if group is not None:  # a group's frame or card is selected: say what it is
        page.title = group.title
        page.subtitle = muted(f"{group.subtitle} · {len(selected)} nodes")
        about = Section("Group", parent)
        w, form = make_form()
        for name, value in [("kind", group.kind), *sorted(group.meta.items())]:
            label = value_label(f"group_{name}")
            label.setText(html.escape(value))
            form.addRow(html.escape(name), label)
        about.add(w)
        page.widgets.append(about)
    section = Section("Selection", parent)
    links = LinkList()
    shown = selected[:MANY_LISTED]
    links.set_links(
        [
            (
                doc.node(n).label,
                f"{doc.node(n).type.title} — click to select only this node",
                lambda _checked=False, n=n: state.select((n,)),
                False,
            )
            for n in shown
        ]
    )
    section.add(links)
    if len(selected) > len(shown):
        more = WrapLabel(muted(f"… and {len(selected) - len(shown)} more"))
        section.add(more)
    page.widgets.append(section)
    return page
