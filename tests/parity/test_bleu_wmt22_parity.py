"""Real data: the WMT22 general test sets in ``../shared/data/wmt22`` (four language pairs, 47 systems).

* Our sacrebleu presets reproduce the official BLEU and chrF of ``scores/automatic-scores.tsv`` for every system
  of en-ja (``char``), en-zh (``zh``, two references), zh-en and de-en (13a, two references), with reference A,
  reference B and both. The official multi-reference chrF was made with sacrebleu 2.0.0, which chose the best
  reference per segment differently; it differs from sacrebleu 2.6 (and from us) by up to 0.0088 (zh-en) and
  0.0078 (en-zh), and not at all for de-en.
* One system per pair is also scored by sacrebleu 2.6 itself (BLEU, sentence BLEU, chrF or chrF++, and TER on its
  first 60 segments), NLTK 3.10 (corpus and
  sentence BLEU) and a line-by-line restatement of multi-bleu.perl: no difference at all.
"""

from __future__ import annotations

import csv
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

import nlgmetrics as nm
from tests.parity.test_bleu_parity import multi_bleu_by_hand

sacrebleu = pytest.importorskip("sacrebleu", reason="sacrebleu is a test dependency for BLEU parity")
nltk_bleu = pytest.importorskip("nltk.translate.bleu_score", reason="NLTK is a test dependency for BLEU parity")
from sacrebleu.metrics import BLEU as SacreBLEU  # noqa: E402
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402
from sacrebleu.metrics import TER as SacreTER  # noqa: E402

PAIRS = {"en-ja": "char", "en-zh": "zh", "zh-en": "13a", "de-en": "13a"}
#: The largest difference of the official multi-reference chrF (sacrebleu 2.0.0) from sacrebleu 2.6's, per pair.
OLD_CHRF_ALL = {"en-zh": 0.0079, "zh-en": 0.0088}


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def _pair_data(root: Path, pair: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    target = pair[-2:]
    refs = {
        p.name.split(".")[-2]: _lines(p) for p in sorted((root / "references").glob(f"generaltest2022.{pair}.ref.*"))
    }
    systems = {}
    for p in sorted((root / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*")):
        systems[p.name[len(f"generaltest2022.{pair}.hyp.") : -len(target) - 1]] = _lines(p)
    return refs, systems


def _reference_sets(refs: dict[str, list[str]]) -> dict[str, list]:
    sets: dict[str, list] = {name: lines for name, lines in refs.items()}
    sets["all"] = [list(seg) for seg in zip(*refs.values(), strict=True)]
    return sets


@pytest.fixture(scope="module")
def wmt22(shared_data: Path) -> Path:
    root = shared_data / "wmt22"
    if not (root / "scores" / "automatic-scores.tsv").is_file():
        pytest.skip("the WMT22 data is not in the shared data folder")
    return root


def test_official_bleu_and_chrf_of_every_system(wmt22):
    official: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    with (wmt22 / "scores" / "automatic-scores.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            official[(row["pair"], row["system"])][row["metric"]] = float(row["score"])
    worst: dict[tuple[str, str, str], float] = defaultdict(float)
    counted = 0
    for pair, tokenizer in PAIRS.items():
        refs, systems = _pair_data(wmt22, pair)
        sets = _reference_sets(refs)
        for system, hyps in systems.items():
            scores = official[(pair, system)]
            assert scores, f"no official scores for {pair} {system}"
            for which, references in sets.items():
                computed = {
                    "bleu": lambda hyps=hyps, references=references, tok=tokenizer: nm.bleu(
                        hyps, references, tokenizer=tok
                    ),
                    "chrf": lambda hyps=hyps, references=references: nm.chrf(hyps, references),
                }
                for metric, fn in computed.items():
                    key = f"{metric}-{which}"
                    if key in scores:
                        diff = abs(fn().score - scores[key])
                        worst[(pair, metric, which)] = max(worst[(pair, metric, which)], diff)
                        counted += 1
    assert counted == 47 * 2 * 2 + 34 * 2  # 47 systems with A and all; 34 with B too
    for (pair, metric, which), diff in worst.items():
        if metric == "chrf" and which == "all" and pair in OLD_CHRF_ALL:
            assert diff <= OLD_CHRF_ALL[pair], (pair, diff)
        else:
            assert diff <= 1e-3, (pair, metric, which, diff)
    # in fact: every official BLEU, and every single-reference chrF, is reproduced exactly
    assert max(d for (p, m, w), d in worst.items() if not (m == "chrf" and w == "all")) == 0.0


@pytest.mark.parametrize("pair", list(PAIRS))
def test_sacrebleu_itself_on_one_system(wmt22, pair):
    refs, systems = _pair_data(wmt22, pair)
    sets = _reference_sets(refs)
    hyps = next(iter(systems.values()))
    streams = list(refs.values())
    ours_refs = sets["all"] if len(refs) > 1 else sets["A"]
    tokenizer = PAIRS[pair]
    assert (
        nm.bleu(hyps, ours_refs, tokenizer=tokenizer).score
        == SacreBLEU(tokenize=tokenizer).corpus_score(hyps, streams).score
    )
    kwargs = {"word_order": 2} if pair == "en-ja" else {}  # chrF++ where it is cheapest
    assert nm.chrf(hyps, ours_refs, **kwargs).score == SacreCHRF(**kwargs).corpus_score(hyps, streams).score
    sentence = SacreBLEU(tokenize=tokenizer, effective_order=True)
    ours = nm.bleu(
        hyps[:200],
        ours_refs[:200],
        tokenizer=tokenizer,
        effective_order=True,
        segments=True,
    )
    assert ours.segments == tuple(
        sentence.sentence_score(h, [s[i] for s in streams]).score for i, h in enumerate(hyps[:200])
    )
    # TER on 60 segments (sacrebleu's TER is slow; bench/mt_campaign.py compares whole corpora)
    theirs = SacreTER(normalized=True, asian_support=True).corpus_score(hyps[:60], [s[:60] for s in streams])
    assert nm.ter(hyps[:60], ours_refs[:60], normalized=True, asian_support=True).score == theirs.score


@pytest.mark.parametrize("pair", ["de-en", "zh-en"])
def test_nltk_on_one_system(wmt22, pair):
    refs, systems = _pair_data(wmt22, pair)
    hyps = next(iter(systems.values()))
    ours_refs = _reference_sets(refs)["all"]
    list_of_references = [[r.split() for r in seg] for seg in ours_refs]
    hypotheses = [h.split() for h in hyps]
    smoothing = nltk_bleu.SmoothingFunction()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("method0", "method7"):
            fn = getattr(smoothing, method)
            theirs = nltk_bleu.corpus_bleu(list_of_references, hypotheses, smoothing_function=fn)
            assert nm.bleu(hyps, ours_refs, preset="nltk", smoothing=method).score == theirs
        ours = nm.bleu(hyps[:300], ours_refs[:300], preset="nltk", smoothing="method3", segments=True).segments
        theirs_s = [
            nltk_bleu.sentence_bleu(list_of_references[i], hypotheses[i], smoothing_function=smoothing.method3)
            for i in range(300)
        ]
    assert ours == tuple(theirs_s)


@pytest.mark.parametrize("pair", list(PAIRS))
def test_moses_arithmetic_on_one_system(wmt22, pair):
    refs, systems = _pair_data(wmt22, pair)
    hyps = list(systems.values())[-1]
    ours_refs = _reference_sets(refs)["all"] if len(refs) > 1 else [[r] for r in refs["A"]]
    for lowercase in (False, True):
        assert nm.bleu(hyps, ours_refs, preset="moses", lowercase=lowercase).score == multi_bleu_by_hand(
            hyps, ours_refs, lowercase
        )
