"""Additive sufficient statistics: the currency every metric family trades in.

A family's statistics are a frozen dataclass deriving from :class:`Stats`. Its fields are numbers (``int`` or
``float``) or fixed-length tuples of numbers (for per-order counts). Statistics add field by field with ``+``,
and ``Stats.zero()`` is the neutral element, so the corpus statistics are just the sum of the segment
statistics, whatever the batching, the merge order or the number of processes.

Kernels compute a whole batch at once and return a :class:`StatsBatch`: the per-segment statistics stored
column-wise in numpy arrays (one row per segment). ``batch[i]`` is segment ``i``'s :class:`Stats`, and
``batch.total()`` is their sum. Storing columns keeps corpus-scale work in numpy instead of creating one Python
object per segment.

A few metrics need more than numbers (NIST's reference n-gram table, CIDEr's document frequencies): their
statistics also hold :class:`Carried` values, which still add, and which a batch keeps in a :class:`CarriedColumn`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

if TYPE_CHECKING:
    from fractions import Fraction

    import numpy as np


__all__ = ["Carried", "CarriedColumn", "FieldSpec", "Records", "RunningSum", "Schema", "Stats", "StatsBatch"]

S = TypeVar("S", bound="Stats")


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, (Carried, RunningSum)):  # before the tuple case: Records are tuples that concatenate
        return a + b
    if isinstance(a, tuple):
        if len(a) != len(b):
            raise ValueError(f"cannot add statistics of different shapes: {len(a)} vs {len(b)} entries")
        return tuple(x + y for x, y in zip(a, b, strict=False))
    return a + b


class RunningSum:
    """The exact partial sum of a :attr:`Stats.running_fields` field: floats added one after the other from 0.0,
    as a reference script's running ``total += value`` adds them (SARI's), whose rounding depends on the order.

    A sum that starts at the corpus start (``anchored``: :meth:`start`) holds its float so far; any other part
    holds its values, in order. ``anchored + part`` adds the part's values one by one, and ``part + part``
    concatenates them, so sums of chunks or partitions, merged in order, give the running sum of the whole input
    bit for bit (:func:`float` folds what is pending from 0.0)."""

    __slots__ = ("value", "values")

    def __init__(self, value: float | None, values: Any = ()) -> None:
        import numpy as np

        self.value = value
        self.values = np.asarray(values, dtype=np.float64).reshape(-1)

    @classmethod
    def start(cls) -> RunningSum:
        """The running sum of nothing, at the corpus start."""
        return cls(0.0)

    @property
    def anchored(self) -> bool:
        return self.value is not None

    def __add__(self, other: Any) -> RunningSum:
        import numpy as np

        if not isinstance(other, RunningSum):
            return NotImplemented
        if other.anchored:
            if not self.anchored and not len(self.values):
                return other
            raise ValueError("a running sum that starts at the corpus start cannot follow another part")
        if self.anchored:
            return RunningSum(_fold(self.value, other.values))  # type: ignore[arg-type]
        return RunningSum(None, np.concatenate([self.values, other.values]))

    def __float__(self) -> float:
        return _fold(self.value if self.anchored else 0.0, self.values)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunningSum):
            return NotImplemented
        return float(self) == float(other) and self.anchored == other.anchored

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunningSum({self.value!r}, {len(self.values)} pending)"


def _fold(start: float, values: Any) -> float:
    """``start`` plus each of ``values`` in turn (``numpy.cumsum`` adds one value after the other)."""
    import numpy as np

    if not len(values):
        return float(start)
    return float(np.cumsum(np.concatenate([[start], values]))[-1])


class Carried:
    """A statistics value that is not a fixed vector of numbers but still adds (a monoid under ``+``).

    Most statistics are numbers. A few metrics need more: NIST's information weights come from the n-gram counts of
    the whole reference corpus, so its statistics carry those counts as a table that merges by ``+``
    (:class:`~nlgmetrics.algorithms.ngram_table.NgramTable`); CIDEr's document frequencies too, so its statistics
    carry every segment's tokenized captions as :class:`Records` that concatenate. Either way the formula sees
    what one call over the whole corpus would see, whatever the batching, merging or number of processes.

    A subclass provides: ``empty()`` (the neutral element), ``+`` (associative), ``to_json``/``from_json``
    (for ``state_dict``), and ``to_bytes``/``from_bytes`` (for torch states, all-gathers and the evaluate cache):
    ``from_bytes`` of the concatenated encodings of several values returns values whose sum is their sum, one per
    encoded value. The default byte encoding goes through ``to_vector``/``from_vectors`` (little-endian float64).
    """

    __slots__ = ()

    @classmethod
    def empty(cls) -> Any:
        raise NotImplementedError

    @classmethod
    def sum(cls, items: Sequence[Any]) -> Any:
        out = cls.empty()
        for item in items:
            out = out + item
        return out

    def to_json(self) -> Any:
        raise NotImplementedError

    @classmethod
    def from_json(cls, data: Any) -> Any:
        raise NotImplementedError

    def to_vector(self) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def from_vectors(cls, vector: np.ndarray) -> list[Any]:
        """The values whose :meth:`to_vector` outputs were concatenated into ``vector``."""
        raise NotImplementedError

    def to_bytes(self) -> bytes:
        import numpy as np

        return np.ascontiguousarray(self.to_vector(), dtype="<f8").tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> list[Any]:
        """The values whose :meth:`to_bytes` outputs were concatenated into ``data``."""
        import numpy as np

        return cls.from_vectors(np.frombuffer(data, dtype="<f8").astype(np.float64))


def _tupled(value: Any) -> Any:
    """JSON lists back to tuples, all the way down."""
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value


class Records(tuple, Carried):  # type: ignore[type-arg,misc]
    """A :class:`Carried` value holding records (tuples of strings, nested freely), concatenated by ``+``.

    A segment carries one record (CIDEr: its tokenized caption and references); the sum of a corpus holds all of
    them in segment order. Records travel as JSON (``state_dict``) and as UTF-8 bytes, one JSON document per line,
    so that the bytes of several batches or processes concatenate into the records of all of them.
    """

    __slots__ = ()

    def __add__(self, other: Any) -> Records:
        if not isinstance(other, tuple):
            return NotImplemented
        return Records(tuple.__add__(self, other))

    def __repr__(self) -> str:
        return f"Records({len(self)} records)"

    @classmethod
    def empty(cls) -> Records:
        return cls()

    @classmethod
    def sum(cls, items: Sequence[Any]) -> Records:
        return cls(r for item in items for r in item)  # linear, where folding + would copy quadratically

    def to_json(self) -> list[Any]:
        return [_listed(r) for r in self]

    @classmethod
    def from_json(cls, data: Any) -> Records:
        return cls(_tupled(r) for r in data)

    def to_bytes(self) -> bytes:
        import json

        return "".join(json.dumps(_listed(r), ensure_ascii=False) + "\n" for r in self).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> list[Any]:
        """One :class:`Records` of one record per encoded line."""
        import json

        return [cls((_tupled(json.loads(line)),)) for line in data.decode("utf-8").splitlines() if line]


def _listed(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_listed(v) for v in value]
    return value


class CarriedColumn:
    """The per-segment values of a :class:`Carried` field in a :class:`StatsBatch`: a list, one per segment.

    A kernel that can build the batch's total more cheaply than by merging its segments passes it as ``total``;
    and where the per-segment values are rarely needed, it may pass ``build`` (returning them) instead of
    ``values``, with their number as ``length``: they are then built on first use only."""

    __slots__ = ("_build", "_length", "_total", "_values", "kind")

    def __init__(
        self,
        kind: type[Carried],
        values: Sequence[Any] | None = None,
        *,
        total: Any = None,
        build: Any = None,
        length: int | None = None,
    ) -> None:
        self.kind = kind
        self._values = None if values is None else list(values)
        self._build = build
        self._length = len(self._values) if self._values is not None else int(length or 0)
        self._total = total

    @property
    def values(self) -> list[Any]:
        if self._values is None:
            self._values = list(self._build()) if self._build is not None else []
        return self._values

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:
        import numpy as np

        if isinstance(index, (int, np.integer)):
            return self.values[int(index)]
        return CarriedColumn(self.kind, [self.values[i] for i in np.asarray(index, dtype=np.intp).tolist()])

    def total(self) -> Any:
        if self._total is None:
            self._total = self.kind.sum(self.values)
        return self._total

    def tolist(self) -> list[Any]:
        return [v.to_json() for v in self.values]

    @classmethod
    def from_json(cls, kind: type[Carried], data: Sequence[Any]) -> CarriedColumn:
        return CarriedColumn(kind, [kind.from_json(x) for x in data])

    @classmethod
    def concat(cls, columns: Sequence[CarriedColumn]) -> CarriedColumn:
        return CarriedColumn(columns[0].kind, [v for c in columns for v in c.values])

    def to_bytes(self) -> bytes:
        """Every segment's value, encoded and concatenated (see :meth:`Carried.to_bytes`)."""
        return b"".join(v.to_bytes() for v in self.values)

    @classmethod
    def from_bytes(cls, kind: type[Carried], data: bytes) -> CarriedColumn:
        return CarriedColumn(kind, kind.from_bytes(data))

    def __reduce__(self) -> tuple[Any, ...]:
        # as its values' bytes: a column built lazily holds a kernel's closure, which does not pickle (the
        # statistics an evaluate worker process sends back)
        return (CarriedColumn.from_bytes, (self.kind, self.to_bytes()))


class Stats:
    """Base class of additive, immutable per-segment or corpus statistics: each family's statistics are a frozen
    dataclass deriving from it (:class:`~nlgmetrics.metrics.base.Family` checks that they are). The base holds no
    field and is a plain class: a dataclass costs its import a few hundred microseconds of generated code."""

    __slots__ = ()
    if TYPE_CHECKING:  # what every subclass has (a dataclass's fields), for the type checker
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    #: Fields whose values are tuples, mapped to a default length (per-order counts and the like).
    tuple_fields: ClassVar[Mapping[str, int]] = {}
    #: Fields that may be negative (sums of similarities); every other field is a count or a sum of
    #: non-negative scores, and a negative value is an error when loaded (:meth:`checked`).
    signed_fields: ClassVar[frozenset[str]] = frozenset()
    #: Fields whose values are :class:`Carried` tables, mapped to their class.
    carried_fields: ClassVar[Mapping[str, type[Carried]]] = {}
    #: Fields that do not add: ``+`` keeps one side's value (BLEU's last segment, for NLTK's smoothing 5 and 7).
    #: The first of them in declaration order is their flag: a sum keeps the later part's kept fields when its flag
    #: is set (the part holds a segment), the earlier part's otherwise.
    kept_fields: ClassVar[frozenset[str]] = frozenset()
    #: Float fields whose corpus sum is a running sum, one segment after the other from 0.0, as the reference
    #: script adds them (SARI's): their exact partial sums are :class:`RunningSum` values, not fractions.
    running_fields: ClassVar[frozenset[str]] = frozenset()
    #: The field that counts the segments summed (one per segment). ``None``: ``count`` or ``n_segments`` when
    #: the statistics have one; ``""``: none does. A loaded state's must equal its segment count.
    segment_field: ClassVar[str | None] = None
    #: Relations every sum of valid segment statistics keeps, ``(a, b)`` for ``a <= b``: ``b`` a field or a
    #: number; element by element for tuples (a tuple against a number compares each element). Checked when a
    #: state is loaded or merged (:meth:`inconsistency`), so a forged state cannot give an impossible score.
    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = ()
    #: Fields that sum one score per segment, mapped to that score's largest value: ``field <= value *
    #: segments`` (the segments of :attr:`segment_field`).
    per_segment_max: ClassVar[Mapping[str, float]] = {}

    def __add__(self: S, other: S) -> S:
        cls = type(self)
        if type(other) is not cls:
            return NotImplemented
        names = _NAMES.get(cls) or _names(cls)
        if not cls.kept_fields:  # the hot path (a stateful update at batch 1): one plain loop
            return cls(**{name: _add(getattr(self, name), getattr(other, name)) for name in names})
        kept = cls.kept_fields
        last = other if getattr(other, _KEPT_FLAG[cls]) else self  # the later data's last segment
        return cls(
            **{
                name: getattr(last, name) if name in kept else _add(getattr(self, name), getattr(other, name))
                for name in names
            }
        )

    def __radd__(self: S, other: Any) -> S:
        # Lets the built-in sum() start from 0.
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    @classmethod
    def schema(cls: type[S], **sizes: int) -> Schema[S]:
        """The layout of these statistics (:class:`Schema`) with the given tuple lengths (default:
        :attr:`tuple_fields`'); cached."""
        return _schema(cls, sizes)

    def layout(self: S) -> Schema[S]:
        """The :class:`Schema` with this value's tuple lengths."""
        return _schema(type(self), {name: len(getattr(self, name)) for name in self.tuple_fields})

    @classmethod
    def zero(cls: type[S], **sizes: int) -> S:
        """The neutral element. ``sizes`` gives the length of tuple fields that have no fixed default."""
        return _schema(cls, sizes).zero()

    @classmethod
    def exact_zero(cls: type[S], **sizes: int) -> S:
        """The neutral element of exact totals (:meth:`StatsBatch.exact_total`): float fields as the fraction 0,
        :attr:`running_fields` as a running sum at the corpus start. Exact totals added to it in input order
        give, rounded (:meth:`rounded`), what one call on the whole input gives."""
        return _schema(cls, sizes).exact_zero()

    def rounded(self: S) -> S:
        """The same statistics with exact (:class:`~fractions.Fraction`, :class:`RunningSum`) fields rounded to
        the nearest float."""

        from fractions import Fraction

        def rnd(v: Any) -> Any:
            if isinstance(v, Carried):
                return v
            if isinstance(v, tuple):
                return tuple(rnd(x) for x in v)
            return float(v) if isinstance(v, (Fraction, RunningSum)) else v

        return type(self)(**{f.name: rnd(getattr(self, f.name)) for f in dataclasses.fields(self)})

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict of the fields (used by ``state_dict`` and the CLI)."""
        return self.layout().to_json(self)

    @classmethod
    def from_dict(cls: type[S], data: Mapping[str, Any]) -> S:
        first = {name: len(data[name]) for name in cls.tuple_fields}
        return _schema(cls, first).from_json(data, checked=False)

    @classmethod
    def checked(cls: type[S], data: Any, *, template: S, where: str = "stats") -> S:
        """:meth:`from_dict` for data from outside (a saved state): every field present and no other, each an
        ``int`` where the statistics count or a finite number where they sum, tuples of the template's length,
        nothing negative outside :attr:`signed_fields`. Raises :class:`~nlgmetrics.errors.InvalidInputError`
        naming what is wrong."""
        return template.layout().from_json(data, where=where)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    def shared_with(self, result_cls: type, *skip: str) -> dict[str, Any]:
        """The fields a result reports as they are summed: those of ``result_cls`` (a dataclass) with a statistics
        field of the same name, but ``skip`` (a count the formula reports as it is: ``Result(score=...,
        **stats.shared_with(Result))``)."""
        return {name: getattr(self, name) for name in _shared_names(type(self), result_cls) if name not in skip}

    @classmethod
    def sum_of(cls: type[S], items: Sequence[S]) -> S:
        """``items[0] + items[1] + ...``, with each :class:`Carried` field merged once over all the items
        (``Carried.sum``) instead of pair by pair, which would copy a growing table at every step: what a
        running sum of many updates needs to stay linear (:meth:`Schema.ordered_sum`)."""
        if len(items) == 1:
            return items[0]
        return items[0].layout().ordered_sum(items)

    @classmethod
    def counting_field(cls) -> str | None:
        """The field that counts segments (:attr:`segment_field`), or ``None``."""
        if cls.segment_field is not None:
            return cls.segment_field or None
        names = cls.field_names()
        return next((n for n in ("count", "n_segments") if n in names and n not in cls.carried_fields), None)

    @classmethod
    def inconsistency(cls, values: Mapping[str, Any], segments: Any) -> str | None:
        """What makes ``values`` impossible as a sum of segment statistics, or ``None`` when nothing does.

        ``values`` maps every field to its value (one sum; ``segments`` is then the number of segments in it, or
        ``None`` when that is not known) or to a column of per-segment values (a numpy array with one row per
        segment; ``segments`` is then ``1``).
        Checked: a sum of no segment is zero; :attr:`segment_field` counts the segments; :attr:`at_most` and
        :attr:`per_segment_max` hold (floats with a relative slack of 1e-6 for rounding)."""
        import numpy as np

        arrays: dict[str, Any] = {}
        for name in cls.field_names():
            value = values[name]
            if name in cls.carried_fields:
                continue
            try:
                arrays[name] = np.asarray(value)
            except (OverflowError, ValueError):
                return f"{name} is not a number or a list of numbers"
            if arrays[name].dtype.kind not in "biuf":
                return f"{name} is not a number or a list of numbers"
        if isinstance(segments, int) and segments == 0:
            for name in cls.field_names():
                value = values[name]
                filled = len(value) > 0 if name in cls.carried_fields and hasattr(value, "__len__") else False
                if filled or (name in arrays and np.any(arrays[name] != 0)):
                    return f"no segment was counted, but {name} is {_short(value)}"
        counting = cls.counting_field()
        if counting is not None and segments is not None and not np.all(arrays[counting] == segments):
            return f"{counting} is {_short(values[counting])} for {segments} segment(s)"

        def exceeds(small: Any, large: Any) -> bool:
            if small.ndim == np.ndim(large) + 1:
                large = np.asarray(large)[..., None]
            if small.dtype.kind == "f" or np.asarray(large).dtype.kind == "f":
                large = np.asarray(large, dtype=np.float64)
                return bool(np.any(small > large + 1e-6 * np.abs(large) + 1e-9))
            return bool(np.any(small > large))

        for a, b in cls.at_most:
            large = arrays[b] if isinstance(b, str) else b
            if exceeds(arrays[a], large):
                shown = f"{b} {_short(values[b])}" if isinstance(b, str) else repr(b)
                return f"{a} {_short(values[a])} exceeds {shown}"
        if cls.per_segment_max and (counting is not None or segments is not None):
            n = arrays[counting] if counting is not None else np.asarray(segments)
            for name, top in cls.per_segment_max.items():
                if exceeds(arrays[name], n * top):
                    return f"{name} {_short(values[name])} exceeds {top:g} per segment for {_short(n)} segment(s)"
        return None


def _short(value: Any) -> str:
    """A value for a message, cut short."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def checked_carried(kind: type[Carried], value: Any, where: str) -> Any:
    """A :class:`Carried` value from its JSON form, with any failure to read it named."""
    from .errors import InvalidInputError

    if isinstance(value, kind):
        return value
    try:
        return kind.from_json(value)
    except Exception as err:  # a malformed table or record: say which field, whatever the kind raised
        raise InvalidInputError(f"{where} is not a valid {kind.__name__} ({type(err).__name__}: {err})") from None


def _checked_number(value: Any, integer: bool, where: str, signed: bool) -> Any:
    import numpy as np

    from .errors import InvalidInputError

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError(f"{where} must be a number, got {value!r:.60}")
    if integer and not isinstance(value, (int, np.integer)):
        if not (isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer()):
            raise InvalidInputError(f"{where} must be a whole number (a count), got {value!r}")
        value = int(value)
    if not math.isfinite(value):
        raise InvalidInputError(f"{where} must be a finite number, got {value!r}")
    if value < 0 and not signed:
        raise InvalidInputError(f"{where} must be >= 0 (a count or a sum of scores), got {value!r}")
    return value.item() if isinstance(value, np.generic) else value


def _scalar(value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.ndarray):
        return tuple(x.item() for x in value)
    return value.item() if isinstance(value, np.generic) else value


def exact_sum(values: np.ndarray) -> Fraction | float:
    """The exact sum of a float64 array, as a :class:`~fractions.Fraction`.

    Every finite double is ``m · 2**(e - 53)`` with an integer ``m`` of at most 53 bits (``numpy.frexp``), so
    the sum is an integer combination of powers of two: mantissas are summed exactly in ``int64`` (split in two
    26/27-bit halves so that no partial sum can overflow), grouped by exponent, and combined in Python
    integers. Exact sums add without rounding, which makes a sum of partial sums independent of how the data
    was partitioned. Non-finite input has no exact sum; its plain float sum is returned.
    """
    from fractions import Fraction

    import numpy as np

    if values.size == 0:
        return Fraction(0)
    if not np.isfinite(values).all():
        return float(values.sum())
    mantissa, exponent = np.frexp(values)
    m = (mantissa * (1 << 53)).astype(np.int64)
    hi = m >> 26
    lo = m - (hi << 26)
    exps, inverse = np.unique(exponent, return_inverse=True)
    acc_hi = np.zeros(len(exps), dtype=np.int64)
    acc_lo = np.zeros(len(exps), dtype=np.int64)
    np.add.at(acc_hi, inverse, hi)
    np.add.at(acc_lo, inverse, lo)
    base = int(exps.min())
    total = 0
    for e, h, lo_sum in zip(exps.tolist(), acc_hi.tolist(), acc_lo.tolist(), strict=True):
        total += ((h << 26) + lo_sum) << (e - base)
    shift = base - 53
    return Fraction(total << shift) if shift >= 0 else Fraction(total, 1 << -shift)


def _column_sum(column: Any) -> Any:
    if isinstance(column, CarriedColumn):
        return column.total()
    if column.dtype.kind == "f":
        if column.ndim == 1:
            return math.fsum(column.tolist())
        return tuple(math.fsum(c) for c in column.T.tolist())
    return _scalar(column.sum(axis=0))


_INT_TYPES = frozenset((int, bool))

#: Field names per statistics class (``dataclasses.fields`` costs more than the sum it would serve), and the
#: kept flag of classes with kept fields.
_NAMES: dict[type, tuple[str, ...]] = {}
_KEPT_FLAG: dict[type, str] = {}


def _names(cls: type[Stats]) -> tuple[str, ...]:
    names = _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    if cls.kept_fields:
        _KEPT_FLAG[cls] = next(n for n in names if n in cls.kept_fields)
    return names


def _value_sum(values: Sequence[Any]) -> Any:
    first = values[0]
    if isinstance(first, tuple):
        return tuple([_value_sum(c) for c in zip(*values, strict=True)])
    kinds = set(map(type, values))  # one C-level pass; the isinstance scan only for unusual types
    if kinds <= _INT_TYPES:
        return sum(values)
    if float in kinds or any(isinstance(v, float) for v in values):
        return math.fsum(values)
    return sum(values)


def _rows_total(cls: type[S], rows: list[S]) -> S:
    """The sum of per-segment statistics as :meth:`StatsBatch.total` sums columns: ``math.fsum`` for floats
    (correctly rounded, so independent of the order), exact sums for integers."""
    if len(rows) == 1:
        return rows[0]
    return cls(**{name: _value_sum([getattr(r, name) for r in rows]) for name in cls.field_names()})


class StatsBatch(Generic[S]):
    """Per-segment statistics of a batch, one numpy column per field (struct of arrays).

    ``columns[name]`` has shape ``(n,)`` for number fields and ``(n, k)`` for tuple fields. A batch may also be
    built from its rows (:meth:`from_rows`) or from one Python list per field (:meth:`from_lists`): its numpy
    columns are then made only if something asks for them, and its total is summed in Python the way the columns
    would be, so a small call (or a kernel that needs no numpy) never pays for numpy arrays, nor for importing numpy.
    """

    __slots__ = ("_columns", "_lists", "_n", "_rows", "cls")

    def __init__(self, cls: type[S], columns: Mapping[str, Any]) -> None:
        self.cls = cls
        self._columns: dict[str, np.ndarray] | None = dict(columns)
        self._rows: list[S] | None = None
        self._lists: dict[str, list[Any]] | None = None
        names = cls.field_names()
        if set(self._columns) != set(names):
            raise ValueError(f"{cls.__name__} columns must be exactly {names}, got {tuple(self._columns)}")
        lengths = {len(c) for c in self._columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns of different lengths: {lengths}")
        self._n = lengths.pop() if lengths else 0

    @classmethod
    def from_rows(cls, stats_cls: type[S], rows: list[S]) -> StatsBatch[S]:
        """A batch of the given per-segment statistics (at least one; fields of numbers and tuples of numbers),
        columns made on demand."""
        batch = cls.__new__(cls)
        batch.cls = stats_cls
        batch._columns = None
        batch._lists = None
        batch._rows = rows
        batch._n = len(rows)
        return batch

    @classmethod
    def from_lists(cls, stats_cls: type[S], lists: Mapping[str, list[Any]]) -> StatsBatch[S]:
        """A batch given as one Python list per field (every field, at least one segment, equal lengths; floats
        in float fields, ints in count fields, tuples of numbers in tuple fields): no numpy until something asks
        for :attr:`columns`. The total is the columns' total (``math.fsum`` for floats, exact integer sums)."""
        batch = cls.__new__(cls)
        batch.cls = stats_cls
        batch._columns = None
        batch._rows = None
        batch._lists = lists if type(lists) is dict else dict(lists)
        batch._n = len(next(iter(batch._lists.values())))
        return batch

    @property
    def columns(self) -> dict[str, Any]:
        if self._columns is None:
            import numpy as np

            if self._lists is not None:
                self._columns = {name: np.asarray(self._lists[name]) for name in self.cls.field_names()}
            else:
                assert self._rows is not None
                self._columns = {
                    name: np.asarray([getattr(s, name) for s in self._rows]) for name in self.cls.field_names()
                }
        return self._columns

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> S:
        if self._rows is not None:
            return self._rows[i]
        if self._lists is not None:
            return self.cls(**{k: v[i] for k, v in self._lists.items()})
        return self.cls(**{k: _scalar(v[i]) for k, v in self.columns.items()})

    def __iter__(self) -> Iterator[S]:
        for i in range(self._n):
            yield self[i]

    def take(self, indices: np.ndarray | Sequence[int]) -> StatsBatch[S]:
        """The batch of the given segments (in that order, repeats allowed: bootstrap resampling)."""
        import numpy as np

        idx = np.asarray(indices, dtype=np.intp)
        return StatsBatch(self.cls, {k: v[idx] for k, v in self.columns.items()})

    def total(self) -> S:
        """The sum over all segments, as one :class:`Stats`.

        Float columns are summed with ``math.fsum`` (correctly rounded), so the total of a batch does not depend
        on the order of its segments; integer columns are summed exactly. A batch built from rows is summed the same
        way in Python (one row is its own total).
        """
        if self._rows is not None:
            return self._kept_last(_rows_total(self.cls, self._rows))
        if self._lists is not None:
            if self._n == 1:  # one segment is its own total (fsum of one float is that float)
                return self.cls(**{k: v[0] for k, v in self._lists.items()})
            return self._kept_last(self.cls(**{k: _value_sum(v) for k, v in self._lists.items()}))
        if self._n == 1 and not self.cls.carried_fields:  # one segment's numbers are their own sum
            return self.cls(**{k: _scalar(v[0]) for k, v in self.columns.items()})
        return self._kept_last(self.cls(**{k: _column_sum(v) for k, v in self.columns.items()}))

    def _kept_last(self, out: S) -> S:
        """``out`` with the :attr:`Stats.kept_fields` of the last segment (not added: see :meth:`Stats.__add__`)."""
        if not self.cls.kept_fields or self._n < 2:
            return out
        if self._rows is not None:
            last = self._rows[-1]
            kept = {name: getattr(last, name) for name in self.cls.kept_fields}
        elif self._lists is not None:
            kept = {name: self._lists[name][-1] for name in self.cls.kept_fields}
        else:
            kept = {name: _scalar(self.columns[name][-1]) for name in self.cls.kept_fields}
        return dataclasses.replace(out, **kept)  # type: ignore[type-var]

    def exact_total(self) -> S:
        """The sum over all segments with float fields held exactly (as :class:`~fractions.Fraction`; the
        :attr:`Stats.running_fields` as a :class:`RunningSum` of their values).

        Exact totals of separate batches add to the exact total of their union, whatever the partitioning (for
        running fields: added in input order); :meth:`Stats.rounded` turns the result into the same floats
        :meth:`total` gives on the whole data.
        """
        import numpy as np

        out: dict[str, Any] = {}
        running = self.cls.running_fields
        for k, v in self.columns.items():
            if isinstance(v, CarriedColumn):
                out[k] = v.total()
            elif k in running:
                out[k] = RunningSum(None, v)
            elif v.dtype.kind != "f":
                out[k] = _scalar(v.sum(axis=0))
            elif v.ndim == 1:
                out[k] = exact_sum(v)
            else:
                out[k] = tuple(exact_sum(np.ascontiguousarray(c)) for c in v.T)
        return self._kept_last(self.cls(**out))

    def column(self, name: str) -> Any:
        return self.columns[name]

    @classmethod
    def concat(cls, batches: Sequence[StatsBatch[S]], stats_cls: type[S] | None = None) -> StatsBatch[S]:
        import numpy as np

        if not batches:
            if stats_cls is None:
                raise ValueError("concat of no batches needs stats_cls")
            return cls.empty(stats_cls)
        first = batches[0]
        return StatsBatch(
            first.cls,
            {
                k: CarriedColumn.concat([b.columns[k] for b in batches])
                if isinstance(v, CarriedColumn)
                else np.concatenate([b.columns[k] for b in batches], axis=0)
                for k, v in first.columns.items()
            },
        )

    @classmethod
    def empty(cls, stats_cls: type[S], **sizes: int) -> StatsBatch[S]:
        return stats_cls.schema(**sizes).empty_batch()

    @classmethod
    def from_stats(cls, items: Sequence[S], stats_cls: type[S]) -> StatsBatch[S]:
        """Build a batch from per-segment :class:`Stats` objects (the slow but simple path)."""
        if not items:
            return cls.empty(stats_cls)
        return items[0].layout().from_stats(items)

    def __repr__(self) -> str:
        return f"StatsBatch[{self.cls.__name__}](n={self._n})"


# ====================================================================================================== the schema
#: The annotations a number field may have, and whether they hold integers.
_ANNOTATIONS: dict[Any, tuple[bool, bool]] = {  # annotation: (tuple, integer)
    int: (False, True),
    float: (False, False),
    "int": (False, True),
    "float": (False, False),
    "tuple[int,...]": (True, True),
    "tuple[float,...]": (True, False),
}


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    """One statistics field as the :class:`Schema` lays it out.

    ``size`` is ``None`` for a number and ``k`` for a tuple of ``k`` numbers; ``start`` is the field's first
    column in the flat numeric row (``-1`` for a carried field, which has no numbers). ``kind`` says how the field
    adds: ``"count"`` (integers, exactly), ``"sum"`` (floats: ``math.fsum``, or exactly as fractions),
    ``"running"`` (a :attr:`Stats.running_fields` float), ``"kept"`` (not added: a sum keeps the later part's
    value, :attr:`Stats.kept_fields`) or ``"carried"`` (a :class:`Carried` value, merged by its own ``+``)."""

    name: str
    size: int | None
    integer: bool
    start: int
    kind: str
    signed: bool = False
    carried: type[Carried] | None = None

    @property
    def width(self) -> int:
        """How many columns of the flat numeric row the field takes (0 for a carried field)."""
        if self.carried is not None:
            return 0
        return 1 if self.size is None else self.size

    @property
    def stop(self) -> int:
        return self.start + self.width

    @property
    def dtype(self) -> str:
        """The numpy dtype of the field's column (``"object"`` for a carried field, held in a
        :class:`CarriedColumn`)."""
        if self.carried is not None:
            return "object"
        return "int64" if self.integer else "float64"


class Schema(Generic[S]):
    """The layout of one statistics class for one configuration (its tuple sizes fixed), declared once from the
    class: fields in order, their widths, ``int`` or ``float`` (read from the annotations), carried and kept
    fields. Every consumer reads the layout from here: the neutral elements, JSON (``state_dict``), flat rows and
    matrices (significance tests, torch states), the engines' bytes, the evaluate cache's records.

    Get one with :meth:`Stats.schema` (``Family.schema(config)`` for a family's configuration); schemas are
    cached. Nothing here imports numpy until a batch, a matrix or bytes ask for it."""

    __slots__ = ("carried", "fields", "integer", "kept", "kept_flag", "names", "numeric", "stats_cls", "width")

    def __init__(self, stats_cls: type[S], sizes: Mapping[str, int]) -> None:
        self.stats_cls = stats_cls
        fields: list[FieldSpec] = []
        start = 0
        for f in dataclasses.fields(stats_cls):  # type: ignore[arg-type]
            name = f.name
            signed = name in stats_cls.signed_fields
            if name in stats_cls.carried_fields:
                fields.append(FieldSpec(name, None, False, -1, "carried", signed, stats_cls.carried_fields[name]))
                continue
            declared = _ANNOTATIONS.get(f.type if isinstance(f.type, type) else str(f.type).replace(" ", ""))
            if declared is None:
                raise TypeError(
                    f"{stats_cls.__name__}.{name} is annotated {f.type!r}: a statistics field is an int, a float, "
                    "a tuple[int, ...], a tuple[float, ...] or a carried value (carried_fields)"
                )
            is_tuple, integer = declared
            if is_tuple != (name in stats_cls.tuple_fields):
                raise TypeError(
                    f"{stats_cls.__name__}.{name} is annotated {f.type!r} but is {'not ' if is_tuple else ''}listed "
                    "in tuple_fields"
                )
            size = int(sizes.get(name, stats_cls.tuple_fields[name])) if is_tuple else None
            if name in stats_cls.kept_fields:
                kind = "kept"
            elif name in stats_cls.running_fields:
                kind = "running"
            else:
                kind = "count" if integer else "sum"
            spec = FieldSpec(name, size, integer, start, kind, signed)
            fields.append(spec)
            start += spec.width
        self.fields: tuple[FieldSpec, ...] = tuple(fields)
        self.names: tuple[str, ...] = tuple(f.name for f in fields)
        self.width: int = start
        self.numeric: tuple[FieldSpec, ...] = tuple(f for f in fields if f.carried is None)
        self.carried: tuple[FieldSpec, ...] = tuple(f for f in fields if f.carried is not None)
        self.kept: tuple[str, ...] = tuple(f.name for f in fields if f.kind == "kept")
        #: the kept field that says whether a value holds the kept fields (the first one)
        self.kept_flag: str | None = self.kept[0] if self.kept else None
        #: per column of the flat row: whether it holds integers
        self.integer: tuple[bool, ...] = tuple(f.integer for f in self.numeric for _ in range(f.width))

    def __repr__(self) -> str:
        return f"Schema({self.stats_cls.__name__}, width={self.width})"

    def field(self, name: str) -> FieldSpec:
        return self.fields[self.names.index(name)]

    # ------------------------------------------------------------------------------------------ values
    def zero(self) -> S:
        """The neutral element."""
        values: dict[str, Any] = {}
        for f in self.fields:
            if f.carried is not None:
                values[f.name] = f.carried.empty()
            else:
                z = 0 if f.integer else 0.0
                values[f.name] = z if f.size is None else (z,) * f.size
        return self.stats_cls(**values)

    def exact_zero(self) -> S:
        """The neutral element of exact totals: float fields as the fraction 0, running fields as a running sum
        at the corpus start."""
        from fractions import Fraction

        values: dict[str, Any] = {}
        for f in self.fields:
            if f.carried is not None:
                values[f.name] = f.carried.empty()
            elif f.kind == "running":
                values[f.name] = RunningSum.start()
            else:
                z: Any = 0 if f.integer else Fraction(0)
                values[f.name] = z if f.size is None else (z,) * f.size
        return self.stats_cls(**values)

    def holds_kept(self, stats: Any) -> bool:
        """Whether ``stats`` holds a value of the kept fields (a sum with it as its later part keeps them)."""
        return bool(getattr(stats, self.kept_flag)) if self.kept_flag is not None else False

    def ordered_sum(self, items: Sequence[S]) -> S:
        """``items[0] + items[1] + ...`` in the order given (partition order): numbers added (exact totals
        stay exact), running sums and carried values (CIDEr's records) in order, each carried field merged once
        (``Carried.sum``: linear where folding ``+`` would copy a growing table), kept fields from the last item
        that holds them."""
        if not items:
            return self.zero()
        if len(items) == 1:
            return items[0]
        values: dict[str, Any] = {}
        last = next((item for item in reversed(items) if self.holds_kept(item)), items[0])
        for f in self.fields:
            if f.kind == "kept":
                values[f.name] = getattr(last, f.name)
                continue
            column = [getattr(item, f.name) for item in items]
            if f.carried is not None:
                values[f.name] = f.carried.sum(column)
                continue
            acc = column[0]
            for value in column[1:]:
                acc = _add(acc, value)
            values[f.name] = acc
        return self.stats_cls(**values)

    def to_row(self, stats: Any) -> list[Any]:
        """The numeric fields of ``stats`` flattened into one row, in field order."""
        row: list[Any] = []
        for f in self.numeric:
            v = getattr(stats, f.name)
            if f.size is None:
                row.append(v)
            else:
                if len(v) != f.size:
                    raise ValueError(f"{f.name} has {len(v)} entries, expected {f.size}")
                row.extend(v)
        return row

    def from_row(self, row: Any, carried: Mapping[str, Any] | None = None, *, exact: bool = True) -> S:
        """The statistics of one flat row (a list, or a numpy row); ``carried`` gives the carried fields.
        ``exact``: Python numbers, integer fields rounded to ``int``; otherwise the row's own scalars pass
        through unchanged (the float32 path of the significance tests hands numpy ``float32`` values to the
        formula, as sacrebleu does)."""
        items = (row.tolist() if hasattr(row, "tolist") else list(row)) if exact else list(row)
        if len(items) != self.width:
            raise ValueError(f"expected {self.width} values for {self.stats_cls.__name__}, got {len(items)}")
        values: dict[str, Any] = dict(carried or {})
        for f in self.numeric:
            part = items[f.start : f.stop]
            if exact and f.integer:
                part = [round(v) for v in part]
            values[f.name] = part[0] if f.size is None else tuple(part)
        return self.stats_cls(**values)

    def to_json(self, stats: Any) -> dict[str, Any]:
        """Plain JSON-able data of ``stats`` (``state_dict``'s ``"stats"``)."""
        return {
            f.name: getattr(stats, f.name).to_json() if f.carried is not None else getattr(stats, f.name)
            for f in self.fields
        }

    def from_json(self, data: Any, *, where: str = "stats", checked: bool = True) -> S:
        """The statistics of :meth:`to_json` data. ``checked`` (data from outside, a saved state): every field
        present and no other, an ``int`` where the statistics count and a finite number where they sum, tuples
        of their length, nothing negative outside :attr:`Stats.signed_fields`; anything else raises
        :class:`~nlgmetrics.errors.InvalidInputError` naming the field."""
        if not checked:
            return self.stats_cls(
                **{
                    f.name: _carried_value(f.carried, data[f.name])
                    if f.carried is not None
                    else (tuple(data[f.name]) if f.size is not None else data[f.name])
                    for f in self.fields
                }
            )
        from .errors import InvalidInputError

        cls_name = self.stats_cls.__name__
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"{where} must be a mapping of {cls_name} fields, got {type(data).__name__}")
        missing = [n for n in self.names if n not in data]
        extra = [str(k) for k in data if k not in self.names]
        if missing or extra:
            detail = "; ".join(
                part
                for part in (
                    f"missing {', '.join(missing)}" if missing else "",
                    f"unknown {', '.join(extra)}" if extra else "",
                )
                if part
            )
            raise InvalidInputError(f"{where} does not hold the fields of {cls_name}: {detail}")
        values: dict[str, Any] = {}
        for f in self.fields:
            value = data[f.name]
            at = f"{where}[{f.name!r}]"
            if f.carried is not None:
                values[f.name] = checked_carried(f.carried, value, at)
            elif f.size is not None:
                if not isinstance(value, (list, tuple)) or len(value) != f.size:
                    raise InvalidInputError(f"{at} must be a list of {f.size} numbers, got {value!r:.60}")
                values[f.name] = tuple(
                    _checked_number(v, f.integer, f"{at}[{i}]", f.signed) for i, v in enumerate(value)
                )
            else:
                values[f.name] = _checked_number(value, f.integer, at, f.signed)
        return self.stats_cls(**values)

    # ------------------------------------------------------------------------------------------ batches
    def empty_batch(self) -> StatsBatch[S]:
        import numpy as np

        cols: dict[str, Any] = {}
        for f in self.fields:
            if f.carried is not None:
                cols[f.name] = CarriedColumn(f.carried, [])
            else:
                cols[f.name] = np.zeros((0,) if f.size is None else (0, f.size), dtype=f.dtype)
        return StatsBatch(self.stats_cls, cols)

    def from_stats(self, items: Sequence[S]) -> StatsBatch[S]:
        """The batch of per-segment statistics, columns of the declared dtypes."""
        import numpy as np

        if not items:
            return self.empty_batch()
        return StatsBatch(
            self.stats_cls,
            {
                f.name: CarriedColumn(f.carried, [getattr(s, f.name) for s in items])
                if f.carried is not None
                else np.asarray([getattr(s, f.name) for s in items], dtype=f.dtype)
                for f in self.fields
            },
        )

    def matrix(self, columns: Any, n_rows: int | None = None) -> np.ndarray:
        """The numeric columns of a batch (or a mapping of columns, given as arrays or lists) side by side in
        one ``(n, width)`` float64 matrix (exact for integers up to 2**53)."""
        import numpy as np

        if isinstance(columns, StatsBatch):
            n_rows = len(columns)
            columns = columns.columns
        parts = [np.asarray(columns[f.name], dtype=np.float64).reshape(-1, f.width) for f in self.numeric]
        if not parts:
            return np.zeros((n_rows or 0, 0), dtype=np.float64)
        return np.concatenate(parts, axis=1)

    def columns(self, matrix: np.ndarray) -> dict[str, np.ndarray]:
        """The inverse of :meth:`matrix`: the numeric columns, integer fields rounded back to ``int64``."""
        import numpy as np

        matrix = np.asarray(matrix, dtype=np.float64).reshape(-1, self.width)
        out: dict[str, np.ndarray] = {}
        for f in self.numeric:
            chunk = matrix[:, f.start : f.stop]
            if f.size is None:
                chunk = chunk[:, 0]
            out[f.name] = np.rint(chunk).astype(np.int64) if f.integer else chunk.copy()
        return out

    def sum_rows(self, weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
        """``weights @ matrix``, one summed row per row of ``weights``: integer columns summed exactly in int64,
        the others in float64. Kept columns are summed too (a resample has no "later part"); a formula that
        reads them (NLTK's smoothing 5-7) refuses such a sum."""
        import numpy as np

        ints = np.asarray(self.integer, dtype=bool)
        out = np.empty((weights.shape[0], matrix.shape[1]), dtype=np.float64)
        if ints.any():
            out[:, ints] = weights.astype(np.int64) @ matrix[:, ints].astype(np.int64)
        if (~ints).any():
            out[:, ~ints] = weights.astype(np.float64) @ matrix[:, ~ints].astype(np.float64)
        return out

    def columns_to_json(self, batch: StatsBatch[Any]) -> dict[str, list[Any]]:
        """Every column as plain lists (``state_dict``'s ``"segments"``)."""
        return {name: column.tolist() for name, column in batch.columns.items()}

    def columns_from_json(self, data: Any, *, where: str = "segments") -> StatsBatch[S]:
        """The batch of :meth:`columns_to_json` data from outside, every column checked (names, shapes, finite,
        signs, whole numbers where the statistics count); a bad one raises
        :class:`~nlgmetrics.errors.InvalidInputError` naming it."""
        import numpy as np

        from .errors import InvalidInputError

        if not isinstance(data, dict) or set(data) != set(self.names):
            raise InvalidInputError(f"{where} must hold the columns {sorted(self.names)}")
        cols: dict[str, Any] = {}
        for f in self.fields:
            v = data[f.name]
            at = f"{where}[{f.name!r}]"
            if f.carried is not None:  # NIST's tables, CIDEr's records: each checked as it is read
                if not isinstance(v, list):
                    raise InvalidInputError(f"{at} must be a list, one value per segment")
                cols[f.name] = CarriedColumn(
                    f.carried, [checked_carried(f.carried, x, f"{at}[{i}]") for i, x in enumerate(v)]
                )
                continue
            try:
                arr = np.asarray(v, dtype=np.float64)
            except (TypeError, ValueError):
                raise InvalidInputError(f"{at} must be a list of numbers") from None
            shape = () if f.size is None else (f.size,)
            if arr.ndim != 1 + len(shape) or arr.shape[1:] != shape:
                raise InvalidInputError(f"{at} has shape {arr.shape}; expected (n, {', '.join(map(str, shape))})")
            if not np.isfinite(arr).all():
                raise InvalidInputError(f"{at} holds a value that is not a finite number")
            if not f.signed and (arr < 0).any():
                raise InvalidInputError(f"{at} holds a negative value")
            if f.integer and (arr != np.round(arr)).any():
                raise InvalidInputError(f"{at} must hold whole numbers (counts)")
            cols[f.name] = arr.astype(f.dtype)
        try:
            return StatsBatch(self.stats_cls, cols)
        except ValueError as err:
            raise InvalidInputError(f"{where}: {err}") from None

    # ------------------------------------------------------------------------------------------ records
    def record_fields(self) -> list[str]:
        """The field names in the order of stored records (the evaluate cache's: sorted)."""
        return sorted(self.names)

    def to_record(self, name: str, column: Any) -> np.ndarray:
        """One column as a stored record: a numeric column itself, a carried column as its bytes (uint8)."""
        import numpy as np

        if isinstance(column, CarriedColumn):
            return np.frombuffer(column.to_bytes(), dtype=np.uint8)
        return np.asarray(column)

    def from_record(self, name: str, array: np.ndarray, n_rows: int) -> Any:
        """The column of a stored record of ``n_rows`` segments; ``ValueError`` saying what does not fit."""
        import numpy as np

        f = self.field(name)
        if f.carried is not None:
            if array.dtype != np.uint8 or array.ndim != 1:
                raise ValueError(f"column {name!r} has shape {array.shape} and dtype {array.dtype}, not bytes")
            try:
                column = CarriedColumn.from_bytes(f.carried, array.tobytes())
            except Exception as err:  # whatever the decoder raises on bytes it did not write
                raise ValueError(f"column {name!r} cannot be decoded ({type(err).__name__})") from None
            if len(column) != n_rows:
                raise ValueError(f"column {name!r} holds {len(column)} values for {n_rows} segments")
            return column
        shape = (n_rows,) if f.size is None else (n_rows, f.size)
        if array.shape != shape or (not f.integer and array.dtype != np.float64):
            raise ValueError(f"column {name!r} has shape {array.shape} and dtype {array.dtype}")
        return array.astype(f.dtype, copy=False)

    # ------------------------------------------------------------------------------------------ bytes
    def encode_total(self, total: Any) -> bytes:
        """An (exact) total as bytes: a JSON header of the number fields (fractions, float bits and running sums
        exact), then each carried field's own encoding. Nothing is pickled."""
        import json

        header: dict[str, Any] = {}
        blobs: list[bytes] = []
        for f in self.fields:
            value = getattr(total, f.name)
            if f.carried is not None:
                blob = value.to_bytes()
                header[f.name] = {"bytes": len(blob)}
                blobs.append(blob)
            else:
                header[f.name] = _number(value)
        head = json.dumps(header, separators=(",", ":")).encode("utf-8")
        return len(head).to_bytes(8, "little") + head + b"".join(blobs)

    def decode_total(self, data: bytes) -> S:
        """The total that :meth:`encode_total` encoded."""
        import json

        size = int.from_bytes(data[:8], "little")
        header = json.loads(data[8 : 8 + size].decode("utf-8"))
        at = 8 + size
        values: dict[str, Any] = {}
        for f in self.fields:
            if f.carried is not None:
                n = int(header[f.name]["bytes"])
                values[f.name] = f.carried.sum(f.carried.from_bytes(bytes(data[at : at + n])))
                at += n
            else:
                values[f.name] = _unnumber(header[f.name])
        return self.stats_cls(**values)

    def encode_batch(self, batch: StatsBatch[Any]) -> bytes:
        """Per-segment statistics as bytes (an ``.npz`` of the columns; carried columns as their bytes)."""
        import io

        import numpy as np

        arrays: dict[str, Any] = {"n": np.asarray(len(batch), dtype=np.int64)}
        for name, column in batch.columns.items():
            arrays[name] = self.to_record(name, column)
        out = io.BytesIO()
        np.savez(out, **arrays)
        return out.getvalue()

    def decode_batch(self, data: bytes) -> StatsBatch[S]:
        """The per-segment statistics that :meth:`encode_batch` encoded."""
        import io

        import numpy as np

        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            columns: dict[str, Any] = {}
            for f in self.fields:
                if f.carried is not None:
                    columns[f.name] = CarriedColumn.from_bytes(f.carried, npz[f.name].tobytes())
                else:
                    columns[f.name] = npz[f.name]
        return StatsBatch(self.stats_cls, columns)


def _carried_value(kind: Any, value: Any) -> Any:
    return value if isinstance(value, Carried) else kind.from_json(value)


def _number(value: Any) -> Any:
    """A number of an exact total as JSON, exactly."""
    from fractions import Fraction

    import numpy as np

    if isinstance(value, tuple):
        return [_number(v) for v in value]
    if isinstance(value, RunningSum):  # its float so far, or its values in order (exact: they travel as bits)
        data = np.ascontiguousarray(value.values, dtype="<f8").tobytes()
        return {"running": None if value.value is None else float(value.value).hex(), "values": data.hex()}
    if isinstance(value, Fraction):
        return f"q{value.numerator}/{value.denominator}"  # exact: partial sums stay exact across the wire
    if isinstance(value, (float, np.floating)):
        return f"f{float(value).hex()}"  # a non-finite partial sum (exact_sum gives the plain float sum)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return int(value)


def _unnumber(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_unnumber(v) for v in value)
    if isinstance(value, dict):
        import numpy as np

        start = value["running"]
        values = np.frombuffer(bytes.fromhex(value["values"]), dtype="<f8")
        return RunningSum(None if start is None else float.fromhex(start), values)
    if isinstance(value, str):
        if value[0] == "q":
            from fractions import Fraction

            num, _, den = value[1:].partition("/")
            return Fraction(int(num), int(den))
        return float.fromhex(value[1:])
    return value


_SCHEMAS: dict[tuple[type, tuple[int, ...]], Schema[Any]] = {}


def _schema(cls: type[S], sizes: Mapping[str, int]) -> Schema[S]:
    key = (cls, tuple(int(sizes.get(name, default)) for name, default in cls.tuple_fields.items()))
    found = _SCHEMAS.get(key)
    if found is None:
        found = _SCHEMAS[key] = Schema(cls, dict(zip(cls.tuple_fields, key[1], strict=True)))
    return found


#: The field names a statistics class shares with a result class, by the pair (a formula runs on every call).
_SHARED: dict[tuple[type, type], tuple[str, ...]] = {}


def _shared_names(stats_cls: type[Stats], result_cls: type) -> tuple[str, ...]:
    """The field names ``stats_cls`` and ``result_cls`` share, in the statistics' order."""
    names = _SHARED.get((stats_cls, result_cls))
    if names is None:
        result = {f.name for f in dataclasses.fields(result_cls)}
        names = _SHARED[stats_cls, result_cls] = tuple(n for n in stats_cls.field_names() if n in result)
    return names
