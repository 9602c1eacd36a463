"""Root pytest configuration: doctests of optional modules are collected only when their dependency exists."""

from __future__ import annotations

import importlib.util
import os

# Some virtual machines advertise Intel AMX in CPUID but fault on its instructions: oneDNN then dies with SIGILL
# (an illegal ``tilezero``) on the first bfloat16 matmul, taking the whole test run with it. Cap oneDNN's
# instruction set below AMX unless the environment chose otherwise; it must be set before torch runs any op.
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_FP16")

#: Old module paths kept as aliases of the modules that moved into packages (``sys.modules`` holds the new module
#: under the old name): the new file's doctests are collected, the alias would collect them again under a file
#: that is not the module's.
collect_ignore = [
    f"src/nlgmetrics/metrics/{name}.py"
    for name in (
        "bleu_sentence",
        "meteor15",
        "meteor_jar",
        "rouge_bootstrap",
        "rouge_kernel",
        "rouge_scores",
        "rouge_sets",
    )
] + [f"src/nlgmetrics/{path}.py" for path in ("spark", "ray", "evaluate/dask", "evaluate/partials")]
collect_ignore_glob: list[str] = []
if importlib.util.find_spec("torch") is None or importlib.util.find_spec("torchmetrics") is None:
    collect_ignore_glob.append("src/nlgmetrics/torch/*")
