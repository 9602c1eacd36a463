"""The old import path of :mod:`nlgmetrics.engines.spark`: this name is that very module (an alias in
``sys.modules``), so what is read or set through it is the module's own."""

import importlib
import sys

from .engines.spark import *  # noqa: F403  (the names, for type checkers and editors)

sys.modules[__name__] = importlib.import_module(".engines.spark", __package__)
