"""Question-answering test inputs shared by the parity tests and the fixture generator.

* :func:`generated_cases`: seeded synthetic questions that stress the conventions (CJK, kana, full-width and
  half-width forms, articles, punctuation-only and empty answers, unanswerable questions, tied no-answer
  probabilities). Deterministic for a seed.
* :func:`real_cases`: real short answers derived, deterministically, from the shared data folder (never copied
  into the repository): DocVQA model answers with their accepted answers, and Chinese and Japanese clauses from
  the WMT22 en-zh and en-ja system outputs (the first clause of a system's translation as the prediction, the
  first clauses of the reference translations as the accepted answers).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

Case = dict[str, Any]  # {"id", "prediction", "answers": [...], "na_prob"}

_WORDS = ["the", "a", "an", "Denver", "Broncos", "1976", "cat", "The", "AN", "apple", "Tokyo", "東京", "北京", "2008年"]
_CHARS = (
    list("abcdefgXYZ0123456789 ")
    + list("!\"#$%&'()*+,-/:;<=>?@[\\]^_`{|}~")
    + list("東京都大阪北京奥运会中国人民的年月日")
    + list("ひらがなカタカナー")
    + list("ＡＢＣａｂｃ１２３　")
    + list("ｶﾞｷﾟｰ｡｢｣")
    + list("，。：？！“”；’《》…·、「」（）－～『』")
    + ["\t", "\n", "\u3000", "\u00a0", "Σ", "İ", "ß"]
)
_PUNCT_ONLY = ["?", "...", "。", "，、", "!!", "（）", "- -", "“”"]


def _text(rng: np.random.Generator) -> str:
    kind = rng.integers(0, 10)
    if kind == 0:
        return ""
    if kind == 1:
        return str(rng.choice(_PUNCT_ONLY))
    if kind <= 4:
        n = int(rng.integers(1, 6))
        return " ".join(str(rng.choice(_WORDS)) for _ in range(n))
    n = int(rng.integers(1, 14))
    return "".join(str(rng.choice(_CHARS)) for _ in range(n))


def generated_cases(n: int = 400, seed: int = 20240601, unanswerable: bool = True) -> list[Case]:
    """``n`` synthetic questions; about one in six has no accepted answer when ``unanswerable``."""
    rng = np.random.default_rng(seed)
    out: list[Case] = []
    for i in range(n):
        pred = _text(rng)
        k = int(rng.integers(0 if unanswerable else 1, 4))
        answers = [_text(rng) for _ in range(k)]
        if k and rng.random() < 0.25:
            answers[0] = pred  # some exact hits
        if rng.random() < 0.1:
            pred = pred.upper()
        na = float(rng.choice([0.0, 0.1, 0.5, 0.9, 1.0])) if rng.random() < 0.5 else float(round(rng.random(), 3))
        out.append({"id": f"g{i}", "prediction": pred, "answers": answers, "na_prob": na})
    return out


# ---------------------------------------------------------------------------------------------------- real data
_CLAUSE = re.compile(r"[，。、；;,！？!?]")


def _clause(text: str) -> str:
    return _CLAUSE.split(text.strip(), maxsplit=1)[0].strip()


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def real_cases(shared: Path, name: str, limit: int = 1500) -> list[Case]:
    """Real cases: ``docvqa-flant5``, ``docvqa-opt`` (the first ``limit`` DocVQA validation questions), ``wmt22-zh``,
    ``wmt22-ja`` (the first ``limit`` segments' first clauses, Online-A against the references)."""
    if name.startswith("docvqa"):
        model = "blip2-flant5" if name == "docvqa-flant5" else "blip2-opt"
        data = json.loads((shared / "docvqa" / f"{model}.docvqa-val.json").read_text(encoding="utf-8"))[:limit]
        return [
            {"id": f"{name}-{i}", "prediction": d["answer"], "answers": list(d["gt_answers"]), "na_prob": 0.0}
            for i, d in enumerate(data)
        ]
    lang = name.rsplit("-", 1)[1]
    wmt = shared / "wmt22"
    hyp = _lines(wmt / "system-outputs" / f"generaltest2022.en-{lang}.hyp.Online-A.{lang}")
    refs = [_lines(p) for p in sorted((wmt / "references").glob(f"generaltest2022.en-{lang}.ref.*.{lang}"))]
    return [
        {"id": f"{name}-{i}", "prediction": _clause(hyp[i]), "answers": [_clause(r[i]) for r in refs], "na_prob": 0.0}
        for i in range(min(limit, len(hyp) - 1))
    ]


def real_sentences(shared: Path, lang: str, limit: int = 300) -> tuple[list[str], list[str]]:
    """Whole WMT22 en-``lang`` sentences, Online-A against reference A (for the ROUGE and BLEU conventions)."""
    wmt = shared / "wmt22"
    hyp = _lines(wmt / "system-outputs" / f"generaltest2022.en-{lang}.hyp.Online-A.{lang}")[:limit]
    ref = _lines(wmt / "references" / f"generaltest2022.en-{lang}.ref.A.{lang}")[:limit]
    return hyp, ref


REAL_SETS = ("docvqa-flant5", "docvqa-opt", "wmt22-zh", "wmt22-ja")


def punkt_free(case: Case) -> bool:
    """Whether CMRC 2018's segmentation of every text of the case never asks punkt for a decision (no candidate
    sentence end in a non-Chinese run), so that the script's numbers do not depend on NLTK's trained model."""
    from nltk.tokenize.punkt import PunktLanguageVars

    from nlgmetrics.text.answers import CMRC_PUNCTUATION

    candidates = PunktLanguageVars().period_context_re()
    for text in [case["prediction"], *case["answers"]]:
        runs = re.split(r"[\u4e00-\u9fa5]", "".join(c for c in text.lower().strip() if c not in CMRC_PUNCTUATION))
        if any(candidates.search(run) for run in runs):
            return False
    return True
