"""Bootstrap intervals and paired tests equal sacrebleu 2.6's for the same seed, bit for bit.

sacrebleu reads its seed from ``SACREBLEU_SEED`` (default 12345); the tests pin it. Corpora are generated here
(no data needed) and, when the shared data is there, taken from WMT22 (two real systems, 300 segments).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import nlgmetrics as nm

sacrebleu = pytest.importorskip("sacrebleu", reason="sacrebleu is a test dependency for significance parity")
from sacrebleu.metrics import BLEU as SacreBLEU  # noqa: E402
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402
from sacrebleu.metrics import TER as SacreTER  # noqa: E402
from sacrebleu.significance import PairedTest  # noqa: E402

SACRE = {"bleu": SacreBLEU, "chrf": SacreCHRF, "ter": SacreTER}
OURS_OPTIONS = {
    "bleu-zh": ("bleu", {"tokenize": "zh"}, {"tokenizer": "zh"}),
    "bleu-floor": (
        "bleu",
        {"smooth_method": "floor", "effective_order": True},
        {"smoothing": "floor", "effective_order": True},
    ),
    "chrf++": ("chrf", {"word_order": 2}, {"word_order": 2}),
    "ter-norm": ("ter", {"normalized": True}, {"normalized": True}),
}


@pytest.fixture(autouse=True)
def _sacrebleu_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SACREBLEU_SEED", "12345")


def _generated(seed: int, n: int = 60) -> tuple[list[str], list[str], list[str]]:
    rng = random.Random(seed)
    words = ["the", "a", "cat", "dog", "sat", "ran", "on", "in", "mat", "park", ",", ".", "日本", "語"]

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))

    refs = [sentence() for _ in range(n)]
    base = [r if rng.random() < 0.3 else sentence() for r in refs]
    system = [r if rng.random() < 0.45 else sentence() for r in refs]
    return base, system, refs


def _wmt(shared_data) -> tuple[list[str], list[str], list[str]]:
    folder = shared_data / "wmt22"
    refs = (folder / "references" / "generaltest2022.de-en.ref.A.en").read_text(encoding="utf-8").split("\n")[:300]
    systems = sorted((folder / "system-outputs").glob("generaltest2022.de-en.hyp.*"))
    base, system = (p.read_text(encoding="utf-8").split("\n")[:300] for p in systems[:2])
    return base, system, refs


CASES = [("bleu", {}, {}), ("chrf", {}, {}), ("ter", {}, {}), *OURS_OPTIONS.values()]


def _check_ci(name, sacre_kwargs, ours_kwargs, system, refs, n):
    theirs = SACRE[name](**sacre_kwargs).corpus_score(system, [refs], n_bootstrap=n)
    ours = nm.bootstrap_ci(system, refs, metric=name, n_samples=n, **ours_kwargs)
    assert (ours.score, ours.mean, ours.ci) == (theirs.score, theirs._mean, theirs._ci)


def _check_paired(name, sacre_kwargs, ours_kwargs, base, system, refs, test, n, n_conf=-1):
    signatures, scores = PairedTest(
        [("base", base), ("system", system)],
        {name: SACRE[name](**sacre_kwargs)},
        [refs],
        test_type=test,
        n_samples=n,
        n_ar_confidence=n_conf,
    )()
    key = next(k for k in scores if k != "System")
    bl, sy = scores[key]
    if test == "bs":
        ours = nm.paired_bootstrap(base, system, refs, metric=name, n_samples=n, **ours_kwargs)
    else:
        ours = nm.paired_approximate_randomization(
            base, system, refs, metric=name, n_samples=n, n_confidence=n_conf, **ours_kwargs
        )
    assert (ours.baseline, ours.system, ours.p_value) == (bl.score, sy.score, sy.p_value)
    assert (ours.system_mean, ours.system_ci) == (sy.mean, sy.ci)
    assert (ours.baseline_mean, ours.baseline_ci) == (bl.mean, bl.ci)
    assert ours.sacrebleu_signature == signatures[key].format()


@pytest.mark.parametrize(("name", "sacre_kwargs", "ours_kwargs"), CASES)
def test_bootstrap_ci_on_generated_data(name, sacre_kwargs, ours_kwargs):
    _, system, refs = _generated(1)
    _check_ci(name, sacre_kwargs, ours_kwargs, system, refs, 300)


@pytest.mark.parametrize(("name", "sacre_kwargs", "ours_kwargs"), CASES)
@pytest.mark.parametrize("test", ["bs", "ar"])
def test_paired_tests_on_generated_data(name, sacre_kwargs, ours_kwargs, test):
    base, system, refs = _generated(2)
    # (sacrebleu writes --paired-ar-confidence-n into the signature of a bootstrap test too: ask for it with ar only)
    _check_paired(
        name, sacre_kwargs, ours_kwargs, base, system, refs, test, *((200, -1) if test == "bs" else (400, 50))
    )


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_on_wmt22_systems(shared_data, name):
    base, system, refs = _wmt(shared_data)
    _check_ci(name, {}, {}, system, refs, 1000)
    _check_paired(name, {}, {}, base, system, refs, "bs", 1000)
    _check_paired(name, {}, {}, base, system, refs, "ar", 1000, 100)


def test_close_systems_give_a_p_value_far_from_zero():
    base, other, refs = _generated(3, n=80)
    system = [*other[:2], *base[2:]]  # two segments differ
    ours = nm.paired_bootstrap(base, system, refs, n_samples=500)
    _check_paired("bleu", {}, {}, base, system, refs, "bs", 500)
    assert ours.p_value > 0.05
    assert not ours.significant()


def test_generic_families_resample_exact_statistics():
    """ANLS has no sacrebleu counterpart: its interval is a plain bootstrap of the per-question scores."""
    preds = ["denver broncos", "12/15/89", "paris", "x", "the answer", "42"] * 5
    answers = [["Denver Broncos"], ["12/15/88"], ["Paris", "paris, france"], ["y"], ["answer"], ["42"]] * 5
    ci = nm.bootstrap_ci(preds, answers, metric="anls", n_samples=400, seed=7)
    per = nm.anls(preds, answers, segments=True).segments
    idxs = np.random.default_rng(7).choice(len(preds), size=(400, len(preds)), replace=True)
    expected = sorted(float(np.mean(np.asarray(per)[i])) for i in idxs)
    assert ci.mean == pytest.approx(np.mean(expected), abs=1e-12)
    assert ci.lower == pytest.approx(expected[10], abs=1e-12)
    assert ci.upper == pytest.approx(expected[400 - 10 - 1], abs=1e-12)
