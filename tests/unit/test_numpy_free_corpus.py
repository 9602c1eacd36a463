"""A fresh process scoring a corpus with BLEU, chrF or ROUGE never imports numpy (its import costs more than
scoring a few thousand segments), with one reference per segment or several, beyond every small-batch limit."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nlgmetrics.algorithms.native import has_native

pytestmark = pytest.mark.skipif(not has_native(), reason="without the compiled kernels the numpy paths count")

CALLS = """
import sys
import nlgmetrics as nm
n = 300  # beyond BLEU's and chrF's SMALL and BLEU's ROWS_13A
preds = [f"the cat {i} sat on the mat, 猫が座った。" for i in range(n)]
single = [f"the cat {i} is on the mat" for i in range(n)]
multi = [[f"the cat {i} is on the mat", "a cat sat on the mat", "ＡＢＣ 東京"] for i in range(n)]
for refs in (single, multi):
    nm.bleu(preds, refs)
    for options in ({"tokenize": "intl"}, {"tokenize": "zh"}, {"tokenize": "char"}, {"preset": "nltk"},
                    {"preset": "moses"}, {"preset": "torchmetrics"}, {"ref_length": "shortest"}):
        nm.bleu(preds, refs, **options)
    nm.chrf(preds, refs)
    nm.chrf(preds, refs, preset="chrf++")
    nm.rouge(preds, refs, use_stemmer=True)
    nm.rouge(preds, refs, preset="rouge155", use_stemmer=True)
    nm.rouge(preds * 4, refs * 4, preset="rouge-score", use_stemmer=True)  # beyond ROUGE's SMALL_CALL
print(sorted(m for m in sys.modules if m == "numpy" or m.startswith("nlgmetrics.algorithms.ngrams")))
"""


def test_cold_corpus_calls_do_not_import_numpy() -> None:
    out = subprocess.run([sys.executable, "-c", CALLS], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_the_bleu_and_chrf_commands_do_not_import_numpy(tmp_path) -> None:
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("".join(f"the cat {i} sat on the mat\n" for i in range(300)), encoding="utf-8")
    ref.write_text("".join(f"the cat {i} is on the mat\n" for i in range(300)), encoding="utf-8")
    code = (
        "import sys\nfrom nlgmetrics.cli.main import main\n"
        "for command in ('bleu', 'chrf'):\n"
        f"    assert main([command, '--pred', {str(hyp)!r}, '--ref', {str(ref)!r}]) == 0\n"
        "print('numpy' in sys.modules, file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.strip() == "False"
