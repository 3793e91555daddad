"""GradStudio from a checkout: ``python main.py [FILE]`` opens the studio, ``python main.py
run|import|export|trust|verify|gradcheck|explain ...`` runs the command line.  Installed, the same
is the ``gradstudio`` command (``gradstudio.launcher``)."""

import sys

from gradstudio.launcher import main

if __name__ == "__main__":
    sys.exit(main(sys.argv))
