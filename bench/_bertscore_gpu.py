"""The GPU and shape sections of ``bench/bertscore.py`` (``--device cuda``, ``--counts``).

**GPU** (``--device cuda``): BERTScore against bert-score 0.3.13 on the same weights and pairs, as first measured on
an H200. The models are randomly initialised BERT encoders of two real shapes with MiniLM's WordPiece vocabulary
(timings depend on the shape only; parity is tool against tool on the same weights): ``base`` (768 x 12, layer 9,
like mBERT's layer 9) and ``large`` (1,024 x 24, layer 17, like roberta-large's); ``--model PATH --layer L`` runs a
real model instead. The corpora: 10,000 SummEval pairs (a system summary against one of its document's 11
references) and 10,000 WMT22 de-en/zh-en pairs. Each tool has its model loaded and warmed on 16 pairs first;
``BERTScorer(batch_size=64)`` is bert-score. For each model and corpus: bert-score, our float32 call (first on
these pairs, then repeated) and our bfloat16 call (first, repeated), each with the device synchronised around it,
its peak GPU memory (``torch.cuda.max_memory_allocated`` above what was held before), the ratio to bert-score,
the largest |difference| of P, R and F against bert-score's float32 (F only for bfloat16) and the number of
distinct forward shapes of the call. Our reference cache is off (``cache=False``), so a repeated call embeds
everything again.

**Shapes** (``--counts``, any device): the forward shapes of one call on SummEval 3,000 and 10,000 pairs and WMT22
10,000 pairs, with a BERT-base-sized token budget, under the CPU's policy (each batch padded to its longest) and the
accelerator's (width buckets, two batch sizes per width). The model's forward is replaced by a stand-in of the same
output shape, as the shapes do not depend on the values. Then the torch profiler's operator counts of one real call
on ``--profile-pairs`` SummEval pairs (MiniLM, CPU): operators, copies, conversions, gathers and scatters.
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from _common import SHARED_DATA, fmt_time, table

SHAPES = {"base": (768, 12, 12, 3072, 9), "large": (1024, 24, 16, 4096, 17)}


def summeval_rows() -> list[dict[str, Any]]:
    with (SHARED_DATA / "summeval" / "summeval.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def data_summeval(n: int) -> tuple[list[str], list[str]]:
    """System summaries against one of their document's 11 references, reference by reference."""
    rows = summeval_rows()
    preds, refs = [], []
    for k in range(11):
        for row in rows:
            for system in sorted(row["sys_summs"]):
                preds.append(row["sys_summs"][system]["sys_summ"])
                refs.append(row["ref_summs"][k])
    return preds[:n], refs[:n]


def data_wmt(n: int) -> tuple[list[str], list[str]]:
    """WMT22 de-en and zh-en system outputs against reference A, non-empty lines."""
    base = SHARED_DATA / "wmt22"
    preds, refs = [], []
    for pair in ("de-en", "zh-en"):
        ref = (base / "references" / f"generaltest2022.{pair}.ref.A.en").read_text(encoding="utf-8").split("\n")
        for path in sorted((base / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*")):
            for h, r in zip(path.read_text(encoding="utf-8").split("\n"), ref, strict=False):
                if h.strip() and r.strip():
                    preds.append(h)
                    refs.append(r)
    return preds[:n], refs[:n]


CORPORA: dict[str, Callable[[int], tuple[list[str], list[str]]]] = {"SummEval": data_summeval, "WMT22": data_wmt}


def build_models(names: list[str], vocab_from: str, folder: Path) -> dict[str, tuple[str, int]]:
    """Random BERT encoders of the named shapes, saved with the tokenizer of ``vocab_from``."""
    import torch
    from transformers import BertConfig, BertModel

    out = {}
    for name in names:
        hidden, layers, heads, inner, layer = SHAPES[name]
        path = folder / name
        torch.manual_seed(0)
        config = BertConfig(
            vocab_size=30522,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=inner,
            max_position_embeddings=512,
        )
        BertModel(config).save_pretrained(path)
        for f in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
            if (Path(vocab_from) / f).is_file():
                shutil.copy(Path(vocab_from) / f, path)
        out[name] = (str(path), layer)
    return out


def _timed(device: str, fn: Callable[[], Any]) -> tuple[float, Any, float]:
    """Seconds (the device synchronised around the call), the result, and the peak GPU memory above the start."""
    import torch

    torch.cuda.empty_cache()
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    t0 = time.perf_counter()
    out = fn()
    torch.cuda.synchronize(device)
    return time.perf_counter() - t0, out, (torch.cuda.max_memory_allocated(device) - base) / 2**20


def _ours(path: str, layer: int, device: str, dtype: str, preds: list[str], refs: list[str]) -> Any:
    import nlgmetrics as nm
    from nlgmetrics.metrics.bertscore.head import get_encoders

    for encoder in get_encoders(path, layer, device=device, dtype=dtype):
        encoder.runner.reset_stats()
    return nm.bertscore(
        preds,
        refs,
        model=path,
        num_layers=layer,
        device=device,
        dtype=dtype,
        cache=False,
        reduction=None,
        progress=False,
    )


def _corpus_rows(
    device: str, scorer: Any, path: str, layer: int, label: str, preds: list[str], refs: list[str], repeat: int
) -> tuple[list[tuple[str, ...]], dict[str, Any]]:
    from nlgmetrics.metrics.bertscore.head import get_encoders

    runs = [_timed(device, functools.partial(scorer.score, preds, refs)) for _ in range(repeat)]
    bs_t, (bp, br, bf), bs_mem = min(runs, key=lambda x: x[0])
    truth = [t.double().numpy() for t in (bp, br, bf)]
    rows = [(label, "bert-score 0.3.13 (fp32)", fmt_time(bs_t), "", "1.00×", f"{bs_mem:.0f} MiB", "", "")]
    entry: dict[str, Any] = {"bert_score_s": bs_t, "bert_score_peak_mib": bs_mem}
    for dtype in ("float32", "bfloat16"):
        call = functools.partial(_ours, path, layer, device, dtype, preds, refs)
        first_t, result, mem = _timed(device, call)
        shapes = len({s for e in get_encoders(path, layer, device=device, dtype=dtype) for s in e.runner.shapes})
        again = min(_timed(device, call)[0] for _ in range(max(1, repeat)))
        got = [np.asarray(getattr(result, k), dtype=np.float64) for k in ("precision", "recall", "f1")]
        if dtype == "float32":
            diff = max(float(np.abs(g - t).max()) for g, t in zip(got, truth, strict=True))
            numbers = f"max |Δ| P/R/F {diff:.1e}"
        else:
            diff = float(np.abs(got[2] - truth[2]).max())
            numbers = f"max |ΔF| {diff:.1e}"
        ratio = f"{bs_t / first_t:.2f}× ({bs_t / again:.2f}×)"
        rows.append(
            (
                "",
                f"nlgmetrics {dtype}",
                fmt_time(first_t),
                fmt_time(again),
                ratio,
                f"{mem:.0f} MiB",
                numbers,
                str(shapes),
            )
        )
        entry[dtype] = {"first_s": first_t, "repeated_s": again, "peak_mib": mem, "max_diff": diff, "shapes": shapes}
    return rows, entry


def gpu_tables(device: str, models: dict[str, tuple[str, int]], pairs: int, repeat: int) -> dict[str, Any]:
    import bert_score
    import torch

    rows: list[tuple[str, ...]] = []
    figures: dict[str, Any] = {"device": torch.cuda.get_device_name(device), "torch": torch.__version__}
    warm_p, warm_r = data_wmt(16)
    for model_name, (path, layer) in models.items():
        scorer = bert_score.BERTScorer(model_type=path, num_layers=layer, device=device, batch_size=64)
        scorer.score(warm_p, warm_r)
        for dtype in ("float32", "bfloat16"):  # both tools' models loaded and warmed on 16 pairs
            _ours(path, layer, device, dtype, warm_p, warm_r)
        for corpus, loader in CORPORA.items():
            preds, refs = loader(pairs)
            label = f"{model_name}, {corpus}, {len(preds):,} pairs"
            corpus_rows, figures[label] = _corpus_rows(device, scorer, path, layer, label, preds, refs, repeat)
            rows += corpus_rows
            print(f"  {label}: done", flush=True)
    header = ("workload", "implementation", "first call", "repeated", "vs bert-score", "peak GPU", "numbers", "shapes")
    print(table(rows, header))
    print("vs bert-score: its time over ours, for our first call (and repeated); shapes: distinct forward shapes")
    return figures


def count_shapes(model: str, layer: int) -> list[tuple[str, ...]]:
    """Distinct forward shapes and passes of one call, both policies, a BERT-base-sized budget (stand-in forward)."""
    import torch

    import nlgmetrics as nm
    from nlgmetrics.engine.runner import ACCELERATOR_FORWARD_BYTES, token_budget
    from nlgmetrics.metrics.bertscore import head

    encoder = head.get_encoder(model, layer, device="cpu")
    saved = (encoder.runner.bucketed, encoder.runner.budget, head.CHUNK_BYTES, encoder.__dict__.get("head"))
    hidden = encoder.hidden

    def stand_in(net: Any, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.normalize(torch.ones(ids.shape[0], ids.shape[1], 1, hidden), dim=-1)

    class Base:  # BERT-base's widths, for the token budget
        hidden_size, intermediate_size = 768, 3072

    rows = []
    try:
        encoder.head = stand_in  # type: ignore[method-assign]
        for policy, bucketed in (("CPU: each batch padded to its longest", False), ("accelerator: buckets", True)):
            encoder.runner.bucketed = bucketed
            encoder.runner.budget = token_budget(Base, torch.float32, torch.device("cuda" if bucketed else "cpu"))
            # a chunk of a 768-wide model's embeddings, in this model's narrower rows
            head.CHUNK_BYTES = (head.ACCELERATOR_CHUNK_BYTES if bucketed else saved[2]) * hidden // 768
            for name, (loader, n) in {
                "SummEval 3,000": (data_summeval, 3000),
                "SummEval 10,000": (data_summeval, 10000),
                "WMT22 10,000": (data_wmt, 10000),
            }.items():
                preds, refs = loader(n)
                encoder.runner.reset_stats()
                nm.bertscore(preds, refs, model=model, num_layers=layer, cache=False, progress=False)
                shapes = encoder.runner.shapes
                padded = sum(r * w for r, w in shapes)
                rows.append((name, policy, str(len(set(shapes))), str(len(shapes)), f"{padded:,}"))
    finally:
        encoder.runner.bucketed, encoder.runner.budget, head.CHUNK_BYTES = saved[0], saved[1], saved[2]
        if saved[3] is None:
            encoder.__dict__.pop("head", None)
    del ACCELERATOR_FORWARD_BYTES
    return rows


def count_operators(model: str, layer: int, pairs: int) -> list[tuple[str, ...]]:
    """The torch profiler's operator counts of one call on ``pairs`` SummEval pairs (CPU)."""
    from torch.profiler import ProfilerActivity, profile

    import nlgmetrics as nm

    preds, refs = data_summeval(pairs)
    nm.bertscore(preds[:4], refs[:4], model=model, num_layers=layer, cache=False, progress=False)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        nm.bertscore(preds, refs, model=model, num_layers=layer, cache=False, progress=False)
    counts = {e.key: e.count for e in prof.key_averages()}
    top = sum(1 for e in prof.events() if e.cpu_parent is None)
    names = (
        "aten::copy_",
        "aten::to",
        "aten::_to_copy",
        "aten::slice",
        "aten::select",
        "aten::pad_sequence",
        "aten::index_select",
        "aten::index_copy_",
        "aten::matmul",
        "aten::linear",
    )
    rows = [
        (f"{pairs:,} SummEval pairs, one call", "operators (all / top level)", f"{sum(counts.values()):,} / {top:,}")
    ]
    rows += [("", name, f"{counts.get(name, 0):,}") for name in names]
    return rows


def counts_section(model: str, layer: int, pairs: int) -> None:
    print(
        table(count_shapes(model, layer), ("one call", "policy", "distinct shapes", "forward passes", "padded tokens"))
    )
    print()
    print(table(count_operators(model, layer, pairs), ("workload", "torch operator", "count")))


def gpu_section(
    device: str, model: str | None, layer: int | None, vocab_from: str, pairs: int, repeat: int, shapes: list[str]
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        if model is not None:
            models = {Path(model).name: (model, int(layer or 0))}
        else:
            print(f"building random BERT encoders: {', '.join(shapes)}", flush=True)
            models = build_models(shapes, vocab_from, Path(tmp))
        # the tokenizer's threads as users meet them (on by default): bert-score tokenises text by text, in Python
        return gpu_tables(device, models, pairs, repeat)
