"""Make ``import torch`` (and any ``torch.x.y``) resolve to the engine, so programs run unchanged.

Submodules already imported are aliased at once; the rest are found on demand by a finder that
loads ``engine.x.y`` and registers it under both names, so ``import torch.nn.functional as F``
and ``from torch.utils.data import DataLoader`` work whether or not the engine imported them yet.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finder and loader for ``torch[.x]``: the module is ``engine[.x]`` under another name."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        engine_name = "engine" + fullname[len("torch") :]
        if importlib.util.find_spec(engine_name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> ModuleType:
        return importlib.import_module("engine" + spec.name[len("torch") :])

    def exec_module(self, module: ModuleType) -> None:
        """The engine module already ran; give it back its own spec, which the import replaced."""
        module.__spec__ = importlib.util.find_spec(module.__name__)


def alias_torch() -> None:
    """Map ``torch`` and every loaded ``engine`` submodule onto each other; find the rest lazily."""
    import engine

    for name in list(sys.modules):
        if name == "engine" or name.startswith("engine."):
            sys.modules["torch" + name[len("engine") :]] = sys.modules[name]
    sys.modules.setdefault("torch", engine)
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())
