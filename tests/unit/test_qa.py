"""exact_match and squad: behaviour, and bad input with its exact message."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, UnknownOptionError


# ---------------------------------------------------------------------------------------------------- exact_match
def test_exact_match_hf_examples():
    refs = ["the cat", "theater", "YELLING", "agent007"]
    preds = ["cat?", "theater", "yelling", "agent"]
    assert nm.exact_match(preds, refs, preset="hf-evaluate").score == 0.25
    opts = {"ignore_case": True, "ignore_punctuation": True}
    assert nm.exact_match(preds, refs, preset="hf-evaluate", regexes_to_ignore=["the ", "yell"], **opts).score == 0.5
    all_opts = {**opts, "regexes_to_ignore": ["the ", "yell", "YELL"], "ignore_numbers": True}
    assert nm.exact_match(preds, refs, preset="hf-evaluate", **all_opts).score == 1.0


def test_exact_match_max_over_answers_and_counts():
    r = nm.exact_match(["Paris", "x"], [["London", "paris"], ["y"]], normalizers=["casefold"], segments=True)
    assert (r.score, r.segments, r.match, r.exact, r.count) == (0.5, (1.0, 0.0), 1, 0, 2)


def test_exact_match_width_and_nfkc():
    assert nm.exact_match(["ＡＢＣ１２３　ｶﾞ"], ["ABC123 ガ"], normalizers=["ja-width"]).score == 1.0
    assert nm.exact_match(["①"], ["1"], normalizers=["ja-width"]).score == 0.0  # ja-width is not NFKC
    assert nm.exact_match(["①"], ["1"], normalizers=["nfkc"]).score == 1.0


def test_exact_match_extraction():
    r = nm.exact_match(
        ["The answer is (B).", "the answer is C", "no idea"], ["B", "C", "A"], extract="answer-is", segments=True
    )
    assert (r.segments, r.no_extract) == ((1.0, 1.0, 0.0), 1)
    # the last match, a chosen group
    r = nm.exact_match(["1 then 2 then 3"], ["3"], extract=r"(\d)", extract_index=-1)
    assert r.score == 1.0
    r = nm.exact_match(["x=4;y=5"], ["5"], extract=r"(x|y)=(\d)", extract_index=1, extract_group=2)
    assert r.score == 1.0
    r = nm.exact_match(["so\n#### 1,234"], ["It is 1234. #### 1234"], preset="gsm8k")
    assert r.score == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"regexes_to_ignore": ["(unclosed"]}, r"regexes_to_ignore\[0\] = '\(unclosed' is not a valid regular"),
        ({"extract": "(?P<"}, r"extract\[0\] = '\(\?P<' is not a valid regular expression"),
        ({"ignore_case": True}, "ignore_case is an option of the 'hf-evaluate' normalizer"),
        ({"extract_group": 1}, "extract_index and extract_group need an extract pattern"),
        ({"extract": r"(\d)", "extract_group": 2}, "extract_group=2 but the extract pattern has 1 group"),
        ({"ignore_case": "yes", "normalizers": ["hf-evaluate"]}, "ignore_case must be True or False"),
    ],
)
def test_exact_match_bad_options(kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        nm.exact_match(["a"], ["a"], **kwargs)


def test_exact_match_unknown_normalizer():
    with pytest.raises(UnknownOptionError, match="unknown exact_match normalizer 'nfd'"):
        nm.exact_match(["a"], ["a"], normalizers=["nfd"])


@pytest.mark.parametrize(
    ("preds", "refs", "message"),
    [
        (["a", None], ["a", "b"], r"predictions\[1\] is None; expected str"),
        (["a", 3], ["a", "b"], r"predictions\[1\] is a value of type int"),
        (["a", "b"], ["a", []], r"references\[1\] is an empty list"),
        (["a", "b"], ["a", ["x", None]], r"references\[1\]\[1\] is None"),
        (["a", "b"], ["a"], "predictions and references differ in length: 2 predictions but 1 references"),
    ],
)
def test_exact_match_bad_input(preds, refs, message):
    with pytest.raises(InvalidInputError, match=message):
        nm.exact_match(preds, refs)


# ---------------------------------------------------------------------------------------------------- squad
def test_squad_v1_v2_empty_answers():
    # v1.1: F1 of two empty token lists is 0; v2.0 (and torchmetrics): 1
    assert nm.squad(["the"], [["a"]], preset="squad-v1").f1 == 0.0
    assert nm.squad(["the"], [["a"]], preset="squad-v2").f1 == 100.0
    assert nm.squad(["the"], [["a"]], preset="torchmetrics").f1 == 100.0
    # v2.0: no answer; a prediction must be empty to be right
    r = nm.squad(["", "x"], [[], []], preset="squad-v2")
    assert (r.exact_match, r.no_ans_total, r.has_ans_exact) == (50.0, 2, None)


def test_squad_best_threshold_ties_follow_input_order():
    preds, refs = ["x", "y"], [["x"], []]
    a = nm.squad(preds, refs, preset="squad-v2", no_answer_probabilities=[0.5, 0.5])
    b = nm.squad(preds[::-1], refs[::-1], preset="squad-v2", no_answer_probabilities=[0.5, 0.5])
    assert (a.best_exact, a.best_exact_thresh) == (100.0, 0.5)  # +1 first: 2 of 2
    assert (b.best_exact, b.best_exact_thresh) == (50.0, 0.0)  # -1 first, then +1: never above the start


def test_squad_stateful_keeps_questions_for_the_threshold_search():
    m = nm.SQuAD("squad-v2")
    m.update([{"prediction_text": "x", "no_answer_probability": 0.2}], [["x"]])
    m.update([{"prediction_text": "", "no_answer_probability": 0.9}], [[]])
    whole = nm.squad(["x", ""], [["x"], []], preset="squad-v2", no_answer_probabilities=[0.2, 0.9])
    assert m.compute().official() == whole.official()


def test_squad_cmrc_and_llm_jp_eval():
    r = nm.squad(["北京奥运会"], [["2008年北京奥运会"]], preset="cmrc2018")
    assert round(r.f1, 4) == round(100 * 2 * 1 * (5 / 7) / (1 + 5 / 7), 4)  # segments: 2008, 年, 北, 京, 奥, 运, 会
    r = nm.squad(["ＡＢＣ  "], [["ABC"]], preset="llm-jp-eval")
    assert r.official() == {"exact_match": 1.0, "char_f1": 1.0}


@pytest.mark.parametrize(
    ("preds", "refs", "kwargs", "message"),
    [
        (["a"], [[]], {}, r"references\[0\] is an empty list: the squad-v1 convention needs at least one"),
        (["a"], [[]], {"preset": "cmrc2018"}, r"references\[0\] is an empty list: the cmrc2018 convention"),
        (["a", None], [["a"], ["b"]], {}, r"predictions\[1\] is None; expected str or"),
        ([{"prediction_text": 1}], [["a"]], {}, r"predictions\[0\] has no string 'prediction_text'"),
        (
            [{"prediction_text": "a", "no_answer_probability": "x"}],
            [["a"]],
            {"preset": "squad-v2"},
            r"predictions\[0\]\['no_answer_probability'\] must be a finite number",
        ),
        (["a"], [["a", 5]], {}, r"references\[0\]\[1\] is a value of type int"),
        (["a", "b"], [["a"]], {}, "predictions and references differ in length: 2 predictions but 1 references"),
        (["a"], [["a"]], {"no_answer_probabilities": [0.5]}, "no-answer probabilities only apply to squad-v2"),
        (
            ["a"],
            [["a"]],
            {"preset": "squad-v2", "no_answer_probabilities": [0.1, 0.2]},
            "no_answer_probabilities has 2 values but there are 1 predictions",
        ),
        (
            ["a"],
            [["a"]],
            {"preset": "squad-v2", "no_answer_probabilities": [float("nan")]},
            r"no_answer_probabilities\[0\] must be a finite number",
        ),
        ([], [], {}, "predictions is empty"),
    ],
)
def test_squad_bad_input(preds, refs, kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        nm.squad(preds, refs, **kwargs)


def test_squad_partial_probabilities():
    with pytest.raises(InvalidInputError, match="no-answer probabilities were given for 1 of 2 questions"):
        nm.squad([{"prediction_text": "a", "no_answer_probability": 0.1}, "b"], [["a"], ["b"]], preset="squad-v2")


def test_squad_bad_options():
    with pytest.raises(UnknownOptionError, match="unknown QA convention 'squad-v3'"):
        nm.squad(["a"], [["a"]], convention="squad-v3")
    with pytest.raises(InvalidInputError, match="scale must be 1"):
        nm.squad(["a"], [["a"]], scale=10)


def test_cmrc_needs_punkt_only_for_sentence_ends():
    from nlgmetrics.errors import MissingDependencyError
    from nlgmetrics.text.answers import _nltk_word_tokenizer

    if _nltk_word_tokenizer()[2] is not None:
        pytest.skip("NLTK's punkt model is installed here")
    with pytest.raises(MissingDependencyError, match="punkt"):
        nm.squad(["Dr. Sun"], [["孙中山"]], preset="cmrc2018")


# ---------------------------------------------------------------------------------------------------- SFT presets
def test_pltrdy_single_reference_and_empty():
    with pytest.raises(InvalidInputError, match=r"references\[0\] has 2 references, but the pltrdy scoring"):
        nm.rouge(["a b"], [["a b", "c"]], preset="pltrdy")
    with pytest.raises(InvalidInputError, match=r"predictions\[0\] holds no sentence for pltrdy"):
        nm.rouge(["..."], ["a b"], preset="pltrdy")
    with pytest.raises(InvalidInputError, match=r"computes rouge1 \.\.\. rouge5 and rougeL, not 'rougeLsum'"):
        nm.rouge(["a"], ["a"], preset="pltrdy", rouge_types=["rougeLsum"])


def test_llamafactory_bleu_sentence_mean():
    b = nm.bleu(["今天天气很好", "我们"], ["今天天气不错", "我们去"], preset="llamafactory", segments=True)
    assert b.score == sum(b.segments) / 2
    with pytest.raises(InvalidInputError, match="sentence_round rounds each sentence's BLEU"):
        nm.bleu(["a"], ["a"], sentence_round=2)


def test_official_is_the_scripts_left_to_right_float_and_merged_statistics_stay_exact() -> None:
    """The SQuAD scripts add the per-question F1 left to right in file order (``f1 += ...``): ``official()`` gives
    that float to the last bit; the statistics (and ``f1``, and anything merged) keep the exactly rounded sum."""
    preds = ["g e e d a", "e b e", "g d a e", "c e g f e", "g g", "a h a"]
    refs = [["d"], ["b a e"], ["c b c"], ["f f"], ["d c d"], ["c"]]
    r = nm.squad(preds, refs)
    per_question = nm.squad(preds, refs, segments=True).segments
    assert r.official()["f1"] == 100.0 * sum(v / 100.0 for v in per_question) / 6 == 24.76190476190477
    assert r.f1 == 24.761904761904763  # the batch total: math.fsum
    metric = nm.SQuAD()
    metric.update(preds[:3], refs[:3])
    other = nm.SQuAD()
    other.update(preds[3:], refs[3:])
    metric.merge(other)
    merged = metric.compute()
    assert merged.script_sums is None  # merged statistics do not know the file order: the summed value
    assert merged.official()["f1"] == merged.f1
    assert abs(merged.f1 - r.f1) < 1e-12
