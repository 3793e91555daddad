"""``torch.backends``: the switches of the libraries PyTorch can hand work to.

The engine hands none of its work to cuDNN or to Apple's MPS, so it answers as a PyTorch
build without them does: each library is unavailable and each switch keeps the value a
program sets (``torch.backends.cudnn.deterministic = True`` before training is common).
"""

from engine.backends import cudnn, mps

__all__ = ["cudnn", "mps"]
