"""The CPU generator: PyTorch's ``mt19937`` engine plus its cached normal sample.

PyTorch seeds its Mersenne Twister with the reference ``init_genrand`` (the low
32 bits of the seed) and tempers words exactly as MT19937 does, so NumPy's
``MT19937`` bit generator, given the same 624-word key with its position at the
end of the block, yields the same 32-bit stream.  NumPy then produces the words
in C, which is what keeps ``randn(100_000)`` fast.
"""

from __future__ import annotations

import os
import struct
from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import to_device, transfer
from engine.tensor import Tensor

_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
_STATE_WORDS = 624


def _init_genrand(seed: int) -> np.ndarray:
    """The 624-word key of ``mt19937::init_with_uint32``."""
    key = np.empty(_STATE_WORDS, dtype=np.uint32)
    s = seed & _MASK32
    key[0] = s
    for j in range(1, _STATE_WORDS):
        s = (1812433253 * (s ^ (s >> 30)) + j) & _MASK32
        key[j] = s
    return key


#: ``default_rng_seed_val``: the seed of a new ``torch.Generator()``.
DEFAULT_SEED = 67280421310721
#: ``sizeof(CPUGeneratorImplState)``: the legacy POD (seed, left, seeded, next,
#: 624 words as uint64, three unused doubles, the cached double normal's flag)
#: followed by the cached float normal and its flag.
STATE_BYTES = 5056
_WORDS_AT = 24
_NORMAL_AT = _WORDS_AT + 8 * _STATE_WORDS  # normal_x, normal_y, normal_rho, normal_is_valid
_FLOAT_NORMAL_AT = _NORMAL_AT + 32


#: One entry per running ``vmap``: a callable that refuses a draw, or None where draws are let
#: through (``engine.func.vmap``).
DRAW_GUARDS: list[Any] = []


class Generator:
    """``torch.Generator`` for the CPU: a seed, the twister and one cached normal.

    The twister's position is PyTorch's ``(left, next)``: ``left`` words remain
    before the next twist (1 right after seeding), ``next`` indexes the block.
    Until the first draw the state is kept as PyTorch's ``(key, left, next)``.
    """

    def __init__(self, device: Any = "cpu") -> None:
        self.device = device
        self._bits: Any = None
        self._pending: tuple[np.ndarray, int, int] | None = None
        self._seed = 0
        self.next_double_normal_sample: float | None = None
        self._float_normal: float | None = None
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: Any) -> Generator:
        """Reseed the twister and drop the cached normals, as ``set_current_seed`` does."""
        value = int(seed)
        if value < -(1 << 63) or value > _MASK64:
            raise RuntimeError(f"Overflow when unpacking long long: {value}")
        self._seed = value & _MASK64
        self._bits = None
        self._pending = (_init_genrand(self._seed), 1, 0)
        self.next_double_normal_sample = None
        self._float_normal = None
        return self

    def _words(self, n: int) -> np.ndarray:
        """``n`` raw words; the twister is built on first use (``numpy.random``
        costs ~15 ms to import, and most sessions draw nothing)."""
        for guard in DRAW_GUARDS:
            if guard is not None:
                guard()  # a ``vmap(randomness='error')`` is running
        if self._bits is None:
            from numpy.random import MT19937

            assert self._pending is not None
            key, left, nxt = self._pending
            bits = MT19937()
            pos = _STATE_WORDS if left == 1 else nxt
            bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
            self._bits = bits
            self._pending = None
        return self._bits.random_raw(n)

    def _position(self) -> tuple[np.ndarray, int, int]:
        """The twister as PyTorch holds it: (624 words, left, next)."""
        if self._bits is None:
            assert self._pending is not None
            return self._pending
        state = self._bits.state["state"]
        pos = int(state["pos"])
        return np.asarray(state["key"], dtype=np.uint32), _STATE_WORDS + 1 - pos, pos

    def get_state(self) -> Any:
        """The state as PyTorch's ``ByteTensor`` (``CPUGeneratorImplState`` bytes)."""
        key, left, nxt = self._position()
        raw = bytearray(STATE_BYTES)
        struct.pack_into("<QiiQ", raw, 0, self._seed, left, 1, nxt)
        raw[_WORDS_AT:_NORMAL_AT] = key.astype("<u8").tobytes()
        if self.next_double_normal_sample is not None:
            struct.pack_into("<d", raw, _NORMAL_AT + 8, self.next_double_normal_sample)
            struct.pack_into("<i", raw, _NORMAL_AT + 24, 1)
        if self._float_normal is not None:
            struct.pack_into("<f?", raw, _FLOAT_NORMAL_AT, self._float_normal, True)
        # ``torch.tensor(bytes, dtype=uint8)`` on the default device, as ``creation.tensor``
        # makes it (the generator sits below the factories, which draw from it)
        state = np.frombuffer(bytes(raw), dtype=np.uint8).copy()
        return Tensor._wrap(transfer(state, to_device(None)))

    def set_state(self, new_state: Any) -> Generator:
        """Restore a state from ``get_state`` (PyTorch's checks and messages)."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != STATE_BYTES:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input "
                f"RNG state size to be {new_state.numel()}"
            )
        raw = new_state.numpy(force=True).tobytes()
        seed, left, _seeded, nxt = struct.unpack_from("<QiiQ", raw, 0)
        words = np.frombuffer(raw, dtype="<u8", count=_STATE_WORDS, offset=_WORDS_AT)
        (normal_y,) = struct.unpack_from("<d", raw, _NORMAL_AT + 8)
        (valid,) = struct.unpack_from("<i", raw, _NORMAL_AT + 24)
        float_normal, float_valid = struct.unpack_from("<f?", raw, _FLOAT_NORMAL_AT)
        self._seed = seed
        self._bits = None
        self._pending = (words.astype(np.uint32), left, nxt)
        self.next_double_normal_sample = normal_y if valid else None
        self._float_normal = float_normal if float_valid else None
        return self

    def seed(self) -> int:
        """Reseed from the operating system and return the new seed."""
        value = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        return self._seed

    def random(self, n: int) -> np.ndarray:
        """``n`` successive ``random()`` words (uint32 values in a uint64 array)."""
        return self._words(n)

    def random64(self, n: int) -> np.ndarray:
        """``n`` successive ``random64()`` values: two words each, the first one high."""
        words = self._words(2 * n)
        return (words[0::2] << np.uint64(32)) | words[1::2]

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {id(self):#x}>"


#: The default CPU generator, seeded nondeterministically as PyTorch's is.
default_generator = Generator()
default_generator.manual_seed(int.from_bytes(os.urandom(8), "little"))


#: CUDA's generator.  PyTorch draws CUDA values with Philox, which is not reproduced
#: here (CUDA values come from this twister); what is kept is that CUDA has a stream of
#: its own: ``manual_seed`` seeds both, ``cuda.manual_seed_all`` only this one.
cuda_generator = Generator("cuda")
cuda_generator.manual_seed(int.from_bytes(os.urandom(8), "little"))


def manual_seed(seed: Any) -> Generator:
    """``torch.manual_seed``: reseed every device's generator; return the CPU one."""
    cuda_generator.manual_seed(seed)
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    """``torch.get_rng_state()``: the default generator's state bytes."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """``torch.set_rng_state(state)``."""
    default_generator.set_state(new_state)


def generator_of(generator: Generator | None, cuda: bool = False) -> Generator:
    """The generator a draw uses: the caller's, else the default one of its device."""
    if generator is not None:
        return generator
    return cuda_generator if cuda else default_generator
