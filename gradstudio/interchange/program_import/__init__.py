"""Import a PyTorch program by running it: the child records, the parent builds the document."""
