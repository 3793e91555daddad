"""``engine.optim``: optimizers and learning-rate schedulers, as ``torch.optim`` has them."""

from engine.optim import lr_scheduler
from engine.optim.adadelta import Adadelta
from engine.optim.adagrad import Adagrad
from engine.optim.adam import Adam, AdamW
from engine.optim.adamax import Adamax
from engine.optim.asgd import ASGD
from engine.optim.lbfgs import LBFGS
from engine.optim.nadam import NAdam
from engine.optim.optimizer import Optimizer
from engine.optim.radam import RAdam
from engine.optim.rmsprop import RMSprop
from engine.optim.rprop import Rprop
from engine.optim.sgd import SGD

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
]
