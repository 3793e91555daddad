"""Interchange: the file format, trust, the bundled examples, and PyTorch import and export."""
