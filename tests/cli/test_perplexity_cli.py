"""``nlgmetrics perplexity``: per-token log-probabilities in the shapes inference servers return them, bytes from a
field, a text or the tokens, saved logits (.npy), and errors that name the file, the line and the token."""

from __future__ import annotations

import math

import numpy as np

import nlgmetrics as nm

LOGPROBS = [[-0.5, -1.25, -0.125], [-2.0, -0.75]]


def test_lists_of_numbers(cli, write_jsonl):
    path = write_jsonl("lp.jsonl", [{"logprobs": lp, "num_bytes": n} for lp, n in zip(LOGPROBS, [11, 5], strict=True)])
    out = cli("perplexity", "--pred", path, "--bytes-field", "num_bytes", "--json", "--per-segment").json()
    expected = nm.perplexity(LOGPROBS, num_bytes=[11, 5], segments=True)
    assert out["perplexity"] == expected.score
    assert out["bits_per_byte"] == expected.bits_per_byte
    assert out["segments"] == list(expected.segments)
    assert out["signature"] == expected.signature
    assert out["tokens"] == 5


def test_openai_style_token_objects(cli, write_jsonl):
    def tokens(values, text):
        return [{"token": c, "logprob": v, "bytes": list(c.encode())} for v, c in zip(values, text, strict=True)]

    rows = [
        {"logprobs": {"content": tokens(LOGPROBS[0], "abé")}},  # chat completions: under "content"
        {"logprobs": tokens(LOGPROBS[1], "東x")},  # the content list itself
    ]
    out = cli("perplexity", "--pred", write_jsonl("chat.jsonl", rows), "--json").json()
    expected = nm.perplexity(LOGPROBS, num_bytes=[4, 4])  # the tokens' own UTF-8 bytes: 1 + 1 + 2 and 3 + 1
    assert out["perplexity"] == expected.score
    assert out["bits_per_byte"] == expected.bits_per_byte
    legacy = [{"choice": {"token_logprobs": lp}, "text": t} for lp, t in zip(LOGPROBS, ["abc", "東京"], strict=True)]
    path = write_jsonl("legacy.jsonl", legacy)
    out = cli("perplexity", "--pred", path, "--pred-field", "choice", "--text-field", "text", "--json").json()
    assert out["bits_per_byte"] == nm.perplexity(LOGPROBS, num_bytes=[3, 6]).bits_per_byte


def test_human_output(cli, write_jsonl):
    run = cli("perplexity", "--pred", write_jsonl("lp.jsonl", [{"prediction": lp} for lp in LOGPROBS]))
    assert run.code == 0, run.err
    assert run.out.startswith(f"Perplexity = {nm.perplexity(LOGPROBS).score:.5f} (perplexity|ign:none|")
    assert "nll: 0.92500, bits_per_token: 1.33449, tokens: 5" in run.out
    assert "bits_per_byte" not in run.out  # no byte counts given


def test_saved_logits_and_targets(cli, tmp_path):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(2, 4, 9))
    targets = rng.integers(0, 9, size=(2, 4))
    targets[1, 2:] = -100
    np.save(tmp_path / "logits.npy", logits)
    np.save(tmp_path / "targets.npy", targets)
    args = ("--pred", tmp_path / "logits.npy", "--ref", tmp_path / "targets.npy", "--ignore-index", "-100", "--json")
    out = cli("perplexity", *args).json()
    assert out["perplexity"] == nm.perplexity(logits, targets, ignore_index=-100).score
    assert out["settings"]["ignore_index"] == -100


def test_errors_name_the_file_line_and_token(cli, write, write_jsonl):
    def error(*argv):
        run = cli("perplexity", *argv)
        assert run.code == 2
        return run.err

    path = write_jsonl("bad.jsonl", [{"logprobs": [-0.5]}, {"logprobs": [-0.5, 0.5]}])
    assert "bad.jsonl:2: logprobs[1] is 0.5, positive" in error("--pred", path)
    path = write_jsonl("bad.jsonl", [{"logprobs": [-0.5, "x"]}])
    assert "bad.jsonl:1: logprobs[1] is a string; expected a number" in error("--pred", path)
    path = write_jsonl("bad.jsonl", [{"logprobs": [{"token": "a"}]}])
    assert "bad.jsonl:1: logprobs[0] is an object without 'logprob'" in error("--pred", path)
    path = write_jsonl("bad.jsonl", [{"lp": [-0.5]}])
    assert "no field 'logprobs' or 'prediction' (fields present: 'lp'" in error("--pred", path)
    path = write_jsonl("bad.jsonl", [{"logprobs": [-0.5], "n": -1}])
    assert "bad.jsonl:1: n is -1; expected a byte count" in error("--pred", path, "--bytes-field", "n")
    assert "--bytes-field or --text-field, not both" in error("--pred", path, "--bytes-field", "n", "--text-field", "t")
    assert "bad.jsonl:1: empty line" in error("--pred", write("bad.jsonl", text="\n"))
    assert "is empty: there is nothing to score" in error("--pred", write("none.jsonl", text=""))
    assert "log-probabilities need none" in error("--pred", path, "--ref", path)
    assert "cannot read --pred" in error("--pred", write("x.npy", data=b"not numpy"))


def test_nan_for_no_token(cli, write_jsonl):
    out = cli("perplexity", "--pred", write_jsonl("e.jsonl", [{"logprobs": []}]), "--json").json()
    assert math.isnan(out["perplexity"])
