"""Build configuration beyond pyproject.toml: one optional C extension.

``nlgmetrics._ext._eed`` runs the Extended Edit Distance dynamic program (see src/nlgmetrics/_ext/eed.c for why it
is C). It is optional: where it cannot be compiled, the install goes on and the metric runs the same loop in Python.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("nlgmetrics._ext._eed", ["src/nlgmetrics/_ext/eed.c"], optional=True)])
