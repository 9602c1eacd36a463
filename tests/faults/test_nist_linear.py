"""Issue 23, cost: stateful NIST (and every family that carries a table or records) was quadratic in the number
of updates, each ``update`` merging the whole running table again. Pending updates are now merged once, when the
total is read: the rows merged stay linear in the data, and the numbers do not change."""

from __future__ import annotations

import random

import nlgmetrics.stateful as st
from nlgmetrics.algorithms.ngram_table import NgramTable
from nlgmetrics.stats import Records

RNG = random.Random(0)
WORDS = [f"w{i}" for i in range(400)]
PREDS = [" ".join(RNG.choice(WORDS) for _ in range(8)) for _ in range(400)]
REFS = [[" ".join(RNG.choice(WORDS) for _ in range(8))] for _ in range(400)]


def test_nist_updates_merge_each_row_a_bounded_number_of_times(monkeypatch):
    merged = []
    real = NgramTable.sum.__func__

    def counting(cls, items):
        items = list(items)
        merged.append(sum(len(t.ref_counts) for t in items))
        return real(cls, items)

    monkeypatch.setattr(NgramTable, "sum", classmethod(counting))
    one = st.NIST()
    one.update(PREDS, REFS)
    expected = one.compute().score
    size = len(one.stats.table.ref_counts)
    merged.clear()
    many = st.NIST()
    for i in range(0, len(PREDS), 4):  # 100 updates
        many.update(PREDS[i : i + 4], REFS[i : i + 4])
    assert many.compute().score == expected
    # each update merges its own batch (its segments' tables), and the reading merges everything once: a few
    # times the final table, where merging the running table at each update would be ~50 times it
    assert sum(merged) < 6 * size
    many.update(PREDS[:4], REFS[:4])
    many.compute()
    assert many.compute().score == many.compute().score


def test_cider_records_are_concatenated_once(monkeypatch):
    calls = []
    real = Records.__add__

    def adding(self, other):
        calls.append(len(self) + len(other))
        return real(self, other)

    monkeypatch.setattr(Records, "__add__", adding)
    many = st.CIDEr()
    for i in range(0, len(PREDS), 4):
        many.update(PREDS[i : i + 4], REFS[i : i + 4])
    one = st.CIDEr()
    one.update(PREDS, REFS)
    assert many.compute().score == one.compute().score
    assert sum(calls) < 4 * len(PREDS)
