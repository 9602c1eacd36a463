"""Metric specifications of an evaluation run, from flags, Python values or a TOML/YAML config file."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, MissingDependencyError
from ..metrics.catalog import get_family
from .config import check_file, path_keys

__all__ = ["MetricSpec", "load_config", "parse_metric"]


@dataclass(frozen=True)
class MetricSpec:
    """One metric of a run: the family ``name``, a unique ``label`` for tables and JSON, a ``preset`` and
    options for the family's config."""

    name: str
    label: str
    preset: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    #: For a metric whose score holds several values (ROUGE's types): the one to report. ``None``: all.
    select: str | None = None

    def family(self) -> Any:
        return get_family(self.name)

    def config(self) -> Any:
        return self.family().make_config(self.preset, **dict(self.options))

    def key(self) -> tuple[Any, ...]:
        """A hashable identity (for caches and worker-side config memoisation)."""
        return (self.name, self.preset, tuple(sorted((k, _freeze(v)) for k, v in self.options.items())), self.select)


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        if "/" in text and not text.startswith(("/", ".")):
            return [_parse_value(t) for t in text.split("/")]
        return text


def parse_metric(value: str | Mapping[str, Any] | MetricSpec) -> MetricSpec:
    """Parse ``"bleu"``, ``"chrf:word_order=2"``, ``"rouge:rouge_types=rouge1/rouge2/rougeL,use_stemmer=true"``,
    ``"bleu:label=bleu-char,tokenizer=char"``, a JSON object string, or a mapping with ``name`` and options.
    ``score=`` picks one value of a metric whose score holds several (``"rouge:score=rougeL"``)."""
    if isinstance(value, MetricSpec):
        value.config()  # validate early
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as err:
                raise InvalidInputError(f"metric {text!r} is not valid JSON: {err.msg}") from None
        else:
            name, _, rest = text.partition(":")
            opts: dict[str, Any] = {}
            for item in filter(None, (p.strip() for p in rest.split(","))):
                key, sep, raw = item.partition("=")
                if not sep:
                    raise InvalidInputError(f"metric {text!r}: option {item!r} is not key=value")
                opts[key.strip().replace("-", "_")] = _parse_value(raw.strip())
            value = {"name": name.strip(), **opts}
    if not isinstance(value, Mapping) or "name" not in value:
        raise InvalidInputError(f"a metric needs a name, got {value!r}")
    options = {k: v for k, v in value.items() if k not in ("name", "label", "preset", "score")}
    name = str(value["name"])
    spec = MetricSpec(
        name=name,
        label=str(value.get("label") or name),
        preset=value.get("preset"),
        options={k: tuple(v) if isinstance(v, list) else v for k, v in options.items()},
        select=value.get("score"),
    )
    spec.config()  # unknown metric, preset or option: fail before reading any file
    return spec


def _toml() -> tuple[Callable[[str], Any], type[Exception]]:
    """The TOML parser and its error (``tomllib``; ``tomli`` on Python 3.10)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError as err:
            raise MissingDependencyError("TOML run configs on Python 3.10", "pip install tomli") from err
    return tomllib.loads, tomllib.TOMLDecodeError


def _yaml() -> tuple[Callable[[str], Any], type[Exception]]:
    """The YAML parser (safe loading) and its error."""
    try:
        import yaml
    except ImportError as err:
        raise MissingDependencyError("YAML run configs", "pip install pyyaml") from err
    return yaml.safe_load, yaml.YAMLError


def load_config(path: str | Path) -> dict[str, Any]:
    """Read a run configuration from TOML (``.toml``) or YAML (``.yaml``/``.yml``).

    Keys: ``references`` (a path or a list of paths), ``systems`` (a table name → path), ``metrics`` (a list of
    strings or tables with ``name``, ``label``, ``preset`` and options), optionally ``sources``, and the settings
    of :class:`~nlgmetrics.evaluate.config.RunConfig` under their keys (``baseline``, ``bootstrap``, ``seed``,
    ``cache``, ``report``, ...). Relative paths are relative to the config file.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InvalidInputError(f"cannot read {path}: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise InvalidInputError(f"{path}: invalid UTF-8 at byte {err.start}") from None
    if path.suffix == ".toml":
        loads, error = _toml()
    elif path.suffix in (".yaml", ".yml"):
        loads, error = _yaml()
    else:
        raise InvalidInputError(f"{path}: a run config must end in .toml, .yaml or .yml")
    try:
        data = loads(text)
    except error as err:
        raise InvalidInputError(f"{path}: {err}") from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"{path}: the config must be a table/mapping at the top level")
    check_config(data, str(path))
    base = path.parent

    def resolve(p: Any) -> Any:
        if isinstance(p, list):
            return [resolve(x) for x in p]
        if isinstance(p, dict):  # systems: name -> path
            return {k: resolve(v) for k, v in p.items()}
        return str(base / p) if isinstance(p, str) and not Path(p).is_absolute() and p != "-" else p

    for key in path_keys():
        if key in data:
            data[key] = resolve(data[key])
    return data


def check_config(data: Mapping[str, Any], where: str) -> None:
    """Validate a run config against the keys :mod:`~nlgmetrics.evaluate.config` declares (the inputs and the
    settings of :class:`~nlgmetrics.evaluate.config.RunConfig`): an unknown key names the nearest valid one, a
    value of the wrong type or range names its key."""
    check_file(data, where)


def parse_metrics(values: Sequence[str | Mapping[str, Any] | MetricSpec]) -> list[MetricSpec]:
    specs = [parse_metric(v) for v in values]
    if not specs:
        raise InvalidInputError("no metric given: pass at least one metric")
    labels = [s.label for s in specs]
    dupes = sorted({x for x in labels if labels.count(x) > 1})
    if dupes:
        raise InvalidInputError(f"metric labels must be unique; repeated: {', '.join(dupes)} (set label=...)")
    return specs
