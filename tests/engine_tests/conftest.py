"""Device parametrisation shared by the engine tests: the CUDA half runs where a GPU is."""

from __future__ import annotations

import pytest

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)]


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> str:
    return str(request.param)
