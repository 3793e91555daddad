"""Census of the PyTorch names real learner programs use, ranked by what the engine lacks.

    .venv/bin/python tools/census.py --discover    # list the programs in the fetched mirrors
    .venv/bin/python tools/census.py               # parse them, write tools/census_ranked.{md,json}

The programs are public files (tutorials, examples, course notebooks, textbook chapters) read
straight out of git snapshots fetched under ``/work/.mirror/OWNER+NAME/repo``; only their
manifest (``tools/census/sources.json``: repository, commit, path) is kept here, never their
code, so the census can be rerun wherever the same snapshots are fetched.

A program is a ``.py`` file, a notebook's code cells, or a d2l chapter's PyTorch code blocks,
that imports torch. Each is parsed with ``ast``; import aliases are resolved (``import
torch.nn.functional as F``, ``from torch import nn``, ``from torch.nn import Linear``), and
every use of a torch name is recorded as its dotted path, trimmed to the longest prefix real
torch has. An attribute on anything else (``x.view``, ``model.zero_grad``, ``loss.backward``) is
recorded as ``Tensor.NAME``, ``Module.NAME`` or ``Optimizer.NAME`` when real torch's class has
it. A keyword passed to a torch callable is recorded as ``NAME(kw=)``. The engine lacks a name
when the same path does not resolve in ``engine`` (or the class lacks the attribute, or the
callable's signature refuses the keyword); missing names are ranked by how many programs
use them.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "tools" / "census" / "sources.json"
RANKED_MD = ROOT / "tools" / "census_ranked.md"
RANKED_JSON = ROOT / "tools" / "census_ranked.json"
MIRRORS = Path("/work/.mirror")

#: The repositories the census reads, and why each is here (the kinds learners bring).
REPOSITORIES = {
    "pytorch/examples": "PyTorch's own examples: mnist, word_language_model, vae, dcgan, ...",
    "pytorch/functorch": "torch.func's tutorials: per-sample grads, jacobians, ensembling",
    "karpathy/nn-zero-to-hero": "the 'zero to hero' lecture notebooks: makemore, GPT",
    "karpathy/ng-video-lecture": "the GPT lecture's bigram.py and gpt.py",
    "karpathy/minGPT": "minimal GPT",
    "karpathy/nanoGPT": "small GPT training",
    "karpathy/build-nanogpt": "GPT-2 reproduction lecture",
    "karpathy/makemore": "character-level language models",
    "karpathy/micrograd": "micrograd's PyTorch cross-checks",
    "d2l-ai/d2l-en": "Dive into Deep Learning, the PyTorch blocks of every chapter",
    "udlbook/udlbook": "Understanding Deep Learning's notebooks",
    "rasbt/LLMs-from-scratch": "Build a Large Language Model (From Scratch)",
    "yunjey/pytorch-tutorial": "a much-starred learner tutorial",
    "jcjohnson/pytorch-examples": "the original 'Learning PyTorch with Examples'",
    "MorvanZhou/PyTorch-Tutorial": "a much-starred learner tutorial",
    "spro/practical-pytorch": "char-RNN and seq2seq tutorials (the pytorch/tutorials sources)",
    "Atcold/NYU-DLSP20": "NYU deep learning course notebooks",
    "bentrevett/pytorch-seq2seq": "seq2seq and attention notebooks",
    "bentrevett/pytorch-sentiment-analysis": "RNN/CNN/transformer text classification notebooks",
    "graykode/nlp-tutorial": "small NLP models: word2vec, TextCNN, seq2seq, transformer, BERT",
}

#: Attribute names that builtins, PIL images or a module's own subclass also have:
#: ``d.values()``, ``s.index(c)``, ``img.resize``, ``self.forward``, ``p.name`` say nothing
#: about a tensor.
_AMBIGUOUS = {n for t in (dict, list, str, set, tuple, int, float, bytes) for n in dir(t)} | {
    "forward",
    "resize",
    "name",
    "names",
    "data",
    "device",
    "dtype",
    "shape",
    "type",
    "state",
}

#: Where a missing name is left, by prefix: another branch's work, or outside what a CPU
#: autograd engine for learners is (processes, compilers, devices it cannot have).
OWNERS = {
    "torch.nn.LSTM": "h-rnn",
    "torch.nn.GRU": "h-rnn",
    "torch.nn.RNN": "h-rnn",
    "torch.nn.utils.rnn": "h-rnn",
    "torch.nn.modules.rnn": "h-rnn",
    "torch.nn.MultiheadAttention": "h-attn",
    "torch.nn.Transformer": "h-attn",
    "torch.nn.modules.activation.MultiheadAttention": "h-attn",
    "torch.nn.modules.transformer": "h-attn",
    "torch.nn.modules.linear.NonDynamicallyQuantizableLinear": "h-attn",
    "torch.nn.functional.scaled_dot_product_attention": "h-attn",
    "torch.func": "h-func",
    "torch.autograd.forward_ad": "h-func",
    "torch.histogram": "h-index",
    "torch.histc": "h-index",
    "torch.bincount": "h-index",
    "torch.Generator": "h-index",
    "torch.multinomial": "h-index",
    "torch.distributed": "out of scope: multi-process training",
    "torch.multiprocessing": "out of scope: multi-process training",
    "torch.nn.parallel": "out of scope: multi-device training",
    "torch.nn.DataParallel": "out of scope: multi-device training",
    "torch.utils.data.distributed": "out of scope: multi-process training",
    "Module.share_memory": "out of scope: multi-process training",
    "torch.cuda": "out of scope: CUDA memory statistics and devices",
    "Tensor.is_xpu": "out of scope: Intel GPUs",
    "Tensor.pin_memory": "out of scope: pinned host memory needs CUDA",
    "torch.compile": "out of scope: a compiler",
    "Module.compile": "out of scope: a compiler",
    "torch._dynamo": "out of scope: a compiler",
    "torch.jit": "out of scope: TorchScript",
    "torch.fx": "out of scope: graph tracing to code",
    "torch.onnx": "out of scope: export to ONNX",
    "torch.classes": "out of scope: C++ extensions",
    "torch.ops": "out of scope: C++ operators",
    "torch.profiler": "out of scope: profiling",
    "torch.autograd.profiler": "out of scope: profiling",
    "torch.utils.benchmark": "out of scope: timing",
    "torch.hub": "out of scope: downloads",
    "torch.utils.model_zoo": "out of scope: downloads",
    "torch.amp": "out of scope: mixed precision needs bfloat16/float16 kernels",
    "torch.autocast": "out of scope: mixed precision needs bfloat16/float16 kernels",
    "torch.bfloat16": "not yet: NumPy has no bfloat16",
    "torch.distributions": "not yet: a probability-distributions library of its own",
    "torch.sparse_coo_tensor": "not yet: sparse tensors",
    "Tensor.to_sparse": "not yet: sparse tensors",
    "torch.spmm": "not yet: sparse tensors",
    "torch.nn.attention": "not yet: flex attention",
}


def owner(name: str) -> str:
    """Who covers a missing name (a branch, or why nobody does); empty when nobody yet."""
    best = ""
    for prefix in OWNERS:
        covers = name == prefix or name.startswith((prefix + ".", prefix + "("))
        if covers and len(prefix) > len(best):
            best = prefix
    return OWNERS.get(best, "")


_MAGIC = re.compile(r"^\s*[%!]")
_D2L_BLOCK = re.compile(r"```\{\.python \.input[^}]*\}\n(.*?)```", re.S)


def mirror(repo: str) -> Path:
    return MIRRORS / repo.replace("/", "+") / "repo"


def git(repo: str, *args: str) -> str:
    out = subprocess.run(
        ["git", f"--git-dir={mirror(repo)}", *args], capture_output=True, text=True, check=True
    )
    return out.stdout


def notebook_code(text: str) -> list[str]:
    """The code cells of a notebook, each a chunk, with IPython magics and shell lines dropped."""
    try:
        cells = json.loads(text).get("cells", [])
    except json.JSONDecodeError:
        return []
    chunks = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        chunks.append("\n".join(line for line in src.splitlines() if not _MAGIC.match(line)))
    return chunks


def d2l_code(text: str) -> list[str]:
    """A d2l chapter's code blocks that PyTorch runs: untagged ones and ``%%tab`` ones naming it."""
    chunks = []
    for block in _D2L_BLOCK.findall(text):
        lines = block.splitlines()
        if lines and lines[0].startswith("%%tab"):
            tabs = lines[0][len("%%tab") :].replace(" ", "").split(",")
            if "pytorch" not in tabs and "all" not in tabs:
                continue
            lines = lines[1:]
        chunks.append("\n".join(line for line in lines if not _MAGIC.match(line)))
    return chunks


def program_chunks(path: str, text: str) -> list[str]:
    if path.endswith(".ipynb"):
        return notebook_code(text)
    if path.endswith(".md"):
        return d2l_code(text)
    return [text]


def uses_torch(chunks: list[str]) -> bool:
    return any(re.search(r"^\s*(import torch|from torch)\b", c, re.M) for c in chunks)


def discover() -> None:
    """Write the manifest: every file of the listed repositories that is a torch program."""
    entries = []
    for repo in REPOSITORIES:
        if not mirror(repo).exists():
            print(f"not fetched: {repo}", file=sys.stderr)
            continue
        commit = git(repo, "rev-parse", "HEAD").strip()
        for path in git(repo, "ls-tree", "-r", "--name-only", commit).splitlines():
            if not path.endswith((".py", ".ipynb", ".md")):
                continue
            if path.endswith(".md") and not (repo == "d2l-ai/d2l-en" and "chapter_" in path):
                continue
            if re.search(r"(^|/)(tests?|setup\.py|conftest\.py|docs?/conf\.py)", path):
                continue
            text = git(repo, "show", f"{commit}:{path}")
            if uses_torch(program_chunks(path, text)):
                entries.append({"repo": repo, "commit": commit, "path": path})
    MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    MANIFEST.write_text(json.dumps({"programs": entries}, indent=1) + "\n")
    print(f"{len(entries)} programs in {MANIFEST.relative_to(ROOT)}")


class Collector(ast.NodeVisitor):
    """The torch names one program uses, with its import aliases resolved."""

    def __init__(self) -> None:
        self.alias: dict[str, str] = {}
        self.names: set[str] = set()
        self.attrs: set[str] = set()
        self.keywords: set[tuple[str, str]] = set()

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.name == "torch" or a.name.startswith("torch."):
                if a.asname:
                    self.alias[a.asname] = a.name
                else:
                    self.alias["torch"] = "torch"

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        if node.level == 0 and (mod == "torch" or mod.startswith("torch.")):
            for a in node.names:
                if a.name != "*":
                    self.alias[a.asname or a.name] = f"{mod}.{a.name}"
                    self.names.add(f"{mod}.{a.name}")

    def dotted(self, node: ast.AST) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.alias:
            return ".".join([self.alias[node.id], *reversed(parts)])
        return None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self.dotted(node)
        if name is not None:
            self.names.add(name)
            return
        self.attrs.add(node.attr)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.alias:
            self.names.add(self.alias[node.id])

    def visit_Call(self, node: ast.Call) -> None:
        name = self.dotted(node.func)
        if name is None and isinstance(node.func, ast.Name) and node.func.id in self.alias:
            name = self.alias[node.func.id]
        if name is not None:
            for kw in node.keywords:
                if kw.arg is not None:
                    self.keywords.add((name, kw.arg))
        self.generic_visit(node)


def resolve(root: str, dotted: str) -> Any:
    """The object ``dotted`` names under the module ``root`` (torch or engine), importing
    submodules as needed; raises AttributeError where the path stops."""
    parts = dotted.split(".")
    obj: Any = importlib.import_module(root)
    path = root
    for part in parts[1:]:
        path += "." + part
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(path)
            except ImportError:
                raise AttributeError(dotted) from None
    return obj


def trim(dotted: str, cache: dict[str, str | None]) -> str | None:
    """The longest prefix of ``dotted`` real torch has (None when not even ``torch.X``)."""
    if dotted in cache:
        return cache[dotted]
    parts = dotted.split(".")
    found = None
    for n in range(len(parts), 1, -1):
        try:
            resolve("torch", ".".join(parts[:n]))
        except Exception:
            continue
        found = ".".join(parts[:n])
        break
    cache[dotted] = found
    return found


def accepts(fn: Any, keyword: str) -> bool:
    """Whether ``fn`` (a callable or class) takes ``keyword``; an unreadable signature says yes."""
    target = fn.__init__ if inspect.isclass(fn) else fn
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return True
    params = sig.parameters.values()
    return any(p.kind is p.VAR_KEYWORD for p in params) or keyword in sig.parameters


def census(engine_root: Path) -> dict[str, Any]:
    import torch

    sys.path.insert(0, str(engine_root))
    import engine

    classes = {
        "Tensor": (torch.Tensor, engine.Tensor),
        "Module": (torch.nn.Module, engine.nn.Module),
        "Optimizer": (torch.optim.Optimizer, engine.optim.Optimizer),
    }
    programs = json.loads(MANIFEST.read_text())["programs"]
    used: dict[str, set[str]] = defaultdict(set)
    unparsed = 0
    cache: dict[str, str | None] = {}
    for prog in programs:
        pid = f"{prog['repo']}:{prog['path']}"
        text = git(prog["repo"], "show", f"{prog['commit']}:{prog['path']}")
        col = Collector()
        for chunk in program_chunks(prog["path"], text):
            try:
                col.visit(ast.parse(chunk))
            except SyntaxError:
                unparsed += 1
        for name in col.names:
            t = trim(name, cache)
            if t is not None:
                used[t].add(pid)
        for attr in col.attrs - _AMBIGUOUS:
            for cls, (tcls, _) in classes.items():
                if hasattr(tcls, attr) and not attr.startswith("__"):
                    used[f"{cls}.{attr}"].add(pid)
                    break
        for name, kw in col.keywords:
            t = trim(name, cache)
            if t == name:
                used[f"{name}({kw}=)"].add(pid)

    missing = {}
    for name, progs in used.items():
        if not engine_lacks(name, classes):
            continue
        missing[name] = progs
    ranked = sorted(missing.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return {
        "programs": len(programs),
        "repositories": len({p["repo"] for p in programs}),
        "chunks_not_parsed": unparsed,
        "names_used": len(used),
        "missing": [
            {"name": n, "programs": len(p), "covered_by": owner(n), "examples": sorted(p)[:5]}
            for n, p in ranked
        ],
    }


def engine_lacks(name: str, classes: dict[str, tuple[type, type]]) -> bool:
    kw = None
    if name.endswith("=)"):
        name, kw = name[:-2].split("(")
    cls, _, attr = name.partition(".")
    if cls in classes and "." not in attr:
        return not hasattr(classes[cls][1], attr)
    try:
        obj = resolve("engine", "engine" + name[len("torch") :])
    except Exception:
        return kw is None
    if kw is None:
        return False
    try:
        theirs = resolve("torch", name)
        return callable(obj) and accepts(theirs, kw) and not accepts(obj, kw)
    except Exception:
        return False


def write(result: dict[str, Any]) -> None:
    RANKED_JSON.write_text(json.dumps(result, indent=1) + "\n")
    lines = [
        "# Census: what real PyTorch programs use that the engine lacks",
        "",
        f"{result['programs']} programs from {result['repositories']} repositories "
        f"(`tools/census/sources.json`), {result['names_used']} distinct torch names used; "
        f"{len(result['missing'])} of them missing from the engine, ranked by how many "
        "programs use each. Regenerate with `python tools/census.py`.",
        "",
        "| rank | name | programs | covered by / left because | e.g. |",
        "| --- | --- | --- | --- | --- |",
    ]
    for i, m in enumerate(result["missing"], 1):
        lines.append(
            f"| {i} | `{m['name']}` | {m['programs']} | {m['covered_by']} | {m['examples'][0]} |"
        )
    RANKED_MD.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--discover", action="store_true", help="rewrite the manifest")
    parser.add_argument("--engine", type=Path, default=ROOT, help="the checkout to judge")
    args = parser.parse_args()
    if args.discover:
        discover()
        return
    result = census(args.engine)
    write(result)
    print(f"{result['programs']} programs, {len(result['missing'])} missing names")
    for m in result["missing"][:40]:
        print(f"{m['programs']:4d}  {m['name']}  {m['covered_by']}")


if __name__ == "__main__":
    main()
