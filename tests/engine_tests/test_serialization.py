"""``engine.save``/``engine.load``: every dtype round-trips, and loading is safe by default."""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path

import pytest

import engine


def _roundtrip(obj: object, **load_kwargs: object) -> object:
    buf = io.BytesIO()
    engine.save(obj, buf)
    buf.seek(0)
    return engine.load(buf, **load_kwargs)


@pytest.mark.parametrize(
    "dtype", ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]
)
def test_every_dtype_and_flag_round_trips(dtype: str) -> None:
    dt = getattr(engine, dtype)
    t = engine.tensor([[1, 0], [3, 4]], dtype=dt)
    back = _roundtrip({"t": t})["t"]
    assert back.dtype is t.dtype
    assert back.tolist() == t.tolist()
    assert not back.requires_grad


def test_parameters_and_state_dicts_come_back_as_such(tmp_path: Path) -> None:
    model = engine.nn.Sequential(engine.nn.Linear(3, 2), engine.nn.ReLU())
    path = tmp_path / "model.pt"
    engine.save({"model": model.state_dict(), "w": model[0].weight}, path)
    loaded = engine.load(path)
    assert isinstance(loaded["w"], engine.nn.Parameter)
    assert loaded["w"].requires_grad and loaded["w"].is_leaf
    other = engine.nn.Sequential(engine.nn.Linear(3, 2), engine.nn.ReLU())
    other.load_state_dict(loaded["model"])
    assert engine.equal(other[0].weight, model[0].weight)


class _Boom:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch should-not-exist",))


def test_weights_only_load_refuses_code_and_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"x": _Boom()}))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pickle.UnpicklingError, match=r"Unsupported global: GLOBAL posix\.system"):
        engine.load(path)
    assert not (tmp_path / "should-not-exist").exists()


def test_map_location_and_missing_file() -> None:
    back = _roundtrip(engine.ones(2, requires_grad=True), map_location="cpu")
    assert back.requires_grad and back.device.type == "cpu"
    with pytest.raises(FileNotFoundError):
        engine.load("/nonexistent/checkpoint.pt")
