"""Benchmark of MetricX-24 against google-research/metricx's ``MT5ForRegression`` on the CPU, same checkpoints.

The reference needs transformers 4.30.2 (its requirements pin it), so it runs from its own virtual environment
(``--ref-python``, or ``$NLGMETRICS_METRICX_PYTHON``) with a metricx checkout on ``PYTHONPATH`` (``--metricx``, or
``$NLGMETRICS_METRICX_REPO``; see ``tests/fixtures/learned/README.md``). Each tool runs in a fresh child process
on the same segments (WMT22 en-ja from ``../shared/data``, reference-based):

* **cold**: process start to the first scores: imports, loading, one call. The reference is timed as
  ``metricx24/predict.py`` runs it (``from_pretrained(torch_dtype="auto")``, the tokenizer, then the model on
  batches of one: its README's ``--batch_size 1``; its ``Trainer`` and ``datasets`` plumbing left out, which only
  flatters it);
* **warm**: the same call again in the same process;
* **peak memory** (``VmHWM``) and **max |Δ|** between the two tools' scores.

Checkpoints: ``tiny`` (``tests/fixtures/learned/metricx/metricx-gelu-untied``, unpacked) and ``small`` (a random
mT5-small-shaped ``MT5ForRegression``: d_model 512, 8+8 layers, the full 250,112-token vocabulary; written by
metricx's class into ``--small-dir`` on first use, about 1.2 GB, never committed).

Run: ``python bench/metricx.py`` (``--only tiny``, ``--segments N``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
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
opts = dict(model=args['model'], tokenizer=args['tokenizer'], segments=True)
r = nm.metricx(data['mt'], data['ref'], sources=data['src'], **opts)
cold = time.perf_counter() - T0
t = time.perf_counter()
nm.metricx(data['mt'], data['ref'], sources=data['src'], **opts)
warm = time.perf_counter() - t
print(json.dumps({'cold': cold, 'warm': warm, 'peak': _peak(), 'scores': list(r.scores)}))
"""
)

REFERENCE = (
    """
import time, json, sys
T0 = time.perf_counter()
"""
    + PEAK
    + """
args = json.loads(sys.argv[1])
sys.path.insert(0, args['repo'])
data = json.load(open(args['data'], encoding='utf-8'))
import torch, transformers
from metricx24 import models
tok = transformers.AutoTokenizer.from_pretrained(args['tokenizer'])
model = models.MT5ForRegression.from_pretrained(args['model'], torch_dtype='auto')
model.eval()

def run():
    out = []
    for s, m, r in zip(data['src'], data['mt'], data['ref']):
        text = 'source: ' + s + ' candidate: ' + m + ' reference: ' + r
        enc = tok(text, max_length=1536, truncation=True, padding=False)
        ids = torch.tensor([enc['input_ids'][:-1]])
        mask = torch.tensor([enc['attention_mask'][:-1]])
        with torch.no_grad():
            out.append(float(model(input_ids=ids, attention_mask=mask).predictions[0]))
    return out

scores = run()
cold = time.perf_counter() - T0
t = time.perf_counter()
run()
warm = time.perf_counter() - t
print(json.dumps({'cold': cold, 'warm': warm, 'peak': _peak(), 'scores': scores}))
"""
)

BUILD = """
import sys, torch
sys.path.insert(0, sys.argv[2])
from metricx24 import models
from transformers import MT5Config
torch.manual_seed(11)
config = MT5Config(vocab_size=250112, d_model=512, d_kv=64, d_ff=1024, num_layers=8, num_decoder_layers=8,
                   num_heads=6, feed_forward_proj='gated-gelu', tie_word_embeddings=False,
                   decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
model = models.MT5ForRegression(config)
with torch.no_grad():
    model.lm_head.weight[250089] *= 400.0
model.save_pretrained(sys.argv[1], safe_serialization=True)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ref-python", default=os.environ.get("NLGMETRICS_METRICX_PYTHON"))
    parser.add_argument("--metricx", default=os.environ.get("NLGMETRICS_METRICX_REPO"))
    parser.add_argument("--small-dir", default=os.path.join(tempfile.gettempdir(), "nlgmetrics-bench-metricx-small"))
    parser.add_argument("--segments", type=int, default=64)
    parser.add_argument("--only", choices=("tiny", "small"), default=None)
    args = parser.parse_args()
    if not args.ref_python or not args.metricx:
        raise SystemExit("give --ref-python and --metricx (or NLGMETRICS_METRICX_PYTHON / NLGMETRICS_METRICX_REPO)")
    tokenizer = str(FIXTURES / "metricx" / "tokenizer")
    with tempfile.TemporaryDirectory() as tmp:
        setups = []
        if args.only in (None, "tiny"):
            tiny = Path(tmp) / "tiny"
            tiny.mkdir()
            src = FIXTURES / "metricx" / "metricx-gelu-untied"
            shutil.copy(src / "config.json", tiny / "config.json")
            with gzip.open(src / "model.safetensors.gz", "rb") as fin, open(tiny / "model.safetensors", "wb") as fout:
                shutil.copyfileobj(fin, fout)
            setups.append(("tiny", str(tiny)))
        if args.only in (None, "small"):
            small = Path(args.small_dir)
            if not (small / "config.json").is_file():
                print(f"building the mT5-small-shaped checkpoint in {small} (metricx's class) ...", flush=True)
                subprocess.run([args.ref_python, "-c", BUILD, str(small), args.metricx], check=True)
            setups.append(("small", str(small)))
        path = Path(tmp) / "data.json"
        path.write_text(json.dumps(segments(args.segments), ensure_ascii=False), encoding="utf-8")
        print(
            f"{time.strftime('%Y-%m-%d %H:%M')} | {os.uname().machine}, {os.cpu_count()} CPUs "
            f"| python {sys.version.split()[0]} | {args.segments} segments"
        )
        header = (
            "| checkpoint | cold ours | cold ref | ratio | warm ours | warm ref | ratio | peak ours | peak ref "
            "| max abs delta |"
        )
        print(header)
        print("|---" * (header.count("|") - 1) + "|")
        for size, model in setups:
            common = {"data": str(path), "model": model, "tokenizer": tokenizer}
            r = run(args.ref_python, REFERENCE, {**common, "repo": args.metricx})
            o = run(sys.executable, OURS, common, env={"PYTHONPATH": str(ROOT / "src")})
            delta = max(abs(a - b) for a, b in zip(o["scores"], r["scores"], strict=True))
            print(
                f"| {size} | {o['cold']:.2f} s | {r['cold']:.2f} s | {r['cold'] / o['cold']:.2f}x | {o['warm']:.2f} s "
                f"| {r['warm']:.2f} s | {r['warm'] / o['warm']:.2f}x | {o['peak'] / 2**20:.0f} MiB "
                f"| {r['peak'] / 2**20:.0f} MiB | {delta:.1e} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
