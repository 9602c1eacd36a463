"""Signatures: one string that records every setting that changes a number.

The format follows sacrebleu's: ``key:value`` pairs joined by ``|``, starting with the metric name and ending
with the library version, e.g. ``nls|sub:1|red:mean|nlgmetrics:0.1.0``. Config dataclasses declare the short
key of each field in the field's metadata (``signature="sub"``); fields without a key are left out because
they do not change the number (batch sizes, progress bars).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = ["build_signature", "format_value", "parse", "sacrebleu_nrefs", "same_settings", "sig_field"]


def sig_field(
    key: str | None,
    default: Any = dataclasses.MISSING,
    *,
    help: str | None = None,
    choices: Any = None,
    role: str | None = None,
    flags: tuple[str, ...] = (),
    negative: str | None = None,
    **kwargs: Any,
) -> Any:
    """A dataclass field that appears in the signature under ``key`` (``None``: a field that does not change the
    number, left out of the signature). ``help`` and ``choices`` describe the option for the command line and
    the docs (see :func:`nlgmetrics.cli.command.derived_options`); ``role`` says what the field is to them (one
    of :data:`ROLES`; default ``"option"``); ``flags`` are further spellings of its flag (``("-tok",)``) and
    ``negative`` a flag that sets a boolean field to false (``"--quiet"`` for ``progress``). A field whose
    ``metadata`` holds ``omit_none=True`` appears only when it is set (an option added later leaves the
    signatures without it as they were)."""
    metadata = dict(kwargs.pop("metadata", {}) or {})
    if key:
        metadata["signature"] = key
    if help is not None:
        metadata["help"] = help
    if choices is not None:
        metadata["choices"] = tuple(choices)
    if role is not None:
        if role not in ROLES:
            raise ValueError(f"role {role!r}: expected one of {', '.join(ROLES)}")
        metadata["role"] = role
    if flags:
        metadata["flags"] = tuple(flags)
    if negative is not None:
        metadata["negative"] = negative
    if default is dataclasses.MISSING:
        return dataclasses.field(metadata=metadata, **kwargs)
    return dataclasses.field(default=default, metadata=metadata, **kwargs)


#: What a config field is to the interfaces built from the config (the metadata key ``role``):
#:
#: * ``"option"`` (the default): a setting a user picks; the command line has a flag for it;
#: * ``"convention"``: an arithmetic convention that the presets set (whose tokenisation, rounding or averaging);
#:   still a flag, listed apart under "conventions (normally set by --preset)";
#: * ``"object"``: holds a Python object (precomputed idf weights), so it is given from Python only;
#: * ``"resolved"``: filled in from other fields or from the inputs (a baseline read from its file, a model's
#:   digest, the lm-eval filter an eval log carries); never given as a flag of its own;
#: * ``"internal"``: set by the family itself (which checkpoint class a config is for).
ROLES = ("option", "convention", "object", "resolved", "internal")
#: The roles of fields that are no flag of the command line.
NOT_FLAGS = frozenset({"object", "resolved", "internal"})


def field_role(field: dataclasses.Field[Any]) -> str:
    """The :data:`ROLES` entry of a config field (``"option"`` unless its metadata says otherwise; the older
    ``metadata={"cli": False}`` reads as ``"internal"``)."""
    role: str = field.metadata.get("role") or ("internal" if field.metadata.get("cli") is False else "option")
    return role


def format_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(value) if value != int(value) else f"{value:.1f}"
    if isinstance(value, (tuple, list)):
        return ",".join(format_value(v) for v in value)
    return str(value)


def sacrebleu_nrefs(stats: Any) -> int | str:
    """sacrebleu's ``nrefs`` in a signature (BLEU, chrF, TER): the number of references of every segment, or
    ``"var"`` when it varies (``0`` for no segment). ``stats`` carries ``n_segments``, ``n_refs`` and
    ``n_refs_sq`` (the sum of squared reference counts: a constant count ``k`` makes ``n * n_refs_sq == n_refs**2``)."""
    n, refs, refs_sq = int(stats.n_segments), int(stats.n_refs), int(stats.n_refs_sq)
    if n == 0:
        return 0
    return refs // n if n * refs_sq == refs * refs else "var"


def build_signature(metric: str, config: Any = None, extra: Mapping[str, Any] | None = None) -> str:
    """Build ``metric|key:value|…|nlgmetrics:<version>`` from a config dataclass and extra pairs."""
    from ._version import __version__

    parts = [metric]
    if config is not None:
        for f in dataclasses.fields(config):
            key = f.metadata.get("signature")
            value = getattr(config, f.name)
            if key and not (value is None and f.metadata.get("omit_none")):
                parts.append(f"{key}:{format_value(value)}")
    for key, value in (extra or {}).items():
        parts.append(f"{key}:{format_value(value)}")
    parts.append(f"nlgmetrics:{__version__}")
    return "|".join(parts)


def parse(signature: str) -> tuple[str, dict[str, str]]:
    """The metric name and the settings (``key -> value``) of a signature, the tokenizer under today's public name
    (a signature written before a tokenisation was renamed, ``gleu|...|tok:sacrebleu-13a|...``, reads as
    ``tok:13a``; see :func:`nlgmetrics.text.tokenizers.canonical`).

    >>> parse("gleu|min:1|max:4|tok:sacrebleu-13a|preset:hf-google-bleu|nlgmetrics:0.1.0")[1]["tok"]
    '13a'
    """
    name, *parts = signature.split("|") if signature else [""]
    settings: dict[str, str] = {}
    for part in parts:
        key, _, value = part.partition(":")
        settings[key] = value
    if "tok" in settings:
        from .text.tokenizers import canonical

        settings["tok"] = canonical(settings["tok"], name.lower())
    return name, settings


def same_settings(a: str, b: str) -> bool:
    """Whether two signatures name the same settings: the same after :func:`parse`, the library version aside."""
    (name_a, settings_a), (name_b, settings_b) = parse(a), parse(b)
    settings_a.pop("nlgmetrics", None)
    settings_b.pop("nlgmetrics", None)
    return name_a == name_b and settings_a == settings_b
