"""The one error hierarchy of nlgmetrics.

Every error the library raises on purpose derives from :class:`NlgMetricsError`, so callers can catch
everything we raise with one ``except``. The subclasses also derive from the matching built-in error so that
code written against ``ValueError`` or ``ImportError`` keeps working.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

__all__ = [
    "ExternalToolError",
    "InvalidInputError",
    "MissingDependencyError",
    "MissingExtensionError",
    "NlgMetricsError",
    "UnknownOptionError",
    "warn",
]

_PACKAGE = os.path.dirname(os.path.realpath(__file__))  # os.path, not pathlib: import nlgmetrics stays cheap


class NlgMetricsError(Exception):
    """Base class of every error raised by nlgmetrics."""


class InvalidInputError(NlgMetricsError, ValueError):
    """Input that cannot be scored: ``None``, a non-string, mismatched lengths, an empty corpus, bad UTF-8.

    The message always names the offending index, or the file and the line.
    """


class UnknownOptionError(InvalidInputError):
    """An unknown preset, tokenizer, reduction or other named option. The message lists the valid names."""


class MissingDependencyError(NlgMetricsError, ImportError):
    """An optional dependency is not installed. The message says which extra or package to install."""

    def __init__(self, what: str, install: str) -> None:
        self.what = what
        self.install = install
        super().__init__(f"{what} needs an optional dependency that is not installed. Install it with: {install}")


class ExternalToolError(NlgMetricsError, RuntimeError):
    """An external program that a metric runs (METEOR 1.5's Java jar) failed: it could not start, died, or gave
    no answer in time. The message quotes the end of its standard error."""


class MissingExtensionError(MissingDependencyError):
    """The compiled kernels (``nlgmetrics._native``) are missing: this copy of nlgmetrics was installed without
    building them (or they were built for another Python). The message says how to rebuild them."""

    def __init__(self, detail: str = "") -> None:
        install = "pip install --force-reinstall --no-deps nlgmetrics (in a source checkout: pip install -e .)"
        self.what = "nlgmetrics._native"
        self.install = install
        NlgMetricsError.__init__(
            self,
            "the compiled kernels of nlgmetrics (nlgmetrics._native) are missing"
            + (f" ({detail})" if detail else "")
            + f". They are built by pip with the machine's C++ compiler; reinstall with: {install}",
        )


def unknown_option(kind: str, value: object, valid: list[str] | tuple[str, ...]) -> UnknownOptionError:
    """Build the standard message for an unknown named option."""
    choices = ", ".join(repr(v) for v in sorted(valid))
    return UnknownOptionError(f"unknown {kind} {value!r}; valid values are: {choices}")


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the caller's code: the first frame outside nlgmetrics,
    however deep in the library the warning is raised."""

    def ours(f: Any) -> bool:
        name = f.f_code.co_filename
        # generated code (a dataclass's __init__) called from the package counts as the package
        return name.startswith(_PACKAGE) or (name.startswith("<") and f.f_back is not None and ours(f.f_back))

    frame = sys._getframe(1)
    level = 2  # stacklevel 2 is warn's caller, frame
    while frame is not None and ours(frame):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, category, stacklevel=level)
