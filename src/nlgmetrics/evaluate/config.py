"""The settings of an evaluation run, declared once.

:class:`RunConfig` has one field per run setting. Each field carries its default, its check, the spelling and help
of its ``nlgmetrics evaluate`` flag and its key in a run-config file (TOML or YAML) as field metadata, and every
interface reads them from there:

* :func:`~nlgmetrics.evaluate.evaluate` takes the ``api`` fields as keywords (same names, same defaults) and checks
  them by building a :class:`RunConfig`;
* the ``evaluate`` command adds one flag per ``cli`` field (:meth:`RunConfig.add_arguments`) and builds the run
  from its flags and a config file (:meth:`RunConfig.from_args`; a flag wins over the file);
* a run-config file is validated against the ``key`` fields and the inputs in :data:`INPUTS`
  (:func:`check_file`).

A wrong value gives one message, naming the keyword and the flag (``bootstrap (--bootstrap) must be >= 0, got
-5``), or the file and the key. This module imports nothing heavy: the command line builds its parser from it.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import numbers
import os
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import InvalidInputError

__all__ = ["INPUTS", "MAX_SAMPLES", "RunConfig", "Setting", "check_file", "declarations"]

#: The most resamples a bootstrap or paired test may ask for (each one re-scores the whole corpus).
MAX_SAMPLES = 1_000_000


# ---------------------------------------------------------------------------------------------- checks
class Check:
    """What a setting's value must be. :meth:`problem` gives ``None`` for a valid value, else what it must be
    (the words after "must be"); ``file`` asks for the spelling of a config file."""

    def problem(self, value: Any, *, file: bool = False) -> str | None:
        raise NotImplementedError

    def validate(self, value: Any, who: str, *, file: bool = False) -> None:
        problem = self.problem(value, file=file)
        if problem is not None:
            raise InvalidInputError(f"{who} must be {problem}, got {value!r}")


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)  # numpy integers too


@dataclasses.dataclass(frozen=True)
class Count(Check):
    """A whole number in ``[minimum, maximum]``: never a bool, a float or NaN."""

    minimum: int
    maximum: int | None = None

    def problem(self, value: Any, *, file: bool = False) -> str | None:
        if not _is_integer(value):
            return f"an integer >= {self.minimum}"
        if value < self.minimum or (self.maximum is not None and value > self.maximum):
            upper = f" and <= {self.maximum:,}" if self.maximum is not None else ""
            return f">= {self.minimum}{upper}"
        return None


@dataclasses.dataclass(frozen=True)
class Level(Check):
    """A number strictly between 0 and 1 (a confidence level)."""

    def problem(self, value: Any, *, file: bool = False) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            return "a number between 0 and 1"
        return None


@dataclasses.dataclass(frozen=True)
class Choice(Check):
    """One of ``values``; ``None`` is spelled ``none`` on the command line and in a file."""

    values: tuple[str | None, ...]
    none: str = "none"

    def problem(self, value: Any, *, file: bool = False) -> str | None:
        if value in self.values or (file and value == self.none):
            return None
        names = [repr(self.none) if v is None and file else repr(v) for v in self.values]
        return f"{', '.join(names[:-1])} or {names[-1]}"


@dataclasses.dataclass(frozen=True)
class Text(Check):
    """A string (a name); with ``paths``, a path (a string, or an ``os.PathLike`` from Python)."""

    what: str
    paths: bool = False

    def problem(self, value: Any, *, file: bool = False) -> str | None:
        if isinstance(value, str) or (self.paths and not file and isinstance(value, os.PathLike)):
            return None
        return self.what


@dataclasses.dataclass(frozen=True)
class Size(Check):
    """A size in bytes, or a string such as ``500M`` or ``4G`` (:func:`nlgmetrics._store.parse_size`)."""

    def problem(self, value: Any, *, file: bool = False) -> str | None:
        if isinstance(value, str) or _is_integer(value):
            return None  # the unit and the range: parse_size's own words, in validate()
        return "a size such as 500M or 4G"

    def validate(self, value: Any, who: str, *, file: bool = False) -> None:
        super().validate(value, who, file=file)
        from .._store import parse_size

        parse_size(value, who)  # the unit, the range: the same words


def whole_number(text: str) -> int:
    """An argparse type: a whole number >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {value}")
    return value


# ---------------------------------------------------------------------------------------------- fields
@dataclasses.dataclass(frozen=True)
class Setting:
    """The declaration of one run setting (the metadata of a :class:`RunConfig` field).

    ``flag``: its command-line flag (``None``: not a flag); ``key``: its key in a run-config file (``None``: not a
    key); ``api``: a keyword of :func:`~nlgmetrics.evaluate.evaluate`; ``path``: a file or directory (relative
    paths in a config file are relative to the file); ``recorded``: kept in :attr:`Evaluation.settings`;
    ``group``: the flag's group in ``--help``; ``argtype``: how the flag's text is read (default: from the
    field's type)."""

    help: str
    check: Check | None = None
    flag: str | None = None
    key: str | None = None
    api: bool = True
    path: bool = False
    recorded: bool = False
    group: str = "run"
    metavar: str | None = None
    argtype: Callable[[str], Any] | None = None


_UNSET = object()


def setting(
    default: Any,
    *,
    help: str,
    check: Check | None = None,
    flag: str | object | None = _UNSET,
    key: str | object | None = _UNSET,
    cli: bool = True,
    file: bool = True,
    **more: Any,
) -> Any:
    """A :class:`RunConfig` field. The flag defaults to ``--<name-with-dashes>`` and the key to the name; they are
    filled in by :func:`declarations` once the name is known."""
    meta = {"flag": flag if cli else None, "key": key if file else None, "help": help, "check": check, **more}
    return dataclasses.field(default=default, metadata={"setting": meta})


def _output_file(help: str) -> Any:
    """A :class:`RunConfig` setting naming a file the command writes (not a keyword of ``evaluate()``)."""
    path = Text("a path", paths=True)
    return setting(None, check=path, api=False, path=True, group="output", metavar="FILE", help=help)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunConfig:
    """The settings of an evaluation run. The fields marked ``api`` are the keywords of
    :func:`~nlgmetrics.evaluate.evaluate`, in its order; building one checks every value."""

    baseline: str | None = setting(
        None, check=Text("a system name"), metavar="NAME", help="system the others are tested against"
    )
    bootstrap: int = setting(
        1000,
        check=Count(0, MAX_SAMPLES),
        recorded=True,
        metavar="N",
        help="resamples for confidence intervals (0: none)",
    )
    confidence: float = setting(
        0.95, check=Level(), recorded=True, metavar="LEVEL", help="confidence level (default: 0.95)"
    )
    test: str | None = setting(
        "bs", check=Choice(("bs", "ar", None)), recorded=True, help="paired test against the baseline"
    )
    paired_samples: int | None = setting(
        None, check=Count(1, MAX_SAMPLES), recorded=True, metavar="N", help="resamples of the paired test"
    )
    seed: int = setting(
        12345, check=Count(0), recorded=True, metavar="N", help="seed of all resampling (default: 12345)"
    )
    jobs: int = setting(1, check=Count(1), metavar="N", help="worker processes (the result does not depend on it)")
    chunk_size: int = setting(
        1000, check=Count(1), recorded=True, metavar="N", help="segments per unit of work (default: 1000)"
    )
    ref_field: str | None = setting(
        None, check=Text("a field name"), group="input", metavar="NAME", help="JSON Lines field of the references"
    )
    pred_field: str | None = setting(
        None, check=Text("a field name"), group="input", metavar="NAME", help="JSON Lines field of the predictions"
    )
    keep_segments: bool = setting(
        False, cli=False, file=False, help="keep per-segment scores (the command: when it writes a --report)"
    )
    progress: bool = setting(
        False, cli=False, file=False, help="show a progress bar (the command: unless --quiet, on a terminal)"
    )
    cache_dir: str | None = setting(
        None,
        check=Text("a directory", paths=True),
        flag="--cache",
        key="cache",
        path=True,
        metavar="DIR",
        help="keep per-segment statistics here; a re-run reuses those whose signature and inputs are unchanged",
    )
    src_field: str | None = setting(
        None,
        check=Text("a field name"),
        group="input",
        metavar="NAME",
        help="JSON Lines field of the sources (default: source)",
    )
    cache_max_size: int | str | None = setting(
        None,
        check=Size(),
        metavar="SIZE",
        help="size budget of the --cache directory, e.g. 500M or 20G (default: 8G); least recently used "
        "entries are removed beyond it",
    )
    # the command and the config file only: what to write
    output: str | None = _output_file(
        "also write the result to FILE: a table (one row per system and metric) for .parquet, .csv or .jsonl, the "
        "JSON result otherwise"
    )
    report: str | None = _output_file("write a self-contained HTML report")
    worst: int = setting(
        5,
        check=Count(0),
        api=False,
        group="output",
        metavar="K",
        argtype=whole_number,
        help="worst segments per system in the report (default: 5)",
    )

    def __post_init__(self) -> None:
        for name, decl in declarations().items():
            value = getattr(self, name)
            if decl.check is not None and value is not None:
                decl.check.validate(value, who(name))
        if self.cache_max_size is not None and self.cache_dir is None:
            # an error, not a silent no-op: the budget would be taken as applied while nothing is cached at all
            raise InvalidInputError(
                "cache_max_size (--cache-max-size) is the budget of a cache directory: give the directory too "
                "(cache_dir=, --cache DIR), or drop the size"
            )

    # ------------------------------------------------------------------------------------------ derived
    @property
    def paired(self) -> bool:
        """Whether the systems get a paired test against the baseline."""
        return self.baseline is not None and self.test is not None

    @property
    def need_segments(self) -> bool:
        """Whether per-segment statistics must be kept (intervals, paired tests, per-segment scores)."""
        return self.keep_segments or self.bootstrap > 0 or self.paired

    def cache_max_bytes(self) -> int | None:
        from .._store import parse_size

        return None if self.cache_max_size is None else parse_size(self.cache_max_size, who("cache_max_size"))

    def settings(self) -> dict[str, Any]:
        """What an :class:`~nlgmetrics.evaluate.runner.Evaluation` records of the run."""
        return {name: getattr(self, name) for name, decl in declarations().items() if decl.recorded}

    def keywords(self) -> dict[str, Any]:
        """The ``api`` fields, as keywords of :func:`~nlgmetrics.evaluate.evaluate`."""
        return {name: getattr(self, name) for name, decl in declarations().items() if decl.api}

    # ------------------------------------------------------------------------------------------ the command
    @classmethod
    def add_arguments(cls, group: Any, name: str) -> None:
        """Add the flags of the settings in ``--help`` group ``name`` to ``group`` (an argparse group). Every flag
        defaults to ``None`` (not given), so that a config file's value applies unless the flag is given."""
        for field, decl in declarations().items():
            if decl.flag is None or decl.group != name:
                continue
            check = decl.check
            kwargs: dict[str, Any] = {"dest": field, "metavar": decl.metavar, "help": decl.help}
            if isinstance(check, Choice):
                kwargs["choices"] = tuple(check.none if v is None else v for v in check.values)
                del kwargs["metavar"]
            elif decl.argtype is not None:
                kwargs["type"] = decl.argtype
            elif isinstance(check, Count):
                kwargs["type"] = int
            elif isinstance(check, Level):
                kwargs["type"] = float
            group.add_argument(decl.flag, **kwargs)

    @classmethod
    def from_args(cls, args: argparse.Namespace, file: Mapping[str, Any] | None = None, **values: Any) -> RunConfig:
        """The run of the command: each setting from its flag when given, else from the config ``file`` (a
        mapping read by :func:`~nlgmetrics.evaluate.load_config`), else its default; ``values`` set the fields
        that are neither (``keep_segments``, ``progress``)."""
        file = file or {}
        for field, decl in declarations().items():
            if field in values:
                continue
            value = getattr(args, field, None) if decl.flag is not None else None
            if value is None and decl.key is not None and decl.key in file:
                value = file[decl.key]
            if value is None:
                continue
            check = decl.check
            if isinstance(check, Choice) and value == check.none:
                value = None
            values[field] = value
        return cls(**values)


def who(name: str) -> str:
    """How a message names a setting: its keyword, and its flag when it has one."""
    flag = declarations()[name].flag
    return f"{name} ({flag})" if flag else name


_SETTINGS: dict[str, Setting] = {}


def declarations() -> dict[str, Setting]:
    """Each field's :class:`Setting`, in field order, its flag and key filled in from its name (one shared
    mapping: not to be modified)."""
    if not _SETTINGS:
        for f in dataclasses.fields(RunConfig):
            meta = dict(f.metadata["setting"])
            if meta["flag"] is _UNSET:
                meta["flag"] = "--" + f.name.replace("_", "-")
            if meta["key"] is _UNSET:
                meta["key"] = f.name
            _SETTINGS[f.name] = Setting(**meta)
    return _SETTINGS


# ---------------------------------------------------------------------------------------------- config files
def _path_list(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)
    )


@dataclasses.dataclass(frozen=True)
class Input(Check):
    """An input of the run (not a setting): its key in a file, its flag, and what its value must be."""

    flag: str
    what: str
    ok: Callable[[Any], bool]
    path: bool = True

    def problem(self, value: Any, *, file: bool = False) -> str | None:
        return None if self.ok(value) else self.what


#: The inputs a run-config file may name, by key (the command's flags for them are its own).
INPUTS: dict[str, Input] = {
    "references": Input("--ref", "a path or a list of paths", _path_list),
    "systems": Input(
        "--sys",
        "a table of name = path",
        lambda v: isinstance(v, dict) and all(isinstance(k, str) and isinstance(p, str) for k, p in v.items()),
    ),
    "metrics": Input(
        "--metric",
        "a list of metric names or tables with a name",
        lambda v: isinstance(v, list) and all(isinstance(m, str) or (isinstance(m, dict) and "name" in m) for m in v),
        path=False,
    ),
    "sources": Input("--src", "a path", lambda v: isinstance(v, str)),
}


def file_keys() -> dict[str, Check | None]:
    """Every key a run-config file may hold, with its check: the inputs, then the settings."""
    keys: dict[str, Check | None] = dict(INPUTS)
    keys.update({decl.key: decl.check for decl in declarations().values() if decl.key is not None})
    return keys


def path_keys() -> tuple[str, ...]:
    """The keys whose values are paths (relative to the config file)."""
    return (
        *(k for k, v in INPUTS.items() if v.path),
        *(decl.key for decl in declarations().values() if decl.key is not None and decl.path),
    )


def check_file(data: Mapping[str, Any], where: str) -> None:
    """Validate a run config: an unknown key names the nearest valid one, a value of the wrong type or range
    names its key."""
    keys = file_keys()
    for key, value in data.items():
        if key not in keys:
            near = difflib.get_close_matches(str(key), list(keys), n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise InvalidInputError(f"{where}: unknown key {key!r}{hint} (valid keys: {', '.join(keys)})")
        check = keys[key]
        if check is not None:
            check.validate(value, f"{where}: {key!r}", file=True)
