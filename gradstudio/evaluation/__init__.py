"""Evaluation: running a document step by step on the engine, its timeline, and
explanations of errors."""
