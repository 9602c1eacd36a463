"""METEOR 1.5 (pycocoevalcap's jar): the formula, the input checks, and the Java process's life and failures.

These tests need no Java: the formula is checked against numbers the jar printed, and the process plumbing runs a
stand-in ``java`` (``tests/fake_meteor.py``). The real jar is compared in tests/parity/test_meteor15_parity.py.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import nlgmetrics as nm
from nlgmetrics.cli.main import main
from nlgmetrics.errors import ExternalToolError, InvalidInputError, MissingDependencyError
from nlgmetrics.metrics.meteor import jar as meteor_jar
from nlgmetrics.metrics.meteor.v15 import (
    METEOR15,
    meteor15_from_stats,
    meteor15_lines,
    parse_stats,
    stats_columns,
)
from tests import fake_meteor

CFG = METEOR15.make_config()


def stats_of(lines: list[str]) -> tuple[object, object]:
    """Per-line statistics (columns) and their sum, from the jar's statistics lines."""
    columns = stats_columns(parse_stats(lines))
    per = METEOR15.stats_cls(**columns, count=np.ones(len(lines), dtype=np.int64))
    total = METEOR15.stats_cls(
        **{k: tuple(int(x) for x in v.sum(axis=0)) if v.ndim == 2 else int(v.sum()) for k, v in columns.items()},
        count=len(lines),
    )
    return per, total


# ---------------------------------------------------------------------------------------------- the formula
#: Two segments and what ``java -jar meteor-1.5.jar hyp.txt ref.txt -l en -norm`` printed for them:
#: "a man riding a horse" / "a man rides a brown horse", and "the cat sat" / "the cat sat" (a complete match).
JAR_LINES = [
    "5.0 6.0 2.0 2.0 2.0 2.0 2.0 2.0 1.0 1.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 2.0 5.0 5.0",
    "3.0 3.0 1.0 1.0 2.0 2.0 1.0 1.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 1.0 3.0 3.0",
]
JAR_SEGMENTS = (0.3619621505887075, 1.0)
JAR_SYSTEM = 0.44578046252007747  # "Final score"; its "Chunks: 2" leaves out the complete match's chunk


def test_formula_gives_the_jars_numbers() -> None:
    per, total = stats_of(JAR_LINES)
    assert tuple(meteor15_from_stats(per, CFG).score.tolist()) == JAR_SEGMENTS
    result = meteor15_from_stats(total, CFG)
    assert result.score == JAR_SYSTEM
    assert result.chunks == 2
    assert result.matches == {"exact": 7, "stem": 1, "synonym": 0, "paraphrase": 0}
    assert (result.test_words, result.reference_words, result.count) == (8, 9, 2)
    assert (result.precision, result.recall) == (0.9333333333333333, 0.8)  # the jar's verbose figures
    assert (result.fmean, result.penalty) == (0.8175182481751824, 0.4547149699531194)


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "meteor15" / "jar-eval.json"


def test_formula_matches_the_recorded_eval_of_the_jar() -> None:
    """The jar's EVAL (tests/fixtures/meteor15): 300 segments' statistics and 200 arbitrary ones."""
    data = json.loads(FIXTURE.read_text("utf-8"))
    per, total = stats_of(data["stats"])
    got = np.asarray(meteor15_from_stats(per, CFG).score)
    expected = np.asarray([float(x) for x in data["eval_scores"]])
    same = (got == expected) | (np.abs(got - expected) <= 1e-12)
    print(
        f"per line: {len(got)} values, {int((~same).sum())} mismatches beyond 1e-12, "
        f"max abs diff {np.max(np.abs(got - expected)):.3g}"
    )
    assert same.all()
    assert abs(meteor15_from_stats(total, CFG).score - float(data["eval_aggregate"])) <= 1e-12
    _, total300 = stats_of(data["stats"][:300])
    assert abs(meteor15_from_stats(total300, CFG).score - float(data["eval_aggregate_of_segments"])) <= 1e-12


def test_complete_match_chunk_is_left_out_as_the_jar_adds() -> None:
    rows = parse_stats(JAR_LINES)
    assert rows[:, 20].tolist() == [2, 0]  # the complete one-chunk match counts no chunk


def test_formula_on_nothing_is_zero() -> None:
    zero = METEOR15.zero(CFG)
    assert meteor15_from_stats(zero, CFG).score == 0.0
    per, total = stats_of(["0.0 " * 22 + "0.0", "2.0 3.0" + " 0.0" * 21])
    assert meteor15_from_stats(per, CFG).score.tolist() == [0.0, 0.0]  # no words; no match
    assert meteor15_from_stats(total, CFG).score == 0.0


def test_parse_stats_rejects_what_is_not_statistics() -> None:
    with pytest.raises(ExternalToolError, match=r"answered segment 1 with 'Error: specify"):
        parse_stats([JAR_LINES[0], "Error: specify hypothesis and at least one reference"])
    with pytest.raises(ExternalToolError, match="not 23 word counts"):
        parse_stats(["1.0 2.0"])
    with pytest.raises(ExternalToolError, match="not 23 word counts"):
        parse_stats(["0.5" + " 0.0" * 22])


# ---------------------------------------------------------------------------------------------- input
def test_lines_escape_the_prediction_as_pycocoevalcap_does() -> None:
    lines = meteor15_lines(["a ||| b  c", "x|||||y"], [["r1", "r2"], ["z"]])
    assert lines == [b"SCORE ||| r1 ||| r2 ||| a b c\n", b"SCORE ||| z ||| x||y\n"]
    assert meteor15_lines([""], [[""]]) == [b"SCORE |||  ||| \n"]


@pytest.mark.parametrize(
    ("preds", "refs", "message"),
    [
        (["a", "b|||"], [["x"], ["y|||z"]], r"references\[1\]\[0\] holds '\|\|\|'.*split it into several"),
        (["a\nb"], [["x"]], r"predictions\[0\] holds a line break \('\\n'\)"),
        (["a"], [["x", "y\rz"]], r"references\[0\]\[1\] holds a line break \('\\r'\)"),
        (["a\ud800"], [["x"]], r"segment 0 is not valid Unicode text"),
    ],
)
def test_input_pycocoevalcap_would_garble_is_an_error(preds, refs, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError, match=message):
        meteor15_lines(preds, refs)


def test_options_are_checked() -> None:
    with pytest.raises(nm.UnknownOptionError, match="English only"):
        nm.meteor15(["a"], ["a"], language="de")
    with pytest.raises(InvalidInputError, match="normalize must be True or False"):
        nm.meteor15(["a"], ["a"], normalize="yes")
    with pytest.raises(InvalidInputError, match=r"timeout must be >= 0\.001"):
        nm.meteor15(["a"], ["a"], timeout=0)
    with pytest.raises(InvalidInputError, match="meteor must be True or False"):
        nm.coco(["a"], ["a"], meteor=1)


def test_signature_names_the_setting_not_the_timeout() -> None:
    cfg = METEOR15.make_config(timeout=5)
    from nlgmetrics.metrics.base import signature_of

    assert signature_of(METEOR15, cfg) == f"meteor15|lang:en|norm:yes|preset:pycocoevalcap|nlgmetrics:{nm.__version__}"


# ---------------------------------------------------------------------------------------------- dependencies
def test_no_java_is_a_missing_dependency(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    meteor_jar.close()
    monkeypatch.setattr(meteor_jar, "_FOUND", {})
    monkeypatch.setattr(meteor_jar, "jar_dir", lambda: tmp_path)
    monkeypatch.setattr(meteor_jar.shutil, "which", lambda name: None)
    with pytest.raises(MissingDependencyError, match=r"runs in Java, which is not on the PATH.*default-jre-headless"):
        nm.meteor15(["a"], ["a"])
    with pytest.raises(MissingDependencyError, match="Java"):
        nm.coco(["a"], ["a"], meteor=True)


def test_no_pycocoevalcap_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meteor_jar, "_FOUND", {})  # forget where an earlier call found the jar
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MissingDependencyError, match=r"meteor-1.5.jar.*pip install 'nlgmetrics\[coco-meteor\]'"):
        nm.meteor15(["a"], ["a"])
    assert "METEOR" not in nm.coco(["a b"], ["a b"]).score  # without meteor=True: no jar, no Java


# ---------------------------------------------------------------------------------------------- the process
PREDS = ["the man is riding a horse", "two dogs", "a plate of food", ""]
REFS = [["a man is riding the horse", "x"], ["two dogs play"], ["food"], ["nothing here"]]


def test_one_process_serves_every_call_and_closes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    log = fake_meteor.install(monkeypatch, tmp_path)
    try:
        a = nm.meteor15(PREDS, REFS, segments=True)
        m = nm.METEOR15()
        m.update(PREDS[:1], REFS[:1])
        m.update(PREDS[1:], REFS[1:])
        assert m.compute().score == a.score
        assert nm.coco(PREDS, REFS, meteor=True, tokenizer="none").score["METEOR"] == a.score
        started = log.read_text().splitlines()
        assert len(started) == 1  # one JVM for all these calls
        assert started[0].split()[1:] == ["-jar", "-Xmx2G", "meteor-1.5.jar", "-", "-", "-stdio", "-l", "en", "-norm"]
        (proc,) = meteor_jar.running()
    finally:
        meteor_jar.close()
    assert proc.returncode == 0  # ended by closing its input, and reaped: no zombie
    assert meteor_jar.running() == []
    nm.meteor15(PREDS, REFS, normalize=False)
    assert log.read_text().splitlines()[-1].split()[-1] == "en"  # a new process, without -norm
    meteor_jar.close()


def test_idle_process_is_closed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_meteor.install(monkeypatch, tmp_path)
    monkeypatch.setattr(meteor_jar, "IDLE_SECONDS", 0.2)
    nm.meteor15(PREDS, REFS)
    (proc,) = meteor_jar.running()
    proc.wait(timeout=30)
    assert meteor_jar.running() == []


def test_a_dying_jvm_is_an_error_with_its_stderr(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_meteor.install(monkeypatch, tmp_path, "die")
    with pytest.raises(
        ExternalToolError,
        match=r"(?s)ended unexpectedly while scoring segment 1 of 4 \(exit status 3\)"
        r".*OutOfMemoryError: Java heap space",
    ):
        nm.meteor15(PREDS, REFS)
    assert meteor_jar.running() == []
    meteor_jar.close()


def test_a_silent_jvm_times_out_and_is_stopped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_meteor.install(monkeypatch, tmp_path, "hang")
    with pytest.raises(ExternalToolError, match=r"gave no answer for 0.5 s \(segment 0 of 4\); it was stopped"):
        nm.meteor15(PREDS, REFS, timeout=0.5)
    assert meteor_jar.running() == []


def test_an_unexpected_answer_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_meteor.install(monkeypatch, tmp_path, "garbage")
    with pytest.raises(ExternalToolError, match="answered segment 0 with 'Error: specify SCORE or EVAL or SING'"):
        nm.meteor15(PREDS, REFS)
    meteor_jar.close()


def test_result_explains_itself(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_meteor.install(monkeypatch, tmp_path)
    try:
        r = nm.meteor15(["a b c"], ["x y"], segments=True)
        assert r.score == 0.0
        assert r.matches == {"exact": 0, "stem": 0, "synonym": 0, "paraphrase": 0}
        d = r.to_dict()
        assert json.loads(json.dumps(d))["count"] == 1
        coco = nm.coco(PREDS, REFS, meteor=True, tokenizer="none", segments=True)
        assert list(coco.score) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]
        assert list(coco.segments[0]) == list(coco.score)
        assert coco.to_dict()["meteor"]["score"] == coco.score["METEOR"]
        assert dataclasses.replace(coco.meteor).count == 4
    finally:
        meteor_jar.close()


def test_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_meteor.install(monkeypatch, tmp_path)
    try:
        results = [{"image_id": i, "caption": p} for i, p in enumerate(PREDS)]
        ann = {"annotations": [{"image_id": i, "caption": c} for i, rs in enumerate(REFS) for c in rs]}
        (tmp_path / "res.json").write_text(json.dumps(results), encoding="utf-8")
        (tmp_path / "ann.json").write_text(json.dumps(ann), encoding="utf-8")
        expected = nm.meteor15(PREDS, REFS)
        code = main(["meteor15", "--pred", str(tmp_path / "res.json"), "--ref", str(tmp_path / "ann.json"), "--json"])
        out = capsys.readouterr()
        assert code == 0, out.err
        assert json.loads(out.out)["meteor15"] == expected.score
        args = ["coco", "--pred", str(tmp_path / "res.json"), "--ref", str(tmp_path / "ann.json")]
        code = main([*args, "--meteor", "--tokenizer", "none", "--json"])
        out = capsys.readouterr()
        assert code == 0, out.err
        assert json.loads(out.out)["METEOR"] == expected.score
        (tmp_path / "bad.json").write_text(json.dumps([{"image_id": 0, "caption": "a\nb"}]), encoding="utf-8")
        code = main(["meteor15", "--pred", str(tmp_path / "bad.json"), "--ref", str(tmp_path / "ann.json")])
        assert code == 2
        assert "holds a line break" in capsys.readouterr().err
    finally:
        meteor_jar.close()
