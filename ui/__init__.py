"""PySide6 widgets of the studio (the only package that imports Qt).

Importing it changes nothing in the process: the two process-wide settings the studio
needs before its first Qt call (the PySide6 ``None`` reference workaround and the
collector thresholds) are made by ``ui.app.prepare_process``, which
``create_application`` calls.
"""
