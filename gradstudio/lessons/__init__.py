"""Guided lessons: a shipped example plus a short script of steps, kept as data."""
