"""The scale-out engines: one package for scoring a corpus where it lives.

- :mod:`nlgmetrics.engines.dask`: a Dask bag or DataFrame (``score_bag``, ``score_dataframe``);
- :mod:`nlgmetrics.engines.spark`: a Spark DataFrame (``score_dataframe``, ``stats_of_dataframe``);
- :mod:`nlgmetrics.engines.ray`: a Ray Dataset (``score_dataset``, ``stats_of_dataset``).

They share one scoring job (:mod:`._job`) and one exact encoding of the statistics (:mod:`._partials`): every
worker runs the family's own kernel, the partial statistics are summed exactly and in order, and the formula runs
once on the driver, so the result is the one-process result whatever the partitioning.

Nothing is imported here: importing the package loads neither an engine nor numpy. The old paths
``nlgmetrics.spark``, ``nlgmetrics.ray``, ``nlgmetrics.evaluate.dask`` and ``nlgmetrics.evaluate.partials`` are these
very modules.
"""
