"""Packaging beyond what ``pyproject.toml`` can say.

- ``resources/`` (examples, lessons, icons, styles, help) travels in the wheel as the
  package data ``gradstudio.resources``, which ``gradstudio.locations`` finds when there is no
  checkout around the code.
- The compiled core (``engine.compiled_core.MODULES``) is built into the wheel by Cython,
  each extension beside its ``.py``, with the flags ``python -m engine.build`` uses.
  Without Cython or a C compiler the wheel is pure Python, and says so; where the tools
  are there, a failed build fails the install rather than leave a slower engine unseen.
  ``GRADSTUDIO_PURE=1`` builds a pure wheel.  An editable install (a checkout) builds
  nothing here: ``make core`` keeps its builds under ``build/``, checked against the
  sources at every import.
"""

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
RESOURCES = [
    "examples/*.gstudio",
    "lessons/*.gslesson",
    "icons/*.svg",
    "styles/*.qss",
    "help/*.html",
]


def _compiled_core():
    """``engine/compiled_core.py`` alone (standard library only: the engine itself needs
    NumPy, which a build environment may lack)."""
    spec = importlib.util.spec_from_file_location(
        "_gradstudio_compiled_core", HERE / "engine" / "compiled_core.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CORE = _compiled_core()


class BuildCompiledCore(build_ext):
    def run(self):
        if getattr(self, "editable_mode", False) or self.inplace:
            print("compiled core: not built by an editable install (`make core` builds it)")
            return self._pure()
        if CORE.pure_forced():
            print(f"compiled core: {CORE.PURE_ENV} is set, the wheel is pure Python")
            return self._pure()
        missing = CORE.missing_tools()
        if missing is not None:
            print(
                f"compiled core: not built ({missing}); the engine runs as pure Python",
                file=sys.stderr,
            )
            return self._pure()
        from Cython.Build import cythonize

        translated = cythonize(
            self.extensions,
            compiler_directives=CORE.DIRECTIVES,
            quiet=True,
            nthreads=min(4, os.cpu_count() or 1),
            build_dir=str(Path(self.build_temp, "cython")),  # never .c files in the tree
        )
        self.parallel = self.parallel or os.cpu_count() or 1
        c_sources = {e.name: e.sources for e in translated}
        for extension in self.extensions:  # setuptools' own, as finalize_options set them
            extension.sources = c_sources[extension.name]
        super().run()

    def _pure(self):
        self.extensions = []
        self.distribution.ext_modules = []


setup(
    packages=[
        *find_packages(include=["engine*", "gradstudio*", "ui*"]),
        "gradstudio.resources",
    ],
    package_dir={"gradstudio.resources": "resources"},
    package_data={
        "gradstudio.resources": RESOURCES,
        "gradstudio.interchange": ["schema/*.json"],
        "engine": ["*.pxd"],
    },
    ext_modules=[
        Extension(
            name,
            [str(Path(*name.split(".")).with_suffix(".py"))],
            extra_compile_args=CORE.compile_args(name),
        )
        for name in CORE.MODULES
    ],
    cmdclass={"build_ext": BuildCompiledCore},
)
