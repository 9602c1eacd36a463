"""``nlgmetrics.load`` / ``combine``: HF evaluate's call shape, derived from the families (behaviour and errors)."""

from __future__ import annotations

import pytest

import nlgmetrics
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.hf import HF_METRICS, supported
from nlgmetrics.metrics.catalog import CATALOG, get_family

PREDS = ["the cat sat on the mat", "hello there"]
REFS = [["the cat is on the mat"], ["hello there general kenobi"]]


def test_every_row_names_a_preset_of_its_family() -> None:
    for name, spec in HF_METRICS.items():
        if spec.family in CATALOG:
            assert spec.preset in get_family(spec.family).presets, name


def test_supported_names() -> None:
    expected = {"bleu", "sacrebleu", "chrf", "ter", "rouge", "bertscore", "wer", "cer", "exact_match", "squad"}
    expected |= {"squad_v2", "meteor", "google_bleu", "character"}
    assert expected <= set(supported())


def test_unknown_name_lists_the_supported_ones() -> None:
    with pytest.raises(UnknownOptionError, match=r"unknown HF evaluate metric 'blue'; supported: bertscore, bleu, "):
        nlgmetrics.load("blue")


def test_unknown_keyword_names_itself_and_the_nearest() -> None:
    with pytest.raises(
        UnknownOptionError,
        match=r"bleu: keyword 'max_orders' is not supported \(nearest supported: "
        r"'max_order'\)",
    ):
        nlgmetrics.load("bleu").compute(predictions=PREDS, references=REFS, max_orders=2)
    with pytest.raises(
        UnknownOptionError,
        match=r"keyword 'use_aggregate' is not supported \(nearest supported: "
        r"'use_aggregator'\)",
    ):
        nlgmetrics.load("rouge", use_aggregate=False)


def test_tokenizer_callable_is_refused_with_names() -> None:
    with pytest.raises(InvalidInputError, match="tokenizer: a tokenizer callable is not supported"):
        nlgmetrics.load("bleu").compute(predictions=PREDS, references=REFS, tokenizer=str.split)
    r = nlgmetrics.load("bleu").compute(predictions=PREDS, references=REFS, tokenizer="whitespace")
    assert set(r) == {"bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length"}


def test_add_and_add_batch_equal_one_compute() -> None:
    whole = nlgmetrics.load("sacrebleu").compute(predictions=PREDS, references=REFS)
    m = nlgmetrics.load("sacrebleu")
    m.add(prediction=PREDS[0], reference=REFS[0])
    m.add_batch(predictions=PREDS[1:], references=REFS[1:])
    assert m.compute() == whole
    with pytest.raises(InvalidInputError, match="needs both predictions= and references="):
        m.compute()  # the added inputs were consumed


def test_load_config_and_family_options() -> None:
    a = nlgmetrics.load("chrf", word_order=2).compute(predictions=PREDS, references=REFS)
    b = nlgmetrics.load("chrf").compute(predictions=PREDS, references=REFS, word_order=2)
    assert a == b
    assert a["word_order"] == 2
    rouge = nlgmetrics.load("rouge").compute(predictions=PREDS, references=REFS, use_aggregator=False)
    assert set(rouge) == {"rouge1", "rouge2", "rougeL", "rougeLsum"}
    assert len(rouge["rouge1"]) == 2


def test_scalar_outputs() -> None:
    assert nlgmetrics.load("wer").compute(predictions=["a b"], references=["a c"]) == 0.5
    assert nlgmetrics.load("exact_match").compute(predictions=["a", "b"], references=["a", "c"]) == {"exact_match": 0.5}


def test_combine() -> None:
    out = nlgmetrics.combine(["sacrebleu", "chrf", "ter"]).compute(predictions=PREDS, references=REFS)
    assert {"sacrebleu_score", "chrf_score", "ter_score", "counts", "char_order", "num_edits"} <= set(out)
    both = nlgmetrics.combine(["wer", "cer"])
    both.add_batch(predictions=["a b"], references=["a c"])
    assert both.compute() == {"wer": 0.5, "cer": pytest.approx(1 / 3)}


def test_squad_predictions_are_matched_by_id() -> None:
    preds = [{"prediction_text": "1976", "id": "b"}, {"prediction_text": "Denver Broncos", "id": "a"}]
    refs = [
        {"answers": {"answer_start": [0], "text": ["Denver Broncos"]}, "id": "a"},
        {"answers": {"answer_start": [0], "text": ["1976"]}, "id": "b"},
    ]
    assert nlgmetrics.load("squad").compute(predictions=preds, references=refs) == {"exact_match": 100.0, "f1": 100.0}


def test_sari_needs_sources_when_its_family_is_catalogued() -> None:
    if "sari" not in CATALOG:
        with pytest.raises(UnknownOptionError, match=r"sari: not in this build yet"):
            nlgmetrics.load("sari")
        return
    with pytest.raises(InvalidInputError, match="needs sources="):
        nlgmetrics.load("sari").compute(predictions=PREDS, references=REFS)


def test_meteor_warns_about_its_tokenizer() -> None:
    with pytest.warns(UserWarning, match="word_tokenize"):
        m = nlgmetrics.load("meteor")
    out = m.compute(predictions=["the cat sat on the mat"], references=[["the cat sat on the mat"]])
    assert out["meteor"] == pytest.approx(0.99769, abs=1e-5)  # NLTK: 1 - 0.5 * (1/6) ** 3 for one chunk


def test_bleu_smooth_adds_one_to_every_order_as_hf_runs_it() -> None:
    # HF evaluate's bleu runs tensorflow/nmt master's compute_bleu: (m + 1) / (p + 1) for unigrams too
    bleu = nlgmetrics.load("bleu")
    r = bleu.compute(predictions=[PREDS[0]], references=[REFS[0]], max_order=1, smooth=True)
    assert r["bleu"] == 6 / 7
    assert r["precisions"] == [6 / 7]


def test_bleu_tokenizer_name_of_hf_pull_request_698() -> None:
    bleu = nlgmetrics.load("bleu")
    preds, refs = ["the cat, sat on the mat."], [["the cat is on the mat ."]]
    for name, tokenizer in [("whitespace", "whitespace"), ("coco", "coco"), ("ptb", "coco")]:
        assert bleu.compute(predictions=preds, references=refs, tokenizer_name=name, smooth=True) == bleu.compute(
            predictions=preds, references=refs, tokenizer=tokenizer, smooth=True
        )
    with pytest.raises(InvalidInputError, match="Unsupported tokenizer_name: 'spaces'"):
        bleu.compute(predictions=preds, references=refs, tokenizer_name="spaces")
