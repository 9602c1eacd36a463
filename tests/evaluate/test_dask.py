"""The Dask path gives the single-process result, on a local Dask cluster."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.metrics.catalog import get_family

db = pytest.importorskip("dask.bag", reason="dask is a test dependency for the scale-out path")
distributed = pytest.importorskip("dask.distributed", reason="dask.distributed runs the local cluster")

PREDS = [f"the cat sat on mat {i} and {i % 7} dogs" for i in range(300)]
REFS = [[f"the cat sat on the mat {i}", f"a cat on mat {i % 5}"] for i in range(300)]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.mark.parametrize(
    ("metric", "options"),
    [("nls", {}), ("anls", {"preset": "anls-pkg"}), ("edit_distance", {})],
)
def test_local_cluster_gives_identical_results(client, metric, options):
    from nlgmetrics.engines.dask import score_bag

    options = dict(options)
    preset = options.pop("preset", None)
    family = get_family(metric)
    expected = family.compute(PREDS, REFS, family.make_config(preset, **options))
    for npartitions in (1, 3, 7):
        bag = db.from_sequence(list(zip(PREDS, REFS, strict=False)), npartitions=npartitions)
        got = score_bag(bag, metric, preset=preset, **options)
        assert got.score == expected.score  # bit for bit: partition sums are exact
        assert got.signature == expected.signature


def test_wer_on_the_cluster(client):
    from nlgmetrics.engines.dask import score_bag

    preds = [p.split(" and ")[0] for p in PREDS]
    refs = [r[0] for r in REFS]
    bag = db.from_sequence(list(zip(preds, refs, strict=False)), npartitions=4)
    assert score_bag(bag, "wer").score == nm.wer(preds, refs).score
