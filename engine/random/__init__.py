"""PyTorch's CPU random numbers, bit for bit.

``generator`` holds the Mersenne Twister state exactly as ``CPUGeneratorImpl``
does; ``sampling`` turns its raw words into values with the transforms of
ATen's CPU kernels; ``exact_float`` and ``avx_mathfun`` reproduce the fused
multiply-adds and the AVX2 polynomials those kernels are compiled to.
"""

from engine.random.generator import (
    Generator,
    cuda_generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = [
    "Generator",
    "cuda_generator",
    "default_generator",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]
