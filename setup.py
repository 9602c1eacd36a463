"""Build of the compiled kernels (``nlgmetrics._native``, C++17/20 with pybind11); everything else is in
pyproject.toml. ``pip install .`` compiles them with the machine's C++ compiler."""

import sys
from glob import glob

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

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
        )
    ],
    cmdclass={"build_ext": build_ext},
)
