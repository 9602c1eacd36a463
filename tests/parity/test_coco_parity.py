"""The COCO caption evaluation against the real pycocoevalcap 1.2 (its Java PTB tokenizer, its Bleu, Rouge, Cider).

Every test prints the mismatch count (beyond 1e-12) and the largest absolute difference. The tokenizer and the
whole pipeline need Java (pycocoevalcap runs Stanford CoreNLP's jar): without ``java`` on the PATH they skip with
that reason. The scorers alone (pycocoevalcap's ``Bleu``, ``Rouge``, ``Cider`` on pre-tokenized text) are pure
Python and run everywhere; the original CIDEr is compared with outputs of the authors' script (fixtures).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.metrics.cider import CIDER, cider_scores
from nlgmetrics.text.ptb import coco_tokenize, coco_tokenize_stream

pycocoevalcap = pytest.importorskip("pycocoevalcap", reason="pycocoevalcap (the reference) is not installed")
from pycocoevalcap.bleu.bleu import Bleu  # noqa: E402
from pycocoevalcap.cider.cider import Cider  # noqa: E402
from pycocoevalcap.rouge.rouge import Rouge  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cider"
TOL = 1e-12
NAMES = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr")
#: characters that end a line for the Java tokenizer, which misaligns pycocoevalcap's captions (docs/coco.md)
LINE_ENDS = set("\r\x0b\x0c\u2028\u2029")

needs_java = pytest.mark.skipif(
    shutil.which("java") is None, reason="java is not installed: pycocoevalcap's PTB tokenizer is a Java program"
)


def _jar() -> str:
    from pycocoevalcap.tokenizer import ptbtokenizer

    return str(Path(ptbtokenizer.__file__).parent / "stanford-corenlp-3.4.1.jar")


def _report(name: str, got: np.ndarray, expected: np.ndarray) -> int:
    diff = np.abs(np.asarray(got, dtype=float) - np.asarray(expected, dtype=float))
    bad = int((diff > TOL).sum())
    print(
        f"{name}: {len(diff)} values, {bad} mismatches beyond {TOL}, max abs diff {diff.max() if len(diff) else 0:.3g}"
    )
    return bad


# ---------------------------------------------------------------------------------------------- inputs
PIECES = """a A man The dog cannot Cannot gonna wanna gotta lemme don't can't won't I'm they'll 's n't cats' O'Neil
o'clock 'tis 'twas y'all '90s '90 cont'd c'mon e.g. i.e. U.S. U.S U.K. a.m. p.m. Mr. Dr. St. Jan. Inc. Co. etc. vs. No.
no. fig. ca. pty. Ltd Ph.D. a.k.a. B. I. X. 3.5 3,000 1/2 3 1/2 ½ ¼ 12/25/2014 10-12-99 +5 -3 10:30 55-1234 (555)
123-4567 $5 US$ £3 €4 ¥7 ¢ # @ @user #tag http://x.com/a?b=1 www.example.com foo.com bar@baz.org <b> </b> &amp; &lt;
&quot; &apos; &nbsp; &mdash; &eacute; ( ) [ ] { } " ' ` `` '' “ ” ‘ ’ « » „ — – - -- --- ----- ... .... . . . … ! ? ?!
, ; : = / \\ * + % & ~ ^ | _ :) :-) ;) :( :D =) <3 ^_^ c++ C# file.txt x-ray well-known e-mail pro- AT&T S&P-500 café
naïve Zürich Ωmega ΣΟΦΟΣ İstanbul straße 日本語 中文 한국어 Привет 😀 ★ ♥ © ° ² × 、 。 ！ ０１２ ＡＢＣ \u00ad \u200b
\u3000 \u00a0 \t l'homme d'Artagnan doin' 'em 'cause C.D.s -LRB- Cap'n c'est A.B.C. U.S.-U.K. non-U.S. Jr. Blvd. al.
Calif. Mass. Pa. 1. a) III. No.5 no. 5 fig. 3 100km/h and/or 24/7""".split()  # noqa: SIM905
SEPARATORS = [" ", " ", " ", " ", "", "  ", "\u00a0", "\t", ", ", ". ", "-", "'", '"', "/", "."]


def odd_captions(seed: int, n: int) -> list[str]:
    """Captions made of odd pieces: quotes, numbers, contractions, abbreviations, URLs, non-ASCII, emoji."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 9)):
            parts.append(rng.choice(PIECES))
            parts.append(rng.choice(SEPARATORS))
        out.append("".join(parts).strip(" ") if rng.random() < 0.8 else "".join(parts))
    return out


def caption_like(lines: list[str], seed: int, n: int) -> list[str]:
    """Caption-length snippets of real sentences."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.choice(lines).split(" ")
        if len(words) > 16 and rng.random() < 0.7:
            a = rng.randrange(len(words) - 12)
            words = words[a : a + rng.randint(3, 16)]
        out.append(" ".join(words))
    return out


def corpus(captions: list[str], seed: int, n_images: int) -> tuple[list[str], list[list[str]]]:
    """Images with 1-6 references each and one prediction (a few empty), drawn from ``captions``."""
    rng = random.Random(seed)
    refs = [[rng.choice(captions) for _ in range(rng.randint(1, 6))] for _ in range(n_images)]
    preds = [rng.choice(captions) if rng.random() < 0.97 else "" for _ in range(n_images)]
    return preds, refs


def pycocoevalcap_scores(preds: list[str], refs: list[list[str]]) -> dict[str, tuple[float, np.ndarray]]:
    """pycocoevalcap's COCOEvalCap.evaluate, step by step (its PTBTokenizer, Bleu(4), Rouge(), Cider())."""
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    gts = {i: [{"caption": c} for c in r] for i, r in enumerate(refs)}
    res = {i: [{"caption": p}] for i, p in enumerate(preds)}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        tokenizer = PTBTokenizer()
        gts_t, res_t = tokenizer.tokenize(gts), tokenizer.tokenize(res)
        bleu, bleus = Bleu(4).compute_score(gts_t, res_t, verbose=0)
        rouge, rouges = Rouge().compute_score(gts_t, res_t)
        cider, ciders = Cider().compute_score(gts_t, res_t)
    out = {f"Bleu_{k + 1}": (bleu[k], np.asarray(bleus[k])) for k in range(4)}
    out["ROUGE_L"] = (rouge, np.asarray(rouges))
    out["CIDEr"] = (float(cider), np.asarray(ciders))
    return out


def compare_suite(preds: list[str], refs: list[list[str]]) -> int:
    expected = pycocoevalcap_scores(preds, refs)
    got = nm.coco(preds, refs, segments=True)
    cider = nm.cider(preds, refs)
    bad = 0
    for name in NAMES:
        corpus_score, per_image = expected[name]
        bad += _report(f"{name} corpus", np.array([got.score[name]]), np.array([corpus_score]))
        bad += _report(f"{name} per image", np.array([s[name] for s in got.segments]), per_image)
    bad += _report("cider() per image", np.array(cider.segments), expected["CIDEr"][1])
    return bad


# ---------------------------------------------------------------------------------------------- tokenizer
def java_tokenize_each(captions: list[str]) -> list[str]:
    """The Java tokenizer with pycocoevalcap's flags and punctuation removal, each caption followed by a line
    that starts with a period (the neutral context of :func:`coco_tokenize`)."""
    from pycocoevalcap.tokenizer.ptbtokenizer import PUNCTUATIONS

    with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as fh:
        fh.write(("\n.\n".join(captions) + "\n.").encode("utf-8"))
    try:
        cmd = ["java", "-cp", _jar(), "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines", "-lowerCase", fh.name]
        out = subprocess.run(cmd, capture_output=True, check=True).stdout.decode("utf-8")
    finally:
        os.remove(fh.name)
    lines = out.split("\n")[0::2][: len(captions)]
    return [" ".join(w for w in line.rstrip().split(" ") if w not in PUNCTUATIONS) for line in lines]


@needs_java
def test_tokenizer_matches_the_java_tokenizer_on_odd_captions() -> None:
    captions = [c for c in odd_captions(11, 3000) if not set(c) & LINE_ENDS]
    captions += ["", " ", "...", "A man (riding) a horse.", "He can't; won't they?", "“Quoted” ‘text’ — dash…"]
    expected = java_tokenize_each(captions)
    got = [coco_tokenize(c) for c in captions]
    bad = [(c, e, g) for c, e, g in zip(captions, expected, got, strict=True) if e != g]
    print(f"tokenizer: {len(captions)} odd captions, {len(bad)} differ from Java")
    assert not bad, bad[:5]


@needs_java
def test_tokenizer_matches_the_java_tokenizer_on_every_bmp_character() -> None:
    chars = [chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF and chr(c) not in LINE_ENDS | {"\n"}]
    captions = [f"a{c}b {c} 1{c}2 {c}{c}x" for c in chars[::7]]  # every 7th: a few seconds
    expected = java_tokenize_each(captions)
    got = [coco_tokenize(c) for c in captions]
    bad = [(c, e, g) for c, e, g in zip(captions, expected, got, strict=True) if e != g]
    print(f"tokenizer: {len(captions)} characters of the BMP in 4 contexts, {len(bad)} differ from Java")
    assert not bad, bad[:5]


@needs_java
def test_stream_tokenization_matches_pycocoevalcap_file_order(shared_data: Path) -> None:
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    lines = (shared_data / "wmt22" / "references" / "generaltest2022.de-en.ref.A.en").read_text("utf-8").splitlines()
    captions = [c for c in caption_like(lines, 5, 1500) if not set(c) & LINE_ENDS]
    captions += ["the letter B.", "A man on a horse.", "plan B.", "The end", "no.", "5 dogs", "fig.", "12 cats"]
    with contextlib.redirect_stdout(io.StringIO()):
        expected = PTBTokenizer().tokenize({0: [{"caption": c} for c in captions]})[0]
    got = coco_tokenize_stream(captions)
    bad = [(c, e, g) for c, e, g in zip(captions, expected, got, strict=True) if e != g]
    print(f"stream tokenization: {len(captions)} captions in one file, {len(bad)} differ from pycocoevalcap")
    assert not bad, bad[:5]
    assert got[captions.index("the letter B.")] == "the letter b"  # "A man ..." follows: the period goes
    assert coco_tokenize("the letter B.") == "the letter b."


# ---------------------------------------------------------------------------------------------- the whole suite
@needs_java
def test_suite_matches_pycocoevalcap_on_odd_captions() -> None:
    captions = [c for c in odd_captions(7, 1500) if not set(c) & LINE_ENDS]
    preds, refs = corpus(captions, 8, 400)
    assert compare_suite(preds, refs) == 0


@needs_java
def test_suite_matches_pycocoevalcap_on_real_sentences(shared_data: Path) -> None:
    lines: list[str] = []
    for name in ("generaltest2022.de-en.ref.A.en", "generaltest2022.zh-en.ref.A.en"):
        lines += (shared_data / "wmt22" / "references" / name).read_text("utf-8").splitlines()
    for row in map(json.loads, (shared_data / "summeval" / "summeval.jsonl").read_text("utf-8").splitlines()[:60]):
        for ref in row["ref_summs"][:4]:
            lines += ref.split("\n")
    lines = [x for x in lines if not set(x) & LINE_ENDS]
    preds, refs = corpus(caption_like(lines, 3, 3000), 4, 1200)
    assert compare_suite(preds, refs) == 0


# ---------------------------------------------------------------------------------------------- scorers alone
TOKENS = st.sampled_from(
    [
        "a",
        "the",
        "man",
        "dog",
        "on",
        "in",
        "of",
        "riding",
        "horse",
        "-lrb-",
        "'s",
        "n't",
        "日本",
        "ß",
        "2",
        "&",
        "a.",
        "x",
    ]
)
CAPTION = st.lists(TOKENS, min_size=0, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(CAPTION, st.lists(CAPTION, min_size=1, max_size=5)), min_size=1, max_size=12))
def test_scorers_match_pycocoevalcap_on_tokenized_captions(images: list[tuple[str, list[str]]]) -> None:
    gts = {i: list(r) for i, (_, r) in enumerate(images)}
    res = {i: [c] for i, (c, _) in enumerate(images)}
    preds, refs = [c for c, _ in images], [list(r) for _, r in images]
    if not any(r.split() for _, rs in images for r in rs):
        # no reference holds a token: pycocoevalcap's CIDEr fails (max() of no document frequency), ours is 0
        with pytest.raises(ValueError, match="empty"):
            Cider().compute_score(gts, res)
        assert nm.cider(preds, refs, tokenizer="none").segments == (0.0,) * len(images)
        return
    cider, ciders = Cider().compute_score(gts, res)
    ours = cider_scores([(c, tuple(r)) for c, r in images], CIDER.make_config("cider-d", tokenizer="none"))
    assert _report("CIDEr-D per image", ours, ciders) == 0
    got = nm.coco(preds, refs, tokenizer="none", segments=True)
    assert _report("CIDEr corpus", np.array([got.score["CIDEr"]]), np.array([cider])) == 0
    with contextlib.redirect_stdout(io.StringIO()):
        bleu, bleus = Bleu(4).compute_score(gts, res, verbose=0)
    rouge, rouges = Rouge().compute_score(gts, res)
    for k in range(4):
        assert _report(f"Bleu_{k + 1}", np.array([s[f"Bleu_{k + 1}"] for s in got.segments]), bleus[k]) == 0
        assert _report(f"Bleu_{k + 1} corpus", np.array([got.score[f"Bleu_{k + 1}"]]), np.array([bleu[k]])) == 0
    assert _report("ROUGE_L", np.array([s["ROUGE_L"] for s in got.segments]), rouges) == 0
    assert _report("ROUGE_L corpus", np.array([got.score["ROUGE_L"]]), np.array([rouge])) == 0


def test_scorer_speed_case_matches_pycocoevalcap_on_5000_images() -> None:
    rng = random.Random(1)
    words = "a the man dog cat on in of with riding horse sitting table red blue two is are playing near".split()  # noqa: SIM905

    def cap() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))

    images = [(cap(), [cap() for _ in range(5)]) for _ in range(1500)]
    _, expected = Cider().compute_score(
        {i: r for i, (_, r) in enumerate(images)}, {i: [c] for i, (c, _) in enumerate(images)}
    )
    ours = cider_scores([(c, tuple(r)) for c, r in images], CIDER.make_config("cider-d", tokenizer="none"))
    assert _report("CIDEr-D, 1500 images x 5 references", ours, expected) == 0


def test_original_cider_matches_the_authors_script() -> None:
    data = json.loads((FIXTURES / "vrama91-cider-corpus.json").read_text("utf-8"))
    result = nm.cider([c for c, _ in data["items"]], [r for _, r in data["items"]], preset="cider", tokenizer="none")
    assert _report("CIDEr (original) per image", np.array(result.segments), np.array(data["scores"])) == 0
    assert _report("CIDEr (original) corpus", np.array([result.score]), np.array([data["score"]])) == 0
