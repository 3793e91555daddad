"""``torch.distributions.Multinomial``: counts of ``total_count`` categorical draws, drawn
as PyTorch draws them (one ``Categorical.sample`` and a ``scatter_add_``)."""

from __future__ import annotations

from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.categorical import Categorical
from engine.distributions.distribution import Distribution
from engine.distributions.utils import broadcast_all
from engine.tensor import Size


class Multinomial(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(
        self,
        total_count: int = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    @property
    def support(self) -> Any:  # type: ignore[override]
        return constraints.multinomial(self.total_count)

    @property
    def probs(self) -> Any:
        return self._categorical.probs

    @property
    def logits(self) -> Any:
        return self._categorical.logits

    @property
    def mean(self) -> Any:
        return self.probs * self.total_count

    @property
    def variance(self) -> Any:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count, *sample_shape)))
        shifted_idx = list(range(samples.dim()))
        shifted_idx.append(shifted_idx.pop(0))
        samples = samples.permute(*shifted_idx)
        counts = samples.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, samples, engine.ones_like(samples))
        return counts.type_as(self.probs)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = engine.lgamma(value.sum(-1) + 1)
        log_factorial_xs = engine.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -float("inf"))] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers

    def __repr__(self) -> str:
        return f"Multinomial(probs: {self.probs.size()}, logits: {self.logits.size()})"
