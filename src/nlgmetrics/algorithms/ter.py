"""Translation edit rate: Tercom's greedy shifts and beam edit distance, exactly as sacrebleu 2.6 computes them.

:func:`ter_edits` returns what ``sacrebleu.metrics.lib_ter.translation_edit_rate(hyp_words, ref_words)[0]``
returns: the number of shifts plus the edit distance that remains. The search is the same, decision for
decision:

* shifts are tried greedily, each time the one that lowers the edit distance most (ties: the longest, then the
  earliest in the hypothesis, then the earliest target), among the word runs of up to 10 words that also occur
  within 50 positions in the reference, where the hypothesis and the reference are both wrong, and at the targets
  the current alignment suggests;
* the alignment comes from sacrebleu's edit-distance trace, with its order of preference between operations;
* after 1000 shift candidates in all, the search stops (and the last round's best shift is not applied);
* the edit distance is sacrebleu's *beam* edit distance: only cells within 25 (or more, for very unequal
  lengths) of a pseudo-diagonal are computed, so it can exceed the true Levenshtein distance.

What is faster here is how each edit distance is obtained, never which one. Words become characters of a string
(one code point per distinct word), and:

* a candidate's distance comes from rapidfuzz's exact Levenshtein kernel. The beam can only matter when an
  optimal alignment leaves the band; every cell outside the band costs at least
  ``|j - i| + |(m - j) - (n - i)|`` on any path through it, so when the exact distance is below the smallest such
  bound the beam distance *is* the exact distance. Otherwise the beam distance is computed as sacrebleu does.
* the trace of the current hypothesis (once per shift round) comes, under the same condition, from an exact
  dynamic program run with bit-parallel rows (Myers/Hyyrö) and walked back with sacrebleu's tie-breaking; every
  cell on that walk then has the same value as in the beam, so the walk is the same. Otherwise the beam program
  itself runs.

No library offers Tercom's shift search or this beam, hence the hand-written search; the distances come from
rapidfuzz wherever they can.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np
from rapidfuzz.distance import Levenshtein

__all__ = ["TERSearch", "beam_edit_distance", "ter_edits", "ter_search"]

_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_BEAM_WIDTH = 25
_MAX_SHIFT_CANDIDATES = 1000
_INF = 10**16

# the operations of sacrebleu's trace: keep/substitute, and "d" (a hypothesis word with no reference word) and
# "i" (a reference word with no hypothesis word), in the orientation of its dynamic program (rows: hypothesis)
_NOP, _SUB, _DEL, _INS = " ", "s", "d", "i"


def _as_strings(hyp: Sequence[str], ref: Sequence[str]) -> tuple[str, str]:
    """One character per distinct word (skipping the surrogate block), so that strings stand for word lists."""
    ids: dict[str, str] = {}
    out = []
    for words in (hyp, ref):
        chars = []
        for w in words:
            c = ids.get(w)
            if c is None:
                k = len(ids)
                c = ids[w] = chr(k if k < 0xD800 else k + 0x800)
            chars.append(c)
        out.append("".join(chars))
    return out[0], out[1]


@lru_cache(maxsize=4096)
def _band(n: int, m: int) -> tuple[tuple[tuple[int, int], ...], int]:
    """sacrebleu's beam for an ``n``-word hypothesis and an ``m``-word reference: per row ``i = 1..n`` the
    columns ``[min_j, max_j)`` it computes; and the smallest lower bound ``|j - i| + |(m - j) - (n - i)|`` of
    the cost of a path through any cell outside the beam (``_INF`` when there is no such cell)."""
    ratio = m / n if n else 1
    width = math.ceil(ratio / 2 + _BEAM_WIDTH) if ratio / 2 > _BEAM_WIDTH else _BEAM_WIDTH
    rows = []
    bound = _INF
    for i in range(1, n + 1):
        diag = math.floor(i * ratio)
        lo = max(0, diag - width)
        hi = m + 1 if i == n else min(m + 1, diag + width)
        rows.append((lo, hi))
        for a, b in ((0, lo - 1), (hi, m)):  # the columns outside the beam, inclusive bounds
            if a > b:
                continue
            for j in {min(max(i, a), b), min(max(i + m - n, a), b)}:  # minimisers of the convex bound
                bound = min(bound, abs(j - i) + abs((m - j) - (n - i)))
    return tuple(rows), bound


def _beam_rows(h: str, r: str, with_ops: bool) -> tuple[list[list[int]], list[list[str]] | None]:
    """sacrebleu's ``BeamEditDistance`` dynamic program, cell by cell (the reference semantics)."""
    n, m = len(h), len(r)
    rows, _ = _band(n, m)
    dist = [list(range(m + 1))]
    ops = [[_INS] * (m + 1)] if with_ops else None
    for i in range(1, n + 1):
        lo, hi = rows[i - 1]
        prev = dist[i - 1]
        row = [_INF] * (m + 1)
        op_row = ["x"] * (m + 1) if with_ops else None
        hw = h[i - 1]
        for j in range(lo, hi):
            if j == 0:
                row[0] = prev[0] + 1
                if op_row is not None:
                    op_row[0] = _DEL
                continue
            best, op = row[j], "x"
            cost = prev[j - 1] + (0 if hw == r[j - 1] else 1)
            if best > cost:
                best, op = cost, (_NOP if hw == r[j - 1] else _SUB)
            cost = prev[j] + 1
            if best > cost:
                best, op = cost, _DEL
            cost = row[j - 1] + 1
            if best > cost:
                best, op = cost, _INS
            row[j] = best
            if op_row is not None:
                op_row[j] = op
        dist.append(row)
        if ops is not None and op_row is not None:
            ops.append(op_row)
    return dist, ops


def beam_edit_distance(h: Sequence[str] | str, r: Sequence[str] | str) -> int:
    """sacrebleu's beam edit distance between two word sequences (or strings of word characters)."""
    if not isinstance(h, str) or not isinstance(r, str):
        h, r = _as_strings(list(h), list(r))
    return _beam_rows(h, r, False)[0][-1][-1]


def _codes(strings: Sequence[str]) -> np.ndarray:
    """Equal-length strings as a (k, n) array of code points."""
    n = len(strings[0])
    flat = np.frombuffer("".join(strings).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return flat.reshape(len(strings), n).astype(np.int64)


def _beam_numpy(hyps: Sequence[str], r: str, with_ops: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """sacrebleu's beam program for several hypotheses of the same length at once, one row at a time: in each
    row, substitution and deletion come from the previous row, and insertions along the row are a running
    minimum of ``cost - j`` (``min_k<=j cost[k] + (j - k)``). Cells outside the beam stay at ``_INF`` and every
    value reaching ``_INF`` is kept there, exactly as the cell-by-cell program never lowers a cell below
    infinity with an infinite cost. Returns the distances and, for one hypothesis, the operation of every cell
    (codes 0: keep, 1: substitute, 2: delete, 3: insert, 4: undefined)."""
    n, m = len(hyps[0]), len(r)
    rows, _ = _band(n, m)
    big = np.int64(_INF)
    hyp = _codes(hyps)
    ref = np.frombuffer(r.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    cols = np.arange(m + 1, dtype=np.int64)
    prev = np.broadcast_to(cols, (len(hyps), m + 1)).copy()
    ops = np.full((n + 1, m + 1), 4, dtype=np.int8) if with_ops else None
    if ops is not None:
        ops[0, :] = 3
    for i in range(1, n + 1):
        lo, hi = rows[i - 1]
        width = hi - lo
        dele = prev[:, lo:hi] + 1
        sub = np.full_like(dele, big)
        start = max(lo, 1)
        differ = hyp[:, i - 1 : i] != ref[start - 1 : hi - 1][None, :]
        sub[:, start - lo :] = prev[:, start - 1 : hi - 1] + differ
        best = np.minimum(np.minimum(sub, dele), big)
        shift = cols[lo:hi]
        value = np.minimum(np.minimum.accumulate(best - shift, axis=1) + shift, big)
        cur = np.full_like(prev, big)
        cur[:, lo:hi] = value
        if ops is not None:
            op = np.where(sub[0] <= dele[0], np.where(differ[0] if start == lo else np.r_[True, differ[0]], 1, 0), 2)
            if width > 1:
                inserted = value[0, :-1] + 1 < best[0, 1:]
                op[1:] = np.where(inserted, 3, op[1:])
            op = np.where(value[0] >= big, 4, op)
            ops[i, lo:hi] = op
        prev = cur
    return prev[:, m], ops


def _trace_back(n: int, m: int, choose: Callable[[int, int], str]) -> list[str]:
    """The trace from (0, 0) to (n, m), walked back from the corner: ``choose(i, j)`` is the operation that ends
    at cell (i, j)."""
    path = []
    i, j = n, m
    while i > 0 or j > 0:
        op = choose(i, j)
        path.append(op)
        if op in (_NOP, _SUB):
            i -= 1
            j -= 1
        elif op == _INS:
            j -= 1
        else:
            i -= 1
    path.reverse()
    return path


def _walk(cell, n: int, m: int, h: str, r: str) -> list[str]:
    """Walk back from (n, m), choosing at each cell the operation sacrebleu's program stored there: substitute
    or keep unless deleting is strictly cheaper, then inserting if strictly cheaper still."""

    def choose(i: int, j: int) -> str:
        if i == 0:
            return _INS
        if j == 0:
            return _DEL
        same = h[i - 1] == r[j - 1]
        best = cell(i - 1, j - 1) + (0 if same else 1)
        op = _NOP if same else _SUB
        cost = cell(i - 1, j) + 1
        if cost < best:
            best, op = cost, _DEL
        if cell(i, j - 1) + 1 < best:
            op = _INS
        return op

    return _trace_back(n, m, choose)


def _exact_trace(h: str, r: str) -> list[str]:
    """The trace of the exact (unbounded) program: rows as bit vectors of +1/-1 steps along the reference
    (Myers/Hyyrö), cell values by popcount."""
    n, m = len(h), len(r)
    full = (1 << m) - 1
    peq: dict[str, int] = {}
    for j, c in enumerate(r):
        peq[c] = peq.get(c, 0) | (1 << j)
    pv, mv = full, 0  # row 0: D[0][j] = j, every step +1
    plus, minus = [pv], [mv]
    for i in range(n):
        eq = peq.get(h[i], 0)
        xv = eq | mv
        xh = ((((eq & pv) + pv) & full) ^ pv) | eq
        ph = mv | (~(xh | pv) & full)
        mh = pv & xh
        ph = ((ph << 1) | 1) & full  # D[i][0] = i: the boundary steps by +1
        mh = (mh << 1) & full
        pv = mh | (~(xv | ph) & full)
        mv = ph & xv
        plus.append(pv)
        minus.append(mv)

    def cell(i: int, j: int) -> int:
        low = (1 << j) - 1
        return i + (plus[i] & low).bit_count() - (minus[i] & low).bit_count()

    return _walk(cell, n, m, h, r)


_OP_NAMES = (_NOP, _SUB, _DEL, _INS)


def _beam_trace(h: str, r: str) -> tuple[int, list[str]]:
    """The beam distance and the trace of sacrebleu's beam program."""
    n, m = len(h), len(r)
    dist, ops = _beam_numpy([h], r, with_ops=True)
    assert ops is not None

    def choose(i: int, j: int) -> str:
        code = int(ops[i, j])
        if code == 4:  # pragma: no cover - sacrebleu raises here too; the beam always connects the corners
            raise RuntimeError(f"undefined cell ({i}, {j}) on the trace")
        return _OP_NAMES[code] if i > 0 else _INS

    return int(dist[0]), _trace_back(n, m, choose)


def _alignment(path: list[str], n: int, m: int) -> tuple[list[int], list[int], list[int]]:
    """For each reference word the hypothesis position it aligns to (-1 before the first), and the error flags
    of the reference and the hypothesis words (sacrebleu's ``trace_to_alignment`` of the flipped trace)."""
    align = [0] * m
    ref_err = [0] * m
    hyp_err = [0] * n
    pos_h = pos_r = -1
    for op in path:
        if op in (_NOP, _SUB):
            pos_h += 1
            pos_r += 1
            align[pos_r] = pos_h
            if op == _SUB:
                hyp_err[pos_h] = ref_err[pos_r] = 1
        elif op == _DEL:  # a hypothesis word without reference word
            pos_h += 1
            hyp_err[pos_h] = 1
        else:  # a reference word without hypothesis word
            pos_r += 1
            align[pos_r] = pos_h
            ref_err[pos_r] = 1
    return align, ref_err, hyp_err


def _perform_shift(words: str, start: int, length: int, target: int) -> str:
    if target < start:
        return words[:target] + words[start : start + length] + words[target:start] + words[start + length :]
    if target > start + length:
        return words[:start] + words[start + length : target] + words[start : start + length] + words[target:]
    return (
        words[:start]
        + words[start + length : length + target]
        + words[start : start + length]
        + words[length + target :]
    )


def _cumulative(flags: list[int]) -> list[int]:
    out = [0]
    for f in flags:
        out.append(out[-1] + f)
    return out


def _best_shift(h: str, r: str, positions: dict[str, list[int]], bound: int, checked: int):
    """One round of sacrebleu's ``_shift``: the current beam distance, the best shift's ranking key and words
    (``None`` and ``h`` when no shift qualifies), and the updated number of candidates checked.

    Candidates are first listed in sacrebleu's order, up to its limit on the number checked (which depends on
    their number only), then their distances are computed together; the best is the largest ranking key
    ``(gain, length, -start_h, -target)``, which no two different shifts share."""
    n, m = len(h), len(r)
    pre = Levenshtein.distance(h, r)
    if pre < bound:
        path = _exact_trace(h, r)
    else:
        pre, path = _beam_trace(h, r)
    align, ref_err, hyp_err = _alignment(path, n, m)
    hyp_cum, ref_cum = _cumulative(hyp_err), _cumulative(ref_err)
    shifts: dict[tuple[int, int, int], None] = {}  # (start_h, length, target), in order of first appearance
    done = False
    for start_h in range(n):
        for start_r in positions.get(h[start_h], ()):
            if start_r - start_h > _MAX_SHIFT_DIST:
                break
            if start_h - start_r > _MAX_SHIFT_DIST:
                continue
            run = 0
            limit = min(_MAX_SHIFT_SIZE, n - start_h, m - start_r)
            while run < limit and h[start_h + run] == r[start_r + run]:
                run += 1
            for length in range(1, run + 1):
                if hyp_cum[start_h + length] == hyp_cum[start_h]:
                    continue  # the hypothesis words are all right already
                if ref_cum[start_r + length] == ref_cum[start_r]:
                    continue  # the reference words are all matched already
                if start_h <= align[start_r] < start_h + length:
                    continue  # the target lies within the words to move
                prev_idx = -1
                for offset in range(-1, length):
                    idx = 0 if start_r + offset == -1 else align[start_r + offset] + 1
                    if idx == prev_idx:
                        continue
                    prev_idx = idx
                    shifts[(start_h, length, idx)] = None
                    checked += 1
                if checked >= _MAX_SHIFT_CANDIDATES:
                    done = True
                    break
            if done:
                break
        if done:
            break
    if not shifts:
        return pre, None, h, checked
    keys = list(shifts)
    shifted = [_perform_shift(h, a, b, c) for a, b, c in keys]
    exact = [Levenshtein.distance(words, r) for words in shifted]
    # the exact distance never exceeds the beam distance, so (pre - exact, ...) bounds a candidate's ranking
    # key from above; the beam program runs only for candidates that might still win
    best_key: tuple[int, int, int, int] | None = None
    best_words = h
    unsure = []
    for k, ((start_h, length, idx), d) in enumerate(zip(keys, exact, strict=True)):
        if d >= bound:
            unsure.append(k)
            continue
        key = (pre - d, length, -start_h, -idx)
        if best_key is None or key > best_key:
            best_key, best_words = key, shifted[k]
    if unsure:
        upper = [(pre - exact[k], keys[k][1], -keys[k][0], -keys[k][2]) for k in unsure]
        maybe = [k for k, key in zip(unsure, upper, strict=True) if best_key is None or key > best_key]
        if maybe:
            beam, _ = _beam_numpy([shifted[k] for k in maybe], r)
            for k, d in zip(maybe, beam.tolist(), strict=True):
                start_h, length, idx = keys[k]
                key = (pre - d, length, -start_h, -idx)
                if best_key is None or key > best_key:
                    best_key, best_words = key, shifted[k]
    return pre, best_key, best_words, checked


@dataclasses.dataclass(frozen=True)
class TERSearch:
    """What the search found: ``edits`` (shifts + remaining distance), the number of ``shifts`` applied and of
    shift ``candidates`` checked (sacrebleu stops at 1000)."""

    edits: int
    shifts: int
    candidates: int


def ter_search(hyp: Sequence[str] | str, ref: Sequence[str] | str) -> TERSearch:
    """sacrebleu's ``translation_edit_rate`` search, with its counts (see :func:`ter_edits`)."""
    if isinstance(hyp, str) and isinstance(ref, str):
        h, r = hyp, ref
    else:
        h, r = _as_strings(list(hyp), list(ref))
    n, m = len(h), len(r)
    if m == 0:
        return TERSearch(n, 0, 0)
    if n == 0:
        return TERSearch(m, 0, 0)
    _, bound = _band(n, m)
    positions: dict[str, list[int]] = {}
    for j, c in enumerate(r):
        positions.setdefault(c, []).append(j)
    shifts = 0
    checked = 0
    while True:
        pre, best_key, best_words, checked = _best_shift(h, r, positions, bound, checked)
        if checked >= _MAX_SHIFT_CANDIDATES:
            break  # sacrebleu stops here, without applying this round's best shift
        if best_key is None or best_key[0] <= 0:
            break
        shifts += 1
        h = best_words
    return TERSearch(shifts + pre, shifts, checked)  # pre: the distance of the words the search ended with


def ter_edits(hyp: Sequence[str] | str, ref: Sequence[str] | str) -> int:
    """The number of edits (shifts + remaining beam edit distance) that sacrebleu's TER counts to turn the
    hypothesis words into the reference words (``translation_edit_rate(hyp, ref)[0]``).

    >>> ter_edits("a b c d".split(), "c d a b".split())
    1
    >>> ter_edits([], ["x", "y"]), ter_edits(["x"], [])
    (2, 1)
    """
    return ter_search(hyp, ref).edits
