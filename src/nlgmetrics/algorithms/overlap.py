"""Token overlaps of many text pairs at once: multiset intersections and longest common substrings.

No metric knowledge lives here. Texts are token-id sequences held back to back in one integer column with a
length per text (``ids``, ``lengths``); pairs name a prediction text and a reference text by index.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence

import numpy as np

__all__ = [
    "TokenColumn",
    "bag_overlap",
    "codepoint_column",
    "encode_tokens",
    "encode_words",
    "longest_common_substring",
]


class TokenColumn:
    """Token-id sequences back to back: ``ids`` of every text, ``lengths`` and ``starts`` per text."""

    __slots__ = ("ids", "lengths", "starts", "vocab")

    def __init__(self, ids: np.ndarray, lengths: np.ndarray, vocab: int) -> None:
        self.ids = ids
        self.lengths = lengths
        self.starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64) if len(lengths) else lengths
        self.vocab = vocab


def encode_tokens(texts: Sequence[Sequence[Hashable]]) -> TokenColumn:
    """Give every distinct token an id (shared across all texts) and lay the texts out back to back."""
    flat = list(itertools.chain.from_iterable(texts))
    vocab = {tok: i for i, tok in enumerate(dict.fromkeys(flat))}
    ids = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat))
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    return TokenColumn(ids, lengths, max(len(vocab), 1))


_MARK = "\x00"


def encode_words(texts: Sequence[str]) -> TokenColumn:
    """:func:`encode_tokens` of ``text.split()`` for every text, with one split of the joined texts (a marker
    token between texts gives the lengths)."""
    joined = f" {_MARK} ".join(texts)
    if joined.count(_MARK) != len(texts) - 1:  # a text holds the marker itself
        return encode_tokens([t.split() for t in texts])
    flat = joined.split()
    vocab = {tok: i for i, tok in enumerate(dict.fromkeys(flat))}
    ids = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat))
    if len(texts) > 1:
        marks = np.flatnonzero(ids == vocab[_MARK])
        edges = np.concatenate(([-1], marks, [len(ids)]))
        lengths = np.diff(edges) - 1
        ids = np.delete(ids, marks)
    else:
        lengths = np.array([len(ids)], dtype=np.int64)
    return TokenColumn(ids, lengths.astype(np.int64), max(len(vocab), 1))


def codepoint_column(texts: Sequence[str]) -> TokenColumn:
    """Each character is a token whose id is its code point (no vocabulary needed)."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    ids = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    return TokenColumn(ids, lengths, 0x110000)


def bag_overlap(col: TokenColumn, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``sum(min(count_a(t), count_b(t)))`` over tokens ``t`` (``Counter(a) & Counter(b)``) for each pair of texts
    ``(left[k], right[k])`` of the column, without a Python loop over pairs."""
    n_pairs = len(left)
    if n_pairs == 0:
        return np.zeros(0, dtype=np.int64)

    def keys(texts: np.ndarray) -> np.ndarray:
        lengths = col.lengths[texts]
        total = int(lengths.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        pair = np.repeat(np.arange(n_pairs, dtype=np.int64), lengths)
        ends = np.cumsum(lengths)
        pos = np.arange(total, dtype=np.int64) + np.repeat(col.starts[texts] - (ends - lengths), lengths)
        return pair * col.vocab + col.ids[pos]

    a_keys, a_counts = np.unique(keys(left), return_counts=True)
    b_keys, b_counts = np.unique(keys(right), return_counts=True)
    common, ia, ib = np.intersect1d(a_keys, b_keys, assume_unique=True, return_indices=True)
    return np.bincount(common // col.vocab, weights=np.minimum(a_counts[ia], b_counts[ib]), minlength=n_pairs).astype(
        np.int64
    )


def longest_common_substring(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest run of consecutive tokens common to ``a`` and ``b``.

    Only the cells where tokens match are visited (a dict per row), so short answers against long predictions
    cost little; the result is that of the full O(len a x len b) table.

    >>> longest_common_substring("xabcy", "abcab")
    3
    """
    positions: dict[Hashable, list[int]] = {}
    for j, tok in enumerate(b):
        positions.setdefault(tok, []).append(j)
    best = 0
    prev: dict[int, int] = {}
    for tok in a:
        cur: dict[int, int] = {}
        for j in positions.get(tok, ()):
            v = prev.get(j - 1, 0) + 1
            cur[j] = v
            if v > best:
                best = v
        prev = cur
    return best
