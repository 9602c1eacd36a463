"""Whisper's normalisers: character for character openai/whisper's own (recorded outputs), and the
``whisper-normalizer`` package's (0.1.15) except where that package rewrites kinda/sorta/dunno/cause, which
Whisper's does not; WER after them equals ``jiwer.wer`` on the package's normalised texts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.errors import UnknownOptionError
from nlgmetrics.text.whisper import whisper_basic, whisper_english

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "whisper"
RECORDED = json.loads((FIXTURES / "openai_whisper.json").read_text(encoding="utf-8"))
#: The words whisper-normalizer 0.1.15 rewrites and openai/whisper does not.
PACKAGE_ONLY = re.compile(r"\b(kinda|sorta|dunno|cause)\b")


def test_openai_whispers_own_outputs() -> None:
    english = sum(whisper_english(r["text"]) != r["english"] for r in RECORDED)
    basic = sum(whisper_basic(r["text"]) != r["basic"] for r in RECORDED)
    print(f"openai/whisper: {len(RECORDED)} texts, english {english} mismatches, basic {basic} mismatches")
    assert (english, basic) == (0, 0)


def _package() -> tuple[object, object]:
    pytest.importorskip("whisper_normalizer")
    from whisper_normalizer.basic import BasicTextNormalizer
    from whisper_normalizer.english import EnglishTextNormalizer

    return EnglishTextNormalizer(), BasicTextNormalizer()


def _compare(texts: list[str]) -> tuple[int, int, int]:
    english, basic = _package()
    explained = unexplained = basic_mismatches = 0
    for t in texts:
        if whisper_english(t) != english(t):  # type: ignore[operator]
            if PACKAGE_ONLY.search(t.lower()):
                explained += 1
            else:
                unexplained += 1
        basic_mismatches += whisper_basic(t) != basic(t)  # type: ignore[operator]
    return explained, unexplained, basic_mismatches


def test_whisper_normalizer_package_on_the_cases() -> None:
    explained, unexplained, basic = _compare([r["text"] for r in RECORDED])
    print(f"whisper-normalizer: {len(RECORDED)} texts, {explained} differ by its extra words, {unexplained} else")
    assert (unexplained, basic) == (0, 0)
    assert explained == 1  # "kinda sorta dunno 'cause"


@pytest.mark.realdata
def test_whisper_normalizer_package_on_real_english(shared_data: Path) -> None:
    texts: list[str] = []
    for name in ("generaltest2022.de-en.ref.A.en", "generaltest2022.zh-en.ref.A.en"):
        texts += (shared_data / "wmt22" / "references" / name).read_text(encoding="utf-8").splitlines()[:600]
    with (shared_data / "summeval" / "summeval.jsonl").open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i == 25:
                break
            texts += json.loads(line)["ref_summs"]
    explained, unexplained, basic = _compare(texts)
    print(f"WMT22 + SummEval: {len(texts)} texts, {explained} differ by the package's extra words, {unexplained} else")
    assert (unexplained, basic) == (0, 0)


_VOCABULARY = (
    "one two twenty five hundred thousand million and a half point oh double triple dollars cents pounds euro "
    "percent per cent minus plus first second twelfth ninetieth sixes 7 12 1,000 3.5 $3 £2.50 €10 7% 1960s 21st "
    "colour theatre organise won't it's he'd we're i'm Mr. Dr. St. hmm um [x] (y) café naïve straße ø 東京 ＡＢＣ "
    "😀 - , . ? ! ' \""
)
WORDS = st.sampled_from(_VOCABULARY.split(" "))


@given(st.lists(WORDS, max_size=12), st.sampled_from([" ", "", "  ", "\t"]))
def test_hypothesis_against_the_package(words: list[str], sep: str) -> None:
    text = sep.join(words)
    _, unexplained, basic = _compare([text])
    assert (unexplained, basic) == (0, 0), text


@pytest.mark.realdata
def test_wer_after_whisper_equals_jiwer_on_the_packages_texts(shared_data: Path) -> None:
    jiwer = pytest.importorskip("jiwer")
    english, _ = _package()
    refs = (shared_data / "wmt22/references/generaltest2022.de-en.ref.A.en").read_text(encoding="utf-8").splitlines()
    hyps = (shared_data / "wmt22/system-outputs/generaltest2022.de-en.hyp.LT22.en").read_text(encoding="utf-8")
    pairs = [(h, r) for h, r in zip(hyps.splitlines(), refs, strict=True) if not PACKAGE_ONLY.search(r + h)][:800]
    hs, rs = [p[0] for p in pairs], [p[1] for p in pairs]
    normalized = [(english(h), english(r)) for h, r in pairs]  # type: ignore[operator]
    keep = [i for i, (h, r) in enumerate(normalized) if r.strip()]  # jiwer refuses an empty reference
    ours = nm.wer([hs[i] for i in keep], [rs[i] for i in keep], normalizer="whisper-english")
    theirs = jiwer.wer([normalized[i][1] for i in keep], [normalized[i][0] for i in keep])
    print(f"WER after whisper-english on {len(keep)} WMT22 de-en pairs: ours {ours.score}, jiwer {theirs}")
    assert ours.score == theirs
    assert "norm:whisper-english" in ours.signature


def test_normalizers_in_every_metric_and_bad_names() -> None:
    r = nm.wer(["Mr Smith paid twenty five dollars"], ["Mister Smith paid $25."], normalizer="whisper-english")
    assert r.score == 0.0
    assert nm.cer("colour", "color", normalizer="whisper-english").score == 0.0  # the one-pair path too
    assert nm.exact_match(["The Colour!"], ["the color"], normalizers=["whisper-english"]).score == 1.0
    assert nm.exact_match(["Ça va?"], ["ça va"], normalizers=["whisper-basic", "strip-whitespace"]).score == 1.0
    pred, ref = ["Mr Smith paid twenty five dollars"], ["Mister Smith paid $25."]
    metric = nm.WordErrorRate(normalizer="whisper-english")  # stateful
    metric.update(pred, ref)
    assert metric.compute().score == 0.0
    assert nm.load("wer").compute(predictions=pred, references=ref, normalizer="whisper-english") == 0.0
    from nlgmetrics.evaluate import Texts, evaluate

    ev = evaluate(Texts(ref), {"a": pred}, ["wer:normalizer=whisper-english"], bootstrap=0, test=None)
    assert ev.scores["wer"]["a"].score == 0.0
    assert "norm:whisper-english" in ev.signatures["wer"]
    with pytest.raises(UnknownOptionError, match="'code_eval' executes the candidate programs; nlgmetrics never"):
        nm.load("code_eval")
    with pytest.raises(UnknownOptionError, match="unknown normalizer 'whisper'; valid values are: 'whisper-basic'"):
        nm.wer(["a"], ["a"], normalizer="whisper")
    with pytest.raises(UnknownOptionError, match="unknown exact_match normalizer 'whisper-en'"):
        nm.exact_match(["a"], ["a"], normalizers=["whisper-en"])
