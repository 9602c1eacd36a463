"""Benchmark of CIDEr-D against pycocoevalcap 1.2, in one process.

Workload: 5,000 images x 5 references of COCO-style captions (generated from a small grammar, seeded: capitalised
references, most ending in a period, a few commas; lowercase predictions). pycocoevalcap is run as
``COCOEvalCap`` runs it: its ``PTBTokenizer`` (Stanford CoreNLP's Java tokenizer, one JVM per call) on the
references and on the predictions, then ``Cider().compute_score``. nlgmetrics runs ``nlgmetrics.cider``, whose
tokenizer is pure Python (its cache of tokenized captions is emptied before every timed call, so no call reuses
an earlier one's work). Also timed: the scorers alone on pre-tokenized text (``Cider().compute_score`` vs
``nlgmetrics.cider(..., tokenizer="none")``), the cold start (a fresh process: import and a first call on 100
images), and the time per image at batch sizes 1, 8, 64 and 512 on captions no earlier call has seen (each batch
scored as a corpus of its own; pycocoevalcap starts its JVM twice per call). Scores are checked against
pycocoevalcap's before any time is reported. The warm figure (the same call repeated) is labelled as such.

Run: ``python bench/cider.py`` (``--quick``: 1,000 images, fewer repeats; ``--json FILE`` writes the figures).
Needs pycocoevalcap and Java.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import shutil
import subprocess
import sys
import time
from typing import Any

import numpy as np

import nlgmetrics as nm
from _common import fmt_time, interleaved, machine, table
from nlgmetrics.text import ptb

SUBJECTS = [
    "man",
    "woman",
    "person",
    "boy",
    "girl",
    "child",
    "dog",
    "cat",
    "horse",
    "bird",
    "giraffe",
    "elephant",
    "zebra",
    "bus",
    "train",
    "plane",
    "car",
    "truck",
    "motorcycle",
    "bicycle",
    "skateboarder",
    "surfer",
    "player",
]
ADJECTIVES = [
    "young",
    "old",
    "small",
    "large",
    "white",
    "black",
    "brown",
    "red",
    "blue",
    "green",
    "yellow",
    "wooden",
    "tall",
    "little",
    "big",
]
VERBS = [
    "riding",
    "sitting on",
    "standing in",
    "walking down",
    "holding",
    "eating",
    "looking at",
    "playing with",
    "flying over",
    "laying on",
    "parked near",
    "driving down",
    "jumping over",
]
OBJECTS = [
    "horse",
    "bench",
    "table",
    "street",
    "field",
    "beach",
    "wave",
    "surfboard",
    "frisbee",
    "pizza",
    "sandwich",
    "plate",
    "kite",
    "skateboard",
    "road",
    "sidewalk",
    "grass",
    "snow",
    "water",
    "couch",
    "bed",
    "kitchen",
    "counter",
    "building",
    "tree",
    "fence",
]
PLACES = [
    "in a park",
    "on a sunny day",
    "next to a building",
    "in the city",
    "at the beach",
    "in front of a house",
    "on a street",
    "in a kitchen",
    "near the water",
    "in a field",
]


def caption(rng: random.Random) -> str:
    words = [rng.choice(["A", "A", "The", "An", "Two", "Three", "Some"])]
    if rng.random() < 0.5:
        words.append(rng.choice(ADJECTIVES))
    words.append(rng.choice(SUBJECTS))
    if rng.random() < 0.3:
        words.append(rng.choice(["is", "are"]))
    words += [rng.choice(VERBS), rng.choice(["a", "the", "some"])]
    if rng.random() < 0.4:
        words.append(rng.choice(ADJECTIVES))
    words.append(rng.choice(OBJECTS))
    if rng.random() < 0.5:
        words.append(rng.choice(PLACES))
    text = " ".join(words)
    if rng.random() < 0.15:
        text = text.replace(" in ", ", in ", 1)
    return text + ("." if rng.random() < 0.7 else "")


def corpus(n: int, seed: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    refs = [[caption(rng) for _ in range(5)] for _ in range(n)]
    preds = [caption(rng).lower().rstrip(".") for _ in range(n)]
    return preds, refs


# ---------------------------------------------------------------------------------------------- the two tools
def theirs_full(preds: list[str], refs: list[list[str]]) -> tuple[float, np.ndarray]:
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    gts = {i: [{"caption": c} for c in r] for i, r in enumerate(refs)}
    res = {i: [{"caption": p}] for i, p in enumerate(preds)}
    with contextlib.redirect_stdout(io.StringIO()):
        tok = PTBTokenizer()
        score, scores = Cider().compute_score(tok.tokenize(gts), tok.tokenize(res))
    return float(score), np.asarray(scores)


def theirs_scorer(tok_preds: list[str], tok_refs: list[list[str]]) -> tuple[float, np.ndarray]:
    from pycocoevalcap.cider.cider import Cider

    score, scores = Cider().compute_score(dict(enumerate(tok_refs)), {i: [p] for i, p in enumerate(tok_preds)})
    return float(score), np.asarray(scores)


def ours_full(preds: list[str], refs: list[list[str]]) -> tuple[float, np.ndarray]:
    ptb.coco_tokenize.cache_clear()  # no reuse of an earlier call's tokenization
    r = nm.cider(preds, refs)
    return r.score, np.asarray(r.segments)


def ours_scorer(tok_preds: list[str], tok_refs: list[list[str]]) -> tuple[float, np.ndarray]:
    r = nm.cider(tok_preds, tok_refs, tokenizer="none")
    return r.score, np.asarray(r.segments)


def check(ours: tuple[float, np.ndarray], theirs: tuple[float, np.ndarray], what: str) -> None:
    diff = float(np.max(np.abs(ours[1] - theirs[1]))) if len(ours[1]) else 0.0
    if abs(ours[0] - theirs[0]) > 1e-12 or diff > 1e-12:
        sys.exit(f"{what}: scores differ from pycocoevalcap (corpus {ours[0]} vs {theirs[0]}, per image {diff})")


# ---------------------------------------------------------------------------------------------- cold start
COLD_OURS = """
import time; t = time.perf_counter()
import nlgmetrics as nm
r = nm.cider({preds!r}, {refs!r})
print(time.perf_counter() - t)
"""
COLD_THEIRS = """
import time, contextlib, io; t = time.perf_counter()
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
preds, refs = {preds!r}, {refs!r}
with contextlib.redirect_stdout(io.StringIO()):
    tok = PTBTokenizer()
    g = tok.tokenize({{i: [{{"caption": c}} for c in r] for i, r in enumerate(refs)}})
    s = tok.tokenize({{i: [{{"caption": p}}] for i, p in enumerate(preds)}})
    Cider().compute_score(g, s)
print(time.perf_counter() - t)
"""


def cold(template: str, preds: list[str], refs: list[list[str]]) -> float:
    code = template.format(preds=preds, refs=refs)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1,000 images and fewer repeats")
    ap.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    args = ap.parse_args(argv)
    if shutil.which("java") is None:
        sys.exit("java is needed: pycocoevalcap's tokenizer is a Java program")
    n = 1000 if args.quick else 5000
    repeat = 2 if args.quick else 3
    rows: list[tuple[str, ...]] = []
    figures: dict[str, Any] = {"machine": machine(), "images": n, "references_per_image": 5}

    # the headline: tokenizer + CIDEr-D, fresh captions for every timed call
    rounds = [corpus(n, seed) for seed in range(2 * repeat + 1)]
    it_ours, it_theirs = iter(rounds), iter(rounds)
    check(ours_full(*rounds[0]), theirs_full(*rounds[0]), "tokenizer + CIDEr-D")
    best, _ = interleaved(
        {"ours": lambda: ours_full(*next(it_ours)), "theirs": lambda: theirs_full(*next(it_theirs))}, repeat
    )
    ratio = best["theirs"] / best["ours"]
    rows.append(
        (
            f"tokenizer + CIDEr-D, {n:,} images x 5 refs",
            fmt_time(best["ours"]),
            fmt_time(best["theirs"]),
            f"{ratio:.1f}x",
        )
    )
    figures["full"] = {"ours_s": best["ours"], "theirs_s": best["theirs"], "ratio": ratio}

    # the scorers alone, on pre-tokenized text
    preds, refs = rounds[0]
    tok_preds = ptb.coco_tokenize_stream(preds)
    flat = ptb.coco_tokenize_stream([r for rs in refs for r in rs])
    tok_refs = [flat[5 * i : 5 * i + 5] for i in range(n)]
    check(ours_scorer(tok_preds, tok_refs), theirs_scorer(tok_preds, tok_refs), "CIDEr-D scorer")
    best, _ = interleaved(
        {"ours": lambda: ours_scorer(tok_preds, tok_refs), "theirs": lambda: theirs_scorer(tok_preds, tok_refs)},
        repeat,
    )
    ratio = best["theirs"] / best["ours"]
    rows.append(
        ("CIDEr-D scorer alone (pre-tokenized)", fmt_time(best["ours"]), fmt_time(best["theirs"]), f"{ratio:.1f}x")
    )
    figures["scorer"] = {"ours_s": best["ours"], "theirs_s": best["theirs"], "ratio": ratio}

    # cold start: a fresh process, import and a first call on 100 images
    small = corpus(100, 999)
    c_ours = min(cold(COLD_OURS, *small) for _ in range(repeat))
    c_theirs = min(cold(COLD_THEIRS, *small) for _ in range(repeat))
    rows.append(
        ("cold: fresh process, import + 100 images", fmt_time(c_ours), fmt_time(c_theirs), f"{c_theirs / c_ours:.1f}x")
    )
    figures["cold"] = {"ours_s": c_ours, "theirs_s": c_theirs, "ratio": c_theirs / c_ours}

    # latency per image at several batch sizes, on captions no call has seen
    figures["latency"] = {}
    seed = 10_000
    for size in (1, 8, 64, 512):
        batches = [corpus(size, seed + k) for k in range(2 * repeat)]
        seed += 100
        bo, bt = iter(batches), iter(batches)
        best, _ = interleaved(
            {"ours": lambda bo=bo: ours_full(*next(bo)), "theirs": lambda bt=bt: theirs_full(*next(bt))}, repeat
        )
        per_o, per_t = best["ours"] / size, best["theirs"] / size
        rows.append((f"latency per image, batch of {size}", fmt_time(per_o), fmt_time(per_t), f"{per_t / per_o:.1f}x"))
        figures["latency"][size] = {"ours_s": per_o, "theirs_s": per_t}

    # warm: the same call again (our tokenizer's cache hits); labelled, never the headline
    ours_full(*rounds[0])
    t0 = time.perf_counter()
    nm.cider(*rounds[0])
    warm = time.perf_counter() - t0
    rows.append((f"warm (same {n:,} images again, tokenizer cache hit)", fmt_time(warm), "-", "-"))
    figures["warm_s"] = warm

    print(f"CIDEr-D vs pycocoevalcap 1.2 ({machine()})\n")
    print(table(rows, ("workload", "nlgmetrics", "pycocoevalcap", "ratio")))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(figures, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
