"""The relations a family's statistics declare (``Stats.at_most``, ``per_segment_max``, the segment count, the
error rates' alignment counts) hold for whatever its kernel produces: per segment, summed, and through
``state_dict``/``load_state_dict``, which refuses states that break them. Every text family, every preset."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import nlgmetrics.stateful
from nlgmetrics.errors import InvalidInputError, MissingDependencyError
from nlgmetrics.metrics.catalog import CATALOG, get_family

#: Families that score text from the catalogue's generic interfaces alone (no model, jar, logits or JSON).
SKIP = {"bertscore", "comet", "cometkiwi", "xcomet", "metricx", "perplexity", "meteor15", "anls_star"}
#: Options beyond the presets that change what the kernels count.
EXTRA: dict[str, list[dict[str, object]]] = {
    "wer": [{"substitution_cost": 2}, {"substitution_cost": 0}],
    "cer": [{"substitution_cost": 3}],
    "edit_distance": [{"substitution_cost": 2}],
    "chrf": [{"word_order": 2}],
    "bleu": [{"preset": "nltk", "smoothing": "method5"}, {"preset": "nltk", "smoothing": "method7"}],
}


def _scores_text(name: str) -> bool:
    """Whether the family's inputs are strings (not counts, log-likelihoods or sampled answers)."""
    example = get_family(name).example
    return example is None or all(isinstance(p, str) for p in example["predictions"])


NAMES = sorted(n for n in CATALOG if n not in SKIP and CATALOG[n].cls and _scores_text(n))

words = st.text(alphabet="ab c日本ＡＢ。.!0 ", max_size=16)
items = st.lists(st.tuples(words, st.lists(words, min_size=1, max_size=3)), min_size=1, max_size=6)


def _configs(name: str) -> list[dict[str, object]]:
    family = get_family(name)
    return [{}, *({"preset": p} for p in family.presets), *EXTRA.get(name, [])]


def _class(name: str):
    entry = CATALOG[name]
    return getattr(nlgmetrics.stateful, entry.cls)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=items, pick=st.integers(0, 1000))
def test_kernel_statistics_keep_the_declared_relations(name, data, pick):
    family = get_family(name)
    options = dict(_configs(name)[pick % len(_configs(name))])
    preset = options.pop("preset", None)
    config = family.make_config(preset, **options)
    preds = [p for p, _ in data]
    refs = [r[0] if family.single_reference else r for _, r in data]
    sources = [p + " x" for p in preds] if family.uses_sources else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            batch = family.batch_stats(preds, refs, config, sources=sources)
        except (InvalidInputError, MissingDependencyError):  # refused (an empty reference for RIBES), or no punkt
            assume(False)
    assert family.inconsistency(batch.columns, 1, config) is None
    total = batch.total()
    values = {f: getattr(total, f) for f in family.stats_cls.field_names()}
    assert family.inconsistency(values, len(batch), config) is None
    # the state round trip, with and without per-segment statistics, passes the checks
    for keep in (False, True):
        metric = _class(name)(preset, keep_segments=keep, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            metric.update(preds[:1], refs[:1], **({"sources": sources[:1]} if sources else {}))
            metric.update(preds[1:], refs[1:], **({"sources": sources[1:]} if sources else {}))
        again = _class(name)(preset, keep_segments=keep, **options)
        again.load_state_dict(json.loads(json.dumps(metric.state_dict())))
        assert again.count == len(preds)
