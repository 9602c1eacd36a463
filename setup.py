"""Build configuration beyond pyproject.toml: the compiled kernels.

* ``nlgmetrics._native`` (C++20 with pybind11, ``csrc/``): the ROUGE kernel (tokenizing, both Porter stemmers,
  n-gram, LCS and union-LCS counting) and the n-gram counter of small BLEU and chrF batches. Built as optional: where
  it cannot be compiled the install goes on; BLEU and chrF then count small batches on their numpy path, and ROUGE
  (whose kernel is the only implementation of its logic) raises ``MissingExtensionError`` saying how to build it.
* ``nlgmetrics._ext._eed`` runs the Extended Edit Distance dynamic program (see src/nlgmetrics/_ext/eed.c for why it
  is C). It is optional: where it cannot be compiled, the install goes on and the metric runs the same loop in
  Python.
"""

import sys
from glob import glob

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import Extension, setup

# Never fuse a*b+c into one rounding (FMA): the kernels must give the reference tools' float results bit for bit.
flags = [] if sys.platform == "win32" else ["-ffp-contract=off"]

setup(
    ext_modules=[
        Pybind11Extension(
            "nlgmetrics._native",
            sorted(glob("csrc/*.cpp")),
            include_dirs=["csrc"],
            cxx_std=20,
            extra_compile_args=flags,
            optional=True,
        ),
        Extension("nlgmetrics._ext._eed", ["src/nlgmetrics/_ext/eed.c"], optional=True),
    ],
    cmdclass={"build_ext": build_ext},
)
