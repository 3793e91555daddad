"""``import cupyx`` beside the simulated ``cupy`` (see ``tests/cupy_path/cupy``)."""

import sys

from tests import cupy_sim

sys.modules[__name__] = cupy_sim.cupyx
