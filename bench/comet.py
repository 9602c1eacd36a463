"""Benchmark of COMET-22 and XCOMET against unbabel-comet 2.2.7's ``predict()`` on the CPU, same checkpoints.

unbabel-comet cannot live in this environment (it pins numpy < 2, torchmetrics 0.10, huggingface-hub < 1 and
setuptools < 80), so it runs from its own virtual environment (``--ref-python``, or ``$NLGMETRICS_COMET_PYTHON``;
see ``tests/fixtures/learned/README.md``) as a child process; each tool runs in fresh child processes, one after
the other, on the same segments:

* **cold**: from the start of the process to the first scores: imports, loading the checkpoint, one call
  (``predict(samples, batch_size=16, gpus=0)`` against ``nlgmetrics.comet(...)``); torch is not imported before;
* **warm**: a second call on the same segments in the same process (our embedding cache off: ``cache=False``;
  labelled separately, the call with it on, as when several systems share sources and references);
* **peak memory**: the child's peak resident set (``VmHWM``) at the end;
* **max |Δ|**: between the two tools' segment scores.

Checkpoints: ``tiny`` (``tests/fixtures/learned``: the XLM-R COMET-22 and XCOMET variants) and ``base`` (random
XLM-R-base-shaped encoders, 768×12, written by unbabel-comet's own classes into ``--base-dir`` on first use with
the reference environment; about 350 MB each, never committed). Segments: WMT22 en-ja lines from
``../shared/data`` (``--segments``, default 256; ``--base-segments``, default 64).

``--counts`` adds, per checkpoint, the forward passes and distinct forward shapes of one call: the CPU's policy
(each batch padded to its longest text) and an accelerator's (widths in at most 16 buckets, two batch sizes each,
the accelerator's token budget), both run on the CPU through the engine's ``Runner``.

Run: ``python bench/comet.py`` (``--only tiny``, ``--repeat R``: best of R cold and warm runs per tool).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _learned import FIXTURES, PEAK, ROOT, run, segments

OURS = (
    """
import time, json, sys
T0 = time.perf_counter()
"""
    + PEAK
    + """
args = json.loads(sys.argv[1])
data = json.load(open(args['data'], encoding='utf-8'))
import nlgmetrics as nm
fn = getattr(nm, args['family'])
opts = dict(model=args['model'], encoder=args['encoder'], segments=True)
refs = data['ref']
r = fn(data['mt'], refs, sources=data['src'], cache=False, **opts)
cold = time.perf_counter() - T0
shapes = {}
if args.get('counts'):
    from nlgmetrics.metrics.comet import model as comet_model
    runner = next(reversed(comet_model._MODELS.values())).runner
    shapes['cpu'] = list(runner.shapes)
t = time.perf_counter()
fn(data['mt'], refs, sources=data['src'], cache=False, **opts)
warm = time.perf_counter() - t
cached = None
if args['family'] == 'comet':  # sentence embeddings: a second system on the same sources and references
    fn(data['mt'], refs, sources=data['src'], **opts)
    t = time.perf_counter()
    fn(data['mt'], refs, sources=data['src'], **opts)
    cached = time.perf_counter() - t
peak = _peak()  # before the counts' call below
if args.get('counts'):  # the accelerator's policy (buckets, two batch sizes, its token budget), run on the CPU
    runner.bucketed, runner.budget = True, comet_model.GPU_BUDGET
    fn(data['mt'], refs, sources=data['src'], cache=False, **opts)
    shapes['accelerator'] = list(runner.shapes)
print(json.dumps({'cold': cold, 'warm': warm, 'cached': cached, 'peak': peak, 'scores': list(r.scores),
                  'shapes': shapes}))
"""
)

REFERENCE = (
    """
import time, json, sys, os, logging, warnings
T0 = time.perf_counter()
"""
    + PEAK
    + """
args = json.loads(sys.argv[1])
data = json.load(open(args['data'], encoding='utf-8'))
warnings.filterwarnings('ignore')
logging.disable(logging.WARNING)
from comet import load_from_checkpoint
os.chdir(args['cwd'])
model = load_from_checkpoint(args['ckpt'], local_files_only=True)
samples = [{'src': s, 'mt': m, 'ref': r} for s, m, r in zip(data['src'], data['mt'], data['ref'])]
out = model.predict(samples, batch_size=16, gpus=0, progress_bar=False)
cold = time.perf_counter() - T0
t = time.perf_counter()
model.predict(samples, batch_size=16, gpus=0, progress_bar=False)
warm = time.perf_counter() - t
print(json.dumps({'cold': cold, 'warm': warm, 'peak': _peak(), 'scores': list(out.scores)}))
"""
)

BUILD = """
import sys, json, math, os, torch
import pytorch_lightning as ptl
from comet.models import RegressionMetric, XCOMETMetric
from transformers import XLMRobertaConfig, XLMRobertaTokenizerFast
out, tiny = sys.argv[1], sys.argv[2]
enc = os.path.join(out, 'encoder')
os.makedirs(enc, exist_ok=True)
tok = XLMRobertaTokenizerFast.from_pretrained(tiny)
tok.save_pretrained(enc)
XLMRobertaConfig(vocab_size=len(tok), hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                 intermediate_size=3072, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1,
                 bos_token_id=0, eos_token_id=2).save_pretrained(enc)
for name, cls, kw in (('comet', RegressionMetric, dict(layer_transformation='sparsemax', layer_norm=False)),
                      ('xcomet', XCOMETMetric, dict(layer_transformation='sparsemax', layer_norm=False,
                                                    word_layer=12, hidden_sizes=[768, 384]))):
    torch.manual_seed(7)
    model = cls(encoder_model='XLM-RoBERTa', pretrained_model=enc, load_pretrained_weights=False,
                local_files_only=True, **kw)
    g = torch.Generator().manual_seed(8)
    with torch.no_grad():
        for p in model.layerwise_attention.scalar_parameters:
            p.copy_(torch.randn(1, generator=g))
    folder = os.path.join(out, name)
    os.makedirs(os.path.join(folder, 'checkpoints'), exist_ok=True)
    trainer = ptl.Trainer(accelerator='cpu', devices=1, logger=False, enable_checkpointing=False,
                          enable_progress_bar=False, enable_model_summary=False)
    trainer.strategy.connect(model)
    trainer.save_checkpoint(os.path.join(folder, 'checkpoints', 'model.ckpt'), weights_only=True)
    import yaml
    open(os.path.join(folder, 'hparams.yaml'), 'w').write(yaml.safe_dump(dict(model.hparams)))
"""


def best(runs: list[dict], key: str) -> float:
    return min(r[key] for r in runs)


def _cached(runs: list[dict]) -> str:
    values = [r["cached"] for r in runs if r.get("cached") is not None]
    return f"{min(values):.2f} s" if values else "—"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ref-python", default=os.environ.get("NLGMETRICS_COMET_PYTHON"))
    parser.add_argument("--base-dir", default=os.path.join(tempfile.gettempdir(), "nlgmetrics-bench-comet-base"))
    parser.add_argument("--segments", type=int, default=256)
    parser.add_argument("--base-segments", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", choices=("tiny", "base"), default=None)
    parser.add_argument("--counts", action="store_true", help="also the forward passes and shapes of one call")
    args = parser.parse_args()
    if not args.ref_python:
        raise SystemExit("give --ref-python (the python of a venv with unbabel-comet 2.2.7) or NLGMETRICS_COMET_PYTHON")
    setups = []
    if args.only in (None, "tiny"):
        enc = str(FIXTURES / "encoders" / "tiny-xlmr")
        for family, variant in (("comet", "comet-xlmr-sparsemax-noln"), ("xcomet", "xcomet-xlmr-sparsemax-noln")):
            folder = FIXTURES / "comet" / variant
            setups.append(("tiny", family, str(folder), enc, str(FIXTURES), args.segments))
    if args.only in (None, "base"):
        base = Path(args.base_dir)
        if not (base / "xcomet" / "hparams.yaml").is_file():
            print(f"building the base-sized checkpoints in {base} (unbabel-comet's classes) ...", flush=True)
            subprocess.run(
                [args.ref_python, "-c", BUILD, str(base), str(FIXTURES / "encoders" / "tiny-xlmr")], check=True
            )
        for family in ("comet", "xcomet"):
            setups.append(("base", family, str(base / family), str(base / "encoder"), str(base), args.base_segments))
    print(
        f"{time.strftime('%Y-%m-%d %H:%M')} | {os.uname().machine}, {os.cpu_count()} CPUs "
        f"| python {sys.version.split()[0]}"
    )
    header = (
        "| checkpoint | metric | segments | cold ours | cold ref | ratio | warm ours | warm ref | ratio "
        "| warm (cache on) | peak ours | peak ref | max abs delta |"
    )
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    counts = []
    with tempfile.TemporaryDirectory() as tmp:
        for size, family, folder, enc, cwd, n in setups:
            path = Path(tmp) / f"data{n}.json"
            path.write_text(json.dumps(segments(n), ensure_ascii=False), encoding="utf-8")
            ours_runs, ref_runs = [], []
            for _ in range(args.repeat):
                ref_runs.append(
                    run(
                        args.ref_python,
                        REFERENCE,
                        {"data": str(path), "ckpt": str(Path(folder) / "checkpoints" / "model.ckpt"), "cwd": cwd},
                    )
                )
                ours_runs.append(
                    run(
                        sys.executable,
                        OURS,
                        {"data": str(path), "family": family, "model": folder, "encoder": enc, "counts": args.counts},
                        env={"PYTHONPATH": str(ROOT / "src")},
                    )
                )
            o, r = ours_runs[0], ref_runs[0]
            delta = max(abs(a - b) for a, b in zip(o["scores"], r["scores"], strict=True))
            co, cr, wo, wr = (
                best(ours_runs, "cold"),
                best(ref_runs, "cold"),
                best(ours_runs, "warm"),
                best(ref_runs, "warm"),
            )
            print(
                f"| {size} | {family} | {n} | {co:.2f} s | {cr:.2f} s | {cr / co:.2f}x | {wo:.2f} s | {wr:.2f} s | "
                f"{wr / wo:.2f}x | {_cached(ours_runs)} | {o['peak'] / 2**20:.0f} MiB | "
                f"{r['peak'] / 2**20:.0f} MiB | {delta:.1e} |",
                flush=True,
            )
            if args.counts:
                counts.append((size, family, n, o["shapes"]))
    if counts:
        print(
            "\n| checkpoint | metric | segments | CPU passes | CPU shapes | accelerator passes | accelerator shapes |"
        )
        print("|---|---|---|---|---|---|---|")
        for size, family, n, shapes in counts:
            cpu, acc = shapes["cpu"], shapes["accelerator"]
            print(
                f"| {size} | {family} | {n} | {len(cpu)} | {len(set(map(tuple, cpu)))} | {len(acc)} "
                f"| {len(set(map(tuple, acc)))} |"
            )


if __name__ == "__main__":
    main()
