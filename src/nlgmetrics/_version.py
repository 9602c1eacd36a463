"""The version of nlgmetrics, in a module of its own: every module that signs or records results reads it here,
without importing the package's root (``pyproject.toml`` reads it here too)."""

__version__ = "0.1.0"
