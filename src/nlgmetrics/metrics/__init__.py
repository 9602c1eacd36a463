"""Metric families: one module per family, each declaring its config, statistics, kernel and formula."""
