"""Issue item 6: stateful metrics shared between threads, validated states and merges, and one behaviour for
compute() with no data."""

from __future__ import annotations

import math
import pickle
import threading

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.catalog import CATALOG, IN_PROCESS, get_family
from nlgmetrics.stateful import stateful_class

PREDS = [f"the cat {i} sat on the mat" for i in range(40)]
REFS = [f"the cat {i} sat on a mat today" for i in range(40)]


# the model families (BERTScore, perplexity) need weights to update; ANLS* takes structured values
def _scores_text(name: str) -> bool:
    """Whether the family's inputs are strings (not logits, JSON values, counts or log-likelihoods)."""
    example = get_family(name).example
    return example is None or all(isinstance(p, str) for p in example["predictions"])


CLASSES = sorted(name for name, e in CATALOG.items() if e.cls and name not in IN_PROCESS and _scores_text(name))


@pytest.mark.parametrize("name", ["cer", "bleu", "nls"])
def test_four_threads_lose_no_update(name):
    """4 threads update one instance (10 trials): the result equals one thread doing all the work."""
    cls = stateful_class(name)
    expected = cls()
    for _ in range(4):
        for p, r in zip(PREDS, REFS, strict=True):
            expected.update([p], [r])
    for _ in range(10):
        metric = cls()
        barrier = threading.Barrier(4)

        def work(m=metric, b=barrier):
            b.wait()
            for p, r in zip(PREDS, REFS, strict=True):
                m.update([p], [r])

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert metric.count == 4 * len(PREDS)
        # counts exactly; float sums up to the order of their additions (threads interleave)
        for field, value in metric.stats.to_dict().items():
            assert value == pytest.approx(getattr(expected.stats, field), rel=1e-12), field
        assert metric.compute().score == pytest.approx(expected.compute().score, rel=1e-12)


def test_merge_from_threads_and_pickling():
    a, b = nm.WordErrorRate(), nm.WordErrorRate()
    a.update(PREDS[:20], REFS[:20])
    b.update(PREDS[20:], REFS[20:])
    threads = [threading.Thread(target=a.merge, args=(b,)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert a.count == 20 + 3 * 20
    clone = pickle.loads(pickle.dumps(a))  # the lock does not travel, the state does
    assert clone.stats == a.stats
    clone.update(["x"], ["y"])


@pytest.mark.parametrize("other", [42, "wer", None, [1, 2]])
def test_merge_refuses_what_is_not_a_metric(other):
    with pytest.raises(InvalidInputError, match=f"cannot merge {type(other).__name__} into WordErrorRate"):
        nm.WordErrorRate().merge(other)


def test_merge_refuses_another_class():
    with pytest.raises(InvalidInputError, match="cannot merge CharErrorRate into WordErrorRate"):
        nm.WordErrorRate().merge(nm.CharErrorRate())


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        ("nls", {"score_sum": -2.5}, r"state\['stats'\]\['score_sum'\] must be >= 0"),
        ("nls", {"score_sum": math.nan}, r"\['score_sum'\] must be a finite number, got nan"),
        ("nls", {"count": 1.5}, r"\['count'\] must be a whole number"),
        ("nls", {"count": "3"}, r"\['count'\] must be a number"),
        ("ter", {"edits": -62}, r"\['edits'\] must be >= 0"),
        ("ter", {"ref_length": math.inf}, r"\['ref_length'\] must be a finite number"),
        ("bleu", {"matches": [1, 2]}, r"\['matches'\] must be a list of 4 numbers"),
        ("bleu", {"matches": [1, 2, -1, 0]}, r"\['matches'\]\[2\] must be >= 0"),
        ("wer", {"hits": True}, r"\['hits'\] must be a number"),
    ],
)
def test_load_state_dict_checks_types_shapes_and_signs(name, change, message):
    cls = stateful_class(name)
    metric = cls()
    metric.update(PREDS, REFS)
    state = metric.state_dict()
    state["stats"].update(change)
    fresh = cls()
    fresh.update(PREDS[:3], REFS[:3])
    before = fresh.stats
    with pytest.raises(InvalidInputError, match=message):
        fresh.load_state_dict(state)
    assert fresh.stats == before  # unchanged


def test_load_state_dict_checks_fields_and_segments():
    metric = nm.NormalizedLevenshteinSimilarity(reduction=None)
    metric.update(PREDS, REFS)
    state = metric.state_dict()
    broken = {**state, "stats": {"score_sum": 1.0}}
    with pytest.raises(InvalidInputError, match="missing count"):
        nm.NormalizedLevenshteinSimilarity(reduction=None).load_state_dict(broken)
    broken = {**state, "stats": {**state["stats"], "extra": 1}}
    with pytest.raises(InvalidInputError, match="unknown extra"):
        nm.NormalizedLevenshteinSimilarity(reduction=None).load_state_dict(broken)
    segs = {**state["segments"], "score_sum": [-1.0] * len(PREDS)}
    with pytest.raises(InvalidInputError, match=r"state\['segments'\]\['score_sum'\] holds a negative value"):
        nm.NormalizedLevenshteinSimilarity(reduction=None).load_state_dict({**state, "segments": segs})
    segs = {**state["segments"], "score_sum": [math.nan] * len(PREDS)}
    with pytest.raises(InvalidInputError, match="not a finite number"):
        nm.NormalizedLevenshteinSimilarity(reduction=None).load_state_dict({**state, "segments": segs})
    with pytest.raises(InvalidInputError, match="a state must be a dict"):
        nm.NormalizedLevenshteinSimilarity().load_state_dict([1, 2])
    good = nm.NormalizedLevenshteinSimilarity(reduction=None)
    good.load_state_dict(state)
    assert good.compute().score == metric.compute().score


@pytest.mark.parametrize("name", CLASSES)
def test_compute_with_no_data_warns_and_returns_zero_in_every_class(name):
    """One behaviour for every class: a warning, and the score of no data (0)."""
    cls = stateful_class(name)
    metric = cls()
    with pytest.warns(UserWarning, match=r"compute\(\) was called before any segment was added"):
        result = metric.compute()
    values = result.score.values() if isinstance(result.score, dict) else [result.score]
    # 0 everywhere but WIP, whose formula gives 1 on empty statistics (nothing to lose: all information kept)
    assert all(v == (1.0 if name == "wip" else 0) for v in values)
    extra = {"sources": PREDS[:2]} if cls.family.uses_sources else {}
    metric.update(PREDS[:2], REFS[:2], **extra)
    metric.reset()
    with pytest.warns(UserWarning, match="before any segment"):
        metric.compute()
