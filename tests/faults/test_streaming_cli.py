"""Issue 23, memory: the single-metric commands read and score plain text and JSON Lines chunk by chunk (1M
lines: 71 MiB for bleu where they held 688 MiB, 81 MiB for rouge where 2.4 GB), with the numbers, the per-segment
scores and the error messages of one call on the whole input."""

from __future__ import annotations

import json
import random

import pytest

from nlgmetrics.cli import stream
from nlgmetrics.metrics.base import Family

RNG = random.Random(7)
WORDS = ["the", "cat", "sat", "on", "mat", "日本", "語", "dog", ".", "a", "quick", "fox", "runs"]
N = 23


def sentence(minimum=0):
    return " ".join(RNG.choice(WORDS) for _ in range(RNG.randint(minimum, 9)))


PREDS = [sentence() for _ in range(N)]
REFS1 = [sentence(1) for _ in range(N)]
REFS2 = [sentence(1) for _ in range(N)]
SRCS = [sentence() for _ in range(N)]

# every family command that streams, with a preset that changes how it counts
COMMANDS = [
    ("bleu", []),
    ("bleu", ["--preset", "nltk", "--smoothing", "method7"]),
    ("bleu", ["--confidence", "20"]),
    ("rouge", ["--bootstrap-samples", "20"]),
    ("chrf", ["--preset", "chrf++"]),
    ("ter", []),
    ("rouge", []),
    ("rouge", ["--preset", "rouge155"]),
    ("nls", []),
    ("anls", []),
    ("eed", []),
    ("character", []),
    ("gleu", []),
    ("meteor", []),
    ("nist", ["--preset", "mteval-13a"]),
    ("ribes", []),
    ("exact-match", []),
    ("sari", []),
    ("wer", []),
    ("cer", []),
]


@pytest.fixture
def files(write):
    return {
        "pred": write("p.txt", PREDS),
        "ref1": write("r1.txt", REFS1),
        "ref2": write("r2.txt", REFS2),
        "src": write("s.txt", SRCS),
        "jsonl": write(
            "j.jsonl",
            [
                json.dumps({"prediction": p, "references": [a, b], "source": s}, ensure_ascii=False)
                for p, a, b, s in zip(PREDS, REFS1, REFS2, SRCS, strict=True)
            ],
        ),
    }


def both(cli, monkeypatch, *argv):
    """The command on the whole input in one call, then read and scored 4 segments at a time."""
    monkeypatch.setattr(stream, "CHUNK", 10_000)
    whole = cli(*argv)
    monkeypatch.setattr(stream, "CHUNK", 4)
    chunked = cli(*argv)
    return whole, chunked


@pytest.mark.parametrize(("name", "options"), COMMANDS)
def test_chunked_gives_the_numbers_of_one_call(cli, files, monkeypatch, tmp_path, name, options):
    single = name in ("wer", "cer")
    refs = ["--ref", files["ref1"]] if single else ["--ref", files["ref1"], "--ref", files["ref2"]]
    src = ["--src", files["src"]] if name == "sari" else []
    whole, chunked = both(
        cli, monkeypatch, name, "--pred", files["pred"], *refs, *src, *options, "--json", "--per-segment"
    )
    assert whole.code == 0, whole.err
    assert chunked.out == whole.out  # every number, bit for bit, and the per-segment scores
    if not single:  # JSON Lines holding the references (and SARI's sources)
        whole, chunked = both(cli, monkeypatch, name, "--pred", files["jsonl"], *options, "--json")
        assert whole.code == 0, whole.err
        assert chunked.out == whole.out


def test_per_segment_table_output(cli, files, monkeypatch, tmp_path):
    tables = []
    for chunk in (10_000, 4):
        monkeypatch.setattr(stream, "CHUNK", chunk)
        out = tmp_path / f"out{chunk}.jsonl"
        run = cli("chrf", "--pred", files["pred"], "--ref", files["ref1"], "--output", out)
        assert run.code == 0, run.err
        tables.append(out.read_text())
    assert tables[0] == tables[1]


def test_chunks_are_what_the_kernel_sees(cli, files, monkeypatch):
    seen = []
    real = Family.batch_stats

    def spy(self, predictions, *args, **kwargs):
        seen.append(len(predictions))
        return real(self, predictions, *args, **kwargs)

    monkeypatch.setattr(Family, "batch_stats", spy)
    monkeypatch.setattr(stream, "CHUNK", 4)
    run = cli("nls", "--pred", files["pred"], "--ref", files["ref1"])
    assert run.code == 0, run.err
    assert max(seen) == 4
    assert sum(seen) == N


@pytest.mark.parametrize(
    "case",
    ["short reference", "invalid UTF-8", "invalid JSON", "two references for WER", "too long for TER", "sources"],
)
def test_the_same_errors_name_the_same_file_and_line(cli, write, monkeypatch, case):
    lines = [f"the cat {i} sat" for i in range(13)]
    if case == "short reference":
        argv = ["bleu", "--pred", write("p.txt", lines), "--ref", write("r.txt", lines[:11])]
        expected = "has 13 lines but --ref"
    elif case == "invalid UTF-8":
        data = ("\n".join(lines[:11]) + "\n\xff\n").encode("latin-1")
        argv = ["chrf", "--pred", write("p.txt", data=data), "--ref", write("r.txt", lines[:12])]
        expected = "p.txt:12: invalid UTF-8"
    elif case == "invalid JSON":
        rows = [json.dumps({"prediction": x, "references": [x]}) for x in lines[:9]]
        argv = ["nls", "--pred", write("j.jsonl", [*rows, "{bad"])]
        expected = "j.jsonl:10: invalid JSON"
    elif case == "two references for WER":
        rows = [json.dumps({"prediction": x, "references": [x] if i != 9 else [x, x]}) for i, x in enumerate(lines)]
        argv = ["wer", "--pred", write("j.jsonl", rows)]
        expected = "j.jsonl:10: 2 references, but wer takes exactly one per segment"
    elif case == "too long for TER":
        long = [*lines[:10], "a " * 200_000, *lines[:2]]
        argv = [
            "ter",
            "--pred",
            write("p.txt", long),
            "--ref",
            write("r.txt", [*lines[:10], "b " * 200_000, *lines[:2]]),
        ]
        expected = "p.txt:11: predictions[10] is too long for ter"
    else:
        argv = [
            "sari",
            "--pred",
            write("p.txt", lines),
            "--ref",
            write("r.txt", lines),
            "--src",
            write("s.txt", lines[:5]),
        ]
        expected = "has 13 lines but --src"
    whole, chunked = both(cli, monkeypatch, *argv)
    assert whole.code == 2
    assert expected in whole.err
    assert chunked.err == whole.err
    assert chunked.code == 2
