"""Running the document off the UI thread and handing results to the views."""
