"""The CPU generator: PyTorch's ``mt19937`` engine plus its cached normal sample.

PyTorch seeds its Mersenne Twister with the reference ``init_genrand`` (the low
32 bits of the seed) and tempers words exactly as MT19937 does, so NumPy's
``MT19937`` bit generator, given the same 624-word key with its position at the
end of the block, yields the same 32-bit stream.  NumPy then produces the words
in C, which is what keeps ``randn(100_000)`` fast.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

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


class Generator:
    """``torch.Generator`` for the CPU: a seed, the twister and one cached normal."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = device
        self._bits: Any = None
        self._seed = 0
        self.next_double_normal_sample: float | None = None
        self.manual_seed(int.from_bytes(os.urandom(8), "little"))

    def manual_seed(self, seed: Any) -> Generator:
        """Reseed the twister and drop the cached normal, as ``set_current_seed`` does."""
        value = int(seed)
        if value < -(1 << 63) or value > _MASK64:
            raise RuntimeError(f"Overflow when unpacking long long: {value}")
        self._seed = value & _MASK64
        self._bits = None
        self.next_double_normal_sample = None
        return self

    def _words(self, n: int) -> np.ndarray:
        """``n`` raw words; the twister is built on first use (``numpy.random``
        costs ~15 ms to import, and most sessions draw nothing)."""
        if self._bits is None:
            from numpy.random import MT19937

            bits = MT19937()
            bits.state = {
                "bit_generator": "MT19937",
                "state": {"key": _init_genrand(self._seed), "pos": _STATE_WORDS},
            }
            self._bits = bits
        return self._bits.random_raw(n)

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


default_generator = Generator()


def manual_seed(seed: Any) -> Generator:
    """``torch.manual_seed``: reseed the default CPU generator and return it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()
