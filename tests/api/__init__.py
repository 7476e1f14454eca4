"""The public API, the models and the codes."""
