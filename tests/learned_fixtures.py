"""Where the tiny learned-metric checkpoints of ``tests/fixtures/learned`` are, ready to load.

The checkpoints were written by unbabel-comet 2.2.7 and metricx's ``MT5ForRegression`` (see the README there).
MetricX's weights are stored gzipped (the mT5 vocabulary makes them large but mostly zero): they are unpacked
once per process into a temporary folder. The MiniLM variant's tokenizer comes, as in unbabel-comet, from the
Hub id ``xlm-roberta-base``: a temporary Hugging Face cache holds the tiny XLM-R tokenizer under that id.
"""

from __future__ import annotations

import atexit
import functools
import gzip
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "learned"
ENCODERS = {"BERT": "tiny-bert", "XLM-RoBERTa": "tiny-xlmr", "MiniLM": "tiny-minilm"}


@functools.cache
def _tmp() -> Path:
    path = Path(tempfile.mkdtemp(prefix="nlgm-learned-"))
    atexit.register(shutil.rmtree, path, True)
    return path


def comet_variants() -> list[str]:
    return sorted(p.name for p in (FIXTURES / "comet").iterdir() if (p / "hparams.yaml").is_file())


def metricx_variants() -> list[str]:
    return sorted(p.name for p in (FIXTURES / "metricx").iterdir() if (p / "config.json").is_file())


def encoder_of(variant: str) -> str:
    import yaml

    hp = yaml.safe_load((FIXTURES / "comet" / variant / "hparams.yaml").read_text(encoding="utf-8"))
    return str(FIXTURES / "encoders" / ENCODERS[hp["encoder_model"]])


def comet_options(variant: str) -> dict[str, Any]:
    """``model=`` and ``encoder=`` (and, for MiniLM, ``tokenizer=``) of a COMET fixture checkpoint."""
    options = {"model": str(FIXTURES / "comet" / variant), "encoder": encoder_of(variant)}
    if "minilm" in variant:
        options["tokenizer"] = str(FIXTURES / "encoders" / "tiny-xlmr")
    return options


@functools.cache
def metricx_dir(variant: str) -> str:
    out = _tmp() / variant
    if not out.is_dir():
        out.mkdir(parents=True)
        src = FIXTURES / "metricx" / variant
        shutil.copy(src / "config.json", out / "config.json")
        with gzip.open(src / "model.safetensors.gz", "rb") as fin, open(out / "model.safetensors", "wb") as fout:
            shutil.copyfileobj(fin, fout)
    return str(out)


def metricx_options(variant: str) -> dict[str, Any]:
    return {"model": metricx_dir(variant), "tokenizer": str(FIXTURES / "metricx" / "tokenizer")}


@functools.cache
def hub_cache() -> str:
    """A Hugging Face cache holding the tiny XLM-R tokenizer as ``xlm-roberta-base`` (the MiniLM encoder's)."""
    cache = _tmp() / "hub"
    repo = cache / "models--xlm-roberta-base"
    snap = repo / "snapshots" / ("0" * 40)
    shutil.copytree(FIXTURES / "encoders" / "tiny-xlmr", snap)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0" * 40, encoding="ascii")
    return str(cache)


def load_cases(data: Path | None) -> tuple[list[dict[str, str]], list[dict[str, str]] | None]:
    """The hand-written cases, and the WMT22 rows named in cases.json (``None`` without the shared data)."""
    spec = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
    if data is None:
        return spec["cases"], None
    real = []
    for part in spec["real"]:
        files = {k: (data / v).read_text(encoding="utf-8").split("\n") for k, v in part["files"].items()}
        for line in part["lines"]:
            real.append({k: files[k][line].strip() for k in files})
    return spec["cases"], real


def recorded(variant: str) -> dict[str, Any]:
    return json.loads((FIXTURES / "scores" / f"{variant}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]
