"""Longest-common-subsequence kernels for ROUGE-L, ROUGE-Lsum and ROUGE-W. No metric knowledge lives here.

Three questions are asked of an LCS, and each has its own kernel:

* **How long is it?** (ROUGE-L over whole texts.) rapidfuzz's ``LCSseq`` answers in C++ with Hyyrö's
  bit-parallel algorithm, and ``rapidfuzz.process.cpdist`` runs it over whole columns of pairs, so that is what
  :func:`lcs_lengths` uses. Token ids become strings first (one code point per token, :func:`id_strings`),
  the fastest input rapidfuzz takes.
* **Which reference tokens does it use?** (ROUGE-Lsum's union LCS, ROUGE-1.5.5's summary-level ROUGE-L.) Here
  the *particular* LCS matters, because the union over several candidate sentences depends on it. Both
  rouge-score (``_backtrack_norec``) and ROUGE-1.5.5.pl (``markLCS``) read one LCS out of the dynamic-programming
  table from the bottom-right corner: take the diagonal when the two tokens are equal, otherwise move up
  (drop a reference token) unless moving left is strictly better. rapidfuzz offers an alignment too
  (``LCSseq.editops``), but it strips the common prefix first and breaks ties its own way, so it picks other
  LCSs; no maintained library exposes this tie-breaking, hence the hand-written :func:`union_lcs_marks`.
  It runs the bit-parallel recurrence (bits over the reference sentence, one 64-bit word) for every sentence
  pair at once in numpy, then walks the same canonical path back through the columns, also for all pairs at
  once. Longer reference sentences take the same algorithm on Python integers.
* **What is its weighted length?** (ROUGE-1.5.5's ROUGE-W.) The script's own weighted dynamic program, with
  its tie-breaking and its float arithmetic, vectorised over pairs: :func:`weighted_lcs_marks`.

Every kernel is checked against rouge-score's and ROUGE-1.5.5's textbook dynamic programs in the test suite.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cpdist

from .rouge_counts import _length_order

__all__ = [
    "ID_STRING_LIMIT",
    "canonical_lcs_positions",
    "id_strings",
    "lcs_lengths",
    "union_lcs_marks",
    "weighted_lcs_marks",
]

#: The largest token id :func:`id_strings` can encode (code points, without the surrogate block).
ID_STRING_LIMIT = 0x10FFFF - 0x800
#: LOW[k] has the k lowest bits set (k = 0..64).
_LOW = np.array([(1 << k) - 1 for k in range(65)], dtype=np.uint64)
#: BIT[k] = 1 << k (k = 0..63).
_BIT = np.array([1 << k for k in range(64)], dtype=np.uint64)
#: Reference sentences up to this many tokens take the vectorised path (a float64 holds 53 bits exactly).
_EXACT = 53
#: Upper bound of the number of cells of the equality cube built per chunk (memory, not speed).
_CHUNK_CELLS = 1 << 22
#: Sentence pairs whose LCS runs at once.
_PAIRS_PER_CHUNK = 1 << 17


# ---------------------------------------------------------------------------------------------------- lengths
def id_strings(ids: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    """The token-id sequences ``ids[starts[k]:ends[k]]`` as strings, one code point per token.

    The whole id column is decoded once (UTF-32) and sliced, so this costs one slice per sequence. Ids must lie
    in ``[0, 0x10F7FF]``; they skip the surrogate block, which is not valid in a string.
    """
    if len(ids) and int(ids.max()) > ID_STRING_LIMIT:
        raise ValueError("too many distinct tokens to encode as code points")
    cps = ids.astype(np.uint32) + np.where(ids >= 0xD800, 0x800, 0).astype(np.uint32)
    text = cps.astype("<u4").tobytes().decode("utf-32-le")
    return [text[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]


def lcs_lengths(a: Sequence[str | Sequence[Hashable]], b: Sequence[str | Sequence[Hashable]]) -> np.ndarray:
    """Element-wise LCS lengths ``len(LCS(a[k], b[k]))`` as ``int64``, from rapidfuzz's C++ kernel."""
    if len(a) != len(b):
        raise ValueError(f"lcs_lengths needs equal lengths, got {len(a)} and {len(b)}")
    if not a:
        return np.zeros(0, dtype=np.int64)
    out = cpdist(a, b, scorer=LCSseq.similarity, dtype=np.float64, workers=1)
    return np.rint(np.asarray(out)).astype(np.int64)


# ---------------------------------------------------------------------------------------------------- canonical LCS
def canonical_lcs_positions(ref: Sequence[Hashable], can: Sequence[Hashable]) -> list[int]:
    """Positions in ``ref`` of the LCS that rouge-score's ``lcs_ind`` and ROUGE-1.5.5's ``markLCS`` read out.

    The reference implementation of :func:`union_lcs_marks`, on Python integers (any length): the bit-parallel
    recurrence over ``can`` keeps, per column ``j``, the rows where the table grows (``D_j``); the walk back goes
    through the columns from the last one. In column ``j`` at row ``i`` the path moves up past rows that do not
    lower the LCS, takes the lowest-but-last matching row it reaches (the diagonal), or turns left at the first
    row where the value drops.
    """
    m = len(ref)
    if m == 0 or not can:
        return []
    masks: dict[Hashable, int] = {}
    for x, tok in enumerate(ref):
        masks[tok] = masks.get(tok, 0) | (1 << x)
    full = (1 << m) - 1
    v = full
    columns = [0]
    match = [masks.get(tok, 0) for tok in can]
    for mj in match:
        u = v & mj
        v = ((v + u) | (v - u)) & full
        columns.append(~v & full)
    i = m
    out = []
    for j in range(len(can), 0, -1):
        low = (1 << i) - 1
        d = columns[j] & low
        cand = match[j - 1] & low
        if cand:
            x = cand.bit_length() - 1
            if d >> (x + 1) == 0:
                out.append(x)
                i = x
                continue
        i = d.bit_length()
        if i == 0:
            break
    out.reverse()
    return out


_MANTISSA = np.int64((1 << 52) - 1)


def _top_bit(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the highest set bit of each ``uint64`` below ``2**53`` (a very negative number for 0), and the
    value of that bit (0 for 0). A float64 holds such integers exactly; its exponent field is the bit index."""
    f = v.astype(np.float64)
    bits = f.view(np.int64)
    return (bits >> 52) - 1023, (bits & ~_MANTISSA).view(np.float64).astype(np.uint64)


def _padded(tokens: np.ndarray, start: np.ndarray, length: np.ndarray, width: int, fill: int) -> np.ndarray:
    cols = np.arange(width)
    idx = start[:, None] + cols[None, :]
    valid = cols[None, :] < length[:, None]
    return np.where(valid, tokens[np.where(valid, idx, 0)], fill)


def _match_rows(
    tokens: np.ndarray, r_start: np.ndarray, r_len: np.ndarray, c_start: np.ndarray, c_len: np.ndarray, nmax: int
) -> np.ndarray:
    """``M[k, j]``: bit ``x`` set when reference token ``x`` of pair ``k`` equals its candidate token ``j``.
    Built by comparing every token pair, in chunks."""
    q = len(r_start)
    match = np.zeros((q, nmax), dtype=np.uint64)
    pos = 0
    while pos < q:
        mmax = int(r_len[pos:].max())
        size = max(1, _CHUNK_CELLS // (nmax * max(mmax, 1)))
        sl = slice(pos, min(q, pos + size))
        pos = sl.stop
        ref = _padded(tokens, r_start[sl], r_len[sl], mmax, -1)
        can = _padded(tokens, c_start[sl], c_len[sl], nmax, -2)
        packed = np.packbits(can[:, :, None] == ref[:, None, :], axis=2, bitorder="little")
        words = np.zeros((len(ref), nmax, 8), dtype=np.uint8)
        words[:, :, : packed.shape[2]] = packed
        match[sl] = words.view("<u8")[:, :, 0]
    return match


def _match_rows_grouped(
    tokens: np.ndarray,
    r_start: np.ndarray,
    r_len: np.ndarray,
    c_start: np.ndarray,
    c_len: np.ndarray,
    nmax: int,
    lo: np.ndarray,
    size: np.ndarray,
) -> np.ndarray:
    """The same masks as :func:`_match_rows`, by table look-up, when the tokens of pair ``k`` are small ids in
    ``[lo[k], lo[k] + size[k])``: each distinct reference sentence gets a table of ``size`` masks (bit ``x`` at
    the id of its token ``x``), and each candidate token reads its mask. Linear in the number of tokens, and
    cache-friendly when the pairs of one reference sentence are adjacent."""
    q = len(r_start)
    sent, first, inv = np.unique(r_start, return_index=True, return_inverse=True)
    base = np.zeros(len(sent) + 1, dtype=np.int64)
    np.cumsum(size[first], out=base[1:])
    # the table: one float64 per (reference sentence, id); sums of distinct powers of two below 2**53 are exact
    lens = r_len[first]
    pos = _ragged(sent, lens)
    bit = np.ldexp(1.0, pos - np.repeat(sent, lens))
    slot = np.repeat(base[:-1] - lo[first], lens) + tokens[pos]
    table = np.bincount(slot, weights=bit, minlength=int(base[-1])).astype(np.uint64)
    # the look-ups, pair by pair
    cpos = _ragged(c_start, c_len)
    match = np.zeros((q, nmax), dtype=np.uint64)
    flat = cpos + np.repeat(np.arange(q, dtype=np.int64) * nmax - c_start, c_len)
    match.ravel()[flat] = table[np.repeat(base[inv] - lo, c_len) + tokens[cpos]]
    return match


def _ragged(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    total = int(lengths.sum())
    ends = np.cumsum(lengths)
    return np.arange(total, dtype=np.int64) + np.repeat(starts - (ends - lengths), lengths)


def _marks_word(
    tokens: np.ndarray,
    r_start: np.ndarray,
    r_len: np.ndarray,
    c_start: np.ndarray,
    c_len: np.ndarray,
    out: np.ndarray,
    lo: np.ndarray | None,
    size: np.ndarray | None,
) -> None:
    """Canonical LCS marks of sentence pairs whose reference sentence has at most 53 tokens (one word, exact in
    float64). Pairs are sorted longest candidate first, so that the pairs still running at column ``j`` are a
    prefix and every step works on contiguous slices."""
    q = len(r_start)
    nmax = int(c_len.max())
    if lo is None or size is None:
        rows = _match_rows(tokens, r_start, r_len, c_start, c_len, nmax)
    else:
        rows = _match_rows_grouped(tokens, r_start, r_len, c_start, c_len, nmax, lo, size)
    order = _length_order(c_len, descending=True)
    r_start, r_len, c_len = r_start[order], r_len[order], c_len[order]
    # column-major, longest candidates first: each step reads one contiguous prefix of a row
    match = np.ascontiguousarray(rows[order].T)
    del rows
    active = np.searchsorted(-c_len, -np.arange(1, nmax + 1), side="right")
    full = _LOW[r_len]
    v = full.copy()
    # cols[:, j]: bit x set when T[x + 1][j] = T[x][j] + 1 (the rows where column j of the LCS table grows)
    cols = np.zeros((nmax + 1, q), dtype=np.uint64)
    for j in range(nmax):
        a = int(active[j])
        vj = v[:a]
        u = vj & match[j, :a]
        vj = ((vj + u) | (vj - u)) & full[:a]
        v[:a] = vj
        cols[j + 1, :a] = ~vj & full[:a]
    # walk back: in column j at row i, the path stops at the highest matching row x >= h (h: the highest growth
    # row below i; above h the column keeps its value), else turns left at row h + 1
    i = r_len.astype(np.int64)
    marks = np.zeros(q, dtype=np.uint64)
    for j in range(nmax, 0, -1):
        a = int(active[j - 1])
        low = _LOW[i[:a]]
        h, _ = _top_bit(cols[j, :a] & low)
        floor = _LOW[np.maximum(h, 0)]
        x, bit = _top_bit(match[j - 1, :a] & low & ~floor)
        marks[:a] |= bit
        i[:a] = np.where(bit != 0, x, np.maximum(h + 1, 0))
    # union over the pairs of each reference sentence, then one flag per reference token
    sent, first, inv = np.unique(r_start, return_index=True, return_inverse=True)
    union = np.zeros(len(sent), dtype=np.uint64)
    np.bitwise_or.at(union, inv, marks)
    lens = r_len[first]
    pos = _ragged(sent, lens)
    offset = (pos - np.repeat(sent, lens)).astype(np.uint64)
    out[pos] |= ((np.repeat(union, lens) >> offset) & np.uint64(1)).astype(bool)


def union_lcs_marks(
    tokens: np.ndarray,
    r_start: np.ndarray,
    r_len: np.ndarray,
    c_start: np.ndarray,
    c_len: np.ndarray,
    id_lo: np.ndarray | None = None,
    id_size: np.ndarray | None = None,
) -> np.ndarray:
    """For sentence pairs ``(tokens[r_start[k]:+r_len[k]], tokens[c_start[k]:+c_len[k]])``, mark the reference
    positions of each pair's canonical LCS (the one :func:`canonical_lcs_positions` reads out). Returns a boolean
    array over ``tokens``: a position is marked when it is in the LCS of at least one pair, i.e. the union LCS of
    each reference sentence over the candidate sentences it is paired with.

    When the tokens of pair ``k`` are known to be small ids in ``[id_lo[k], id_lo[k] + id_size[k])`` (ids local
    to a text pair), the match masks come from table look-ups instead of comparing every token pair.
    """
    out = np.zeros(len(tokens), dtype=bool)
    keep = (r_len > 0) & (c_len > 0)
    if not keep.all():
        r_start, r_len, c_start, c_len = r_start[keep], r_len[keep], c_start[keep], c_len[keep]
        if id_lo is not None and id_size is not None:
            id_lo, id_size = id_lo[keep], id_size[keep]
    word = r_len <= _EXACT
    if word.any():
        fast = np.flatnonzero(word)
        # consecutive pairs in chunks, so that the (columns x pairs) tables stay a few tens of MB
        for at in range(0, len(fast), _PAIRS_PER_CHUNK):
            k = fast[at : at + _PAIRS_PER_CHUNK]
            lo = id_lo[k] if id_lo is not None else None
            size = id_size[k] if id_size is not None else None
            _marks_word(tokens, r_start[k], r_len[k], c_start[k], c_len[k], out, lo, size)
    if not word.all():
        seq = tokens.tolist()
        for rs, rl, cs, cl in zip(
            r_start[~word].tolist(), r_len[~word].tolist(), c_start[~word].tolist(), c_len[~word].tolist(), strict=True
        ):
            for x in canonical_lcs_positions(seq[rs : rs + rl], seq[cs : cs + cl]):
                out[rs + x] = True
    return out


# ---------------------------------------------------------------------------------------------------- ROUGE-W
def weighted_lcs_marks(
    tokens: np.ndarray,
    r_start: np.ndarray,
    r_len: np.ndarray,
    c_start: np.ndarray,
    c_len: np.ndarray,
    weight: float,
) -> np.ndarray:
    """ROUGE-1.5.5's ``wlcs_inner`` + ``markLCS`` for each sentence pair; union of the marked reference positions.

    The weighted table is ``c[i][j] = c[i-1][j-1] + f(k+1) - f(k)`` on a match (``k`` the length of the run of
    consecutive matches ending at ``(i-1, j-1)``, ``f(k) = k ** weight``), else ``max(up, left)`` with ties going
    up; the marks follow the recorded moves back from the corner. The recurrence runs cell by cell but over all
    pairs at once, in float64 as Perl does.
    """
    out = np.zeros(len(tokens), dtype=bool)
    keep = (r_len > 0) & (c_len > 0)
    r_start, r_len, c_start, c_len = r_start[keep], r_len[keep], c_start[keep], c_len[keep]
    if not len(r_start):
        return out
    order = np.lexsort((r_len, c_len))
    r_start, r_len, c_start, c_len = r_start[order], r_len[order], c_start[order], c_len[order]
    q_all = len(order)
    pos = 0
    while pos < q_all:
        size = max(1, _CHUNK_CELLS // 4 // max(1, int((r_len[pos:].max() + 1) * (c_len[pos:].max() + 1))))
        sl = slice(pos, min(q_all, pos + size))
        pos = sl.stop
        _weighted_chunk(tokens, r_start[sl], r_len[sl], c_start[sl], c_len[sl], weight, out)
    return out


_DIAG, _UP, _LEFT = 1, 2, 3


def _weighted_chunk(
    tokens: np.ndarray,
    r_start: np.ndarray,
    r_len: np.ndarray,
    c_start: np.ndarray,
    c_len: np.ndarray,
    weight: float,
    out: np.ndarray,
) -> None:
    q = len(r_start)
    mmax, nmax = int(r_len.max()), int(c_len.max())
    ref = _padded(tokens, r_start, r_len, mmax, -1)
    can = _padded(tokens, c_start, c_len, nmax, -2)
    c = np.zeros((q, mmax + 1, nmax + 1), dtype=np.float64)
    run = np.zeros((q, mmax + 1, nmax + 1), dtype=np.int64)
    move = np.zeros((q, mmax + 1, nmax + 1), dtype=np.int8)
    # f(k) = k ** weight for every run length that can occur, with Python's ** (C pow), as Perl's **
    power = np.array([k**weight for k in range(min(mmax, nmax) + 2)], dtype=np.float64)
    for i in range(1, mmax + 1):
        ri = ref[:, i - 1]
        for j in range(1, nmax + 1):
            eq = ri == can[:, j - 1]
            up = c[:, i - 1, j]
            left = c[:, i, j - 1]
            k = run[:, i - 1, j - 1]
            go_up = up >= left
            # Perl evaluates c + f(k+1) - f(k) left to right
            c[:, i, j] = np.where(eq, (c[:, i - 1, j - 1] + power[k + 1]) - power[k], np.where(go_up, up, left))
            run[:, i, j] = np.where(eq, k + 1, 0)
            move[:, i, j] = np.where(eq, _DIAG, np.where(go_up, _UP, _LEFT))
    i = r_len.astype(np.int64).copy()
    j = c_len.astype(np.int64).copy()
    rows = np.arange(q)
    hits = np.zeros((q, mmax), dtype=bool)
    while True:
        live = (i > 0) & (j > 0)
        if not live.any():
            break
        mv = np.where(live, move[rows, i, j], 0)
        diag = mv == _DIAG
        hits[rows[diag], i[diag] - 1] = True
        i = i - (diag | (mv == _UP))
        j = j - (diag | (mv == _LEFT))
    r, x = np.nonzero(hits)
    out[r_start[r] + x] = True
