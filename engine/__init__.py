"""A PyTorch-faithful autograd engine on NumPy (CPU) and CuPy (CUDA).

``import engine as torch``: snippets in the subset of ``shared/spec/engine-api.md``
run unchanged and every autograd fact (flags, ``grad_fn`` names and edges,
versions, errors, warnings) agrees with PyTorch 2.13.
"""

# isort: off
from engine import compiled_core  # first: its import hook must see every engine module load

# Then the layers bottom-up: engine.autograd loads the graph's nodes, Tensor and the ops
# below its own tools (see its __init__), so each module's imports find their names.
from engine import autograd

# isort: on
import builtins
from math import e, inf, nan, pi
from typing import Any

from engine import (
    _methods,
    accelerator,
    amp,
    backends,
    catalog,
    cuda,
    distributions,
    dtypes,
    func,
    linalg,
    nn,
    optim,
    tensor_methods,
    utils,
    version,
)
from engine.amp import autocast, clear_autocast_cache, get_autocast_dtype, is_autocast_enabled
from engine.autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from engine.backend import device
from engine.compiled_core import compiled
from engine.counting import (
    bincount,
    count_nonzero,
    finfo,
    iinfo,
    numel,
    tril_indices,
    triu_indices,
)
from engine.creation import (
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    arange,
    empty,
    empty_like,
    full,
    full_like,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from engine.defaults import (
    get_default_device,
    get_default_dtype,
    set_default_device,
    set_default_dtype,
)
from engine.dtypes import (
    bfloat16,
    double,
    dtype,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
)
from engine.dtypes import (
    bool_ as bool,  # noqa: A004
)
from engine.dtypes import float as float  # noqa: A004
from engine.dtypes import int as int  # noqa: A004
from engine.formatting import set_printoptions
from engine.func import vmap
from engine.functions import *  # noqa: F403
from engine.functions import __all__ as _fn_all
from engine.grad_mode import (
    enable_grad,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from engine.inference_mode import inference_mode
from engine.matmul_precision import get_float32_matmul_precision, set_float32_matmul_precision
from engine.ops.pointwise_extra import fix, isneginf, isposinf, logical_xor
from engine.ops.random import bernoulli, multinomial, normal, poisson
from engine.ops.shape import movedim
from engine.ops.stacking import (
    atleast_3d,
    cartesian_prod,
    column_stack,
    dstack,
    ravel,
    row_stack,
    swapaxes,
    swapdims,
)
from engine.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from engine.searching import bitwise_left_shift, bitwise_right_shift, gcd, isin, lcm
from engine.serialization import load, save
from engine.spaced import eye, from_numpy, linspace, logspace
from engine.spaced import range_ as range  # noqa: A004  (PyTorch's deprecated name)
from engine.tensor import Size, Tensor
from engine.tensor_methods import is_complex, is_floating_point, is_signed, square_

__version__ = "2.13.0+engine"


moveaxis = movedim  # NumPy's name, the same op
newaxis: None = None  # ``x[:, torch.newaxis]``, NumPy's spelling of ``None`` in an index


def is_tensor(obj: object) -> builtins.bool:
    return isinstance(obj, Tensor)


def result_type(a: object, b: object) -> dtype:
    return dtypes.result_type(a, b)


def promote_types(a: dtype, b: dtype) -> dtype:
    return dtypes.promote_types(a, b)


@catalog.public(
    "as_tensor",
    (),
    (catalog.Param("data", "data"), catalog.Param("dtype", "dtype")),
    category="creation",
    doc="a tensor from data, shared without a copy where none is needed",
    method=False,
)
def as_tensor(data: Any, dtype: dtype | None = None, device: Any = None) -> Tensor:
    """No copy where none is needed: a tensor already of that dtype and device is returned
    itself, a NumPy array of a supported dtype shares its memory; else ``tensor(data)``."""
    import numpy as np

    if isinstance(data, Tensor):
        out = data if dtype is None or dtype is data.dtype else data.to(dtype)
        return out if device is None else out.to(device)
    if isinstance(data, np.ndarray) and device is None and data.dtype in dtypes.FROM_NP:
        out = from_numpy(data)
        return out if dtype is None or dtype is out.dtype else out.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """Whether type promotion may cast ``from_`` to ``to``: never down a category
    (complex to real, floating to integral, anything else to bool), as ``c10::canCast``."""
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return from_ is dtypes.bool_ or to is not dtypes.bool_


__all__ = [
    *_fn_all,
    "Generator",
    "Size",
    "Tensor",
    "bernoulli",
    "isneginf",
    "isposinf",
    "logical_xor",
    "moveaxis",
    "fix",
    "atleast_3d",
    "cartesian_prod",
    "column_stack",
    "dstack",
    "ravel",
    "row_stack",
    "swapaxes",
    "swapdims",
    "bincount",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "gcd",
    "isin",
    "lcm",
    "multinomial",
    "poisson",
    "count_nonzero",
    "finfo",
    "iinfo",
    "numel",
    "tril_indices",
    "triu_indices",
    "normal",
    "default_generator",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "randint",
    "randint_like",
    "randperm",
    "seed",
    "set_printoptions",
    "set_rng_state",
    "autograd",
    "catalog",
    "cuda",
    "device",
    "func",
    "vmap",
    "nn",
    "distributions",
    "tensor",
    "accelerator",
    "backends",
    "range",
    "version",
    "get_float32_matmul_precision",
    "set_float32_matmul_precision",
    "e",
    "inf",
    "nan",
    "newaxis",
    "pi",
]
