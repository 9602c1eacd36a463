"""Kernels with no metric knowledge: edit distance and, later, n-grams, LCS and TER shifts."""
