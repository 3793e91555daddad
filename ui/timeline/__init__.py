"""The timeline panel: steps of the program and, inside backward, one grad_fn at a time."""
