"""Where user code runs: a child process that can always be stopped, whole.

A program run to import it, and a trusted document's Function code, run in a process tree
of their own under a supervisor (``supervisor.py``): it is a child subreaper, so whatever
the code starts (a fork, a double fork into a new session, a ``Popen`` never waited for) is
found and ended with it; it caps the tree's size, and its limits cap CPU time, memory and
file sizes (``limits.py``).  What the code prints is kept as a bounded tail
(``tail.py``), never read whole.  Where the system offers it, a run can be isolated: no
network and writes only to its own folder (``isolation.py``).  ``contained.py`` is the
side the studio and the command line hold.
"""
