"""Conformance corpus: scenarios and their PyTorch golden facts."""
