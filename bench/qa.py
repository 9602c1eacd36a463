"""Benchmark of the QA families (``squad``, ``exact_match``) and the SFT conventions against their references,
in one process on the same data, each pair of timings interleaved (best of ``--repeat`` rounds).

Peers:
* torchmetrics ``functional.text.squad`` (pip), the official SQuAD v1.1 / v2.0 scripts' logic (their restatement in
  ``tests/qa_naive.py``, checked against the scripts' recorded outputs), Hugging Face ``evaluate``'s
  ``exact_match`` computation, llm-jp-eval's loop of ``rapidfuzz.fuzz.token_sort_ratio`` (pip);
* LLaMA-Factory's ``ComputeSimilarity`` loop (jieba + rouge-chinese + NLTK ``sentence_bleu``, pip) and the pltrdy
  ``rouge`` package's ``get_scores(avg=True)`` (pip).

Data: the 10,698 DocVQA validation questions of ``../shared/data/docvqa`` (both models' answers), the WMT22 en-zh
and de-en sentences; synthetic questions when the folder is absent. Reported: the corpus call (``warm``: a second
call on the same text, labelled), the latency per question at batch sizes 1, 8, 64 and 512 on questions no earlier
call has seen, and ``cold`` (a fresh process: import and first call).

Run: ``python bench/qa.py`` (``--quick``: 2,000 questions, fewer rounds).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.qa_naive: the scripts' logic

from tests import qa_naive as naive  # noqa: E402

import nlgmetrics as nm  # noqa: E402
from _common import SHARED_DATA, fmt_time, interleaved, machine, table  # noqa: E402


def questions(limit: int) -> list[dict[str, Any]]:
    docvqa = SHARED_DATA / "docvqa"
    if docvqa.is_dir():
        data = []
        for path in sorted(docvqa.glob("*.docvqa-val.json")):
            data += json.loads(path.read_text(encoding="utf-8"))
        cases = [{"id": str(i), "prediction": d["answer"], "answers": d["gt_answers"]} for i, d in enumerate(data)]
    else:
        from tests.qa_cases import generated_cases

        cases = [c for c in generated_cases(limit, unanswerable=False)]
    return [{**c, "na_prob": 0.0} for c in cases[:limit]]


def _tm_inputs(cases: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    preds = [{"prediction_text": c["prediction"], "id": c["id"]} for c in cases]
    target = [
        {"answers": {"text": c["answers"], "answer_start": [0] * len(c["answers"])}, "id": c["id"]} for c in cases
    ]
    return preds, target


def _import_package(name: str) -> Any:
    import importlib

    here = str(Path(__file__).resolve().parent)
    saved, own = sys.path[:], sys.modules.pop(name, None)
    sys.path[:] = [p for p in sys.path if p not in ("", here)]
    try:
        return importlib.import_module(name)
    finally:
        sys.path[:] = saved
        if own is not None:
            sys.modules[name] = own


def cold(code: str) -> float:
    """Wall time of a fresh interpreter running ``code`` (import and first call), best of 3."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, cwd=ROOT)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    n = 2000 if args.quick else 10_698
    repeat = 1 if args.quick else args.repeat
    cases = questions(n)
    preds, refs = [c["prediction"] for c in cases], [c["answers"] for c in cases]
    from torchmetrics.functional.text import squad as tm_squad

    tm_p, tm_t = _tm_inputs(cases)
    rows: list[tuple[str, ...]] = []

    def add(workload: str, ours: str, theirs: str, t: dict[str, float], out: dict[str, Any], check: str) -> None:
        ratio = t[theirs] / t[ours]
        rows.append((workload, theirs, fmt_time(t[ours]), fmt_time(t[theirs]), f"{ratio:,.1f}× faster", check))

    # ---------------------------------------------------------------------------------------------- corpus
    t, out = interleaved(
        {
            "nlgmetrics squad-v1": lambda: nm.squad(preds, refs, preset="torchmetrics").f1,
            "torchmetrics squad": lambda: float(tm_squad(tm_p, tm_t)["f1"]),
            "SQuAD v1.1 script logic": lambda: naive.v11_evaluate(cases)["f1"],
        },
        repeat,
    )
    check = f"|Δ| {abs(out['nlgmetrics squad-v1'] - out['torchmetrics squad']):.1e} (float32 sums)"
    add(f"SQuAD EM+F1, {n:,} questions", "nlgmetrics squad-v1", "torchmetrics squad", t, out, check)
    add("", "nlgmetrics squad-v1", "SQuAD v1.1 script logic", t, out, "")
    t, out = interleaved(
        {
            "nlgmetrics squad-v2": lambda: nm.squad(preds, refs, preset="squad-v2").official(),
            "SQuAD v2.0 script logic": lambda: naive.v20_evaluate(cases),
        },
        repeat,
    )
    add("SQuAD v2.0", "nlgmetrics squad-v2", "SQuAD v2.0 script logic", t, out, "")
    t, out = interleaved(
        {
            "nlgmetrics llm-jp-eval": lambda: nm.squad(preds, refs, preset="llm-jp-eval").f1,
            "llm-jp-eval loop (rapidfuzz)": lambda: naive.llm_jp_eval(cases)["char_f1"],
        },
        repeat,
    )
    add("llm-jp-eval char_f1 + EM", "nlgmetrics llm-jp-eval", "llm-jp-eval loop (rapidfuzz)", t, out, "")
    first = [r[0] for r in refs]
    opts = {"ignore_case": True, "ignore_punctuation": True}
    t, out = interleaved(
        {
            "nlgmetrics exact_match": lambda: nm.exact_match(preds, first, preset="hf-evaluate", **opts).score,
            "HF evaluate exact_match": lambda: naive.hf_exact_match(preds, first, **opts),
        },
        repeat,
    )
    add("exact match (HF options), 1 ref", "nlgmetrics exact_match", "HF evaluate exact_match", t, out, "")

    # ---------------------------------------------------------------------------------------------- SFT conventions
    sys.path.insert(0, str(ROOT / "tests" / "parity"))
    from test_sft_parity import llamafactory  # type: ignore[import-not-found]
    from tests.qa_cases import real_sentences

    if (SHARED_DATA / "wmt22").is_dir():
        m = 500 if args.quick else 2000
        hyp, ref = real_sentences(SHARED_DATA, "zh", m)
        t, out = interleaved(
            {
                "nlgmetrics rouge+bleu llamafactory": lambda: (
                    nm.rouge(hyp, ref, preset="llamafactory").score,
                    nm.bleu(hyp, ref, preset="llamafactory").score,
                ),
                "LLaMA-Factory ComputeSimilarity": lambda: llamafactory(hyp, ref),
            },
            repeat,
            warmup=1,
        )
        add(f"ROUGE-1/2/L + BLEU-4, {m:,} zh sentences", "nlgmetrics rouge+bleu llamafactory",
            "LLaMA-Factory ComputeSimilarity", t, out, "")  # fmt: skip
        pltrdy = _import_package("rouge")  # bench/rouge.py shadows the pltrdy package on sys.path

        en = (
            (SHARED_DATA / "wmt22" / "system-outputs" / "generaltest2022.de-en.hyp.Online-A.en").read_text().split("\n")
        )
        en_ref = (SHARED_DATA / "wmt22" / "references" / "generaltest2022.de-en.ref.A.en").read_text().split("\n")
        pairs = [(h, r) for h, r in zip(en[:m], en_ref[:m], strict=True) if h.strip(". ") and r.strip(". ")]
        eh, er = [h for h, _ in pairs], [r for _, r in pairs]
        if not hasattr(pltrdy.Rouge, "cut_sent"):
            t, out = interleaved(
                {
                    "nlgmetrics rouge pltrdy": lambda: nm.rouge(eh, er, preset="pltrdy").score,
                    "rouge 1.0.1 get_scores(avg=True)": lambda: pltrdy.Rouge().get_scores(eh, er, avg=True),
                },
                repeat,
            )
            add(f"pltrdy ROUGE-1/2/L, {len(eh):,} en sentences", "nlgmetrics rouge pltrdy",
                "rouge 1.0.1 get_scores(avg=True)", t, out, "")  # fmt: skip

    print(f"# QA benchmark ({machine()})\n")
    print(table(rows, ("workload", "peer", "nlgmetrics", "peer time", "ratio", "check")))

    # ---------------------------------------------------------------------------------------------- latency
    lat_rows = []
    offset = 0
    for size in (1, 8, 64, 512):
        rounds = max(1, 256 // size)
        chunks = []
        for _ in range(rounds):
            chunk = cases[offset % len(cases) : offset % len(cases) + size]
            offset += size
            chunks.append(chunk)

        def ours_run(chs=chunks) -> None:
            for ch in chs:
                nm.squad([c["prediction"] for c in ch], [c["answers"] for c in ch])

        def tm_run(chs=chunks) -> None:
            for ch in chs:
                tm_squad(*_tm_inputs(ch))

        def script_run(chs=chunks) -> None:
            for ch in chs:
                naive.v11_evaluate(ch)

        t, _ = interleaved({"ours": ours_run, "tm": tm_run, "script": script_run}, 1)
        per = {k: v / (rounds * size) for k, v in t.items()}
        lat_rows.append(
            (
                str(size),
                fmt_time(per["ours"]),
                fmt_time(per["tm"]),
                fmt_time(per["script"]),
                f"{per['tm'] / per['ours']:.1f}×",
                f"{per['script'] / per['ours']:.2f}×",
            )
        )
    print("\nLatency per question (text not seen by an earlier call):\n")
    header = ("batch", "nlgmetrics", "torchmetrics squad", "v1.1 script logic", "vs torchmetrics", "vs script")
    print(table(lat_rows, header))

    # ---------------------------------------------------------------------------------------------- cold
    ours_cold = cold("import nlgmetrics as nm; nm.squad(['Denver Broncos'], [['Denver Broncos', 'Broncos']])")
    tm_cold = cold(
        "from torchmetrics.functional.text import squad; squad({'prediction_text': 'Denver Broncos', 'id': '1'}, "
        "{'answers': {'text': ['Denver Broncos', 'Broncos'], 'answer_start': [0, 0]}, 'id': '1'})"
    )
    print(f"\nCold (fresh process, import + one question): nlgmetrics {fmt_time(ours_cold)}, "
          f"torchmetrics {fmt_time(tm_cold)} ({tm_cold / ours_cold:.1f}× faster)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
