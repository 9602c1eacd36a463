"""Benchmark of RIBES against NLTK 3.10's ``ribes_score``, on the same MeCab-tokenised WMT22 en-ja segments.

The segments are tokenised once with nlgmetrics' ``ja-mecab`` tokenizer (MeCab with UniDic-lite) before any
timing, and both tools score the same token lists (nlgmetrics with ``tokenizer="none"`` and NLTK's convention,
``preset="nltk"``), so the figures compare the metric, not the tokenizer. The official convention
(``ribes-1.03.1``, default) is timed too, and the end-to-end time from raw text (``tokenizer="ja-mecab"``).

* **cold**: a fresh process imports the library and scores one pair;
* **latency**: per segment, at batch sizes 1, 8, 64 and 512, on segments no earlier call has seen;
* **corpus**: 10,000 WMT22 en-ja segments (13 systems against reference A), one call each, timed once, the
  tools taking turns; every segment score is checked to be equal first;
* **warm**: the corpus again (labelled).

Run: ``python bench/ribes.py`` (``--quick``: 2,000 segments, batch sizes up to 64).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import nlgmetrics as nm
from _common import SHARED_DATA, fmt_time, machine, table
from nlgmetrics.text import get_tokenizer


def segments(n: int) -> tuple[list[str], list[str]]:
    wmt = SHARED_DATA / "wmt22"
    ref = (wmt / "references" / "generaltest2022.en-ja.ref.A.ja").read_text(encoding="utf-8").split("\n")[:-1]
    hyps: list[str] = []
    refs: list[str] = []
    for path in sorted((wmt / "system-outputs").glob("generaltest2022.en-ja.hyp.*.ja")):
        hyps += path.read_text(encoding="utf-8").split("\n")[:-1]
        refs += ref
        if len(hyps) >= n:
            break
    return hyps[:n], refs[:n]


COLD_OURS = "import nlgmetrics as nm; nm.ribes([{h!r}], [{r!r}], preset='nltk')"
COLD_NLTK = "from nltk.translate.ribes_score import sentence_ribes; sentence_ribes([{r!r}.split()], {h!r}.split())"


def cold(code: str) -> float:
    script = f"import time; t0 = time.perf_counter(); {code}; print(time.perf_counter() - t0)"
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    import nltk
    from nltk.translate.ribes_score import sentence_ribes

    n = 2000 if args.quick else 10_000
    sizes = (1, 8, 64) if args.quick else (1, 8, 64, 512)
    raw_h, raw_r = segments(n + sum(sizes) + 1)
    tokenize = get_tokenizer("ja-mecab")
    tok = {s: [w for w in tokenize(s) if not w.isspace()] for s in {*raw_h, *raw_r}}
    hyps, refs = [tok[s] for s in raw_h], [tok[s] for s in raw_r]
    corpus_h, corpus_r, spare_h, spare_r = hyps[:n], refs[:n], hyps[n:], refs[n:]
    print(f"RIBES, {machine()}; NLTK {nltk.__version__}; WMT22 en-ja, MeCab (UniDic-lite) tokens\n")
    rows = []
    h0, r0 = " ".join(spare_h[-1]), " ".join(spare_r[-1])
    ours_cold, nltk_cold = cold(COLD_OURS.format(h=h0, r=r0)), cold(COLD_NLTK.format(h=h0, r=r0))
    rows.append(
        ("cold: import + first pair", fmt_time(ours_cold), fmt_time(nltk_cold), f"{nltk_cold / ours_cold:.1f}x")
    )

    def theirs(h: list[list[str]], r: list[list[str]]) -> list[float]:
        return [sentence_ribes([b], a) for a, b in zip(h, r, strict=True)]

    def ours(h: list[list[str]], r: list[list[str]], preset: str = "nltk") -> tuple[float, ...]:
        return nm.ribes(h, r, preset=preset, tokenizer="none", segments=True).segments

    ours(spare_h[-2:], spare_r[-2:])  # the first call imports the family: cold is measured above
    start = 0
    for size in sizes:
        h, r = spare_h[start : start + size], spare_r[start : start + size]
        start += size
        t0 = time.perf_counter()
        a = ours(h, r)
        t1 = time.perf_counter()
        b = theirs(h, r)
        t2 = time.perf_counter()
        assert list(a) == b
        rows.append(
            (
                f"latency per segment, batch {size}",
                fmt_time((t1 - t0) / size),
                fmt_time((t2 - t1) / size),
                f"{(t2 - t1) / (t1 - t0):.1f}x",
            )
        )
    t0 = time.perf_counter()
    a = ours(corpus_h, corpus_r)
    t1 = time.perf_counter()
    b = theirs(corpus_h, corpus_r)
    t2 = time.perf_counter()
    bad = sum(abs(x - y) > 1e-12 for x, y in zip(a, b, strict=True))
    worst = max(abs(x - y) for x, y in zip(a, b, strict=True))
    rows.append(
        (
            f"corpus, {n:,} segments (NLTK convention)",
            fmt_time(t1 - t0),
            fmt_time(t2 - t1),
            f"{(t2 - t1) / (t1 - t0):.1f}x",
        )
    )
    t0 = time.perf_counter()
    ours(corpus_h, corpus_r, "ribes-1.03.1")
    official = time.perf_counter() - t0
    rows.append(
        (f"corpus, {n:,} segments, ribes-1.03.1 convention", fmt_time(official), "-", f"{(t2 - t1) / official:.1f}x")
    )
    t0 = time.perf_counter()
    nm.ribes(raw_h[:n], raw_r[:n], tokenizer="ja-mecab")
    rows.append(
        (f"corpus from raw text (ja-mecab, cached tagger), {n:,}", fmt_time(time.perf_counter() - t0), "-", "-")
    )
    t0 = time.perf_counter()
    ours(corpus_h, corpus_r)
    rows.append(("warm (same corpus again)", fmt_time(time.perf_counter() - t0), "-", "-"))
    print(table(rows, ("workload", "nlgmetrics", "NLTK ribes_score", "NLTK / nlgmetrics")))
    print(f"\nparity on the corpus: {bad} of {n:,} segments differ beyond 1e-12 (max abs diff {worst:.3g})")


if __name__ == "__main__":
    main()
