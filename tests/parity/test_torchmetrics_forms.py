"""``nlgmetrics.torch``'s classes of torchmetrics' names against torchmetrics 1.9 on what its own text tests ask of
them (``tests/unittests/text``): ``torch.jit.script(metric)``, its input forms, ``ROUGEScore(accumulate="avg")``,
ROUGE's ``normalizer``/``tokenizer`` callables, and ``return_sentence_level_score``."""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
tm_text = pytest.importorskip("torchmetrics.text")

import nlgmetrics.torch as ours  # noqa: E402

PREDS = ["the cat sat on the mat", "There is a big tree near the park here", "hello there world"]
TARGETS = [
    ["the cat is on the mat", "a cat sat on a mat"],
    ["A big tree is growing near the park here", "the park has a big tree"],
    ["hello world", "there"],
]


def _floats(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_floats(v) for v in value)
    return value.double().tolist()


def _close(a: Any, b: Any, tol: float = 1e-6) -> bool:
    if isinstance(a, dict):
        return set(a) == set(b) and all(_close(a[k], b[k], tol) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b, strict=True))
    return abs(a - b) <= tol


# torchmetrics' names, the other torchmetrics classes the catalogue serves, and NIST (a carried table state); every
# catalogue adapter is the same TorchMetric class (about 0.6 s of compiling each)
SCRIPTABLE = sorted({*ours.TORCHMETRICS_NAMES, "EditDistance", "SQuAD", "NIST"})


@pytest.mark.parametrize("name", SCRIPTABLE)
def test_torch_jit_script_succeeds_as_for_torchmetrics(name: str) -> None:
    """torchmetrics' ``_class_test`` runs ``torch.jit.script(metric)``: it compiles the module's properties (its
    ``forward`` is ``@torch.jit.unused``), so it succeeds for torchmetrics' text metrics, whose scripted module
    cannot update either (strings are not tensors). Ours: the same, ``stats`` left out of the compiled
    properties."""
    scripted = torch.jit.script(getattr(ours, name)())
    assert isinstance(scripted, torch.jit.ScriptModule)


def test_scripted_torchmetrics_text_metric_cannot_update_either() -> None:
    scripted = torch.jit.script(tm_text.BLEUScore())
    with pytest.raises(AttributeError):
        scripted.update(["a"], [["a"]])


@pytest.mark.parametrize("name", ["TranslationEditRate", "CHRFScore", "ExtendedEditDistance"])
@pytest.mark.parametrize(("preds", "target"), [([], [[]]), (["python"], [[]])])
def test_empty_reference_lists_score_zero_with_a_warning(name: str, preds: list[str], target: list[Any]) -> None:
    with pytest.warns(UserWarning, match=r"no reference .*left out"):
        mine = getattr(ours, name)()(preds, target)
    theirs = getattr(tm_text, name)()(preds, target)
    assert float(mine) == float(theirs) == 0.0


def test_bleu_empty_lists_where_texts_belong() -> None:
    assert float(ours.BLEUScore()([[]], [[[]]])) == float(tm_text.BLEUScore()([[]], [[[]]])) == 0.0


def test_empty_reference_list_among_others_is_left_out() -> None:
    with pytest.warns(UserWarning, match=r"1 segment\(s\) have no reference \(target 1\)"):
        mine = float(ours.TranslationEditRate()([PREDS[0], "python"], [TARGETS[0], []]))
    assert mine == float(ours.TranslationEditRate()([PREDS[0]], [TARGETS[0]]))


@pytest.mark.parametrize("name", ["TranslationEditRate", "CHRFScore", "ExtendedEditDistance", "ROUGEScore"])
def test_a_string_prediction_with_a_list_of_references(name: str) -> None:
    kwargs = {"rouge_keys": ("rouge1", "rougeL")} if name == "ROUGEScore" else {}
    mine = getattr(ours, name)(**kwargs)(PREDS[0], TARGETS[0])
    theirs = getattr(tm_text, name)(**kwargs)(PREDS[0], TARGETS[0])
    assert _close(_floats(mine), _floats(theirs))


def test_a_single_squad_dict() -> None:
    pred = {"prediction_text": "1976", "id": "a"}
    target = {"answers": {"answer_start": [0], "text": ["in 1976"]}, "id": "a"}
    assert _close(_floats(ours.SQuAD()(pred, target)), _floats(tm_text.SQuAD()(pred, target)), 1e-4)


@pytest.mark.parametrize("accumulate", ["best", "avg"])
@pytest.mark.parametrize("use_stemmer", [False, True])
def test_rouge_accumulate(accumulate: str, use_stemmer: bool) -> None:
    keys = ("rouge1", "rouge2", "rougeL")  # rougeLsum: torchmetrics splits sentences with NLTK's punkt data
    args = {"accumulate": accumulate, "use_stemmer": use_stemmer, "rouge_keys": keys}
    mine, theirs = ours.ROUGEScore(**args), tm_text.ROUGEScore(**args)
    for batch in ((PREDS[:2], TARGETS[:2]), (PREDS[2:], TARGETS[2:])):
        mine.update(*batch)
        theirs.update(*batch)
    assert _close(_floats(mine.compute()), _floats(theirs.compute()))


def test_rouge_normalizer_and_tokenizer_callables() -> None:
    def normalizer(text: str) -> str:
        return re.sub(r"[^a-z0-9]+", " ", text.lower()).replace("tree", "oak")

    def tokenizer(text: str) -> list[str]:
        return text.split(" ")

    keys = ("rouge1", "rouge2", "rougeL")
    for kwargs in (
        {"normalizer": normalizer},
        {"tokenizer": tokenizer},
        {"normalizer": normalizer, "tokenizer": str.split},
    ):
        with pytest.warns(UserWarning, match="signature records only its name"):
            mine = ours.ROUGEScore(rouge_keys=keys, use_stemmer=True, **kwargs)
        theirs = tm_text.ROUGEScore(rouge_keys=keys, use_stemmer=True, **kwargs)
        assert _close(_floats(mine(PREDS, TARGETS)), _floats(theirs(PREDS, TARGETS)))
    signature = mine.compute_result().signature
    assert "tok:callable:" in signature
    assert "normalizer" in signature
    assert "0x" not in signature


@pytest.mark.parametrize("name", ["CHRFScore", "TranslationEditRate", "ExtendedEditDistance"])
def test_return_sentence_level_score(name: str) -> None:
    mine = getattr(ours, name)(return_sentence_level_score=True)
    theirs = getattr(tm_text, name)(return_sentence_level_score=True)
    for batch in ((PREDS[:2], TARGETS[:2]), (PREDS[2:], TARGETS[2:])):
        mine.update(*batch)
        theirs.update(*batch)
    (score, sentences), (their_score, their_sentences) = mine.compute(), theirs.compute()
    assert sentences.shape == their_sentences.shape == (3,)
    assert _close([float(score), *sentences.tolist()], [float(their_score), *their_sentences.tolist()])


def test_preset_jiwer_and_family_options_under_torchmetrics_names() -> None:
    import nlgmetrics as nm

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric = ours.MatchErrorRate(preset="jiwer")
    assert float(metric(PREDS, [t[0] for t in TARGETS])) == nm.mer(PREDS, [t[0] for t in TARGETS]).score
    with pytest.raises(Exception, match=r"argument 'presets' is not supported .* preset= and options"):
        ours.MatchErrorRate(presets="jiwer")
