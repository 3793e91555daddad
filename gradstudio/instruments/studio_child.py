"""The studio's instruments in a child process: ``python -m gradstudio.instruments.studio_child``.

The studio never runs ``verify`` or ``gradcheck`` in its own process: both evaluate
the document (a trusted document's Function code included) and may take long, so
they run here, in a process the studio can kill (it is started in a session of its
own, so that killing the group also ends ``verify``'s PyTorch grandchild).  The
result is pickled to a file as ``{"result": ...}`` or ``{"error": one line}``;
``{"unavailable": one line}`` when PyTorch cannot be imported.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.instruments.gradcheck import CannotGradcheck, gradcheck_node
from gradstudio.instruments.verify import TorchUnavailable, verify
from gradstudio.interchange.fileformat import loads


def run(kind: str, document: Path, device: str, trusted: bool, node: str | None) -> dict:
    """The payload for one instrument run (never raises for the document's faults)."""

    doc = loads(document.read_bytes(), str(document))
    # the parent decided trust from its own copy; this one came through a temp file
    doc.set_trusted(trusted)
    if kind == "verify":
        try:
            return {"result": verify(doc, device=device)}
        except TorchUnavailable as exc:
            return {"unavailable": str(exc)}

    if node is None or node not in doc:
        return {"error": "the node to check is not in the document"}
    try:
        return {"result": gradcheck_node(evaluate(doc, device="cpu"), node)}
    except CannotGradcheck as exc:
        return {"error": str(exc)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="studio_child")
    parser.add_argument("kind", choices=("verify", "gradcheck"))
    parser.add_argument("document", help="a .gstudio file (read as untrusted bytes)")
    parser.add_argument("output", help="where to pickle the result")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--node", help="gradcheck: the node's id")
    parser.add_argument("--trusted", action="store_true")
    args = parser.parse_args(argv)
    payload: dict[str, Any]
    try:
        payload = run(args.kind, Path(args.document), args.device, args.trusted, args.node)
    except Exception as exc:  # the studio shows it in one line, never a traceback
        payload = {"error": f"{type(exc).__name__}: {exc}"}
    with open(args.output, "wb") as f:
        pickle.dump(payload, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
