"""Optional compiled kernels (built from the C sources beside this file at install time; each has a Python
fallback in the module that uses it)."""
