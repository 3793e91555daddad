"""Build the compiled core: ``python -m engine.build`` (``--status`` only reports).

Each module of ``engine.compiled_core.MODULES`` whose build is not fresh is translated
by Cython and compiled into ``build/cython/``, named by the hash of the source it was
built from; older builds of it are removed.  Building is an optimisation, never a
requirement: without Cython or a C compiler this says why and exits 0, and the engine
runs as pure Python.  Where the tools are there, a failed build is an error (exit 1, on
stderr): it would otherwise go unnoticed as a slower engine.  Each module compiled is
said as it is done ("compiled 7/22 ..."), the first build takes minutes.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from engine import compiled_core as cc


def status() -> dict[str, str]:
    return {m: cc.state(m) for m in cc.MODULES}


def _compile(module: str, tmp: str) -> str:
    """Translate and compile one module in ``tmp`` (in a worker process); the path of the
    extension it made.  Raises on a compiler error."""
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    # Cython names the module from the package layout around the source, so a copy keeps
    # the layout: the .c files and objects never land in the checkout.
    root = Path(tmp, module)
    src = Path(root, "src", *module.split(".")).with_suffix(".py")
    src.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cc.source_path(module), src)
    pxd = cc.declarations_path(module)
    if pxd.is_file():
        shutil.copyfile(pxd, src.with_suffix(".pxd"))
    for parent in src.relative_to(Path(root, "src")).parents:
        init = Path(root, "src", parent, "__init__.py")
        if parent != Path(".") and not init.exists():
            init.write_text("")
    extension = Extension(module, [str(src)], extra_compile_args=cc.compile_args(module))
    ext_modules = cythonize([extension], compiler_directives=cc.DIRECTIVES, quiet=True, force=True)
    cmd = build_ext(Distribution({"ext_modules": ext_modules}))
    cmd.build_lib = str(Path(root, "lib"))
    cmd.build_temp = str(Path(root, "obj"))
    cmd.ensure_finalized()
    cmd.run()
    return str(Path(root, "lib", *module.split(".")).with_suffix(cc.SUFFIX))


def build(modules: list[str], jobs: int = 2) -> list[str]:
    """Compile ``modules``, ``jobs`` at a time, saying each one as it is done; returns the
    ones built.  Raises on a compiler error."""
    from Cython import __version__ as cython_version

    sources = {m: cc.source_bytes(m) for m in modules}
    built = []
    with (
        tempfile.TemporaryDirectory(prefix="engine-build-") as tmp,
        concurrent.futures.ProcessPoolExecutor(max(1, jobs)) as pool,
    ):
        print(f"engine.build: compiling {len(modules)} module(s), {jobs} at a time", flush=True)
        futures = {pool.submit(_compile, m, tmp): m for m in modules}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            m = futures[future]
            out = future.result()
            target = cc.extension_path(m, sources[m])
            target.parent.mkdir(parents=True, exist_ok=True)
            for old in cc.builds_of(m):
                old.unlink()
            # a build cut short must never leave a truncated extension under the final name
            partial = target.with_name(f".{target.name}.partial")
            shutil.copyfile(out, partial)
            os.replace(partial, target)
            built.append(m)
            print(f"engine.build: compiled {done}/{len(modules)} {m}", flush=True)
    manifest = cc.BUILD_DIR / "manifest.json"
    record = json.loads(manifest.read_text()) if manifest.is_file() else {}
    for m in built:
        record[m] = {
            "source": cc.source_hash(sources[m]),
            "cython": cython_version,
            "python": sys.version.split()[0],
            "suffix": cc.SUFFIX,
        }
    manifest.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.build", description=__doc__)
    parser.add_argument("--status", action="store_true", help="only list each module's build")
    parser.add_argument("--force", action="store_true", help="rebuild fresh modules too")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    args = parser.parse_args(argv)
    states = status()
    if args.status:
        for m, s in states.items():
            print(f"{s:8} {m}")
        if cc.pure_forced():
            print(f"({cc.PURE_ENV} is set: every module runs pure)")
        return 0
    todo = [m for m, s in states.items() if args.force or s != "fresh"]
    if not todo:
        print(f"engine.build: all {len(states)} compiled modules are fresh")
        return 0
    problem = cc.missing_tools()
    if problem is not None:
        print(f"engine.build: not compiled, the engine runs as pure Python: {problem}")
        return 0
    try:
        built = build(todo, args.jobs)
    except (Exception, SystemExit) as exc:  # a compiler was there: the failure is news
        print(
            f"engine.build: ERROR: the build failed, so the engine runs as pure Python "
            f"(slower per op): {exc!r}",
            file=sys.stderr,
        )
        return 1
    print(f"engine.build: compiled {len(built)} module(s) into {cc.BUILD_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
