"""Issue 23, the cost guards: every guarded kernel refuses the pair just over its boundary and runs the pair just
under it, where the boundary is the limit divided by the rate of ``RATES`` (no timing: the estimate decides).
The limit is set low, so the pair just under runs in milliseconds."""

from __future__ import annotations

import math
import random
import time

import pytest

import nlgmetrics as nm
from nlgmetrics.algorithms.guard import RATES, Deadline, InputTooLongError, pair_limit

LIMIT = 0.02


def _words(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    return " ".join(f"w{rng.randrange(10**6)}" for _ in range(n))


def _chars(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("abcdefghij") for _ in range(n))


def _items(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [f"item {rng.randrange(10**6)}" for _ in range(n)]


def _square(rate: float, factor: float = 1.0) -> int:
    """The largest n whose n x (factor n) cells are within the limit at ``rate``."""
    n = int(math.sqrt(LIMIT / (rate * factor)))
    while (n + 1) * (n + 1) * factor * rate <= LIMIT:
        n += 1
    while n * n * factor * rate > LIMIT:
        n -= 1
    return n


# kernel -> (the call on a square pair of n units, cells per n^2 in the guard's counting, metric named)
KERNELS = {
    "ter": (lambda n: nm.ter(["ok", _words(n)], ["ok", _words(n, 2)]), 1.0, "ter"),
    "character": (lambda n: nm.character(["ok", _words(n)], ["ok", _words(n, 2)]), 1.0, "character"),
    "levenshtein": (lambda n: nm.cer(["ok", _chars(n)], ["ok", _chars(n, 2)]), 1.0, "cer"),
    "token-levenshtein": (lambda n: nm.wer(["ok", _words(n)], ["ok", _words(n, 2)]), 1.0, "wer"),
    "eed": (lambda n: nm.eed(["ok", _chars(n - 2)], ["ok", _chars(n - 2, 2)]), 1.0, "eed"),  # " " + text + " "
    "compiled-lcs": (
        lambda n: nm.rouge(["ok", _words(n)], ["ok", _words(n, 2)], rouge_types=["rougeL"]),
        1.0,
        "rougeL",
    ),
    "compiled-union-lcs": (
        lambda n: nm.rouge(["ok", _words(n)], ["ok", _words(n, 2)], rouge_types=["rougeLsum"]),
        1.0,
        "rougeLsum",
    ),
    "compiled-weighted-lcs": (
        lambda n: nm.rouge(["ok", _words(n)], ["ok", _words(n, 2)], rouge_types=["rougeW"], preset="rouge155"),
        1.0,
        "rougeW",
    ),
    "compiled-skip-bigrams": (
        lambda n: nm.rouge(["ok", _words(n)], ["ok", _words(n, 2)], rouge_types=["rougeS*"], preset="rouge155"),
        1.0,
        "rougeS*",
    ),
    "python-lcs": (
        lambda n: nm.rouge(["ok", _words(n)], ["ok", _words(n, 2)], rouge_types=["rougeL"], preset="pltrdy"),
        1.0,
        "rougeL",
    ),
    "ribes": (lambda n: nm.ribes(["ok", _words(n)], ["ok", _words(n, 2)]), 2.0, "ribes"),
    "anls-star": (lambda n: nm.anls_star(["ok", _items(n)], ["ok", _items(n, 2)]), 1.0, "anls_star"),
}


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_the_boundary(kernel):
    call, factor, metric = KERNELS[kernel]
    n = _square(RATES[kernel][2], factor)
    assert n >= 20, (kernel, n)
    with pair_limit(LIMIT):
        call(n)  # just under: runs
        with pytest.raises(InputTooLongError) as err:
            call(n + 1)  # just over: refused before it runs
    message = str(err.value)
    assert message.startswith(f"predictions[1] is too long for {metric}: {n + 1:,} "), message
    assert err.value.seconds == pytest.approx((n + 1) ** 2 * factor * RATES[kernel][2])
    assert "NLGMETRICS_PAIR_LIMIT=off" in message


def test_rouge_l_on_a_long_text_is_refused_as_documented():
    """ROUGE-L had no guard in the compiled kernel: 10 MB ran 97 s although pairs over 30 s are refused."""
    text = _words(460_000)  # over the documented 450,000 x 450,000 tokens
    with pytest.raises(InputTooLongError, match=r"too long for rougeL: 460,000 tokens .* an estimated 32 s"):
        nm.rouge([text], [_words(460_000, 2)], rouge_types=["rougeL"])


def test_ribes_and_anls_star_lists_are_refused_before_they_run():
    """RIBES: 300 KB took 64 s; ANLS* lists of 3,000 x 3,000 took 21 s and 1.7 GB."""
    long = _words(50_000)
    with pytest.raises(InputTooLongError, match=r"too long for ribes: 50,000 words against a reference of 50,000"):
        nm.ribes([long], [_words(50_000, 2)])
    with pytest.raises(InputTooLongError, match=r"too long for anls_star: 3,000 items against a reference of 3,000"):
        nm.anls_star([_items(3000)], [_items(3000, 2)])
    # dicts compare key by key: a large dict is no square
    big = {f"k{i}": f"v{i}" for i in range(20_000)}
    assert nm.anls_star([big], [big]).score == 1.0


def test_anls_star_lists_score_as_before():
    """The list matching keeps the gains only and matches the assigned pairs again: the package's numbers."""
    anls_star_package = pytest.importorskip("anls_star")
    gt = [["a", "b", "c"], {"x": ["1", "2"]}, ("alt one", "alt two"), [["a b", "c"], ["d"]], ["x", "y", "z"]]
    pred = [["c", "b", "a"], {"x": ["2", "3"]}, "alt tow", [["d"], ["c", "a b"]], ["y", "q"]]
    expected = [anls_star_package.anls_score(g, p) for g, p in zip(gt, pred, strict=True)]
    assert list(nm.anls_star(pred, gt, segments=True).segments) == expected


def test_characters_search_is_stopped_when_it_runs_beyond_the_limit():
    from nlgmetrics.metrics.character import character_score

    calls = []

    def check():
        calls.append(1)
        if len(calls) > 2:
            raise InputTooLongError("stopped")

    words = ["a", "b", "a", "b", "a", "b", "a", "b", "c", "a", "b", "a", "b", "a", "b", "a"] * 4
    with pytest.raises(InputTooLongError, match="stopped"):
        character_score(words, list(reversed(words)), check=check)
    with pair_limit(1e-6):
        deadline = Deadline()
        time.sleep(0.002)
        with pytest.raises(InputTooLongError, match=r"predictions\[4\] is too long for character: CharacTER's"):
            deadline.check("character", 4, "CharacTER's shift search")
    with pair_limit(None):
        Deadline().check("character", 0, "x")  # no limit: never stops
