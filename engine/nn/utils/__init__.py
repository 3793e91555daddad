"""``engine.nn.utils``: gradient clipping and flattening parameters to a vector."""

from engine.nn.utils import rnn
from engine.nn.utils.clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_
from engine.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "parameters_to_vector",
    "rnn",
    "vector_to_parameters",
]
