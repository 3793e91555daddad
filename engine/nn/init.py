# TEMPORARY local testing only (not committed): the rng helper provides the real one.
import math

import numpy as np


def _calculate_fan_in_and_fan_out(t):
    fan_in = t.shape[1] if t.dim() > 1 else t.shape[0]
    fan_out = t.shape[0]
    rf = 1
    for s in t.shape[2:]:
        rf *= s
    return fan_in * rf, fan_out * rf


def uniform_(t, a=0.0, b=1.0):
    t._data[...] = np.random.uniform(a, b, t.shape)
    t._counter()[0] += 1
    return t


def kaiming_uniform_(t, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    fan_in, _ = _calculate_fan_in_and_fan_out(t)
    gain = math.sqrt(2.0 / (1 + a**2))
    bound = math.sqrt(3.0) * gain / math.sqrt(fan_in)
    return uniform_(t, -bound, bound)


def normal_(t, mean=0.0, std=1.0):
    t._data[...] = np.random.normal(mean, std, t.shape)
    t._counter()[0] += 1
    return t
