"""Benchmark of METEOR against NLTK 3.10's ``meteor_score``, on the same WMT22 segments and the same WordNet 3.0.

NLTK reads the WordNet database that Debian's ``wordnet-base`` and ``wordnet-sense-index`` install (the source
nlgmetrics' bundled tables are built from; ``--wordnet DIR`` for another WordNet 3.0 dict folder), laid out as
``nltk_data/corpora/wordnet`` in a temporary folder. Both score whitespace-split words against reference A.

* **cold**: a fresh process imports the library and scores one pair (NLTK: and loads WordNet on first use);
* **latency**: per segment, at batch sizes 1, 8, 64 and 512, on segments no earlier call has seen;
* **corpus**: 10,000 WMT22 segments (zh-en and de-en systems, English output), timed once, in ten parts with
  the two tools taking turns part by part; every segment score is checked to be equal;
* **warm**: the same corpus again (labelled; nlgmetrics keeps its stems and synonyms cached).

Run: ``python bench/meteor.py`` (``--quick``: 2,000 segments, batch sizes up to 64).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import nlgmetrics as nm
from _common import SHARED_DATA, fmt_time, machine, table

LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body noun.cognition "
    "noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive noun.object "
    "noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity noun.relation noun.shape "
    "noun.state noun.substance noun.time verb.body verb.change verb.cognition verb.communication verb.competition "
    "verb.consumption verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession "
    "verb.social verb.stative verb.weather adj.ppl"
)
FILES = [f"{k}.{p}" for k in ("index", "data") for p in ("noun", "verb", "adj", "adv")]
FILES += [f"{p}.exc" for p in ("noun", "verb", "adj", "adv")] + ["index.sense"]


def nltk_data(source: Path, root: Path) -> Path:
    """An ``nltk_data`` folder whose ``corpora/wordnet`` is the WordNet 3.0 at ``source``."""
    corpus = root / "corpora" / "wordnet"
    corpus.mkdir(parents=True)
    for f in FILES:
        shutil.copyfile(source / f, corpus / f)
    category = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
    names = LEXNAMES.split()
    (corpus / "lexnames").write_text(
        "".join(f"{i:02d}\t{n}\t{category[n.split('.')[0]]}\n" for i, n in enumerate(names))
    )
    return root


def segments(n: int) -> tuple[list[str], list[str]]:
    wmt = SHARED_DATA / "wmt22"
    hyps: list[str] = []
    refs: list[str] = []
    for pair in ("zh-en", "de-en"):
        ref = (wmt / "references" / f"generaltest2022.{pair}.ref.A.en").read_text(encoding="utf-8").splitlines()
        for path in sorted((wmt / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*.en")):
            hyps += path.read_text(encoding="utf-8").splitlines()
            refs += ref
            if len(hyps) >= n:
                return hyps[:n], refs[:n]
    return hyps, refs


COLD_OURS = "import nlgmetrics as nm; nm.meteor([{h!r}], [{r!r}])"
COLD_NLTK = "from nltk.translate.meteor_score import meteor_score; meteor_score([{r!r}.split()], {h!r}.split())"


def cold(code: str, env: dict[str, str]) -> float:
    script = f"import time; t0 = time.perf_counter(); {code}; print(time.perf_counter() - t0)"
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True, text=True, env=env)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    args = parser.parse_args()
    n = 2000 if args.quick else 10_000
    hyps, refs = segments(n + 2 * 585)
    corpus_h, corpus_r = hyps[:n], refs[:n]
    spare_h, spare_r = hyps[n:], refs[n:]
    with tempfile.TemporaryDirectory() as tmp:
        data = nltk_data(args.wordnet, Path(tmp))
        env = {**os.environ, "NLTK_DATA": str(data)}
        os.environ["NLTK_DATA"] = str(data)
        import nltk

        nltk.data.path.insert(0, str(data))
        from nltk.translate.meteor_score import meteor_score

        print(f"METEOR, {machine()}; NLTK {nltk.__version__}; WordNet 3.0 from {args.wordnet}\n")
        rows = []
        ours_cold = cold(COLD_OURS.format(h=spare_h[-1], r=spare_r[-1]), env)
        nltk_cold = cold(COLD_NLTK.format(h=spare_h[-1], r=spare_r[-1]), env)
        rows.append(
            ("cold: import + first pair", fmt_time(ours_cold), fmt_time(nltk_cold), f"{nltk_cold / ours_cold:.1f}x")
        )

        def nltk_corpus(h: list[str], r: list[str]) -> list[float]:
            return [meteor_score([b.split()], a.split()) for a, b in zip(h, r, strict=True)]

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nltk_corpus(spare_h[:1], spare_r[:1])  # NLTK loads WordNet (cold, above)
        nm.meteor(spare_h[:1], spare_r[:1])
        start = 1
        for size in (1, 8, 64) if args.quick else (1, 8, 64, 512):
            h, r = spare_h[start : start + size], spare_r[start : start + size]
            start += size
            t0 = time.perf_counter()
            ours = nm.meteor(h, r, segments=True).segments
            t1 = time.perf_counter()
            theirs = nltk_corpus(h, r)
            t2 = time.perf_counter()
            assert list(ours) == theirs
            rows.append(
                (
                    f"latency per segment, batch {size}",
                    fmt_time((t1 - t0) / size),
                    fmt_time((t2 - t1) / size),
                    f"{(t2 - t1) / (t1 - t0):.1f}x",
                )
            )
        # the corpus in ten parts, the two tools taking turns part by part (who goes first alternates), so that a
        # change of machine load hits both alike; caches carry over from part to part as within one call
        ours_t = nltk_t = 0.0
        ours_s: list[float] = []
        theirs: list[float] = []
        step = -(-n // 10)
        for k in range(0, n, step):
            h, r = corpus_h[k : k + step], corpus_r[k : k + step]
            for who in ("ours", "nltk") if (k // step) % 2 == 0 else ("nltk", "ours"):
                t0 = time.perf_counter()
                if who == "ours":
                    ours_s += nm.meteor(h, r, segments=True).segments
                    ours_t += time.perf_counter() - t0
                else:
                    theirs += nltk_corpus(h, r)
                    nltk_t += time.perf_counter() - t0
        bad = sum(abs(a - b) > 1e-12 for a, b in zip(ours_s, theirs, strict=True))
        worst = max(abs(a - b) for a, b in zip(ours_s, theirs, strict=True))
        t0, t1, t2 = 0.0, ours_t, ours_t + nltk_t
        rows.append(
            (f"corpus, {n:,} WMT22 segments", fmt_time(t1 - t0), fmt_time(t2 - t1), f"{(t2 - t1) / (t1 - t0):.1f}x")
        )
        t0 = time.perf_counter()
        nm.meteor(corpus_h, corpus_r)
        warm = time.perf_counter() - t0
        rows.append((f"warm (same {n:,} again; caches filled)", fmt_time(warm), "-", "-"))
        print(table(rows, ("workload", "nlgmetrics", "NLTK meteor_score", "NLTK / nlgmetrics")))
        print(f"\nparity on the corpus: {bad} of {n:,} segments differ beyond 1e-12 (max abs diff {worst:.3g})")


if __name__ == "__main__":
    main()
