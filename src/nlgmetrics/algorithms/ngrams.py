"""Clipped n-gram counting on integer token ids, vectorised with numpy. No metric knowledge lives here.

BLEU and chrF both need, for every order ``n`` and every *unit* (a segment, or a segment-reference pair), the
number of hypothesis n-grams and the number of them that the references cover, each n-gram counted at most as
often as the references hold it ("clipped").

The references of a corpus become an :class:`NgramIndex`: for each order, the sorted distinct n-grams of every
unit with their counts. An n-gram is named by an exact integer key built from the key of its first ``n - 1``
tokens and its last token::

    key_1 = unit * V + token                       (V: the size of the token alphabet)
    key_n = rank_{n-1}(first n - 1 tokens) * V + last token

where ``rank_{n-1}`` is the position of the (n-1)-gram among the index's sorted distinct (n-1)-grams. Keys are
therefore collision-free (a mixed-radix number, never a hash), stay far below 2**63, keep the unit in their
leading digits (so n-grams of different segments never meet), and come out sorted by unit.

The hypotheses are looked up order by order with ``numpy.searchsorted``; a position whose (n-1)-gram is not in
the references cannot start a matching n-gram, so it is dropped before the next order (the lookups shrink as the
order grows). Hypothesis counts per reference n-gram come from one ``numpy.bincount``; clipping is a
``numpy.minimum`` with the reference counts. Nothing here is written by hand that numpy offers; numpy has no
n-gram counter of its own.

The index of a set of references can be cached and reused for every system scored against them
(:class:`ReferenceCache`), which is what makes scoring many systems cheap.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from .refcache import ReferenceCache

__all__ = [
    "NgramIndex",
    "ReferenceCache",
    "TokenStreams",
    "build_index",
    "clipped_counts",
    "codepoint_streams",
    "persist_reference_indexes",
    "stored_vocabulary_streams",
    "vocabulary_streams",
]


@dataclasses.dataclass(frozen=True)
class TokenStreams:
    """Token sequences stored flat: ``ids`` (int64, ``-1`` for a token that cannot match), ``offsets`` (stream
    ``s`` is ``ids[offsets[s]:offsets[s + 1]]``) and ``unit`` (the unit each stream belongs to)."""

    ids: np.ndarray
    offsets: np.ndarray
    unit: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def __len__(self) -> int:
        return len(self.unit)


def _offsets(lengths: Sequence[int] | np.ndarray) -> np.ndarray:
    out = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=out[1:])
    return out


def codepoint_streams(texts: Sequence[str], unit: np.ndarray) -> TokenStreams:
    """Each text as the sequence of its Unicode code points (the alphabet is all of Unicode, 0x110000)."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    ids = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    return TokenStreams(ids, _offsets(lengths), np.asarray(unit, dtype=np.int64))


def vocabulary_streams(
    token_lists: Sequence[Sequence[Hashable]], unit: np.ndarray, vocabulary: dict[Hashable, int], *, grow: bool
) -> TokenStreams:
    """Token lists as ids from ``vocabulary``. With ``grow`` new tokens are added (the references); without it
    a token the vocabulary lacks gets ``-1`` (a hypothesis token no reference holds: it can match nothing)."""
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    flat = list(itertools.chain.from_iterable(token_lists))
    # map() over the dict's own methods keeps the per-token work in C (a generator costs a Python frame per token)
    if grow:
        new = [t for t in dict.fromkeys(flat) if t not in vocabulary]
        vocabulary.update(zip(new, range(len(vocabulary), len(vocabulary) + len(new)), strict=True))
        ids = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=len(flat))
    else:
        ids = np.fromiter(map(vocabulary.get, flat, itertools.repeat(-1)), dtype=np.int64, count=len(flat))
    return TokenStreams(ids, _offsets(lengths), np.asarray(unit, dtype=np.int64))


@dataclasses.dataclass(frozen=True)
class NgramLevel:
    """The distinct n-grams of one order: sorted ``keys``, their ``counts`` (one column per reference column,
    see :func:`build_index`) and their ``unit``."""

    keys: np.ndarray
    counts: np.ndarray
    unit: np.ndarray
    #: For orders 2 and more: the n-grams whose first n - 1 tokens have rank p are keys[first[p]:first[p] + width[p]]
    first: np.ndarray | None = None
    width: np.ndarray | None = None


@dataclasses.dataclass(frozen=True)
class NgramIndex:
    """Reference n-grams of orders ``1..max_order`` per unit.

    ``counts`` of a level have one column per reference *column*: with ``columns=1`` the count of an n-gram is
    the largest number of times one reference stream of the unit holds it (BLEU's clipping count over several
    references); with ``columns=k``, column ``c`` counts it in the unit's ``c``-th reference only (chrF scores
    each reference apart). ``stream_lengths``, ``stream_unit`` and ``stream_column`` describe the reference
    streams. ``tokens`` (the sorted distinct reference tokens) and ``unigram_table`` (unit × token -> unigram
    rank, or -1) let unigrams be found by direct addressing when that table is small."""

    n_units: int
    max_order: int
    alphabet: int
    columns: int
    levels: tuple[NgramLevel, ...]
    stream_lengths: np.ndarray
    stream_unit: np.ndarray
    stream_column: np.ndarray
    tokens: np.ndarray
    unigram_table: np.ndarray | None


#: The largest unit × token table used to find unigrams by direct addressing (int32 entries).
_DIRECT_TABLE_LIMIT = 1 << 22


def _stream_positions(streams: TokenStreams) -> tuple[np.ndarray, np.ndarray]:
    """Every token position and the end offset of its stream."""
    lengths = streams.lengths
    pos = np.arange(len(streams.ids), dtype=np.int64)
    end = np.repeat(streams.offsets[1:], lengths)
    return pos, end


def _unique_inverse(keys: np.ndarray, near: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``numpy.unique(keys, return_inverse=True)``, and the sorting permutation, with a stable (merge) sort.

    The keys arrive grouped by unit (their leading digits) and a merge sort takes advantage of sorted runs,
    several times faster than the quicksort of ``numpy.unique``. ``near`` is a permutation that already sorts
    the keys by their leading digits (the previous order's): the sort then only fixes the order inside groups."""
    perm = np.argsort(keys, kind="stable") if near is None else near[np.argsort(keys[near], kind="stable")]
    ordered = keys[perm]
    first = np.empty(len(ordered), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(len(keys), dtype=np.int64)
    inverse[perm] = np.cumsum(first) - 1
    return ordered[first], inverse, perm


def _column_counts(inverse: np.ndarray, column: np.ndarray, n_keys: int, columns: int) -> np.ndarray:
    return np.bincount(inverse * columns + column, minlength=n_keys * columns).reshape(n_keys, columns)


def build_index(
    streams: TokenStreams,
    n_units: int,
    max_order: int,
    alphabet: int,
    column: np.ndarray | None = None,
) -> NgramIndex:
    """Index the n-grams of reference ``streams``. Without ``column``, several streams of one unit have their
    counts merged by maximum (BLEU's rule); with ``column`` (each stream's column, 0-based, distinct within a
    unit) each column keeps its own counts."""
    pos, end = _stream_positions(streams)
    n_streams = len(streams)
    stream_of = np.repeat(np.arange(n_streams, dtype=np.int64), streams.lengths)
    columns = int(column.max()) + 1 if column is not None and len(column) else 1
    merge_max = column is None and n_streams > 0 and len(np.unique(streams.unit)) < n_streams
    levels: list[NgramLevel] = []
    rank = np.zeros(0, dtype=np.int64)
    unit_of_rank = np.zeros(0, dtype=np.int64)
    perm = None
    for n in range(1, max_order + 1):
        if n == 1:
            keys = streams.unit[stream_of] * alphabet + streams.ids[pos]
        else:
            keep = pos + n <= end
            pos, end, stream_of, rank = pos[keep], end[keep], stream_of[keep], rank[keep]
            keys = rank * alphabet + streams.ids[pos + n - 1]
            # the previous order's sort, restricted to the positions kept, sorts these keys by their prefix
            renumber = np.cumsum(keep) - 1
            assert perm is not None
            perm = renumber[perm[keep[perm]]]
        uniq, inverse, perm = _unique_inverse(keys, perm)
        if column is not None:
            counts = _column_counts(inverse, column[stream_of], len(uniq), columns)
        elif merge_max:
            # the count of each distinct n-gram in each stream, then the largest over the unit's streams
            pair, pair_count = np.unique(inverse * n_streams + stream_of, return_counts=True)
            which = pair // n_streams
            starts = np.flatnonzero(np.r_[True, which[1:] != which[:-1]])
            counts = (np.maximum.reduceat(pair_count, starts) if len(pair) else pair_count)[:, None]
        else:
            counts = np.bincount(inverse, minlength=len(uniq))[:, None]
        prefix = uniq // alphabet
        unit = prefix if n == 1 else unit_of_rank[prefix]
        first: np.ndarray | None = None
        width: np.ndarray | None = None
        if n > 1:
            width = np.bincount(prefix, minlength=len(unit_of_rank))
            first = np.cumsum(width) - width
        levels.append(NgramLevel(uniq, counts.astype(np.int64), unit.astype(np.int64), first, width))
        rank, unit_of_rank = inverse, unit
    tokens = np.unique(streams.ids) if len(streams.ids) else np.zeros(0, dtype=np.int64)
    table = None
    if levels and 0 < n_units * len(tokens) <= _DIRECT_TABLE_LIMIT:
        unigrams = levels[0]
        table = np.full(n_units * len(tokens), -1, dtype=np.int32)
        dense = np.searchsorted(tokens, unigrams.keys % alphabet)
        table[unigrams.unit * len(tokens) + dense] = np.arange(len(unigrams.keys), dtype=np.int32)
    stream_column = column if column is not None else np.zeros(n_streams, dtype=np.int64)
    return NgramIndex(
        n_units,
        max_order,
        alphabet,
        columns,
        tuple(levels),
        streams.lengths,
        streams.unit,
        np.asarray(stream_column, dtype=np.int64),
        tokens,
        table,
    )


def _find(level: NgramLevel, prefix: np.ndarray, last: np.ndarray, alphabet: int) -> np.ndarray:
    """The position of each key ``prefix * alphabet + last`` in ``level.keys``, or -1.

    Most (n-1)-grams of a reference have a single continuation (over 80% from trigrams on, in WMT text): that
    one candidate is compared directly. The others are binary-searched (``numpy.searchsorted``); the queries come
    grouped by unit, like the keys, so those searches stay within a few cache lines of each other."""
    target = prefix * alphabet + last
    keys = level.keys
    if not len(keys):
        return np.full(len(target), -1, dtype=np.int64)
    if level.width is None or level.first is None:
        where = np.searchsorted(keys, target)
        np.minimum(where, len(keys) - 1, out=where)
        return np.where(keys[where] == target, where, -1)
    width = level.width[prefix]
    start = level.first[prefix]
    np.minimum(start, len(keys) - 1, out=start)
    out = np.where((width == 1) & (keys[start] == target), start, -1)
    many = np.flatnonzero(width > 1)
    if len(many):
        t = target[many]
        where = np.searchsorted(keys, t)
        np.minimum(where, len(keys) - 1, out=where)
        out[many] = np.where(keys[where] == t, where, -1)
    return out


def clipped_counts(
    index: NgramIndex,
    hypotheses: TokenStreams,
    max_order: int | None = None,
    held_out: list[np.ndarray] | None = None,
    first_out: list[np.ndarray] | None = None,
) -> np.ndarray:
    """Clipped matches of the hypothesis streams: an ``(n_units, max_order, columns)`` int64 array whose entry
    ``[u, n - 1, c]`` sums, over the distinct n-grams of unit ``u``'s hypothesis, ``min(hypothesis count,
    reference count in column c)``. Each unit should have at most one hypothesis stream.

    With ``held_out`` (a list), the hypothesis count of every reference n-gram is appended to it, one array per
    order aligned with ``index.levels[n - 1].keys`` (for metrics that weight each n-gram, such as NIST); with
    ``first_out``, the position (in ``hypotheses.ids``) of each one's first occurrence, -1 for none."""
    orders = index.max_order if max_order is None else max_order
    out = np.zeros((index.n_units, orders, index.columns), dtype=np.int64)
    if held_out is not None:
        held_out.extend(np.zeros(len(index.levels[n].keys), dtype=np.int64) for n in range(orders))
        start = len(held_out) - orders
    if first_out is not None:
        first_out.extend(np.full(len(index.levels[n].keys), -1, dtype=np.int64) for n in range(orders))
        first_start = len(first_out) - orders
    if len(hypotheses.ids) == 0 or not index.levels:
        return out
    pos, end = _stream_positions(hypotheses)
    unit = np.repeat(hypotheses.unit, hypotheses.lengths)
    ids = hypotheses.ids
    rank = np.zeros(0, dtype=np.int64)
    for n in range(1, orders + 1):
        level = index.levels[n - 1]
        if n == 1:
            alive = ids >= 0
            pos, end, unit = pos[alive], end[alive], unit[alive]
            tokens = ids[pos]
            if index.unigram_table is not None and len(index.tokens):
                dense = np.searchsorted(index.tokens, tokens)
                np.minimum(dense, len(index.tokens) - 1, out=dense)
                known = index.tokens[dense] == tokens
                where = np.full(len(tokens), -1, dtype=np.int64)
                where[known] = index.unigram_table[unit[known] * len(index.tokens) + dense[known]]
            else:
                where = _find(level, unit, tokens, index.alphabet)
        else:
            keep = pos + n <= end
            pos, end, rank = pos[keep], end[keep], rank[keep]
            last = ids[pos + n - 1]
            known = last >= 0
            if not known.all():
                pos, end, rank, last = pos[known], end[known], rank[known], last[known]
            where = _find(level, rank, last, index.alphabet)
        found = where >= 0
        where = where[found]
        held = np.bincount(where, minlength=len(level.keys))
        if held_out is not None:
            held_out[start + n - 1] = held
        if first_out is not None:  # positions ascend, so a key's first entry is its first occurrence
            keys_found, first_index = np.unique(where, return_index=True)
            first_out[first_start + n - 1][keys_found] = pos[found][first_index]
        clipped = np.minimum(held[:, None], level.counts)
        for c in range(index.columns):
            out[:, n - 1, c] = np.bincount(level.unit, weights=clipped[:, c], minlength=index.n_units).astype(np.int64)
        if not len(where):
            break
        pos, end, rank = pos[found], end[found], where
    return out


# ------------------------------------------------------------------------------------------ on-disk layer
_DISK_DIR: str | None = None
_DISK_MAX: int | None = None
_STORES: dict[tuple[str, int | None], Any] = {}


def persist_reference_indexes(directory: str | None, max_bytes: int | None = None) -> str | None:
    """Keep tokenised references in the cache directory ``directory`` as well as in memory (``None``: memory
    only), so another process, or a later run, does not tokenise the same references again. Returns the
    previous directory. The evaluation runner sets it (in every worker) when given a cache directory.

    What is stored is data only (token ids and the vocabulary, see :mod:`nlgmetrics._store`), verified when read;
    an entry that fails verification is rebuilt with a warning."""
    global _DISK_DIR, _DISK_MAX
    previous, _DISK_DIR, _DISK_MAX = _DISK_DIR, directory, max_bytes
    return previous


def _store() -> Any:
    if _DISK_DIR is None:
        return None
    from .._store import Store

    key = (_DISK_DIR, _DISK_MAX)
    if key not in _STORES:
        _STORES[key] = Store(_DISK_DIR, max_bytes=_DISK_MAX)
    return _STORES[key]


def _texts_digest(texts: Sequence[str]) -> str:
    import hashlib

    h = hashlib.sha256()
    for t in texts:
        data = t.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def stored_vocabulary_streams(
    namespace: str, texts: Sequence[str], tokenize: Callable[[Sequence[str]], Sequence[Sequence[Hashable]]]
) -> tuple[np.ndarray, np.ndarray, dict[Hashable, int]]:
    """``tokenize(texts)`` as token ids: ``(ids, lengths, vocabulary)``, as :func:`vocabulary_streams` with
    ``grow=True`` gives them, ids in order of first appearance. With a cache directory set
    (:func:`persist_reference_indexes`) the result is read from there when present and stored there when not:
    ``namespace`` must name everything besides the texts that changes the tokens (tokenizer, lowercasing)."""
    store = _store()
    key = f"refs|{namespace}|n:{len(texts)}|sha256:{_texts_digest(texts)}" if store is not None else ""
    if store is not None:
        found = _read_tokens(store, key, texts)
        if found is not None:
            return found
    vocabulary: dict[Hashable, int] = {}
    unit = np.zeros(len(texts), dtype=np.int64)
    streams = vocabulary_streams(tokenize(texts), unit, vocabulary, grow=True)
    lengths = streams.lengths
    if store is not None:
        _write_tokens(store, key, streams.ids, lengths, vocabulary)
    return streams.ids, lengths, vocabulary


def _read_tokens(
    store: Any, key: str, texts: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, dict[Hashable, int]] | None:
    from .._store import EntryError
    from ..errors import warn

    try:
        # an array holds at most a number per character (ids, lengths, ends) or a few bytes per character
        # (the vocabulary): bounded by the references themselves, never by what a file claims
        chars = sum(map(len, texts))
        entry = store.read("refs", key, max_record=64 * (chars + len(texts)) + 4096)
        if entry is None:
            return None
        ids, lengths, blob, ends = list(entry.arrays())  # the digest is checked once all are read
        if len(lengths) != len(texts) or lengths.ndim != 1 or ids.ndim != 1 or blob.ndim != 1 or ends.ndim != 1:
            raise EntryError("its arrays do not fit the references")
        lengths = lengths.astype(np.int64)
        ids = ids.astype(np.int64)
        ends = ends.astype(np.int64)
        if (lengths < 0).any() or int(lengths.sum()) != len(ids) or blob.dtype != np.uint8:
            raise EntryError("its token counts do not add up")
        if len(ends) and ((np.diff(ends) < 0).any() or ends[0] < 0 or ends[-1] != len(blob)):
            raise EntryError("its vocabulary is damaged")
        if len(ids) and (ids.min() < 0 or ids.max() >= len(ends)):
            raise EntryError("its token ids are out of range")
        text = blob.tobytes()
        starts = np.concatenate([[0], ends[:-1]]) if len(ends) else ends
        bounds = zip(starts.tolist(), ends.tolist(), strict=True)
        words = [text[a:b].decode("utf-8", "surrogatepass") for a, b in bounds]
        vocabulary: dict[Hashable, int] = {w: i for i, w in enumerate(words)}
        if len(vocabulary) != len(words):
            raise EntryError("its vocabulary repeats a token")
        return ids, lengths, vocabulary
    except (EntryError, ValueError, UnicodeDecodeError) as err:
        warn(f"cache entry {store.path('refs', key)} failed verification ({err}); tokenising the references again")
        store.discard("refs", key)
        return None


def _write_tokens(store: Any, key: str, ids: np.ndarray, lengths: np.ndarray, vocabulary: dict[Hashable, int]) -> None:
    if not all(type(t) is str for t in vocabulary):
        return  # a custom tokenizer with non-string tokens: kept in memory only
    words = [t.encode("utf-8", "surrogatepass") for t in vocabulary]  # type: ignore[attr-defined]
    ends = np.cumsum(np.fromiter(map(len, words), dtype=np.int64, count=len(words)))
    blob = np.frombuffer(b"".join(words), dtype=np.uint8)
    writer = None
    try:
        writer = store.writer("refs", key)
        for array in (ids, lengths, blob, ends):
            writer.add(array, compact=True)
        writer.commit({"texts": len(lengths), "tokens": len(ids)})
    except OSError as err:
        from ..errors import warn

        if writer is not None:
            writer.abort()
        warn(f"cannot write to the cache directory {store.root} ({err.strerror or err}); continuing without it")
