"""CIDEr and the COCO suite: statistics that add (records concatenate), batch splits and merge order change
nothing, permuting the images permutes the per-image scores, scores stay in bounds."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.metrics.cider import CIDER
from nlgmetrics.metrics.coco import COCO

WORDS = st.sampled_from(["a", "the", "man", "Dog", "on", "in", "riding", "horse", "'s", "B.", "2", "日本", ",", "(x)"])
CAPTION = st.lists(WORDS, max_size=9).map(" ".join)
IMAGES = st.lists(st.tuples(CAPTION, st.lists(CAPTION, min_size=1, max_size=4)), min_size=1, max_size=10)


def _split(images):
    return [c for c, _ in images], [list(r) for _, r in images]


@settings(max_examples=40, deadline=None)
@given(IMAGES, st.data())
def test_batches_and_merge_order_change_nothing(images, data) -> None:
    preds, refs = _split(images)
    whole = nm.cider(preds, refs, tokenizer="none")
    cut = data.draw(st.integers(0, len(preds)))
    a, b = nm.CIDEr(tokenizer="none"), nm.CIDEr(tokenizer="none")
    a.update(preds[:cut], refs[:cut])
    b.update(preds[cut:], refs[cut:])
    assert a.merge(b).compute().segments == whole.segments
    cfg = CIDER.make_config(None, tokenizer="none")
    first = CIDER.batch_stats(preds[:cut], refs[:cut], cfg, allow_empty=True).total()
    second = CIDER.batch_stats(preds[cut:], refs[cut:], cfg, allow_empty=True).total()
    assert first + second == CIDER.batch_stats(preds, refs, cfg).total()
    # state_dict survives JSON
    c = nm.CIDEr(tokenizer="none")
    c.load_state_dict(json.loads(json.dumps(a.state_dict())))
    assert c.compute().score == whole.score


@settings(max_examples=40, deadline=None)
@given(IMAGES, st.randoms(use_true_random=False))
def test_permuting_images_permutes_scores(images, rnd) -> None:
    preds, refs = _split(images)
    order = list(range(len(preds)))
    rnd.shuffle(order)
    base = nm.coco(preds, refs, tokenizer="none", segments=True)
    perm = nm.coco([preds[i] for i in order], [refs[i] for i in order], tokenizer="none", segments=True)
    got = [perm.segments[k]["CIDEr"] for k in range(len(order))]
    assert all(abs(g - base.segments[i]["CIDEr"]) <= 1e-12 for g, i in zip(got, order, strict=True))
    for name in base.score:
        assert abs(perm.score[name] - base.score[name]) <= 1e-12
        assert base.score[name] >= 0
    assert all(0 <= s["ROUGE_L"] <= 1 and 0 <= s["Bleu_1"] <= 1 for s in base.segments)


@settings(max_examples=25, deadline=None)
@given(IMAGES, st.data())
def test_suite_statistics_add(images, data) -> None:
    preds, refs = _split(images)
    cfg = COCO.make_config(None, tokenizer="none")
    cut = data.draw(st.integers(0, len(preds)))
    total = COCO.batch_stats(preds, refs, cfg).total()
    parts = (
        COCO.batch_stats(preds[:cut], refs[:cut], cfg, allow_empty=True).total()
        + COCO.batch_stats(preds[cut:], refs[cut:], cfg, allow_empty=True).total()
    )
    assert COCO.formula(parts, cfg).score == COCO.formula(total, cfg).score
