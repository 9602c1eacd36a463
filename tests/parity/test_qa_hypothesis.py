"""The QA conventions against the naive restatements of their scripts (``tests/qa_naive.py``, themselves checked
against the real scripts' recorded outputs) on hypothesis-generated input: CJK, kana, full-width and half-width
forms, articles, punctuation-only, whitespace-only and empty answers, unanswerable questions, tied no-answer
probabilities."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from tests import qa_naive as naive
from tests.qa_cases import punkt_free

_ALPHABET = [
    *"abcXYZ019 ",
    *"!\"#$%&'()*+,-/:;<=>?@[]^_`{|}~",
    *"東京都北京奥运会年ひらがなカタカナー",
    *"ＡＢＣａｂ１２　ｶﾞｷﾟ｡",
    *"，。：？！“”；’《》…·、「」（）－～『』",
    "\t", "\n", "\u00a0", "Σ", "İ", "ß", "the ", "a ", "an ", "The ",
]  # fmt: skip
TEXT = st.lists(st.sampled_from(_ALPHABET), max_size=12).map("".join)
PROBS = st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0, 0.25])


def _cases(draw_list, answerable: bool):
    return [
        {"id": f"q{i}", "prediction": p, "answers": a if (a or not answerable) else [p], "na_prob": na}
        for i, (p, a, na) in enumerate(draw_list)
    ]


QUESTIONS = st.lists(st.tuples(TEXT, st.lists(TEXT, max_size=3), PROBS), min_size=1, max_size=8)


def _same(ours: dict, ref: dict) -> None:
    assert set(ours) == set(ref), (ours, ref)
    for k in ref:
        assert math.isclose(float(ours[k]), float(ref[k]), rel_tol=0, abs_tol=1e-9), (k, ours, ref)


@settings(deadline=None, max_examples=80)
@given(QUESTIONS)
def test_squad_v1_matches_script(questions):
    cases = _cases(questions, answerable=True)
    r = nm.squad([c["prediction"] for c in cases], [c["answers"] for c in cases], preset="squad-v1")
    _same(r.official(), naive.v11_evaluate(cases))


@settings(deadline=None, max_examples=80)
@given(QUESTIONS, st.booleans(), st.sampled_from([1.0, 0.5, 0.0]))
def test_squad_v2_matches_script(questions, with_probs, thresh):
    cases = _cases(questions, answerable=False)
    probs = [c["na_prob"] for c in cases] if with_probs else None
    r = nm.squad(
        [c["prediction"] for c in cases],
        [c["answers"] for c in cases],
        preset="squad-v2",
        no_answer_probabilities=probs,
        na_prob_thresh=thresh,
    )
    _same(r.official(), naive.v20_evaluate(cases, na_probs=with_probs, thresh=thresh))


@settings(deadline=None, max_examples=80)
@given(QUESTIONS)
def test_jsquad_matches_script(questions):
    cases = _cases(questions, answerable=False)
    r = nm.squad([c["prediction"] for c in cases], [c["answers"] for c in cases], preset="jsquad")
    _same(r.official(), naive.v20_evaluate(cases, jsquad=True))


@settings(deadline=None, max_examples=80)
@given(QUESTIONS)
def test_cmrc2018_matches_script(questions):
    cases = [c for c in _cases(questions, answerable=True) if punkt_free(c)]
    if not cases:
        return
    r = nm.squad([c["prediction"] for c in cases], [c["answers"] for c in cases], preset="cmrc2018")
    official = r.official()
    official.pop("TOTAL")
    assert official == naive.cmrc_evaluate(cases)


@settings(deadline=None, max_examples=80)
@given(QUESTIONS)
def test_llm_jp_eval_matches(questions):
    cases = _cases(questions, answerable=True)
    r = nm.squad([c["prediction"] for c in cases], [c["answers"] for c in cases], preset="llm-jp-eval")
    _same(r.official(), naive.llm_jp_eval(cases))


OPTIONS = st.fixed_dictionaries(
    {
        "ignore_case": st.booleans(),
        "ignore_punctuation": st.booleans(),
        "ignore_numbers": st.booleans(),
        "regexes_to_ignore": st.sampled_from([(), ("the ",), ("\\s+", "[ab]"), ("^.", "Σ")]),
    }
)


@settings(deadline=None, max_examples=80)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=8), OPTIONS)
def test_hf_exact_match_matches_script(pairs, options):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    r = nm.exact_match(preds, refs, preset="hf-evaluate", **options)
    regexes = list(options["regexes_to_ignore"]) or None
    assert r.score == naive.hf_exact_match(preds, refs, **{**options, "regexes_to_ignore": regexes})


@settings(deadline=None, max_examples=300)
@given(st.lists(st.sampled_from([*"atheTnAx é…-_1\u00a0Σ", "the", "an", " a ", "\ud800"]), max_size=16).map("".join))
def test_fast_article_pattern_matches_the_scripts(text):
    from nlgmetrics.text.answers import _ARTICLES, _ARTICLES_FAST, squad_normalize, squad_normalize_many

    assert _ARTICLES_FAST.sub(" ", text) == _ARTICLES.sub(" ", text)
    assert squad_normalize_many([text, text + "x", ""]) == [squad_normalize(t) for t in (text, text + "x", "")]
