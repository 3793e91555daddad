"""Tensors known by key: a new key for each tensor the program makes (and for each
in-place change of one), forgotten when the tensor dies since its ``id`` is reused;
where each was made; and a literal for a tensor the recorder did not see being made.

A part of ``Recorder``, over its loop-fold snapshots (``recorder_folding``).
"""

from __future__ import annotations

import sys
import weakref
from types import FrameType
from typing import Any

from gradstudio.interchange.program_import.recorder_folding import RecorderFolding


class RecorderKeys(RecorderFolding):
    """The recorder's tensor keys (a part of ``Recorder``)."""

    @property
    def alive(self) -> list[Any]:
        """The recorded tensors still alive, oldest first."""
        found = [ref() for ref in list(self.refs.values())]
        return [t for t in found if t is not None]

    def fresh(self, tensor: Any) -> str:
        """A new key for ``tensor`` (an in-place op gives the same object a new key)."""
        key = f"t{self.count}"
        self.count += 1
        oid = id(tensor)
        serial = self.owner.get(oid)
        if serial is None:
            serial = self.count
            self.owner[oid] = serial
            self.refs[serial] = weakref.ref(
                tensor,
                lambda _, o=oid, s=serial: self.forget(o, s),  # type: ignore[misc]
            )
        else:
            self.retire(self.keys.get(oid))
        self.keys[oid] = key
        self.history.setdefault(oid, []).append(key)
        if tensor.requires_grad and tensor.grad_fn is None:
            self.leaves[key] = serial  # backward accumulates into its .grad
            self.leaf_serials.add(serial)
        frames = self.events.frames
        if frames is not None and frames.folding:
            self.snapshot(key, tensor, serial, frames.folding_chain())
        where = self.made_where()
        if where is not None:
            self.where[key] = where
        return key

    def made_where(self) -> str | None:
        """What made the tensor being keyed, as the program wrote it: the path of the
        PyTorch module running (``model.0``), else the expression the program line is
        evaluating (``pred - y``)."""
        frames = self.events.frames
        if self.bindings is None or frames is None:
            return None
        top = frames.stack[-1] if frames.stack else None
        if top is not None and top.kind == "module" and top.named:
            return str(top.meta["path"])
        frame = self.program_frame()
        return None if frame is None else self.bindings.text(frame)

    def program_frame(self) -> FrameType | None:
        """The innermost frame running the program's own code."""
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.program:
                return frame
            frame = frame.f_back
        return None

    def forget(self, oid: int, serial: int) -> None:
        """``oid``'s tensor is gone: its keys can no longer be read."""
        self.refs.pop(serial, None)
        if self.owner.get(oid) != serial:
            return
        del self.owner[oid]
        self.keys.pop(oid, None)
        for key in self.history.pop(oid, []):
            self.retire(key)

    def retire(self, key: str | None) -> None:
        if key is not None and key in self.snapshots:
            self.retired.append(key)

    def line(self) -> int | None:
        frame = self.program_frame()
        return None if frame is None else frame.f_lineno

    def key(self, tensor: Any) -> str:
        found = self.keys.get(id(tensor))
        if found is not None:
            return found
        if tensor.grad_fn is not None:
            # a literal would cut the graph backward goes through: say so, do not guess
            self.refuse(
                f"a tensor used here was made by an operation GradStudio does not record "
                f"({type(tensor.grad_fn).__name__}); its history cannot be shown"
            )
        return self.literal(tensor, made=False)

    def literal(self, tensor: Any, made: bool = True) -> str:
        """``tensor`` enters the document as a literal holding its values now: one the
        program just made (a draw), or (``made`` False) one made where nothing was
        recorded, before it was first used (a module's parameter): not the iteration's."""
        self.events.check_room(tensor.numel())
        self.depth += 1
        try:
            data = tensor.detach().tolist()
            dtype = str(tensor.dtype).removeprefix("torch.")
        finally:
            self.depth -= 1
        key = self.fresh(tensor)
        self.events.append(
            {
                "kind": "literal",
                "key": key,
                "data": data,
                "dtype": dtype,
                "requires_grad": bool(tensor.requires_grad),
                "line": self.line(),
                **({} if made else {"before": True}),
            }
        )
        return key

    def refuse(self, message: str) -> None:
        """Something the document cannot hold: the import fails at this line, saying why."""
        self.events.append({"kind": "refused", "message": message, "line": self.line()})
