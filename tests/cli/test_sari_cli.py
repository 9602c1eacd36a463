"""``nlgmetrics sari``: sources from --src or from a JSON Lines field, several --ref files, errors."""

from __future__ import annotations

import json

import nlgmetrics as nm

SRC = ["About 95 species are currently accepted .", "The cat perched on the mat."]
PRED = ["About 95 you now get in .", "The cat sat on the mat."]
REF_A = ["About 95 species are currently known .", "The cat sat on the mat."]
REF_B = ["95 species are now accepted .", "A cat sat on the mat."]


def test_text_files(cli, write):
    files = [write(n, lines) for n, lines in (("s.txt", SRC), ("p.txt", PRED), ("a.txt", REF_A), ("b.txt", REF_B))]
    out = cli("sari", "--src", files[0], "--pred", files[1], "--ref", files[2], "--ref", files[3], "--json").json()
    expected = nm.sari(PRED, [list(r) for r in zip(REF_A, REF_B, strict=True)], SRC)
    assert out["sari"] == expected.score
    assert out["signature"] == expected.signature
    assert out["keep"] == expected.keep


def test_jsonl_with_a_source_field_and_per_segment(cli, tmp_path):
    path = tmp_path / "in.jsonl"
    rows = [
        {"src": s, "prediction": p, "references": [a, b]} for s, p, a, b in zip(SRC, PRED, REF_A, REF_B, strict=True)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run = cli("sari", "--pred", path, "--src-field", "src", "--per-segment", "--tokenizer", "intl")
    assert run.code == 0, run.err
    expected = nm.sari(PRED, [[a, b] for a, b in zip(REF_A, REF_B, strict=True)], SRC, segments=True, tokenizer="intl")
    assert f"SARI = {expected.score:.5f}" in run.out or f"sari = {expected.score:.5f}" in run.out
    assert run.out.strip().splitlines()[-1] == f"2\t{expected.segments[1]:.5f}"


def test_missing_sources_and_mismatched_lines(cli, write):
    p, a = write("p.txt", PRED), write("a.txt", REF_A)
    run = cli("sari", "--pred", p, "--ref", a)
    assert run.code == 2
    assert "sari needs sources: give --src FILE" in run.err
    run = cli("sari", "--pred", p, "--ref", a, "--src", write("s.txt", SRC[:1]))
    assert run.code == 2
    assert "has 2 lines but --src" in run.err
