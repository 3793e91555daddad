"""Suite-wide pytest set-up: offscreen Qt, and skipping of `cuda` / `torch` tests.

Fixtures belong in the conftest.py of each test subfolder.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

# Before anything imports Qt: tests never need a display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cupy-sim",
        action="store_true",
        help="run the `cuda` tests on the CuPy simulator (tests/cupy_sim.py); "
        "same as GRADSTUDIO_CUPY_SIM=1",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Install the CuPy simulator before anything imports the engine, when asked to."""
    if config.getoption("--cupy-sim") or os.environ.get("GRADSTUDIO_CUPY_SIM") == "1":
        from tests import cupy_sim

        cupy_sim.install()


def _cuda_usable() -> tuple[bool, str]:
    try:
        import engine
    except ImportError as exc:  # the engine is still being written
        return False, f"engine not importable: {exc}"
    try:
        ok = bool(engine.cuda.is_available())
    except Exception as exc:
        return False, f"engine.cuda.is_available() failed: {exc!r}"
    return ok, "" if ok else "no usable GPU (engine.cuda.is_available() is False)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip `cuda` tests without a usable GPU and `torch` tests without PyTorch."""
    cuda_items = [item for item in items if item.get_closest_marker("cuda")]
    torch_items = [item for item in items if item.get_closest_marker("torch")]
    if cuda_items:
        ok, why = _cuda_usable()
        if not ok:
            for item in cuda_items:
                item.add_marker(pytest.mark.skip(reason=why))
    if torch_items and importlib.util.find_spec("torch") is None:
        skip = pytest.mark.skip(reason="PyTorch is not installed (the live oracle)")
        for item in torch_items:
            item.add_marker(skip)
