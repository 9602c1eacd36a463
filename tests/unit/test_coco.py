"""CIDEr, the COCO suite, the caption tokenizer and the COCO JSON files: behaviour and bad input."""

from __future__ import annotations

import json

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.stats import Records
from nlgmetrics.text.ptb import coco_rouge_tokens, coco_tokenize, coco_tokenize_stream, coco_tokens, ptb_tokens

PREDS = ["a man is riding a horse", "two dogs play in the snow", "a plate of food"]
REFS = [
    ["a man rides a horse on the beach", "a person riding a brown horse"],
    ["two dogs are playing in the snow", "dogs run through the snow"],
    ["a plate with food on it", "food on a white plate"],
]


# ---------------------------------------------------------------------------------------------- tokenizer
@pytest.mark.parametrize(
    ("caption", "expected"),
    [
        ('A man (riding) a horse, near the "big" barn.', "a man -lrb- riding -rrb- a horse near the big barn"),
        ("He can't do it; won't they? I'm sure.", "he ca n't do it wo n't they i 'm sure"),
        ("cannot gonna wanna", "can not gon na wan na"),
        ("£5.50 & $3,000 {ok} [yes]", "# 5.50 & $ 3,000 -lcb- ok -rcb- -lsb- yes -rsb-"),
        ("“Smart” ‘quotes’ — and … dots", "smart quotes and dots"),
        ("emoji 😀 gone", "emoji gone"),
        ("Mr. Smith at 3:30 p.m. on 1/2/2014.", "mr. smith at 3:30 p.m. on 1/2/2014"),
        ("a cat's toy, etc.", "a cat 's toy etc."),
        (":-) ok", ":--rrb- ok"),
        ("", ""),
        ("...!?", "!?"),  # "!?" is one token, not in pycocoevalcap's list
        ("ΣΟΦΟΣ-etc", "σοφοσ-etc"),
        ("line\nbreak", "line break"),
    ],
)
def test_coco_tokenize(caption: str, expected: str) -> None:
    assert coco_tokenize(caption) == expected


def test_token_views() -> None:
    assert ptb_tokens("Hi, you.") == ["hi", ",", "you", "."]
    assert coco_tokens("Hi, you.") == ["hi", "you"]
    assert coco_rouge_tokens("...") == [" "]  # pycocoevalcap's ROUGE-L: an empty caption is one empty token
    with pytest.raises(TypeError, match="expected a string"):
        ptb_tokens(None)  # type: ignore[arg-type]


def test_stream_context() -> None:
    # "B." before a caption starting with "A ": the lexer takes the period for a sentence end
    assert coco_tokenize_stream(["plan B.", "A man."]) == ["plan b", "a man"]
    assert coco_tokenize_stream(["plan B.", "a man."]) == ["plan b.", "a man"]
    assert coco_tokenize_stream(["see no.", "5 dogs"]) == ["see no.", "5 dogs"]
    assert coco_tokenize("see no.") == "see no"


# ---------------------------------------------------------------------------------------------- CIDEr
def test_cider_presets_and_segments() -> None:
    d = nm.cider(PREDS, REFS)
    assert d.signature.startswith("cider|tok:coco|n:4|clip:yes|lp:yes|sigma:6.0|scale:10.0|preset:cider-d")
    assert len(d.segments) == 3
    assert (d.images, d.references) == (3, 6)
    assert d.score == pytest.approx(sum(d.segments) / 3, abs=1e-15)
    c = nm.cider(PREDS, REFS, preset="cider")
    assert "clip:no|lp:no" in c.signature
    assert c.score != d.score


def test_cider_depends_on_the_corpus() -> None:
    # one image alone: log(N) = 0, every weight is 0 (pycocoevalcap gives 0 too)
    assert nm.cider(PREDS[:1], REFS[:1]).score == 0.0
    assert nm.cider(PREDS, REFS).segments[0] != nm.cider(PREDS[:2], REFS[:2]).segments[0]


def test_cider_empty_captions() -> None:
    r = nm.cider(["", *PREDS[1:]], ["", *REFS[1:]])
    assert r.segments[0] == 0.0
    assert nm.cider([""] * 2, [[""], [""]]).score == 0.0  # pycocoevalcap fails here (no document frequency)


def test_cider_bad_input() -> None:
    with pytest.raises(InvalidInputError, match=r"references\[1\] is an empty list"):
        nm.cider(PREDS[:2], [REFS[0], []])
    with pytest.raises(UnknownOptionError, match="tokenizer"):
        nm.cider(PREDS, REFS, tokenizer="13a")
    with pytest.raises(InvalidInputError, match="sigma must be > 0"):
        nm.cider(PREDS, REFS, sigma=0)
    with pytest.raises(InvalidInputError, match="n must be a positive integer"):
        nm.cider(PREDS, REFS, n=0)
    with pytest.raises(InvalidInputError, match=r"2 predictions|lengths|differ"):
        nm.cider(PREDS[:2], REFS)


def test_cider_stateful_merge_and_state_dict() -> None:
    a, b = nm.CIDEr(), nm.CIDEr()
    a.update(PREDS[:1], REFS[:1])
    b.update(PREDS[1:], REFS[1:])
    merged = a.merge(b).compute()
    assert merged.segments == nm.cider(PREDS, REFS).segments
    state = json.loads(json.dumps(a.state_dict()))
    c = nm.CIDEr()
    c.load_state_dict(state)
    assert isinstance(c.stats.images, Records)
    assert c.compute().score == merged.score


# ---------------------------------------------------------------------------------------------- the suite
def test_coco_suite() -> None:
    r = nm.coco(PREDS, REFS, segments=True)
    assert list(r.score) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"]
    assert r["CIDEr"] == nm.cider(PREDS, REFS).score
    assert r["Bleu_4"] == nm.bleu(PREDS, REFS, preset="coco").score
    assert r["ROUGE_L"] == nm.rouge(PREDS, REFS, preset="coco").score["rougeL"]
    assert len(r.segments) == 3
    assert set(r.segments[0]) == set(r.score)
    assert json.loads(json.dumps(r.to_dict()))["score"]["CIDEr"] == r["CIDEr"]


def test_bleu_coco_convention_refuses_weights() -> None:
    with pytest.raises(InvalidInputError, match="no weights"):
        nm.bleu(PREDS, REFS, preset="coco", weights=(0.5, 0.5))


# ---------------------------------------------------------------------------------------------- COCO JSON
def _files(tmp_path, results, annotations):
    r, a = tmp_path / "res.json", tmp_path / "ann.json"
    r.write_text(json.dumps(results), encoding="utf-8")
    a.write_text(json.dumps(annotations), encoding="utf-8")
    return r, a


ANN = {
    "images": [{"id": 7}, {"id": 3}, {"id": 9}],
    "annotations": [
        {"image_id": 3, "id": 1, "caption": "two dogs are playing in the snow"},
        {"image_id": 7, "id": 2, "caption": "a man rides a horse on the beach"},
        {"image_id": 3, "id": 3, "caption": "dogs run through the snow"},
        {"image_id": 7, "id": 4, "caption": "a person riding a brown horse"},
    ],
}


def test_read_coco(tmp_path) -> None:
    res = [
        {"image_id": 3, "caption": "two dogs play in the snow"},
        {"image_id": 7, "caption": "a man is riding a horse"},
    ]
    ids, preds, refs = nm.read_coco(*_files(tmp_path, res, ANN))
    assert ids == [7, 3]  # the annotations' image order, as pycocotools' loadRes
    assert preds == ["a man is riding a horse", "two dogs play in the snow"]
    assert refs[1] == ["two dogs are playing in the snow", "dogs run through the snow"]
    assert nm.read_coco(res, ANN) == (ids, preds, refs)  # loaded JSON too


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ([{"image_id": 5, "caption": "x"}], "image 5 .* is not in the annotations"),
        ([{"image_id": 7, "caption": "x"}, {"image_id": 7, "caption": "y"}], "image 7 has more than one caption"),
        ([{"image_id": 9, "caption": "x"}], "image 9 has no reference caption"),
        ([{"image_id": 7, "caption": None}], "caption of image 7 .* is not a string"),
        ([{"image_id": 7}], 'item 0 has no "image_id" and "caption"'),
        ([], "no caption"),
        ({"x": 1}, "must be a JSON list"),
    ],
)
def test_read_coco_bad_input(tmp_path, results, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        nm.read_coco(*_files(tmp_path, results, ANN))


def test_read_coco_bad_files(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="invalid JSON"):
        nm.read_coco(bad, ANN)
    with pytest.raises(InvalidInputError, match="cannot read"):
        nm.read_coco(tmp_path / "missing.json", ANN)
    with pytest.raises(InvalidInputError, match='"annotations" list'):
        nm.read_coco([], {"images": []})


def test_cider_significance_rescores_each_resample() -> None:
    from nlgmetrics.evaluate import evaluate

    other = ["a horse", "dogs", "food"]
    ev = evaluate(REFS, {"a": PREDS, "b": other}, ["cider"], baseline="a", bootstrap=30, test="bs", paired_samples=30)
    cell = ev.scores["cider"]["b"]
    assert cell.score == nm.cider(other, REFS).score
    assert cell.ci is not None
    assert 0 < cell.paired["p_value"] <= 1
    ev = evaluate(REFS, {"a": PREDS, "b": other}, ["cider"], baseline="a", bootstrap=0, test="ar", paired_samples=20)
    assert 0 < ev.scores["cider"]["b"].paired["p_value"] <= 1
