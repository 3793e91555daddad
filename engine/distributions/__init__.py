"""``torch.distributions``: the distributions learners' programs draw from (a policy's
``Categorical``, a VAE's ``Normal``, ``Bernoulli``, ``Multinomial``, ``Uniform``) and
``kl_divergence``, built from the engine's ops as PyTorch builds them, so a seeded program
draws PyTorch's samples and records PyTorch's graph."""

from __future__ import annotations

from engine.distributions import constraints
from engine.distributions.bernoulli import Bernoulli
from engine.distributions.categorical import Categorical
from engine.distributions.distribution import Distribution
from engine.distributions.kl import kl_divergence, register_kl
from engine.distributions.multinomial import Multinomial
from engine.distributions.normal import Normal
from engine.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "Multinomial",
    "Normal",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
