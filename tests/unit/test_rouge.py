"""ROUGE: behaviour, result shape, options and the error for every bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import nlgmetrics as nm
from nlgmetrics import InvalidInputError, MissingDependencyError, UnknownOptionError
from nlgmetrics.metrics.rouge import ROUGE, RougeScore
from nlgmetrics.metrics.rouge.bootstrap import perl_resample_indices
from nlgmetrics.metrics.rouge.kernel import parse_rouge_type, round5

PREDS = ["Transformers Transformers are fast plus efficient", "Good Morning", "I am waiting for new Transformers"]
REFS = [
    [
        "HuggingFace Transformers are fast efficient plus awesome",
        "Transformers are awesome because they are fast to execute",
    ],
    ["Good Morning Transformers", "Morning Transformers"],
    ["People are eagerly waiting for new Transformer models", "People are very excited about new Transformers"],
]  # fmt: skip


# ---------------------------------------------------------------------------------------------------- the result
def test_worked_example_and_result_shape():
    r = nm.rouge(PREDS, REFS, preset="rouge-score", segments=True)
    assert r.score == {
        "rouge1": 0.6659340659340659,
        "rouge2": 0.45454545454545453,
        "rougeL": 0.6146520146520146,
        "rougeLsum": 0.6146520146520146,
    }
    assert r.fmeasure == r.f1 == r.score
    assert r["rouge2"] == RougeScore(r.precision["rouge2"], r.recall["rouge2"], r.f1["rouge2"])
    assert r.count == 3
    assert len(r.segments) == 3
    assert r.segments[1]["rouge1"] == RougeScore(1.0, 1.0, 1.0) or r.segments[1]["rouge1"].fmeasure == 0.8
    assert r.rouge_types == ("rouge1", "rouge2", "rougeL", "rougeLsum")
    assert set(r.headline_values()) == {f"{t}_{m}" for t in r.score for m in ("precision", "recall", "fmeasure")}
    json.dumps(r.to_dict())  # JSON-able
    assert r.to_dict()["segments"][0]["rouge1"]["fmeasure"] == r.segments[0]["rouge1"].fmeasure
    with pytest.raises(TypeError, match="result holds 4 ROUGE types"):
        float(r)
    assert float(nm.rouge(PREDS, REFS, rouge_types="rouge1")) == nm.rouge(PREDS, REFS).score["rouge1"]
    with pytest.raises(KeyError, match="rougeW"):
        r["rougeW"]


def test_signature_records_every_setting():
    sig = nm.rouge(PREDS, REFS, preset="rouge155", use_stemmer=True).signature
    assert sig.startswith("rouge|types:rouge1,rouge2,rougeL|tok:rouge155|stem:yes|stemmer:rouge155|")
    assert "|scoring:rouge155|multi:average|" in sig
    assert "|alpha:0.5|" in sig
    assert "|preset:rouge155|" in sig
    assert sig.endswith(f"|nlgmetrics:{nm.__version__}")
    assert "workers" not in sig


def test_per_segment_scores_come_from_the_same_statistics():
    r = nm.rouge(PREDS, REFS, segments=True)
    for t in r.score:
        assert r.score[t] == pytest.approx(np.mean([s[t].fmeasure for s in r.segments]), abs=1e-15)
        assert r.precision[t] == pytest.approx(np.mean([s[t].precision for s in r.segments]), abs=1e-15)


# ---------------------------------------------------------------------------------------------------- Japanese, Chinese
@pytest.mark.parametrize("tokenizer", ["unicode", "char", "ja-mecab", "zh-jieba"])
@pytest.mark.parametrize("text", ["今日は良い天気ですね。", "我们今天去北京天安门。", "東京タワーに行きました"])
def test_identical_japanese_and_chinese_score_one(tokenizer, text):
    if tokenizer == "ja-mecab":
        pytest.importorskip("fugashi")
        pytest.importorskip("unidic_lite")
    if tokenizer == "zh-jieba":
        pytest.importorskip("jieba")
    r = nm.rouge([text], [text], tokenizer=tokenizer)
    assert r.score == dict.fromkeys(r.score, 1.0)


def test_default_tokenizer_splits_cjk_into_characters_and_keeps_other_scripts():
    r = nm.rouge(["東京に行く"], ["京都に行く"], rouge_types=["rouge1"], segments=True)
    # tokens 東 京 に 行 く / 京 都 に 行 く: 4 of 5 match
    assert r.segments[0]["rouge1"] == RougeScore(0.8, 0.8, 0.8000000000000002) or r.score["rouge1"] == pytest.approx(
        0.8
    )
    assert nm.rouge(["Привет мир"], ["привет, МИР!"]).score["rouge1"] == 1.0
    assert nm.rouge(["नमस्ते दुनिया"], ["नमस्ते दुनिया"]).score["rouge2"] == 1.0


def test_rouge_score_preset_drops_japanese_and_warns_once_naming_the_segment():
    with pytest.warns(UserWarning, match=r"drops 100% .* of predictions\[1\]") as record:
        r = nm.rouge(["fine", "今日は良い天気"], ["fine", "今日は良い天気"], preset="rouge-score")
    assert len([w for w in record if "ASCII" in str(w.message)]) == 1
    assert r.segments is None
    with pytest.warns(UserWarning, match=r"predictions\[0\]"):
        dropped = nm.rouge(["今日は良い天気"], ["今日は良い天気"], preset="rouge-score", segments=True)
    assert dropped.segments[0]["rouge1"].fmeasure == 0.0  # what rouge-score gives (why the default keeps letters)


def test_no_warning_when_the_ascii_tokenizer_keeps_most_of_the_text():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nm.rouge(["Café au lait is great"], ["a café"], preset="rouge-score")
        nm.rouge(["今日は良い天気"], ["今日は良い天気"])  # default tokenizer: nothing dropped


def test_missing_optional_tokenizers_give_install_hints():
    code = (
        "import sys\n"
        "sys.modules['fugashi'] = None\n"
        "sys.modules['jieba'] = None\n"
        "import nlgmetrics as nm\n"
        "from nlgmetrics.errors import MissingDependencyError\n"
        "for tok in ('ja-mecab', 'zh-jieba'):\n"
        "    try:\n"
        "        nm.rouge(['a'], ['a'], tokenizer=tok)\n"
        "    except MissingDependencyError as e:\n"
        "        print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 'nlgmetrics[ja]'" in out
    assert "pip install 'nlgmetrics[zh]'" in out


def test_stemming_needs_no_nltk():
    code = (
        "import sys\n"
        "sys.modules['nltk'] = None\n"
        "import nlgmetrics as nm\n"
        "print(nm.rouge(['running'], ['runs']).score['rouge1'])\n"
        "print(nm.rouge(['running'], ['runs'], preset='rouge155', use_stemmer=True).score['rouge1'])\n"
        "print(nm.rouge(['running'], ['runs'], use_stemmer=True).score['rouge1'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["0.0", "1.0", "1.0"]


def test_missing_compiled_kernels_give_a_clear_error():
    code = (
        "import sys\n"
        "sys.modules['nlgmetrics._native'] = None\n"
        "import nlgmetrics as nm\n"
        "try:\n"
        "    nm.rouge(['a'], ['a'])\n"
        "except ImportError as e:\n"
        "    print(type(e).__name__, isinstance(e, nm.MissingDependencyError), e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith(
        "MissingExtensionError True the compiled kernels of nlgmetrics (nlgmetrics._native) are missing"
    )
    assert "pip install" in out
    assert issubclass(MissingDependencyError, ImportError)


# ---------------------------------------------------------------------------------------------------- options
def test_types_parse():
    assert parse_rouge_type("rouge3").n == 3
    assert parse_rouge_type("rougeSU4").skip == 4
    assert parse_rouge_type("rougeSU4").unigrams
    assert parse_rouge_type("rougeS*").skip is None
    for bad in ("rouge0", "rouge10", "ROUGE-1", "rougeL ", "rougeS", "rougeW1.2", 1):
        with pytest.raises(UnknownOptionError, match="valid types are"):
            parse_rouge_type(bad)  # type: ignore[arg-type]


def test_rougeLsum_splits_on_newlines_or_with_the_rule_based_splitter():
    pred = "The cat sat. The dog ran."
    ref = "The dog ran. The cat sat."
    one = nm.rouge([pred], [ref], rouge_types=["rougeL", "rougeLsum"])
    assert one.score["rougeLsum"] == one.score["rougeL"]  # no newline: one sentence each
    split = nm.rouge([pred], [ref], rouge_types=["rougeLsum"], sentence_split="rules")
    assert split.score["rougeLsum"] == 1.0  # each sentence finds its twin
    lines = nm.rouge(["The cat sat.\nThe dog ran."], ["The dog ran.\nThe cat sat."], rouge_types=["rougeLsum"])
    assert lines.score["rougeLsum"] == 1.0
    # "auto" splits only the texts without a newline
    assert nm.rouge([pred], [ref], rouge_types=["rougeLsum"], sentence_split="auto").score["rougeLsum"] == 1.0
    kept = ["The cat sat. The dog ran.\nThe end."], ["The dog ran. The cat sat.\nThe end."]
    assert nm.rouge(*kept, rouge_types=["rougeLsum"], sentence_split="auto").score["rougeLsum"] < 1.0
    assert nm.rouge(*kept, rouge_types=["rougeLsum"], sentence_split="rules").score["rougeLsum"] == 1.0
    japanese = nm.rouge(
        ["猫が座った。犬が走った。"], ["犬が走った。猫が座った。"], rouge_types=["rougeLsum"], sentence_split="rules"
    )
    assert japanese.score["rougeLsum"] == 1.0


def test_multi_reference_modes():
    preds = ["a b c d"]
    refs = [["a b x y", "a b c z"]]
    best = nm.rouge(preds, refs, rouge_types=["rouge1"], segments=True).segments[0]["rouge1"]
    assert best == RougeScore(0.75, 0.75, 0.75)  # the second reference
    avg = nm.rouge(preds, refs, rouge_types=["rouge1"], multi_ref="average", segments=True).segments[0]["rouge1"]
    assert avg.recall == pytest.approx(5 / 8)
    assert avg.precision == pytest.approx(5 / 8)
    perl_best = nm.rouge(preds, refs, preset="rouge155", rouge_types=["rouge1"], multi_ref="best").score["rouge1"]
    assert perl_best == 0.75


def test_f_beta_and_alpha():
    r = nm.rouge(["a b"], ["a b c d"], rouge_types=["rouge1"], beta=2.0, segments=True).segments[0]["rouge1"]
    p, rec = 1.0, 0.5
    assert r.fmeasure == pytest.approx(5 * p * rec / (4 * p + rec))
    a = nm.rouge(["a b"], ["a b c d"], rouge_types=["rouge1"], alpha=0.8, segments=True).segments[0]["rouge1"]
    assert a.fmeasure == pytest.approx(p * rec / (0.2 * p + 0.8 * rec))


def test_empty_texts_score_zero_as_rouge_score_does():
    r = nm.rouge(["", "a", ""], ["", "", "a"], segments=True)
    assert r.score == dict.fromkeys(r.score, 0.0)
    r155 = nm.rouge(["", "!!!"], ["", "a"], preset="rouge155", rouge_types=["rouge1", "rougeL", "rougeW", "rougeSU4"])
    assert r155.score == dict.fromkeys(r155.score, 0.0)


def test_weighted_and_skip_bigram_types():
    same = ["the cat sat on the mat"], ["the cat sat on the mat"]
    types = ["rougeW", "rougeS*", "rougeSU4", "rougeS0"]
    assert nm.rouge(*same, rouge_types=types).score == dict.fromkeys(types, 1.0)
    perl = nm.rouge(*same, preset="rouge155", rouge_types=types, segments=True)
    # ROUGE-1.5.5 weights the reference length of ROUGE-W twice: recall (6**1.2 / 6**1.44) ** (1 / 1.2)
    assert perl.segments[0]["rougeW"] == RougeScore(1.0, round(6**-0.2, 5), round(2 * 6**-0.2 / (1 + 6**-0.2), 5))
    assert {t: perl.score[t] for t in types[1:]} == dict.fromkeys(types[1:], 1.0)
    s = nm.rouge(["a b c"], ["a c b"], rouge_types=["rougeS*", "rougeSU*"], segments=True).segments[0]
    assert s["rougeS*"].recall == pytest.approx(2 / 3)  # (a b) (a c) (b c) vs (a c) (a b) (c b)
    assert s["rougeSU*"].recall == pytest.approx(3 / 5)  # + unigrams a b vs a c (the script skips the last token)


def test_stopword_removal_and_length_limits():
    full = nm.rouge(["the cat sat on the mat"], ["the dog sat on a rug"], preset="rouge155", rouge_types=["rouge1"])
    stop = nm.rouge(["the cat sat on the mat"], ["the dog sat on a rug"], preset="rouge155", rouge_types=["rouge1"],
                    remove_stopwords=True)  # fmt: skip
    assert full.score["rouge1"] != stop.score["rouge1"]
    cut = nm.rouge(["a b c d e"], ["a b x y z"], preset="rouge155", rouge_types=["rouge1"], length_limit=2)
    assert cut.score["rouge1"] == 1.0
    cut_b = nm.rouge(["ab cd ef"], ["ab cd zz"], preset="rouge155", rouge_types=["rouge1"], byte_limit=5)
    assert cut_b.score["rouge1"] == 1.0


def test_round5_is_sprintf():
    values = np.array([0.123455, 0.1234549999, 2 / 3, 1e-7, 0.5, 0.000005, 0.000015, 1.0, 0.0])
    assert round5(values).tolist() == [float(f"{v:7.5f}") for v in values]


def test_perl_resampling_draws_perls_drand48_sequence():
    # perl -e 'srand(0); print int(rand(100))'  prints 17 (drand48: 0.17082803610628972 first)
    idx = perl_resample_indices(0, 2, 100)
    assert idx[0, 0] == 17
    assert idx[1, 0] == 4  # srand(1): 0.041630344771878214


def test_bootstrap_results():
    rs = nm.rouge(PREDS * 5, REFS * 5, preset="rouge-score", bootstrap_samples=200, seed=3)
    for t, agg in rs.bootstrap.items():
        assert agg.low.fmeasure <= agg.mid.fmeasure <= agg.high.fmeasure
        assert abs(agg.mid.fmeasure - rs.score[t]) < 0.1
    again = nm.rouge(PREDS * 5, REFS * 5, preset="rouge-score", bootstrap_samples=200, seed=3)
    assert again.bootstrap == rs.bootstrap  # seeded
    perl = nm.rouge(PREDS * 5, REFS * 5, preset="rouge155", bootstrap_samples=100)
    assert all(agg.low.recall <= agg.mid.recall <= agg.high.recall for agg in perl.bootstrap.values())
    assert all(round(v, 5) == v for agg in perl.bootstrap.values() for s in agg for v in s)


# ---------------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("preds", "refs", "match"),
    [
        (None, ["a"], "predictions is None"),
        (["a"], None, "references is None"),
        (["a", "b"], ["a"], "differ in length"),
        ([1], ["a"], r"predictions\[0\] is a value of type int"),
        (["a"], [["a", 2]], r"references\[0\]\[1\]"),
        (["a"], [[]], r"references\[0\] is an empty list"),
        ([["a"]], ["a"], "nested list"),
        ([], [], "empty"),
        ([b"a"], ["a"], "bytes"),
    ],
)
def test_bad_input_names_the_index(preds, refs, match):
    with pytest.raises(InvalidInputError, match=match):
        nm.rouge(preds, refs)


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"rouge_types": ["rouge1", "rougeX"]}, UnknownOptionError, "unknown ROUGE type 'rougeX'"),
        ({"rouge_types": []}, InvalidInputError, "non-empty"),
        ({"rouge_types": ["rouge1", "rouge1"]}, InvalidInputError, "twice"),
        ({"tokenizer": "klingon"}, UnknownOptionError, "unknown tokenizer 'klingon'.*'rouge-score'"),
        ({"preset": "rouge-2"}, UnknownOptionError, "unknown rouge preset 'rouge-2'; valid values are"),
        ({"stemmer": "snowball"}, UnknownOptionError, "unknown stemmer"),
        ({"multi_ref": "max"}, UnknownOptionError, "unknown multi_ref"),
        ({"sentence_split": "punkt"}, UnknownOptionError, "unknown sentence_split"),
        ({"scoring": "perl"}, UnknownOptionError, "unknown scoring"),
        ({"beta": 0}, InvalidInputError, "beta must be > 0"),
        ({"beta": "1"}, InvalidInputError, "beta must be a number"),
        ({"alpha": 1.5}, InvalidInputError, "alpha must be <= 1"),
        ({"alpha": 0.5, "beta": 2.0}, InvalidInputError, "not both"),
        ({"length_limit": 10}, InvalidInputError, "need tokenizer='rouge155'"),
        ({"preset": "rouge155", "length_limit": 10, "byte_limit": 10}, InvalidInputError, "not both"),
        ({"length_limit": -1}, InvalidInputError, "length_limit must be an integer >= 0"),
        ({"weight": 0}, InvalidInputError, "weight must be > 0"),
        ({"bootstrap_samples": -5}, InvalidInputError, "bootstrap_samples"),
        ({"bootstrap_samples": 1.5}, InvalidInputError, "bootstrap_samples"),
        ({"confidence": 2}, InvalidInputError, "confidence must be <= 1"),
        ({"bootstrap_rng": "mt"}, UnknownOptionError, "bootstrap_rng"),
        ({"workers": 0}, InvalidInputError, "workers"),
        ({"use_stemmer": "yes"}, InvalidInputError, "use_stemmer must be True or False"),
        ({"lowercase": True}, UnknownOptionError, "unknown option 'lowercase'"),
    ],
)
def test_bad_options(options, error, match):
    with pytest.raises(error, match=match):
        nm.rouge(PREDS, REFS, **options)


def test_config_normalises_and_is_hashable():
    cfg = ROUGE.make_config(None, rouge_types=["rouge1"])
    assert cfg.rouge_types == ("rouge1",)
    assert hash(cfg) == hash(ROUGE.make_config(None, rouge_types=("rouge1",)))
    assert ROUGE.make_config("rouge155").stemmer == "rouge155"
    assert ROUGE.make_config("rouge155-empty-db").stemmer == "rouge155-porter"
    assert ROUGE.make_config(None).stemmer == "porter"


def test_workers_change_no_number():
    preds = [f"sentence number {i} about cats\nand dogs {i % 7}" for i in range(2100)]
    refs = [[f"number {i} cats", f"dogs {i % 5} and cats"] for i in range(2100)]
    one = nm.rouge(preds, refs, use_stemmer=True, segments=True)
    two = nm.rouge(preds, refs, use_stemmer=True, segments=True, workers=2)
    assert one.score == two.score
    assert one.segments == two.segments
    assert one.signature == two.signature


def test_sentence_separator_marks_sentence_breaks():
    plain = nm.rouge(["The cat sat.<n>The dog ran."], ["The dog ran.<n>The cat sat."], rouge_types=["rougeLsum"])
    marked = nm.rouge(["The cat sat.<n>The dog ran."], ["The dog ran.<n>The cat sat."], rouge_types=["rougeLsum"],
                      sentence_separator="<n>")  # fmt: skip
    assert plain.score["rougeLsum"] < 1.0
    assert marked.score["rougeLsum"] == 1.0
    assert "|sep:<n>|" in marked.signature
    with pytest.raises(InvalidInputError, match="sentence_separator must be a non-empty string"):
        nm.rouge(["a"], ["a"], sentence_separator="")


def test_configs_differing_only_in_workers_merge():
    a, b = nm.ROUGE(workers=2), nm.ROUGE()
    a.update(["a b"], ["a b c"])
    b.update(["c"], ["c"])
    assert a.merge(b).compute().count == 2


def test_worker_processes_change_no_number(monkeypatch):
    import nlgmetrics.metrics.rouge as module

    preds = [f"the cat {i} sat\non the mat {i % 3}" for i in range(50)]
    refs = [[f"a cat {i} sat", f"the mat {i % 4}\nof cats"] for i in range(50)]
    want = nm.rouge(preds, refs, use_stemmer=True, segments=True)
    monkeypatch.setattr(module, "PARALLEL_MIN_SEGMENTS", 7)
    got = nm.rouge(preds, refs, use_stemmer=True, segments=True, workers=2)
    assert got.segments == want.segments
    assert got.score == want.score


def test_the_ascii_tokenizer_warning_points_at_the_callers_line():
    with pytest.warns(UserWarning, match="drops 100%") as record:
        nm.rouge(["日本語の文"], ["日本語の文"], preset="rouge-score")
    assert record[0].filename == __file__
