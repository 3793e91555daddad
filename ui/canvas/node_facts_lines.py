"""The facts lines of a node card, under its ports: the tensor's value (as many
elements as fit), shape and dtype, the leaf pill, the ``grad_fn`` or
``requires_grad`` mark, the ``.grad`` badge and warnings; or, instead, the sentence
that says why there are none (an error, a step not run yet, input awaited).

A mixin of ``NodeItem``; it draws through ``node_painting``'s ``_text``, so what it
writes is in ``drawn_texts`` too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen

from gradstudio.catalogue import NodeKind
from ui.canvas.card_text import CardText
from ui.canvas.node_facts import (
    MAX_INLINE_ELEMENTS,
    NodeFacts,
    format_array,
    format_shape,
)
from ui.canvas.style import FACTS_LINE, FACTS_PAD, CanvasStyle

if TYPE_CHECKING:
    from gradstudio.catalogue import NodeType
    from gradstudio.document.values import Node
    from ui.canvas.scene import GraphScene

GRAD_BADGE_CHARS = 9  # a .grad value this short is written in its badge


def _param_summary(node: Node) -> str:
    """A one-line reminder of a source node's set-up, shown before evaluation."""
    params = node.params
    for name in ("data", "size", "sizes", "fill_value", "end"):
        if name in params and params[name] is not None:
            value = params[name]
            text = format_shape(tuple(value)) if name in ("size", "sizes") else str(value)
            return f"{name} = {text}"
    return ""


def _wrap(text: str, metrics: QFontMetricsF, width: float, lines: int) -> list[str]:
    """Word-wrap ``text`` into at most ``lines`` lines; the last one holds the rest
    (the painter elides it if it is still too long, and records that it did)."""
    words = text.split()
    out: list[str] = []
    while words and len(out) < lines - 1:
        line = words.pop(0)
        while words and metrics.horizontalAdvance(line + " " + words[0]) <= width:
            line += " " + words.pop(0)
        out.append(line)
    if words:
        out.append(" ".join(words))
    return out


def _fitting_value(facts: NodeFacts, metrics: QFontMetricsF, width: float) -> str:
    """The tensor's value with as many elements as fit in ``width`` (``[0.4963, …]``):
    fewer elements rather than a cut number; empty when not even one fits."""
    text = facts.value
    if facts.tensor is None or metrics.horizontalAdvance(text) <= width:
        return text
    for budget in range(MAX_INLINE_ELEMENTS - 1, 0, -1):
        text = format_array(facts.tensor.array, budget)
        if metrics.horizontalAdvance(text) <= width:
            return text
    return ""


class NodeFactsLines(CardText):
    """``NodeItem``'s facts lines (mixed into it)."""

    host: GraphScene
    node: Node
    node_type: NodeType
    facts: NodeFacts
    width: float
    height: float
    facts_top: float

    def _pill(
        self,
        painter: QPainter,
        s: CanvasStyle,
        x: float,
        y: float,
        text: str,
        color: QColor,
        filled: bool,
    ) -> float:
        """Draw a rounded label at (x, y); returns its width."""
        w = s.badge_metrics.horizontalAdvance(text) + 10.0
        r = QRectF(x, y + 2.0, w, FACTS_LINE - 4.0)
        painter.setPen(QPen(color, 1.0))
        fill = QColor(color)
        fill.setAlpha(255 if filled else 40)
        painter.setBrush(fill)
        painter.drawRoundedRect(r, 4.0, 4.0)
        painter.setPen(s.c("node_body") if filled else color)
        painter.setFont(s.badge_font)
        painter.drawText(r, Qt.AlignmentFlag.AlignCenter, text)
        return w

    def _paint_facts(self, painter: QPainter, s: CanvasStyle) -> None:
        f = self.facts
        x0, width = 10.0, self.width - 20.0
        y = self.facts_top + FACTS_PAD
        painter.setPen(QPen(s.c("node_border"), 1.0))
        painter.drawLine(QPointF(1.0, self.facts_top), QPointF(self.width - 1.0, self.facts_top))
        if self.host.stale and f.status != "none":
            painter.setOpacity(painter.opacity() * 0.55)
        line = QRectF(x0, y, width, FACTS_LINE)
        left_mid = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        right_mid = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight
        lines = 2 if self.node_type.outputs else 1
        message = self._message(f)
        if message is not None:
            text, role = message
            painter.setFont(s.small_font)
            painter.setPen(s.c(role))
            metrics = s.small_metrics
            parts = _wrap(text, metrics, width, lines)
            # a long sentence (PyTorch's errors) takes the padding too, in lines of the
            # small font's own spacing: a one-line card has room for two of them
            room = self.height - self.facts_top
            most = int(room // metrics.lineSpacing())
            if parts and metrics.horizontalAdvance(parts[-1]) > width and most > lines:
                parts = _wrap(text, metrics, width, most)
            step = FACTS_LINE if len(parts) <= lines else metrics.lineSpacing()
            if len(parts) > lines:
                y = self.facts_top + (room - step * len(parts)) / 2
            for i, part in enumerate(parts):
                rect = QRectF(x0, y + step * i, width, step)
                self._text(painter, "facts", rect, left_mid, part, metrics)
            return
        if not f.has_tensor:
            painter.setFont(s.small_font)
            if self.node_type.outputs:
                painter.setPen(s.c("text_dim"))
                text = "None" if f.list_length is None else f"list of {f.list_length}"
            else:
                painter.setPen(s.c("ok"))
                text = "✓ ran"
            if f.warnings:
                text += f"   ⚠ {len(f.warnings)} warning" + ("s" if len(f.warnings) > 1 else "")
                painter.setPen(s.c("warning"))
            self._text(painter, "facts", line, left_mid, text, s.small_metrics)
            return
        # line 1: value (mono, as many elements as fit) and shape/dtype (dim)
        painter.setFont(s.small_font)
        meta = f"{f.shape} {f.dtype}"
        if f.list_length is not None:
            meta = f"list[{f.list_length}] · " + meta
        mw = s.small_metrics.horizontalAdvance(meta)
        painter.setPen(s.c("text_dim"))
        self._text(painter, "facts", line, right_mid, meta, s.small_metrics)
        painter.setFont(s.mono_font)
        painter.setPen(s.c("text"))
        vw = max(0.0, width - mw - 8.0)
        value = _fitting_value(f, s.mono_metrics, vw)
        if value:
            rect = QRectF(x0, y, vw, FACTS_LINE)
            self._text(painter, "value", rect, left_mid, value, s.mono_metrics)
        # line 2: leaf mark, grad_fn (or requires_grad), .grad badge, warnings
        y += FACTS_LINE
        pill, mark, badge = self._second_line(f, s, width)
        x = x0
        if pill:
            color = s.c("leaf") if f.is_leaf else s.c("non_leaf")
            x += self._pill(painter, s, x, y, pill, color, False) + 5.0
        right = x0 + width
        if badge:
            w = s.badge_metrics.horizontalAdvance(badge) + 10.0
            right -= w
            self._pill(painter, s, right, y, badge, s.c("grad"), True)
            right -= 5.0
        if f.has_grad:
            self._drawn.append(("grad", self._full_badge(f), badge))
        if f.warnings:
            painter.setFont(s.small_font)
            painter.setPen(s.c("warning"))
            right -= 14.0
            painter.drawText(QRectF(right, y, 14.0, FACTS_LINE), Qt.AlignmentFlag.AlignCenter, "⚠")
        painter.setFont(s.mono_font)
        painter.setPen(
            s.c("non_leaf" if f.grad_fn else "requires_grad" if f.requires_grad else "text_dim")
        )
        rect = QRectF(x, y, max(0.0, right - x - 2.0), FACTS_LINE)
        self._text(painter, "facts", rect, left_mid, mark, s.mono_metrics)
        painter.setBrush(QBrush())

    def _message(self, f: NodeFacts) -> tuple[str, str] | None:
        """The sentence a card shows instead of tensor facts, and its colour role."""
        if f.status == "error":
            return "⚠ " + f.error_title, "error"
        if f.status == "waiting":
            return f.waiting_text, "accent"
        if f.status == "pending":
            return "not run yet at this step", "text_dim"
        if f.status == "skipped":
            return "not run: an earlier step failed", "text_dim"
        if f.status == "none":
            if self.node_type.kind is NodeKind.SOURCE:
                return _param_summary(self.node), "text_dim"
            return "run to see its facts", "text_dim"
        return None

    @staticmethod
    def _full_badge(f: NodeFacts) -> str:
        """The ``.grad`` badge with its value when the value is short enough for a badge
        (a longer one is the inspector's to show, on leaves and non-leaves alike)."""
        grad = f.grad or ""
        return f".grad {grad}" if len(grad) <= GRAD_BADGE_CHARS else ".grad"

    def _second_line(self, f: NodeFacts, s: CanvasStyle, width: float) -> tuple[str, str, str]:
        """The leaf pill, the autograd mark and the ``.grad`` badge, shortened until they
        fit: first a non-leaf drops its pill (its grad_fn already says it is not a leaf)
        and a leaf with a ``.grad`` its ``requires_grad`` mark (the gradient and the
        border's colour say it), so that every ``.grad`` short enough shows its value;
        only then does the badge drop its value (the inspector shows it)."""
        mark = f.grad_fn or ("requires_grad" if f.requires_grad else "no grad")
        pill = "LEAF" if f.is_leaf else "NON-LEAF"
        full = self._full_badge(f)
        badges = list(dict.fromkeys([full, ".grad"])) if f.has_grad else [""]
        pills = [pill, ""] if f.grad_fn else [pill]
        marks = [mark, ""] if f.has_grad and not f.grad_fn and f.requires_grad else [mark]

        def need(pill: str, mark: str, badge: str) -> float:
            w = s.mono_metrics.horizontalAdvance(mark) + 2.0
            if pill:
                w += s.badge_metrics.horizontalAdvance(pill) + 15.0
            if badge:
                w += s.badge_metrics.horizontalAdvance(badge) + 15.0
            return w + (14.0 if f.warnings else 0.0)

        choices = [(p, m, b) for b in badges for p in pills for m in marks]
        for p, m, b in choices:
            if need(p, m, b) <= width:
                return p, m, b
        return choices[-1]
