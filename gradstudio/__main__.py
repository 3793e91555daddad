"""``python -m gradstudio``: the same as the ``gradstudio`` command."""

import sys

from gradstudio.launcher import main

sys.exit(main([sys.argv[0], *sys.argv[1:]]))
