"""GradStudio's headless core: the graph document, its edits, evaluation, files and
PyTorch import/export.  The Qt UI in ``ui/`` only draws what this package holds."""
