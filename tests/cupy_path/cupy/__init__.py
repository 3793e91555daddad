"""``import cupy`` in a process started with ``tests/cupy_path`` on its path: the simulator.

``cupy_sim.install()`` puts this folder on ``PYTHONPATH``, so the evaluation worker (a
fresh interpreter) sees the same simulated CuPy as the test process.
"""

import sys

from tests import cupy_sim

sys.modules[__name__] = cupy_sim.cupy
