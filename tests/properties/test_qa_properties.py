"""QA statistics add, batches and merge order change nothing, scores stay in bounds, and permuting the questions
permutes the per-question scores (for every convention of ``squad`` and for ``exact_match``)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.metrics.squad import CONVENTIONS, SQUAD
from tests.parity.test_qa_hypothesis import TEXT
from tests.qa_cases import punkt_free

QUESTIONS = st.lists(st.tuples(TEXT, st.lists(TEXT, min_size=1, max_size=3)), min_size=2, max_size=8)


def _usable(convention, questions):
    if convention == "cmrc2018":
        questions = [(p, a) for p, a in questions if punkt_free({"prediction": p, "answers": a})]
    return questions


@settings(deadline=None, max_examples=60)
@given(QUESTIONS, st.sampled_from(CONVENTIONS), st.data())
def test_squad_stats_add_and_permute(questions, convention, data):
    questions = _usable(convention, questions)
    if len(questions) < 2:
        return
    preds, refs = [p for p, _ in questions], [a for _, a in questions]
    cfg = SQUAD.make_config(convention)
    whole = SQUAD.batch_stats(preds, refs, cfg)
    k = data.draw(st.integers(1, len(preds) - 1))
    a, b = SQUAD.batch_stats(preds[:k], refs[:k], cfg), SQUAD.batch_stats(preds[k:], refs[k:], cfg)
    assert (a.total() + b.total()).to_dict() == whole.total().to_dict() or all(
        math.isclose(x, y, abs_tol=1e-12)
        for x, y in zip((a.total() + b.total()).to_dict().values(), whole.total().to_dict().values(), strict=True)
    )
    m1, m2 = nm.SQuAD(convention), nm.SQuAD(convention)
    m1.update(preds[:k], refs[:k])
    m2.update(preds[k:], refs[k:])
    merged = m2.merge(m1).compute()
    full = nm.squad(preds, refs, preset=convention, segments=True)
    assert math.isclose(merged.f1, full.f1, abs_tol=1e-9)
    assert math.isclose(merged.exact_match, full.exact_match, abs_tol=1e-9)
    assert 0.0 <= full.f1 <= cfg.scale
    assert 0.0 <= full.exact_match <= cfg.scale
    perm = data.draw(st.permutations(range(len(preds))))
    shuffled = nm.squad([preds[i] for i in perm], [refs[i] for i in perm], preset=convention, segments=True)
    assert list(shuffled.segments) == [full.segments[i] for i in perm]


@settings(deadline=None, max_examples=40)
@given(st.lists(st.tuples(TEXT, st.lists(TEXT, min_size=1, max_size=3)), min_size=2, max_size=8), st.data())
def test_exact_match_stats_add_and_permute(questions, data):
    preds, refs = [p for p, _ in questions], [a for _, a in questions]
    opts = {"normalizers": ("nfkc", "casefold", "collapse-whitespace")}
    full = nm.exact_match(preds, refs, segments=True, **opts)
    k = data.draw(st.integers(1, len(preds) - 1))
    m = nm.ExactMatch(**opts)
    m.update(preds[k:], refs[k:])
    m.update(preds[:k], refs[:k])
    assert m.compute().score == full.score
    assert 0.0 <= full.score <= 1.0
    perm = data.draw(st.permutations(range(len(preds))))
    shuffled = nm.exact_match([preds[i] for i in perm], [refs[i] for i in perm], segments=True, **opts)
    assert list(shuffled.segments) == [full.segments[i] for i in perm]


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="#  ab\n", max_size=30), literal=st.sampled_from(["#### ", "# ", "ab", "a#"]))
def test_up_to_last_literal_equals_re_sub(text, literal):
    """``(?s).*LITERAL`` deleted in linear time, as ``re.sub`` deletes it (lm-evaluation-harness' gsm8k)."""
    import re

    from nlgmetrics.text.answers import deleter

    pattern = "(?s).*" + literal
    assert deleter(pattern)(text) == re.sub(pattern, "", text)
