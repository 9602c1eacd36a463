"""Real data, scored the way a fresh process scores it: BLEU and chrF of WMT22 (one system per pair, one and two
references) and ROUGE of SummEval (11 references per summary) in a new interpreter that has not imported numpy, so
that the numpy-free row paths run at full corpus size; the numbers are then compared with sacrebleu 2.6 and
rouge-score-rs in the same process. Prints and asserts the mismatch count and the largest difference: none at all.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from nlgmetrics.algorithms.native import has_native

pytest.importorskip("sacrebleu", reason="sacrebleu is a test dependency for BLEU parity")
pytest.importorskip("rouge_score_rs", reason="rouge-score-rs is a test dependency for ROUGE parity")
pytestmark = pytest.mark.skipif(not has_native(), reason="without the compiled kernels the numpy paths count")

SCRIPT = r"""
import json, sys
from pathlib import Path
import nlgmetrics as nm

root = Path(sys.argv[1])
def lines(path):
    text = path.read_text(encoding="utf-8")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")

ours, jobs = [], []
for pair, tok in {"en-ja": "char", "en-zh": "zh", "zh-en": "13a", "de-en": "13a"}.items():
    hyp = lines(sorted((root / "wmt22" / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*"))[0])
    refs = [lines(p) for p in sorted((root / "wmt22" / "references").glob(f"generaltest2022.{pair}.ref.*"))]
    for streams in ([refs[0]], refs):
        per_segment = streams[0] if len(streams) == 1 else [list(r) for r in zip(*streams)]
        ours.append(nm.bleu(hyp, per_segment, tokenize=tok).score)
        ours.append(nm.chrf(hyp, per_segment).score)
        ours.append(nm.chrf(hyp, per_segment, preset="chrf++").score)
        jobs.append((hyp, streams, tok))
preds, refs = [], []
for line in (root / "summeval" / "summeval.jsonl").read_text(encoding="utf-8").splitlines():
    row = json.loads(line)
    for system in row["sys_summs"].values():
        preds.append(system["sys_summ"])
        refs.append(row["ref_summs"])
types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
rouge = nm.rouge(preds, refs, rouge_types=types, preset="rouge-score", use_stemmer=True, segments=True)
numpy_loaded = "numpy" in sys.modules

from sacrebleu.metrics import BLEU, CHRF
from rouge_score_rs import rouge_scorer

theirs = []
for hyp, streams, tok in jobs:
    theirs.append(BLEU(tokenize=tok).corpus_score(hyp, streams).score)
    theirs.append(CHRF().corpus_score(hyp, streams).score)
    theirs.append(CHRF(word_order=2).corpus_score(hyp, streams).score)
scorer = rouge_scorer.RougeScorer(types, use_stemmer=True)
ours_rouge, theirs_rouge = [], []
for seg, p, r in zip(rouge.segments, preds, refs):
    best = scorer.score_multi(r, p)
    for t in types:
        ours_rouge += list(seg[t])
        theirs_rouge += [best[t].precision, best[t].recall, best[t].fmeasure]
print(json.dumps({"numpy": numpy_loaded, "mt": [ours, theirs], "rouge": [ours_rouge, theirs_rouge]}))
"""


def _mismatches(ours: list[float], theirs: list[float]) -> tuple[int, float]:
    diffs = [abs(a - b) for a, b in zip(ours, theirs, strict=True)]
    return sum(d > 0 for d in diffs), max(diffs)


def test_a_fresh_process_scores_wmt22_and_summeval_as_the_references(shared_data) -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(shared_data)], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["numpy"] is False  # the row paths ran, at full size
    mt, rouge = _mismatches(*got["mt"]), _mismatches(*got["rouge"])
    print(f"WMT22 BLEU/chrF/chrF++ (4 pairs x 1 and 2 references): {len(got['mt'][0])} scores, mismatches {mt}")
    print(f"SummEval ROUGE (1,600 summaries x 11 references, P/R/F of 4 types): mismatches {rouge}")
    assert mt == (0, 0.0)
    assert rouge == (0, 0.0)
