"""One local SparkSession and one local Ray runtime for the whole test session (each takes seconds to start)."""

from __future__ import annotations

import os
import shutil
import sys

import pytest


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark", reason="pyspark is the [spark] extra (a test dependency)")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("pyspark needs Java 17, which is not installed")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers import nlgmetrics from this environment

    session = (
        SparkSession.builder.master("local[2]")
        .appName("nlgmetrics-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def ray_local():
    ray = pytest.importorskip("ray", reason="ray is the [ray] extra (a test dependency)")
    pytest.importorskip("ray.data", reason="Ray Data is the [ray] extra (a test dependency)")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()
