"""The cost guard's rates (``nlgmetrics.algorithms.guard.RATES``) against the measured cost of each kernel.

For every guarded kernel, one pair sized to run a second or a few is scored with the limit lifted, at two sizes
(the rate per cell should not grow with the size); the script prints the time, the seconds per cell it implies
(in the guard's cells), the rate the guard assumes, the guard's estimate of the pair and the ratio of the estimate
to the measured time (it should stay between 1 and 3). Run: ``python bench/guard_rates.py`` (several minutes),
``--quick`` (one size per kernel), ``--boundary`` (the size whose estimate is the 30 s limit: the pair the
guard refuses last, timed once; some minutes) or name kernels (``python bench/guard_rates.py ter eed``).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from typing import Any

import nlgmetrics as nm
from _common import machine
from nlgmetrics.algorithms.guard import DEFAULT_SECONDS, RATES, InputTooLongError, pair_limit


def _words(n: int, seed: int, vocab: int = 3000) -> str:
    rng = random.Random(seed)
    return " ".join(f"w{rng.randrange(vocab)}" for _ in range(n))


def _chars(n: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(n))


def _similar(n: int, seed: int) -> tuple[str, str]:
    """Two texts of ``n`` words that share most of them, in a shuffled order (what MT output looks like)."""
    rng = random.Random(seed)
    a = [f"w{rng.randrange(400)}" for _ in range(n)]
    b = list(a)
    for _ in range(n // 5):
        b[rng.randrange(n)] = f"w{rng.randrange(400)}"
    for _ in range(n // 10):
        i, j = rng.randrange(n), rng.randrange(n)
        b[i], b[j] = b[j], b[i]
    return " ".join(a), " ".join(b)


def _list(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [f"item {rng.randrange(10**6)}" for _ in range(n)]


def _pair(metric: Callable[..., Any], a: str, b: str, **options: Any) -> Callable[[], Any]:
    return lambda: metric([a], [b], **options)


def _eed_python(a: str, b: str) -> Callable[[], Any]:
    from nlgmetrics.metrics import eed

    def call() -> Any:
        saved, eed._PAIR = eed._PAIR, eed.eed_pair_python
        try:
            return nm.eed([a], [b])
        finally:
            eed._PAIR = saved

    return call


def _anls_star(a: list[str], b: list[str]) -> Callable[[], Any]:
    return lambda: nm.anls_star([a], [b])


def _sentences(n: int, seed: int) -> str:
    """``n`` words in sentences of 20 ("w1 w2 ... . w21 ..."), for the sentence-level kernels."""
    words = _words(n, seed).split()
    return " .\n".join(" ".join(words[k : k + 20]) for k in range(0, n, 20))


#: kernel -> (sizes, the call for size n). The texts are the slow kind for each kernel: for TER and CharacTER,
#: unrelated texts over a large vocabulary (similar texts are several times faster, repetitive ones slower still
#: for CharacTER, whose search the deadline stops).
CASES: dict[str, tuple[tuple[int, ...], Callable[[int], Callable[[], Any]]]] = {
    "ter": ((1000, 2000), lambda n: _pair(nm.ter, _words(n, 1), _words(n, 2))),
    "character": ((500, 1000), lambda n: _pair(nm.character, _words(n, 1), _words(n, 2))),
    "levenshtein": ((100_000, 200_000), lambda n: _pair(nm.cer, _chars(n, 3), _chars(n, 4))),
    "token-levenshtein": ((60_000, 120_000), lambda n: _pair(nm.wer, _words(n, 5), _words(n, 6))),
    "eed": ((4_000, 8_000), lambda n: _pair(nm.eed, _chars(n, 7), _chars(n, 8))),
    "eed-python": ((300, 600), lambda n: _eed_python(_chars(n, 7), _chars(n, 8))),
    "compiled-lcs": (
        (100_000, 200_000),
        lambda n: _pair(nm.rouge, _words(n, 9), _words(n, 10), rouge_types=["rougeL"]),
    ),
    "compiled-union-lcs": (
        (40_000, 80_000),
        lambda n: _pair(nm.rouge, _sentences(n, 11), _sentences(n, 12), rouge_types=["rougeLsum"]),
    ),
    "compiled-weighted-lcs": (
        (10_000, 20_000),
        lambda n: _pair(nm.rouge, _words(n, 13), _words(n, 14), rouge_types=["rougeW"], preset="rouge155"),
    ),
    "compiled-skip-bigrams": (
        (2_000, 4_000),
        lambda n: _pair(nm.rouge, _words(n, 15), _words(n, 16), rouge_types=["rougeS*"], preset="rouge155"),
    ),
    "python-lcs": (
        (1_000, 2_000),
        lambda n: _pair(nm.rouge, _words(n, 17), _words(n, 18), rouge_types=["rougeL"], preset="pltrdy"),
    ),
    "rapidfuzz-lcs": (
        (50_000, 100_000),
        lambda n: _pair(nm.rouge, _words(n, 19), _words(n, 20), rouge_types=["rougeL"], preset="llamafactory"),
    ),
    "ribes": ((2_000, 4_000), lambda n: _pair(nm.ribes, *_similar(n, 21))),
    "anls-star": ((400, 800), lambda n: _anls_star(_list(n, 22), _list(n, 23))),
}


def _estimate(call: Callable[[], Any]) -> float:
    """The guard's estimate of the call's worst pair (it refuses every pair under a limit of 1e-12 s)."""
    with pair_limit(1e-12):
        try:
            call()
        except InputTooLongError as err:
            return float(err.seconds) if err.seconds is not None else float("nan")
    return 0.0


def _boundary(make: Callable[[int], Callable[[], Any]], sizes: tuple[int, ...]) -> int:
    """The size whose estimate is the default limit (30 s): a search on the estimate alone (nothing runs)."""
    lo, hi = 1, sizes[-1]
    while _estimate(make(hi)) < DEFAULT_SECONDS:
        lo, hi = hi, hi * 2
    while hi - lo > max(1, lo // 200):
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _estimate(make(mid)) < DEFAULT_SECONDS else (lo, mid)
    return lo


def main() -> int:
    quick = "--quick" in sys.argv
    boundary = "--boundary" in sys.argv
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    print(f"# {machine()}; best of 2 runs; ratio = the guard's estimate / the measured time (aim: 1 to 3)")
    print(f"{'kernel':<24} {'size':>8} {'seconds':>8} {'per cell':>10} {'RATES':>10} {'estimate':>9} {'ratio':>6}")
    for kernel, (sizes, make) in CASES.items():
        if only and kernel not in only:
            continue
        for n in [_boundary(make, sizes)] if boundary else sizes[:1] if quick else sizes:
            call = make(n)
            estimate = _estimate(call)
            best = float("inf")
            with pair_limit(None):
                for _ in range(1 if boundary else 2):
                    t0 = time.perf_counter()
                    call()
                    best = min(best, time.perf_counter() - t0)
            rate = RATES[kernel][2]
            per = best * rate / estimate if estimate else float("nan")
            print(
                f"{kernel:<24} {n:>8} {best:>8.2f} {per:>10.3g} {rate:>10.3g} {estimate:>9.2f} {estimate / best:>6.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
