"""Without the compiled kernels (a copy installed where no C++ compiler was at hand, the build treats them as
optional), BLEU, chrF and GLEU give the same numbers from their numpy path, and ROUGE says how to build the kernels."""

import subprocess
import sys

import nlgmetrics as nm

PREDS = ["the cat sat on the mat", "東京は晴れ", ""]
REFS = [["a cat sat on the mat", "the cat is on the mat"], ["東京は雨"], ["x"]]

CODE = """
import sys
sys.modules["nlgmetrics._native"] = None
import nlgmetrics as nm
from nlgmetrics.algorithms.native import has_native
P, R = {preds!r}, {refs!r}
print(has_native())
print(repr(nm.bleu(P, R, segments=True).segments))
print(repr(nm.chrf(P, R, segments=True).segments))
print(repr(nm.gleu(P, R, segments=True).segments))
print(repr(nm.sentence_bleu(P[0], R[0]).score), repr(nm.sentence_chrf(P[0], R[0]).score))
try:
    nm.rouge(P, R)
except nm.MissingDependencyError as e:
    print(type(e).__name__)
"""


def test_bleu_chrf_and_gleu_need_no_compiled_kernels():
    code = CODE.format(preds=PREDS, refs=REFS)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == [
        "False",
        repr(nm.bleu(PREDS, REFS, segments=True).segments),
        repr(nm.chrf(PREDS, REFS, segments=True).segments),
        repr(nm.gleu(PREDS, REFS, segments=True).segments),
        f"{nm.sentence_bleu(PREDS[0], REFS[0]).score!r} {nm.sentence_chrf(PREDS[0], REFS[0]).score!r}",
        "MissingExtensionError",
    ]
