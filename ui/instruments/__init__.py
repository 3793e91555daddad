"""The studio side of the instruments (``gradstudio.instruments``): verify with PyTorch,
check a node's gradient, memory per step, what an edit changed."""
