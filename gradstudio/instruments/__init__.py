"""Instruments: checks and measurements over an evaluation (verify against PyTorch,
gradcheck one node, memory per step, what an edit changed). Headless: each returns
plain data a view can draw."""
