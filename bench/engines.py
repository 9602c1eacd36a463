"""The Spark and Ray engines against the one-process call, on the same pairs, in one run.

For each metric: the one-process call (``family.compute``), ``nlgmetrics.spark.score_dataframe`` on a cached local
DataFrame and ``nlgmetrics.ray.score_dataset`` on a materialized local Dataset, timed in turns (so a change of
machine load hits them alike); the numbers must be identical. Also: the start-up of each engine (once), and the
bytes of statistics one partition ships (its total) and one segment ships (``segments=True``).

    python bench/engines.py            # WMT22 de-en (every system against both references), 20,000 pairs
    python bench/engines.py --quick    # 4,000 pairs, fewer rounds
    python bench/engines.py --pairs 100000 --partitions 8

Both engines run in local mode on this machine's cores: this measures their overhead, not a cluster's speed-up.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from _common import SHARED_DATA, fmt_time, interleaved, machine, table
from nlgmetrics.engines import _partials as partials
from nlgmetrics.metrics.catalog import get_family


def pairs(n: int) -> tuple[list[str], list[list[str]], str]:
    root = SHARED_DATA / "wmt22"
    if root.is_dir():
        refs = [
            (root / "references" / f"generaltest2022.de-en.ref.{x}.en").read_text(encoding="utf-8").splitlines()
            for x in "AB"
        ]
        preds: list[str] = []
        references: list[list[str]] = []
        for path in sorted((root / "system-outputs").glob("generaltest2022.de-en.hyp.*")):
            lines = path.read_text(encoding="utf-8").splitlines()
            preds += lines
            references += [list(r) for r in zip(*refs, strict=True)]
        return preds[:n], references[:n], "WMT22 de-en systems"
    rng = random.Random(0)
    words = [f"w{i}" for i in range(5000)]
    preds = [" ".join(rng.choices(words, k=rng.randint(5, 30))) for _ in range(n)]
    references = [[" ".join(rng.choices(words, k=rng.randint(5, 30)))] for _ in range(n)]
    return preds, references, "synthetic"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--metrics", default="bleu,chrf,rouge")
    args = ap.parse_args()
    n = 4000 if args.quick else args.pairs
    repeat = 2 if args.quick else 3
    preds, refs, source = pairs(n)
    print(f"{machine()}; {len(preds)} pairs of {source}; {args.partitions} partitions / blocks; best of {repeat}")

    os.environ["PYSPARK_PYTHON"] = sys.executable
    t0 = time.perf_counter()
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    frame = spark.createDataFrame(list(zip(preds, refs, strict=True)), "prediction string, references array<string>")
    frame = frame.repartition(args.partitions).cache()
    frame.count()
    spark_start = time.perf_counter() - t0

    t0 = time.perf_counter()
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    rows = [{"prediction": p, "references": r} for p, r in zip(preds, refs, strict=True)]
    dataset = ray.data.from_items(rows, override_num_blocks=args.partitions).materialize()
    ray_start = time.perf_counter() - t0
    print(f"start-up (once): Spark session + cached frame {fmt_time(spark_start)}, Ray + dataset {fmt_time(ray_start)}")

    from nlgmetrics.engines.ray import score_dataset
    from nlgmetrics.engines.spark import score_dataframe

    out = []
    for metric in args.metrics.split(","):
        family = get_family(metric)
        config = family.make_config()
        best, results = interleaved(
            {
                "one process": lambda f=family, c=config: f.compute(preds, refs, c),
                "spark": lambda m=metric: score_dataframe(frame, m),
                "ray": lambda m=metric: score_dataset(dataset, m, batch_size=None),
            },
            repeat=repeat,
            warmup=1,
        )
        same = repr(results["spark"].score) == repr(results["one process"].score) == repr(results["ray"].score)
        batch = family.batch_stats(preds, refs, config)
        total_bytes = len(partials.encode_total(batch.exact_total()))
        per_segment = len(partials.encode_batch(batch)) / len(batch)
        one = best["one process"]
        out.append(
            (
                metric,
                f"{len(preds) / one:,.0f}/s",
                f"{fmt_time(best['spark'])} ({best['spark'] / one:.1f}×)",
                f"{fmt_time(best['ray'])} ({best['ray'] / one:.1f}×)",
                "yes" if same else "NO",
                f"{total_bytes} B",
                f"{per_segment:.0f} B",
            )
        )
    print(
        table(
            out,
            ("metric", "one process", "spark (× one)", "ray (× one)", "identical", "total", "per segment"),
        )
    )
    ray.shutdown()
    spark.stop()


if __name__ == "__main__":
    main()
