"""The Explain panel: how a tensor's ``.grad`` came to be, at the playhead."""
