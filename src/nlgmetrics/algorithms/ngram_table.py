"""A mergeable table of n-gram counts: what NIST's statistics carry instead of a fixed vector of numbers.

NIST weighs each matched n-gram by its information in the *whole reference corpus*,
``log2(count(w1..wn-1) / count(w1..wn))``, so a segment's contribution cannot be reduced to a few numbers before
the corpus is complete. An :class:`NgramTable` keeps exactly what the formula needs, keyed by the n-grams
themselves (token ids into the table's own vocabulary, so that tables from different calls, processes or
machines merge exactly, by token text):

* ``ref_*``: every distinct reference n-gram (orders 1..N) with its count over all references;
* ``match_*``: the matched n-grams of each *group* (a segment) and *option* (a reference, when the metric chooses
  among references after weighting; else one option), with their clipped counts;
* ``option_*``: each group's options with the length of their reference;
* ``ref_prefix`` (the row of each reference n-gram's first ``n - 1`` words, ``-1`` for a word) and ``match_ref``
  (the reference row of each matched n-gram): links into the reference rows, so that a formula weighs every row
  without a search; ``match_first``: where each matched n-gram first occurs in its hypothesis (NLTK adds the
  weights in that order, which decides its ties).

``+`` merges: vocabularies are united, reference counts added per n-gram, groups and options appended (so the
``i``-th group of ``a + b`` is ``a``'s ``i``-th, then ``b``'s). The cost is memory in proportion to the distinct
reference n-grams and matched n-grams of the data seen (about a dozen integers per n-gram), against a few numbers
per segment for BLEU; merging sorts the reference rows once per merge.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..stats import Carried

__all__ = ["NgramTable", "group_rows", "locate", "pad_keys"]

_I64 = np.int64
_MAGIC = -7.0  # first value of every record of a table as a float64 vector
_KEYS = ("ref_keys", "match_keys")  # the key matrices (their width is the table's largest order)


def pad_keys(keys: np.ndarray, width: int) -> np.ndarray:
    """``keys`` (rows of token ids, ``-1`` past each n-gram's end) widened to ``width`` columns."""
    keys = np.asarray(keys, dtype=_I64).reshape(len(keys), -1) if len(keys) else np.zeros((0, width), dtype=_I64)
    if keys.shape[1] >= width:
        return keys
    out = np.full((len(keys), width), -1, dtype=_I64)
    out[:, : keys.shape[1]] = keys
    return out


def group_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``keys`` (sorted) and, for each input row, the index of its distinct row."""
    if len(keys) == 0:
        return keys, np.zeros(0, dtype=_I64)
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    new = np.empty(len(keys), dtype=bool)
    new[0] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=new[1:])
    inverse = np.empty(len(keys), dtype=_I64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def locate(ref_keys: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The row of ``ref_keys`` equal to each row of ``queries`` (-1 where none is), and the row of each reference
    n-gram's prefix (its first ``n - 1`` tokens; -1 for single tokens). ``ref_keys`` must hold the prefixes of its
    rows, as reference n-gram tables do. Rows are compared order by order, each n-gram named by the rank of its
    prefix and its last token, as in :mod:`nlgmetrics.algorithms.ngrams` (no hashing, no collision)."""
    width = max(ref_keys.shape[1] if ref_keys.ndim == 2 else 0, queries.shape[1] if queries.ndim == 2 else 0)
    ref_keys, queries = pad_keys(ref_keys, width), pad_keys(queries, width)
    found = np.full(len(queries), -1, dtype=_I64)
    prefix = np.full(len(ref_keys), -1, dtype=_I64)
    if not len(ref_keys):
        return found, prefix
    base = int(max(ref_keys.max(), queries.max() if len(queries) else 0)) + 2
    r_order = (ref_keys >= 0).sum(axis=1)
    q_order = (queries >= 0).sum(axis=1)
    r_rank = np.zeros(len(ref_keys), dtype=_I64)  # rank of each row's k-token prefix among the k-grams
    q_rank = np.zeros(len(queries), dtype=_I64)
    q_alive = q_order > 0
    for k in range(1, width + 1):
        scale = base if k > 1 else 0
        rows = np.flatnonzero(r_order == k)
        keys = r_rank[rows] * scale + ref_keys[rows, k - 1]
        order = np.argsort(keys, kind="stable")
        level_keys, level_rows = keys[order], rows[order]
        if not len(level_keys):
            break
        # every longer reference row, and every query still matching, advances one token
        for sel, ranks, keys_of, alive in (
            (np.flatnonzero(r_order >= k), r_rank, ref_keys, None),
            (np.flatnonzero(q_alive & (q_order >= k)), q_rank, queries, q_alive),
        ):
            target = ranks[sel] * scale + keys_of[sel, k - 1]
            where = np.minimum(np.searchsorted(level_keys, target), len(level_keys) - 1)
            hit = level_keys[where] == target
            if alive is not None:
                alive[sel[~hit]] = False
            ranks[sel[hit]] = where[hit]
        nxt = np.flatnonzero(r_order == k + 1)
        prefix[nxt] = level_rows[r_rank[nxt]]
        done = np.flatnonzero(q_alive & (q_order == k))
        found[done] = level_rows[q_rank[done]]
    return found, prefix


@dataclasses.dataclass(frozen=True, eq=False)
class NgramTable(Carried):
    vocabulary: tuple[str, ...]
    ref_keys: np.ndarray
    ref_counts: np.ndarray
    match_group: np.ndarray
    match_option: np.ndarray
    match_keys: np.ndarray
    match_counts: np.ndarray
    option_group: np.ndarray
    option_len: np.ndarray
    n_groups: int
    ref_prefix: np.ndarray
    match_ref: np.ndarray
    match_first: np.ndarray

    # ------------------------------------------------------------------ the monoid
    @classmethod
    def empty(cls) -> NgramTable:
        z = np.zeros(0, dtype=_I64)
        k = np.zeros((0, 0), dtype=_I64)
        return cls((), k, z, z, z, k, z, z, z, 0, z, z, z)

    def __eq__(self, other: object) -> bool:
        """The same rows in the same order over the same vocabulary (tables equal as data, not as sets)."""
        if not isinstance(other, NgramTable):
            return NotImplemented
        if self.vocabulary != other.vocabulary or self.n_groups != other.n_groups:
            return False
        width = max(self.width, other.width)
        if not all(
            np.array_equal(pad_keys(getattr(self, k), width), pad_keys(getattr(other, k), width)) for k in _KEYS
        ):
            return False
        return all(
            np.array_equal(getattr(self, f.name), getattr(other, f.name))
            for f in dataclasses.fields(self)
            if f.name not in ("vocabulary", "n_groups", *_KEYS)
        )

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Any) -> NgramTable:
        if not isinstance(other, NgramTable):
            return NotImplemented
        return NgramTable.sum([self, other])

    @property
    def width(self) -> int:
        return int(max(self.ref_keys.shape[1], self.match_keys.shape[1]))

    @classmethod
    def sum(cls, items: Sequence[Any]) -> NgramTable:
        items = list(items)
        if not items:
            return cls.empty()
        if len(items) == 1:
            return items[0]  # type: ignore[no-any-return]
        width = max(t.width for t in items)
        vocabulary, maps = _unite([t.vocabulary for t in items])

        def keys(t: NgramTable, name: str, m: np.ndarray | None) -> np.ndarray:
            k = pad_keys(getattr(t, name), width)
            return k if m is None else np.where(k >= 0, m[np.maximum(k, 0)], -1)

        ref_keys = np.concatenate([keys(t, "ref_keys", m) for t, m in zip(items, maps, strict=True)])
        uniq, inverse = group_rows(ref_keys)
        counts = np.bincount(inverse, weights=np.concatenate([t.ref_counts for t in items]), minlength=len(uniq))
        offsets = np.cumsum([0] + [t.n_groups for t in items[:-1]])
        # each input's links into its own reference rows become links into the merged rows
        starts = np.cumsum([0] + [len(t.ref_counts) for t in items[:-1]])
        match_ref = np.concatenate([inverse[t.match_ref + a] for t, a in zip(items, starts, strict=True)])
        _, prefix = locate(uniq, uniq[:0])
        return cls(
            vocabulary,
            uniq,
            np.rint(counts).astype(_I64),
            np.concatenate([t.match_group + o for t, o in zip(items, offsets, strict=True)]),
            np.concatenate([t.match_option for t in items]),
            np.concatenate([keys(t, "match_keys", m) for t, m in zip(items, maps, strict=True)]),
            np.concatenate([t.match_counts for t in items]),
            np.concatenate([t.option_group + o for t, o in zip(items, offsets, strict=True)]),
            np.concatenate([t.option_len for t in items]),
            int(sum(t.n_groups for t in items)),
            prefix,
            match_ref,
            np.concatenate([t.match_first for t in items]),
        )

    # ------------------------------------------------------------------ as plain data
    _ARRAYS = (
        "ref_counts",
        "match_group",
        "match_option",
        "match_counts",
        "option_group",
        "option_len",
        "ref_prefix",
        "match_ref",
        "match_first",
    )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"vocabulary": list(self.vocabulary), "n_groups": self.n_groups}
        out["ref_keys"] = self.ref_keys.tolist()
        out["match_keys"] = self.match_keys.tolist()
        out.update({name: getattr(self, name).tolist() for name in self._ARRAYS})
        return out

    @classmethod
    def from_json(cls, data: Any) -> NgramTable:
        def arr(name: str) -> np.ndarray:
            return np.asarray(data[name], dtype=_I64).reshape(-1)

        def mat(name: str) -> np.ndarray:
            rows = data[name]
            return np.asarray(rows, dtype=_I64).reshape(len(rows), -1) if rows else np.zeros((0, 0), dtype=_I64)

        return cls(
            tuple(data["vocabulary"]),
            mat("ref_keys"),
            arr("ref_counts"),
            arr("match_group"),
            arr("match_option"),
            mat("match_keys"),
            arr("match_counts"),
            arr("option_group"),
            arr("option_len"),
            int(data["n_groups"]),
            arr("ref_prefix"),
            arr("match_ref"),
            arr("match_first"),
        )

    def to_vector(self) -> np.ndarray:
        """One self-delimiting record: a header of sizes, the vocabulary as code points, then the arrays."""
        width = self.width
        lengths = np.fromiter(map(len, self.vocabulary), dtype=_I64, count=len(self.vocabulary))
        text = "".join(self.vocabulary)
        chars = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(_I64)
        r, m, o = len(self.ref_counts), len(self.match_counts), len(self.option_len)
        parts = [
            lengths,
            chars,
            pad_keys(self.ref_keys, width).ravel(),
            self.ref_counts,
            self.match_group,
            self.match_option,
            self.match_counts,
            pad_keys(self.match_keys, width).ravel(),
            self.option_group,
            self.option_len,
            self.ref_prefix,
            self.match_ref,
            self.match_first,
        ]
        body = np.concatenate([p.astype(np.float64) for p in parts])
        header = np.asarray([_MAGIC, 0, width, len(lengths), len(chars), r, m, o, self.n_groups], dtype=np.float64)
        header[1] = len(header) + len(body)
        return np.concatenate([header, body])

    @classmethod
    def from_vectors(cls, vector: np.ndarray) -> list[NgramTable]:
        out = []
        pos = 0
        vector = np.asarray(vector, dtype=np.float64)
        while pos < len(vector):
            if vector[pos] != _MAGIC:
                raise ValueError("not an n-gram table record: the vector is corrupt or of another metric")
            total, width, n_vocab, n_chars, r, m, o, n_groups = (int(x) for x in vector[pos + 1 : pos + 9])
            body = vector[pos + 9 : pos + total].astype(_I64)
            pos += total
            take = _Reader(body)
            lengths = take(n_vocab)
            chars = take(n_chars)
            text = chars.astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass")
            ends = np.cumsum(lengths).tolist()
            vocabulary = tuple(text[a:b] for a, b in zip([0, *ends][: len(ends)], ends, strict=True))
            ref_keys = take(r * width).reshape(r, width)
            ref_counts = take(r)
            match_group, match_option, match_counts = take(m), take(m), take(m)
            match_keys = take(m * width).reshape(m, width)
            option_group, option_len = take(o), take(o)
            ref_prefix, match_ref, match_first = take(r), take(m), take(m)
            out.append(
                cls(
                    vocabulary,
                    ref_keys,
                    ref_counts,
                    match_group,
                    match_option,
                    match_keys,
                    match_counts,
                    option_group,
                    option_len,
                    n_groups,
                    ref_prefix,
                    match_ref,
                    match_first,
                )
            )
        return out


class _Reader:
    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.pos = 0

    def __call__(self, n: int) -> np.ndarray:
        part = self.data[self.pos : self.pos + n]
        self.pos += n
        return part


def _unite(vocabularies: list[tuple[str, ...]]) -> tuple[tuple[str, ...], list[np.ndarray | None]]:
    """One vocabulary for all, and per input the id map into it (``None``: the ids stay)."""
    first = vocabularies[0]
    if all(v is first for v in vocabularies):
        return first, [None] * len(vocabularies)
    ids: dict[str, int] = dict(zip(first, range(len(first)), strict=True))
    maps: list[np.ndarray | None] = []
    done: dict[int, np.ndarray | None] = {id(first): None}
    for v in vocabularies:
        if id(v) not in done:
            for token in v:
                ids.setdefault(token, len(ids))
            done[id(v)] = np.fromiter(map(ids.__getitem__, v), dtype=_I64, count=len(v))
        maps.append(done[id(v)])
    return tuple(ids), maps
