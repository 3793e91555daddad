"""The compiled core: the engine's hot modules built by Cython from their own ``.py`` files.

The sources stay plain Python (Cython's pure-Python mode), so the engine runs the same
without a compiler.  ``python -m engine.build`` writes one extension per module under
``build/cython/``, named by a hash of the exact source it was built from; the import hook
below loads an extension only when that hash matches the source on disk now, so an edit
to a source (or a switch of Python version, which changes the extension suffix) can
never run stale compiled code: that module falls back to its ``.py`` and one line on
stderr says so.  ``GRADSTUDIO_PURE=1`` keeps every module pure.

Importing this module installs the hook; ``engine/__init__`` imports it first.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The modules that are compiled: the per-op path (dispatch, node creation, dtype logic,
#: the elementwise ops and their formulas) and the backward loop.  A module added here
#: must not rely on bytecode or frames: ``catalog.applying`` replaces the bytecode
#: rewriting of in-place variants, ``warn_site`` the fixed warning stacklevels.
MODULES: tuple[str, ...] = (
    "engine._methods",
    "engine.autograd.collector",
    "engine.autograd.engine_run",
    "engine.autograd.functional",
    "engine.autograd.graph",
    "engine.autograd.saved_tensor",
    "engine.backend",
    "engine.cascade_sum",
    "engine.cpu_loops",
    "engine.dtypes",
    "engine.grad_mode",
    "engine.ops.core",
    "engine.ops.kernel_dtypes",
    "engine.ops.linalg",
    "engine.ops.nll_cascade",
    "engine.ops.nn",
    "engine.ops.pointwise",
    "engine.ops.shape",
    "engine.out_arg",
    "engine.quiet",
    "engine.tensor",
    "engine.transcendental",
)

ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = ROOT / "build" / "cython"
PURE_ENV = "GRADSTUDIO_PURE"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
#: Modules of plain loops over typed arrays or of hand-vectorised kernels, compiled at
#: ``-O3``: GCC vectorises a loop over two buffers that may alias only there, and unrolls
#: the kernels' tails (the rest build at ``-O2``).
VECTORISED: frozenset[str] = frozenset({"engine.cpu_loops"})

#: Cython reads the sources as Python: annotations are documentation (a ``float``
#: parameter must still accept an int, a ``list`` one a subclass) and the functions keep
#: their Python introspection (names, signatures, ``__wrapped__``).
DIRECTIVES = {
    "language_level": 3,
    "annotation_typing": False,
    "binding": True,
    "embedsignature": False,
    "always_allow_keywords": True,
}


def missing_tools() -> str | None:
    """Why no extension can be compiled here, or None when Cython, Python's headers and a
    C compiler are all present (``python -m engine.build`` and ``setup.py`` both ask)."""
    if importlib.util.find_spec("Cython") is None:
        return "Cython is not installed (pip install cython)"
    if not Path(sysconfig.get_paths()["include"], "Python.h").is_file():
        return "Python's headers are missing (Debian: python3-dev)"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None and shutil.which("cc") is None:
        return "no C compiler (Debian: gcc)"
    return None


def compile_args(module: str) -> list[str]:
    """The C compiler's flags for one module: never ``a * b + c`` as one rounding, as an
    FMA would (the loops give NumPy's bits); ``-O3`` only where it vectorises."""
    return ["-O3" if module in VECTORISED else "-O2", "-ffp-contract=off", "-w"]


_compiled: dict[str, str] = {}
_stale: list[str] = []


def source_path(module: str) -> Path:
    """The ``.py`` file a module of this package is built from."""
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def declarations_path(module: str) -> Path:
    """The module's augmenting ``.pxd`` (C types for its loops), which it may not have."""
    return source_path(module).with_suffix(".pxd")


def source_bytes(module: str) -> bytes:
    """What the build's tag is computed from: the ``.py``, then the ``.pxd`` where there
    is one, so that editing either makes the build stale."""
    pxd = declarations_path(module)
    return source_path(module).read_bytes() + (pxd.read_bytes() if pxd.is_file() else b"")


def source_hash(source: bytes) -> str:
    """The tag of one source text; the extension suffix adds Python's version and ABI."""
    return hashlib.sha256(source).hexdigest()[:16]


def extension_path(module: str, source: bytes) -> Path:
    """Where the build of exactly this source lives (it may not exist)."""
    leaf = module.rpartition(".")[2]
    return BUILD_DIR.joinpath(*module.split(".")[:-1], f"{leaf}.{source_hash(source)}{SUFFIX}")


def builds_of(module: str) -> list[Path]:
    """Every extension built for ``module`` for this Python, whatever source it came from."""
    parts = module.split(".")
    folder = BUILD_DIR.joinpath(*parts[:-1])
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{parts[-1]}.*{SUFFIX}"))


def state(module: str) -> str:
    """``fresh`` (built from the source as it is now), ``stale`` (built, but the source
    changed since) or ``missing`` (never built for this Python)."""
    if extension_path(module, source_bytes(module)).is_file():
        return "fresh"
    return "stale" if builds_of(module) else "missing"


def compiled() -> dict[str, str]:
    """The modules running compiled in this process, each with its extension's path: a
    checkout's build, or the extensions an installed wheel carries beside the sources."""
    found = dict(_compiled)
    for name in MODULES:
        path = getattr(sys.modules.get(name), "__file__", None) or ""
        if name not in found and path.endswith(SUFFIX):
            found[name] = path
    return found


def pure_forced() -> bool:
    return os.environ.get(PURE_ENV, "") not in ("", "0")


class CompiledCoreFinder(importlib.abc.MetaPathFinder):
    """Finds the fresh build of a listed module; for anything else, or a stale or
    missing build, it defers to the normal finders (the ``.py`` source)."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MODULES:
            return None
        try:
            source = source_bytes(fullname)
        except OSError:
            return None
        ext = extension_path(fullname, source)
        if not ext.is_file():
            if builds_of(fullname):
                _report_stale(fullname)
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(ext))
        spec = importlib.util.spec_from_file_location(fullname, ext, loader=loader)
        if spec is not None:
            _compiled[fullname] = str(ext)
        return spec


class PureFinder(importlib.abc.MetaPathFinder):
    """With ``GRADSTUDIO_PURE`` set, a listed module loads from its ``.py`` even where an
    installed wheel has its extension beside it (the normal finders prefer extensions)."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        source = source_path(fullname)
        if fullname not in MODULES or not source.is_file():
            return None
        loader = importlib.machinery.SourceFileLoader(fullname, str(source))
        return importlib.util.spec_from_file_location(fullname, source, loader=loader)


def _report_stale(module: str) -> None:
    """One line per process, at the first stale module: the rest fall back silently
    (and ``python -m engine.build``, about to rebuild them, says nothing)."""
    _stale.append(module)
    if len(_stale) == 1 and sys.orig_argv[1:3] != ["-m", "engine.build"]:
        print(
            f"engine: the compiled core is stale ({module} changed since it was built); "
            "running pure Python where it is: `python -m engine.build` rebuilds",
            file=sys.stderr,
        )


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): the compiled core's, or, when pure
    Python is forced, the one that keeps every listed module pure."""
    kind = PureFinder if pure_forced() else CompiledCoreFinder
    if not any(isinstance(f, kind) for f in sys.meta_path):
        sys.meta_path.insert(0, kind())


install()
