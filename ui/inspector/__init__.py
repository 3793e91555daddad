"""The inspector panel: the selected node's facts, parameters, values and code."""
