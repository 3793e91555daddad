"""``engine.optim``: optimizers and learning-rate schedulers, as ``torch.optim`` has them."""

from engine.optim import lr_scheduler
from engine.optim.adagrad import Adagrad
from engine.optim.adam import Adam, AdamW
from engine.optim.optimizer import Optimizer
from engine.optim.rmsprop import RMSprop
from engine.optim.sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
