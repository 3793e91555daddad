"""The PyTorch side of ``verify``: ``python -m gradstudio.instruments.torch_child``.

Runs a document's steps with the evaluator parameterised by the real ``torch``
module (the same catalogue maps nodes to calls) and pickles the step records
to a file.  A separate process keeps PyTorch's import, threads and any crash
out of the studio.  Exit status 3 means PyTorch cannot be imported.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.instruments.records import records_of
from gradstudio.instruments.torch_trace import install
from gradstudio.interchange.fileformat import loads

NO_TORCH = 3


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="torch_child")
    parser.add_argument("document", help="a .gstudio file (read as untrusted bytes)")
    parser.add_argument("output", help="where to pickle the step records")
    parser.add_argument("--device", required=True)
    parser.add_argument("--trusted", action="store_true")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError as exc:
        print(f"cannot import torch: {exc}", file=sys.stderr)
        return NO_TORCH

    install(torch)
    doc = loads(Path(args.document).read_bytes(), args.document)
    # the parent decided trust from its own copy; this one came through a temp file
    doc.set_trusted(args.trusted)
    records = records_of(evaluate(doc, device=args.device, backend=torch))
    with open(args.output, "wb") as f:
        pickle.dump({"torch": torch.__version__, "records": records}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
