"""``nlgmetrics sacrebleu`` against sacrebleu 2.6.0's command line, byte for byte.

The expected outputs were printed by sacrebleu 2.6.0 itself (``tests/fixtures/sacrebleu_cli/record.py``) on
generated inputs (``gen/``: CJK, full-width, empty and punctuation-only lines, trailing blanks) and on WMT22; each
case runs here in-process with the same arguments, in the same folder, with the same stdin and environment.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from nlgmetrics.cli.main import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sacrebleu_cli"
GENERATED = json.loads((FIXTURES / "generated.json").read_text(encoding="utf-8"))


def _run(case: dict[str, Any], cwd: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    for key, value in case.get("env", {}).items():
        monkeypatch.setenv(key, value)
    if case.get("stdin"):
        columns = [(cwd / p).read_text(encoding="utf-8").split("\n")[:-1] for p in case["stdin"]]
        data = "".join("\t".join(row) + "\n" for row in zip(*columns, strict=True)).encode()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code = main(["sacrebleu", *case["args"]])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _check(case: dict[str, Any], code: int, out: str, err: str) -> bool:
    """Whether the output is sacrebleu's; where sacrebleu failed, that ours failed too or printed valid JSON."""
    if case["returncode"] == 0:
        return code == 0 and out == case["stdout"]
    if case["returncode"] == 1 and "--paired-bs" in case["args"] and "-f" not in case["args"]:
        # sacrebleu 2.6.0 cannot write float32 bootstrap means as JSON; ours writes the JSON it meant to print
        return code == 0 and isinstance(json.loads(out), list)
    return code == 2 and out == "" and err.startswith("nlgmetrics: error:")


def _mismatches(cases: list[dict[str, Any]], cwd: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> list[Any]:
    out = []
    for case in cases:
        code, stdout, err = _run(case, cwd, monkeypatch, capsys)
        if not _check(case, code, stdout, err):
            out.append((case["args"], stdout[:300], err[:300]))
    return out


def test_generated_byte_for_byte(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    mismatches = _mismatches(GENERATED, FIXTURES / "gen", monkeypatch, capsys)
    print(f"sacrebleu CLI, generated inputs: {len(mismatches)} mismatches of {len(GENERATED)} cases")
    assert mismatches == []


def test_wmt22_byte_for_byte(shared_data: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    cases = json.loads((FIXTURES / "wmt22.json").read_text(encoding="utf-8"))
    mismatches = _mismatches(cases, shared_data / "wmt22", monkeypatch, capsys)
    print(f"sacrebleu CLI, WMT22: {len(mismatches)} mismatches of {len(cases)} cases")
    assert mismatches == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-t", "wmt22", "-l", "en-de"], "nlgmetrics never downloads test sets"),
        (["ref.a.txt", "-i", "hyp.1.txt", "--echo", "src"], "nlgmetrics never downloads test sets"),
        (["--list"], "nlgmetrics never downloads test sets"),
        (["ref.a.txt", "-i", "hyp.1.txt", "-ol", "de"], "--origlang, --subset and --detail"),
        (["ref.a.txt", "-i", "hyp.1.txt", "-tok", "spm"], "the 'spm' tokenizer needs its SentencePiece model"),
        (["-i", "hyp.1.txt"], "give the reference file(s) first"),
        (["ref.a.txt", "-i", "missing.txt"], "system missing.txt: no such file"),
        (["ref.a.txt", "-i", "hyp.1.txt", "-sl", "-m", "bleu", "chrf"], "only one metric"),
        (["ref.a.txt", "-i", "hyp.1.txt", "--paired-bs"], "paired tests need several systems"),
        (["ref.a.txt", "-i", "hyp.1.txt", "hyp.2.txt", "--confidence"], "use a paired test"),
        (["ref.a.txt", "-i", "hyp.1.txt", "-cin", "0", "-ci"], "--confidence-n must be a positive number"),
        (["refs.tsv", "-nr", "2", "-i", "hyp.1.txt"], "refs.tsv:5: expected 2 tab-separated references, found 1"),
    ],
)
def test_errors(args: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.chdir(FIXTURES / "gen")
    monkeypatch.setenv("SACREBLEU", str(FIXTURES / "no-models-here"))  # no SentencePiece model where sacrebleu looks
    assert main(["sacrebleu", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("nlgmetrics: error:"), captured.err
    assert message in captured.err, captured.err


def test_length_mismatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    (tmp_path / "r.txt").write_text("a b\nc d\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("a b\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["sacrebleu", "r.txt", "-i", "h.txt"]) == 2
    assert "h.txt has 1 lines but r.txt has 2" in capsys.readouterr().err


def test_tokenized_period_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    (tmp_path / "r.txt").write_text("it is here .\n" * 100, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["sacrebleu", "r.txt", "-i", "r.txt", "-b"]) == 0
    out = capsys.readouterr()
    assert out.out == "100.0\n"
    assert "tokenized period" in out.err
    assert main(["sacrebleu", "r.txt", "-i", "r.txt", "-b", "--force"]) == 0
    assert capsys.readouterr().err == ""


def test_bleu_tokenize_aliases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """``nlgmetrics bleu`` takes sacrebleu's ``--tokenize``/``-tok``; functions and evaluate specs ``tokenize=``."""
    import nlgmetrics

    monkeypatch.chdir(FIXTURES / "gen")
    runs = []
    for flag in ("--tokenizer", "--tokenize", "-tok"):
        assert main(["bleu", "--pred", "hyp.1.txt", "--ref", "ref.a.txt", flag, "zh", "--json"]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert runs[0] == runs[1] == runs[2]
    preds = ["我们今天去学校", "日本語の文章です"]
    refs = ["我们今天去学校吃饭", "日本語の文章"]
    assert nlgmetrics.bleu(preds, refs, tokenize="zh").score == nlgmetrics.bleu(preds, refs, tokenizer="zh").score
    with pytest.raises(nlgmetrics.errors.InvalidInputError, match="give 'tokenizer' or its alias 'tokenize'"):
        nlgmetrics.bleu(preds, refs, tokenize="zh", tokenizer="13a")
    from nlgmetrics.evaluate import Texts, evaluate

    spec = evaluate(Texts(refs), {"s": Texts(preds)}, ["bleu:tokenize=zh"], bootstrap=0)
    named = evaluate(Texts(refs), {"s": Texts(preds)}, ["bleu:tokenizer=zh"], bootstrap=0)
    assert spec.signatures == named.signatures
    assert "tok:zh" in next(iter(spec.signatures.values()))
