"""The document: the graph a user edits, the commands that edit it, undo, events, layout."""
