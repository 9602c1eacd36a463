"""METEOR 1.5 against the real pycocoevalcap 1.2 (its ``Meteor``, its ``COCOEvalCap``, its ``meteor-1.5.jar``).

Every test prints the mismatch count (beyond 1e-12) and the largest absolute difference. They need Java and skip
without it. The JVM, with its paraphrase table, takes seconds to start, so this module starts two and keeps them:
pycocoevalcap's ``Meteor()`` (one fixture for the module) and ours (shared by every call of the process).
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.metrics.meteor.v15 import METEOR15, meteor15_from_stats, parse_stats, stats_columns

pytest.importorskip("pycocoevalcap", reason="pycocoevalcap (the reference) is not installed")
pytestmark = pytest.mark.skipif(
    shutil.which("java") is None, reason="java is not installed: METEOR 1.5 is pycocoevalcap's Java jar"
)

TOL = 1e-12
CFG = METEOR15.make_config()


def _report(name: str, got: Any, expected: Any) -> int:
    a, b = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    with np.errstate(invalid="ignore"):
        diff = np.where((a == b) | (np.isnan(a) & np.isnan(b)), 0.0, np.abs(a - b))  # inf == inf too
    diff[np.isnan(diff)] = np.inf  # NaN on one side only: a mismatch
    bad = int((diff > TOL).sum())
    print(
        f"{name}: {diff.size} values, {bad} mismatches beyond {TOL}, max abs diff {diff.max() if diff.size else 0:.3g}"
    )
    return bad


@pytest.fixture(scope="module")
def reference() -> Any:
    from pycocoevalcap.meteor.meteor import Meteor

    meteor = Meteor()
    yield meteor
    del meteor


def jar_eval(reference: Any, lines: list[str]) -> tuple[float, list[float]]:
    """The jar's own ``EVAL ||| stats ||| ...``: each line's score, then the aggregate's."""
    proc = reference.meteor_p
    proc.stdin.write(("EVAL ||| " + " ||| ".join(lines) + "\n").encode())
    proc.stdin.flush()
    scores = [float(proc.stdout.readline().strip()) for _ in lines]
    return float(proc.stdout.readline().strip()), scores


def compare(reference: Any, preds: list[str], refs: list[list[str]], name: str) -> int:
    gts = {i: list(r) for i, r in enumerate(refs)}
    res = {i: [p] for i, p in enumerate(preds)}
    score, scores = reference.compute_score(gts, res)
    got = nm.meteor15(preds, refs, segments=True)
    bad = _report(f"{name}: corpus", [got.score], [score])
    bad += _report(f"{name}: per image", got.segments, scores)
    return bad


# ---------------------------------------------------------------------------------------------- inputs
WORDS = """a A man men woman The dog dogs cat is are riding rides rode horse horses on the beach in of with near playing
plays played snow ball red blue white two three people person sitting sits table food plate sandwich pizza
street car cars bus train bike bicycle young old small large big standing stands next to it its while front up
down water boat kitchen room bed couch tv computer laptop phone ( ) , . ! ? ; : - -- ' " `` '' 's n't can't
won't don't café naïve Zürich 日本語 中文 😀 ½ & @ # $ % 3 10 1,000 3.5 e.g. U.S. Mr. straße Ωmega ...""".split()  # noqa: SIM905


def caption(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 14)))


def generated(seed: int, n: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    preds, refs = [], []
    for _ in range(n):
        rs = [caption(rng) for _ in range(rng.randint(1, 5))]
        r = rng.random()
        p = rs[0] if r < 0.08 else rs[0].upper() if r < 0.1 else caption(rng) if r < 0.97 else ""
        preds.append(p)
        refs.append(rs)
    return preds, refs


def real_captions(shared_data: Path, seed: int, n: int) -> list[str]:
    lines: list[str] = []
    for name in ("generaltest2022.de-en.ref.A.en", "generaltest2022.zh-en.ref.A.en"):
        lines += (shared_data / "wmt22" / "references" / name).read_text("utf-8").splitlines()
    for row in map(json.loads, (shared_data / "summeval" / "summeval.jsonl").read_text("utf-8").splitlines()[:40]):
        for ref in row["ref_summs"][:3]:
            lines += ref.split("\n")
    lines = [x.replace("|||", " ") for x in lines if x.strip() and "\r" not in x]
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.choice(lines).split(" ")
        if len(words) > 16:
            a = rng.randrange(len(words) - 12)
            words = words[a : a + rng.randint(3, 16)]
        out.append(" ".join(words))
    return out


# ---------------------------------------------------------------------------------------------- tests
def test_meteor15_matches_pycocoevalcap_on_generated_captions(reference: Any) -> None:
    preds, refs = generated(1, 400)
    assert compare(reference, preds, refs, "generated captions, 400 images x 1-5 references") == 0


def test_meteor15_matches_pycocoevalcap_on_real_sentences(reference: Any, shared_data: Path) -> None:
    captions = real_captions(shared_data, 2, 2000)
    rng = random.Random(3)
    refs = [[rng.choice(captions) for _ in range(rng.randint(1, 5))] for _ in range(500)]
    preds = [rng.choice(captions) if rng.random() < 0.9 else rs[0] for rs in refs]
    assert compare(reference, preds, refs, "WMT22/SummEval sentences, 500 images x 1-5 references") == 0


def test_formula_restates_the_jars_eval(reference: Any) -> None:
    """Our formula on the jar's statistics against the jar's own EVAL line, per line and aggregate: on the
    statistics of real segments, and on arbitrary counts (zero lengths, no matches, all function words, and
    impossible ones: more matches than words, which the jar scores Infinity)."""
    preds, refs = generated(5, 300)
    from nlgmetrics.metrics.meteor.jar import run

    raw = run(
        [("SCORE ||| " + " ||| ".join(r) + " ||| " + p + "\n").encode() for p, r in zip(preds, refs, strict=True)]
    )
    rng = np.random.default_rng(0)
    synthetic = []
    for _ in range(300):
        v = rng.integers(0, 6, size=23)
        if rng.random() < 0.3:
            v[:] = 0
            v[0], v[1] = rng.integers(0, 3, size=2)
        synthetic.append(" ".join(f"{float(x)}" for x in v))
    bad = 0
    for name, lines in (("jar statistics of 300 segments", raw), ("300 arbitrary statistics", synthetic)):
        score, scores = jar_eval(reference, lines)
        rows = parse_stats(lines)
        columns = stats_columns(rows)
        per = meteor15_from_stats(METEOR15.stats_cls(**columns, count=np.ones(len(rows), dtype=np.int64)), CFG)
        bad += _report(f"{name}: per line", per.score, scores)
        total = METEOR15.stats_cls(
            **{k: tuple(int(x) for x in v.sum(axis=0)) if v.ndim == 2 else int(v.sum()) for k, v in columns.items()},
            count=len(rows),
        )
        bad += _report(f"{name}: aggregate", [meteor15_from_stats(total, CFG).score], [score])
    assert bad == 0


def test_batches_and_merge_give_the_one_call_number(reference: Any) -> None:
    preds, refs = generated(7, 90)
    one = nm.meteor15(preds, refs)
    m = nm.METEOR15()
    for lo in range(0, 90, 17):
        m.update(preds[lo : lo + 17], refs[lo : lo + 17])
    assert m.compute().score == one.score


PUNCT = st.sampled_from([".", ",", "!", "?", "...", "--", "(", ")", '"', "'", ";", ":", "-", "&", "#", "|", "||"])
WORD = st.one_of(
    st.sampled_from(["a", "the", "man", "dog", "riding", "horse", "on", "beach", "of", "playing", "running"]),
    st.sampled_from(["日本語", "中文", "한국어", "café", "Zürich", "ＡＢＣ", "１２", "😀", "straße", "İ", "ß", "ﬁ"]),
    PUNCT,
)
CAPTION = st.lists(WORD, min_size=0, max_size=10).map(" ".join)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(CAPTION, st.lists(CAPTION, min_size=1, max_size=4)), min_size=1, max_size=8))
def test_meteor15_matches_pycocoevalcap_on_hypothesis_captions(reference: Any, images: list[Any]) -> None:
    preds = [p for p, _ in images]
    refs = [list(r) for _, r in images]
    assert compare(reference, preds, refs, "hypothesis captions") == 0


# ---------------------------------------------------------------------------------------------- the suite
def test_coco_suite_with_meteor_matches_cocoevalcap(reference: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``COCOEvalCap.evaluate()`` itself (its Java PTB tokenizer, Bleu, Meteor, Rouge, Cider; SPICE replaced by a
    stub, since it downloads Stanford CoreNLP) against ``coco(meteor=True)``, per image and corpus. Its ``Meteor()``
    is the module's (the same class and jar, already started: one JVM start less)."""
    from pycocoevalcap import eval as coco_eval

    monkeypatch.setattr(coco_eval, "Meteor", lambda: reference)

    class NoSpice:
        def compute_score(self, gts: Any, res: Any) -> tuple[float, list[float]]:
            return 0.0, [0.0] * len(gts)

        def method(self) -> str:
            return "SPICE"

    monkeypatch.setattr(coco_eval, "Spice", NoSpice)
    preds, refs = generated(9, 300)

    class Annotations:
        def __init__(self, per_image: list[list[str]]) -> None:
            self.imgToAnns = {i: [{"image_id": i, "caption": c} for c in caps] for i, caps in enumerate(per_image)}

        def getImgIds(self) -> list[int]:
            return list(self.imgToAnns)

    evaluator = coco_eval.COCOEvalCap(Annotations(refs), Annotations([[p] for p in preds]))
    with contextlib.redirect_stdout(io.StringIO()):
        evaluator.evaluate()
    got = nm.coco(preds, refs, meteor=True, segments=True)
    names = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr")
    assert tuple(got.score) == names
    bad = 0
    for name in names:
        bad += _report(f"COCOEvalCap {name}: corpus", [got.score[name]], [evaluator.eval[name]])
        expected = [evaluator.imgToEval[i][name] for i in range(len(preds))]
        bad += _report(f"COCOEvalCap {name}: per image", [s[name] for s in got.segments], expected)
    assert bad == 0
