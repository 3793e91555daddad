"""PySide6 widgets of the studio (the only package that imports Qt).

Importing it applies two process-wide settings the studio needs before its first
Qt call: the PySide6 ``None`` reference workaround and the collector thresholds.
"""

from ui.gc_policy import tune_collector
from ui.none_refcount import make_none_immortal

make_none_immortal()
tune_collector()
