"""``engine.utils``: the parts of ``torch.utils`` that learners' programs use."""

from engine.utils import data

__all__ = ["data"]
