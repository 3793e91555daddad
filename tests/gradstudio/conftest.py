"""Fixtures for the headless core: an isolated config dir and trust store."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradstudio.interchange.examples import EXAMPLES, build
from gradstudio.interchange.fileformat import save_document
from gradstudio.interchange.trust import TrustStore


@pytest.fixture(autouse=True)
def _isolated_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the user's real ~/.config/gradstudio."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


@pytest.fixture
def store(tmp_path: Path) -> TrustStore:
    return TrustStore(tmp_path / "trusted.json")


@pytest.fixture
def seed_file(tmp_path: Path) -> Path:
    """Seed 001 saved as a trusted file, for the command line's tests."""
    path = tmp_path / "seed.gstudio"
    example = next(e for e in EXAMPLES if e.name == "001_leaf_grad")
    save_document(build(example), path, TrustStore(tmp_path / "t.json"))
    return path
