"""The backward-graph panel: the grad_fn graph as PyTorch holds it."""
