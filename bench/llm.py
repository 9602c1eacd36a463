"""Benchmarks of the LLM and ASR conventions against their reference loops, ours and theirs on the same data in one
run (best of ``--repeat`` rounds, the tools taking turns within a round; every pair of results is checked equal
first):

* **pass@k, 100,000 problems** (200 samples each, k = 1, 10, 100): ``nlgmetrics.pass_at_k`` against HF
  ``code_eval``'s ``estimate_pass_at_k`` loop (its code restated below: the metric is a Hub script), then
  ``.mean()``;
* **multiple choice, 100,000 documents** (4 choices, log-likelihoods and choice texts):
  ``nlgmetrics.multiple_choice`` against lm-eval 0.4's ``process_results`` arithmetic per document (restated in
  ``tests/unit/test_multiple_choice.py``);
* **Whisper-normalised WER, 100,000 segments** (WMT22 English references and system outputs, each segment made
  distinct so that no normalisation is reused): ``nlgmetrics.wer(normalizer="whisper-english")`` against
  ``whisper_normalizer``'s ``EnglishTextNormalizer`` on both sides, then ``jiwer.wer``;
* **spBLEU corpus**: WMT22 en-zh / zh-en / en-ja (first system), ``nlgmetrics.bleu(tokenize="flores200")`` against
  sacrebleu's ``BLEU(tokenize="flores200").corpus_score`` (a new ``BLEU`` object each round: its tokenizer's cache
  starts empty, as a fresh run's), the same SentencePiece model (trained here on the WMT22 references, put where
  sacrebleu looks for it).

Times are CPU times (``time.process_time``), the best of the rounds: on a shared machine they move less with the load
than wall times (the SentencePiece and numpy calls here run on one thread). Run: ``python bench/llm.py``
(``--quick``: 20,000 problems/segments, 2 rounds).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import _harness as harness
import nlgmetrics as nm
from _common import SHARED_DATA, fmt_time, table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.unit.test_multiple_choice import lm_eval_process_results  # noqa: E402


def interleaved(
    fns: dict[str, Callable[[], Any]], repeat: int, warmup: int = 0
) -> tuple[dict[str, float], dict[str, Any]]:
    """Best CPU time (``time.process_time``: a shared machine's load disturbs it less than wall time) of each function
    over ``repeat`` rounds, the functions taking turns within each round, after ``warmup`` untimed rounds."""
    best = dict.fromkeys(fns, float("inf"))
    out: dict[str, Any] = {}
    for _ in range(warmup):
        for name, fn in fns.items():
            out[name] = fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.process_time()
            out[name] = fn()
            best[name] = min(best[name], time.process_time() - t0)
    return best, out


def code_eval_pass_at_k(num_samples: np.ndarray, num_correct: np.ndarray, k: int) -> float:
    """HF evaluate ``metrics/code_eval/code_eval.py`` (Apache-2.0): ``estimate_pass_at_k(...).mean()``."""

    def estimator(n: int, c: int, k: int) -> float:
        if n - c < k:
            return 1.0
        return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))

    return float(np.array([estimator(int(n), int(c), k) for n, c in zip(num_samples, num_correct, strict=True)]).mean())


def bench_pass_at_k(n_problems: int, repeat: int) -> tuple[str, ...]:
    rng = np.random.default_rng(0)
    n = np.full(n_problems, 200)
    c = rng.binomial(200, rng.beta(0.5, 2.0, n_problems))
    ks = [1, 10, 100]
    times, out = interleaved(
        {
            "ours": lambda: nm.pass_at_k(n, c, k=ks).score,
            "code_eval": lambda: {f"pass@{k}": code_eval_pass_at_k(n, c, k) for k in ks},
        },
        repeat,
    )
    for key in out["ours"]:
        assert abs(out["ours"][key] - out["code_eval"][key]) < 1e-12, key
    return _row(f"pass@1/10/100, {n_problems:,} problems x 200 samples", times, "ours", "code_eval")


def bench_multiple_choice(n_docs: int, repeat: int) -> tuple[str, ...]:
    rng = random.Random(1)
    pool = ["Paris", "a very long answer indeed", "東京", "x", "It rains.", "上海市", "no", "the fourth one"]
    lls = [[-rng.random() * 20 for _ in range(4)] for _ in range(n_docs)]
    golds = [rng.randrange(4) for _ in range(n_docs)]
    choices = [rng.sample(pool, 4) for _ in range(n_docs)]

    def loop() -> tuple[float, float]:
        rows = [lm_eval_process_results(ll, g, ch) for ll, g, ch in zip(lls, golds, choices, strict=True)]
        return sum(r["acc"] for r in rows) / n_docs, sum(r["acc_norm"] for r in rows) / n_docs

    def ours() -> tuple[float, float]:
        r = nm.multiple_choice(lls, golds, choices=choices)
        return r.acc, r.acc_norm

    times, out = interleaved({"ours": ours, "lm-eval": loop}, repeat)
    assert out["ours"] == out["lm-eval"], out
    return _row(f"multiple choice acc + acc_norm, {n_docs:,} documents x 4 choices", times, "ours", "lm-eval")


def _english_pairs(n: int) -> tuple[list[str], list[str]]:
    root = SHARED_DATA / "wmt22"
    hyps: list[str] = []
    refs: list[str] = []
    for pair in ("de-en", "zh-en"):
        ref = (root / "references" / f"generaltest2022.{pair}.ref.A.en").read_text(encoding="utf-8").splitlines()
        for path in sorted((root / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*.en")):
            for h, r in zip(path.read_text(encoding="utf-8").splitlines(), ref, strict=True):
                if r.strip():
                    hyps.append(h)
                    refs.append(r)
    out_h, out_r = [], []
    for i in range(n):  # every text distinct (a word of letters: no number), so no normalisation is reused
        tag = "".join(chr(ord("a") + int(d)) for d in str(i))
        out_h.append(f"{hyps[i % len(hyps)]} q{tag}")
        out_r.append(f"{refs[i % len(refs)]} q{tag}")
    return out_h, out_r


def bench_whisper_wer(n_segments: int, repeat: int) -> tuple[str, ...]:
    import jiwer
    from whisper_normalizer.english import EnglishTextNormalizer

    hyps, refs = _english_pairs(n_segments)
    english = EnglishTextNormalizer()

    def peer() -> float:
        return float(jiwer.wer([english(r) for r in refs], [english(h) for h in hyps]))

    def ours() -> float:
        return nm.wer(hyps, refs, normalizer="whisper-english").score

    times, out = interleaved({"ours": ours, "whisper_normalizer + jiwer": peer}, repeat)
    assert abs(out["ours"] - out["whisper_normalizer + jiwer"]) < 1e-12, out  # (the package's extra words aside)
    return _row(
        f"WER after Whisper's English normaliser, {n_segments:,} WMT22 segments",
        times,
        "ours",
        "whisper_normalizer + jiwer",
    )


def _spm_model(folder: Path) -> Path:
    import sentencepiece as spm

    refs = SHARED_DATA / "wmt22" / "references"
    lines: list[str] = []
    for name in ("zh-en.ref.A.en", "en-zh.ref.A.zh", "en-ja.ref.A.ja"):
        lines += (refs / f"generaltest2022.{name}").read_text(encoding="utf-8").splitlines()
    (folder / "train.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.Train(
        input=str(folder / "train.txt"),
        model_prefix=str(folder / "small"),
        vocab_size=4000,
        model_type="unigram",
        character_coverage=0.9995,
        num_threads=1,
        minloglevel=2,
    )
    (folder / "models").mkdir()
    target = folder / "models" / "flores200sacrebleuspm"
    target.write_bytes((folder / "small.model").read_bytes())
    return target


def bench_spbleu(repeat: int) -> list[tuple[str, ...]]:
    from sacrebleu.metrics import BLEU
    from sacrebleu.tokenizers import tokenizer_spm

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model = _spm_model(Path(tmp))
        tokenizer_spm.SACREBLEU_DIR = tmp
        os.environ["SACREBLEU"] = tmp
        root = SHARED_DATA / "wmt22"
        for pair in ("en-zh", "zh-en", "en-ja"):
            trg = pair[-2:]
            refs = (root / "references" / f"generaltest2022.{pair}.ref.A.{trg}").read_text(encoding="utf-8")
            hyp_path = sorted((root / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*.{trg}"))[0]
            hyps = hyp_path.read_text(encoding="utf-8").splitlines()
            ref_lines = refs.splitlines()

            def ours(h: list[str] = hyps, r: list[str] = ref_lines) -> float:
                return nm.bleu(h, r, tokenize="flores200", spm_model=str(model)).score

            def theirs(h: list[str] = hyps, r: list[str] = ref_lines) -> float:
                return float(BLEU(tokenize="flores200").corpus_score(h, [r]).score)

            times, out = interleaved({"ours": ours, "sacrebleu": theirs}, repeat, warmup=1)
            assert out["ours"] == out["sacrebleu"], out
            label = f"spBLEU (flores200) corpus, WMT22 {pair}, {len(hyps):,} segments"
            rows.append(_row(label, times, "ours", "sacrebleu"))
    return rows


def _row(label: str, times: dict[str, float], ours: str, peer: str) -> tuple[str, ...]:
    return (label, fmt_time(times[ours]), f"{peer} {fmt_time(times[peer])}", f"{times[peer] / times[ours]:.1f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20,000 problems/segments, 2 rounds")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--only", choices=("pass-at-k", "multiple-choice", "wer", "spbleu"), action="append")
    args = parser.parse_args()
    n = 20_000 if args.quick else 100_000
    repeat = args.repeat or (2 if args.quick else 3)
    harness.header("LLM and ASR conventions", "python bench/llm.py" + (" --quick" if args.quick else ""))
    benches: dict[str, Callable[[], Any]] = {
        "pass-at-k": lambda: [bench_pass_at_k(n, repeat)],
        "multiple-choice": lambda: [bench_multiple_choice(n, repeat)],
        "wer": lambda: [bench_whisper_wer(n, repeat)],
        "spbleu": lambda: bench_spbleu(repeat),
    }
    rows: list[tuple[str, ...]] = []
    for name, bench in benches.items():
        if not args.only or name in args.only:
            rows += bench()
    header = ("workload (warm: later calls in one process; best CPU time)", "nlgmetrics", "peer", "ratio")
    print(table(rows, header))


if __name__ == "__main__":
    main()
