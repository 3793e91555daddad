"""The palette of node types and the quick type search."""
