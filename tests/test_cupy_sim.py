"""The CuPy simulator fails where real CuPy fails; otherwise the ``cuda`` runs prove nothing.

Each rule is CuPy's (``cupy/_core/core.pyx``, ``cupy/__init__.py``); these tests use the
simulator's module directly, so they run on every machine without installing it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.cupy_sim import cupy, cupyx

IMPLICIT = re.escape(
    "Implicit conversion to a NumPy array is not allowed. "
    "Please use `.get()` to construct a NumPy array explicitly."
)


def test_own_array_type_and_no_implicit_host_conversion() -> None:
    a = cupy.asarray(np.arange(3.0))
    assert not isinstance(a, np.ndarray) and type(a).__module__ == "cupy"
    with pytest.raises(TypeError, match=IMPLICIT):
        np.asarray(a)
    with pytest.raises(TypeError, match=IMPLICIT):
        np.array([a, a])
    assert type(a.get()) is np.ndarray and type(cupy.asnumpy(a)) is np.ndarray
    assert a.get().tolist() == [0.0, 1.0, 2.0]


def test_asarray_of_host_data_copies_to_the_device() -> None:
    host = np.zeros(2)
    dev = cupy.asarray(host)
    host[0] = 5.0
    assert dev.get().tolist() == [0.0, 0.0]
    assert cupy.asarray(dev) is dev


@pytest.mark.parametrize("other", [np.ones(3), [1.0, 1.0, 1.0]], ids=["ndarray", "list"])
def test_operators_and_ufuncs_refuse_host_arrays_and_lists(other: object) -> None:
    a = cupy.ones(3)
    for call in (lambda: a + other, lambda: other * a, lambda: cupy.add(a, other)):
        with pytest.raises(TypeError, match="Unsupported type"):
            call()
    with pytest.raises(TypeError, match="Unsupported type"):
        cupy.exp(other)
    with pytest.raises(TypeError):
        cupy.concatenate([a, np.ones(3)])
    assert (a + 1).get().tolist() == [2.0, 2.0, 2.0]
    assert (a * np.float32(2)).get().tolist() == [2.0, 2.0, 2.0]


def test_reductions_and_integer_indexing_give_0d_device_arrays() -> None:
    a = cupy.asarray(np.arange(6.0).reshape(2, 3))
    for r in (a.sum(), cupy.max(a), a[1, 2], a[0][0]):
        assert type(r) is cupy.ndarray and r.shape == ()
    assert float(a.sum()) == 15.0 and a[1, 2].item() == 5.0


def test_flags_and_constructor_are_cupys() -> None:
    a = cupy.ndarray((2, 3), dtype=np.float32)
    assert a.shape == (2, 3) and a.dtype == np.float32
    assert (a.flags.c_contiguous, a.flags.f_contiguous, a.flags.owndata) == (True, False, True)
    assert not hasattr(a.flags, "writeable")
    assert a.T.flags.owndata is False
    with pytest.raises(TypeError):
        cupy.ndarray(np.array([1.5, 2.5]))


def test_only_cupys_public_names_and_no_float_warnings() -> None:
    assert not hasattr(cupy, "errstate") and not hasattr(cupy, "seterr")
    assert cupy.cuda.runtime.getDeviceCount() == 1
    with np.errstate(all="raise"):
        r = cupy.asarray(np.array([1.0, 0.0])) / 0.0
        assert np.isnan(r.get()[1]) and np.isinf(r.get()[0])
        assert np.isinf(cupy.log(cupy.zeros(1)).get()[0])


def test_shape_setter_and_scatter_add_as_cupy() -> None:
    a = cupy.zeros(6)
    v = a.view()
    v.shape = (2, 3)
    with pytest.raises(AttributeError, match="Incompatible shape"):
        w = v.T.view()
        w.shape = (6,)
    cupyx.scatter_add(a, cupy.asarray(np.array([0, 0, 1])), 1.0)
    assert a.get().tolist()[:2] == [2.0, 1.0]


def test_ufunc_at_only_where_cuda_has_the_atomic() -> None:
    """``_scatter_op_single`` (``cupy/_core/_routines_indexing.pyx``): with an integer-array
    index, ``add.at`` and ``cupyx.scatter_add`` take 32/64-bit integers and floats only;
    a boolean mask runs an elementwise kernel (any dtype); ``multiply.at`` does not exist."""
    idx = cupy.asarray(np.array([0, 0]))
    for dtype in (np.int8, np.uint8, np.int16, np.bool_):
        a = cupy.zeros(3, dtype)
        with pytest.raises(TypeError, match=r"^cupy\.add\.at only supports int32, int64, "):
            cupy.add.at(a, idx, cupy.ones(2, dtype))
        with pytest.raises(TypeError, match=r"^cupy\.add\.at only supports"):
            cupyx.scatter_add(a, (idx,), cupy.ones(2, dtype))
        cupy.add.at(a, cupy.asarray(np.array([True, False, True])), cupy.ones(2, dtype))
    a = cupy.zeros(3, np.int64)
    cupy.add.at(a, idx, cupy.ones(2, np.int64))
    assert a.tolist() == [2, 0, 0]
    with pytest.raises(TypeError, match=r"^cupy\.subtract\.at only supports int32, uint32"):
        cupy.subtract.at(a, idx, cupy.ones(2, np.int64))
    with pytest.raises(
        NotImplementedError, match=re.escape("`cupy_multiply.at` is not supported yet")
    ):
        cupy.multiply.at(a, idx, cupy.ones(2, np.int64))
