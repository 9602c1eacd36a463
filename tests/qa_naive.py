"""Naive restatements of the question-answering reference scripts, line by line, for the parity tests.

Each block restates one script that is not a pip package (its code is not copied; the same steps are written out
plainly): the official SQuAD v1.1 and v2.0 evaluation scripts, Hugging Face ``evaluate``'s ``exact_match``,
``squad`` and ``squad_v2`` metric scripts (the v1.1/v2.0 logic behind a different input layout), JGLUE's JSQuAD
evaluation (transformers 4.9.2 ``squad_metrics`` with JGLUE's patch), CMRC 2018's ``cmrc2018_evaluate.py`` (v6) and
llm-jp-eval's ``exact_match``/``char_f1``. The fixture tests check these restatements against the real scripts'
recorded outputs; the hypothesis tests then check the library against them.
"""

from __future__ import annotations

import collections
import re
import statistics
import string
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np


# ---------------------------------------------------------------------------------------------------- SQuAD v1.1
def v11_normalize_answer(s: str) -> str:
    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text: str) -> str:
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def v11_f1_score(prediction: str, ground_truth: str) -> float:
    prediction_tokens = v11_normalize_answer(prediction).split()
    ground_truth_tokens = v11_normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def v11_exact_match_score(prediction: str, ground_truth: str) -> bool:
    return v11_normalize_answer(prediction) == v11_normalize_answer(ground_truth)


def metric_max_over_ground_truths(metric_fn: Callable[[str, str], Any], prediction: str, ground_truths: list[str]):
    return max(metric_fn(prediction, gt) for gt in ground_truths)


def v11_evaluate(cases: list[dict[str, Any]]) -> dict[str, float]:
    f1 = exact_match = total = 0
    for c in cases:
        total += 1
        exact_match += metric_max_over_ground_truths(v11_exact_match_score, c["prediction"], c["answers"])
        f1 += metric_max_over_ground_truths(v11_f1_score, c["prediction"], c["answers"])
    return {"exact_match": 100.0 * exact_match / total, "f1": 100.0 * f1 / total}


# ---------------------------------------------------------------------------------------------------- SQuAD v2.0
def v20_normalize_answer(s: str, jsquad: bool = False) -> str:
    if jsquad:  # JGLUE's patch: remove_articles strips a trailing "。", remove_punc does nothing
        return " ".join(s.lower().rstrip("。").split())
    return v11_normalize_answer(s)


def v20_get_tokens(s: str, jsquad: bool = False) -> list[str]:
    if jsquad:  # JGLUE's patch of compute_f1: characters of the normalised text
        return list(v20_normalize_answer(s, True))
    if not s:
        return []
    return v20_normalize_answer(s).split()


def v20_compute_exact(a_gold: str, a_pred: str, jsquad: bool = False) -> int:
    return int(v20_normalize_answer(a_gold, jsquad) == v20_normalize_answer(a_pred, jsquad))


def v20_compute_f1(a_gold: str, a_pred: str, jsquad: bool = False, empty_rule: bool = True) -> float:
    gold_toks = v20_get_tokens(a_gold, jsquad)
    pred_toks = v20_get_tokens(a_pred, jsquad)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if empty_rule and (len(gold_toks) == 0 or len(pred_toks) == 0):
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def v20_raw_scores(cases: list[dict[str, Any]], jsquad: bool = False) -> tuple[dict[str, int], dict[str, float]]:
    exact_scores: dict[str, int] = {}
    f1_scores: dict[str, float] = {}
    for c in cases:
        gold_answers = [a for a in c["answers"] if v20_normalize_answer(a, jsquad)]
        if not gold_answers:
            gold_answers = [""]
        exact_scores[c["id"]] = max(v20_compute_exact(a, c["prediction"], jsquad) for a in gold_answers)
        f1_scores[c["id"]] = max(v20_compute_f1(a, c["prediction"], jsquad) for a in gold_answers)
    return exact_scores, f1_scores


def v20_find_best_thresh(preds, scores, na_probs, qid_to_has_ans):
    num_no_ans = sum(1 for k in qid_to_has_ans if not qid_to_has_ans[k])
    cur_score = num_no_ans
    best_score = cur_score
    best_thresh = 0.0
    qid_list = sorted(na_probs, key=lambda k: na_probs[k])
    for qid in qid_list:
        if qid not in scores:
            continue
        if qid_to_has_ans[qid]:
            diff = scores[qid]
        elif preds[qid]:
            diff = -1
        else:
            diff = 0
        cur_score += diff
        if cur_score > best_score:
            best_score = cur_score
            best_thresh = na_probs[qid]
    return 100.0 * best_score / len(scores), best_thresh


def v20_evaluate(
    cases: list[dict[str, Any]], na_probs: bool = False, thresh: float = 1.0, jsquad: bool = False
) -> dict[str, Any]:
    preds = {c["id"]: c["prediction"] for c in cases}
    probs = {c["id"]: c["na_prob"] for c in cases} if na_probs else {k: 0.0 for k in preds}
    has = {c["id"]: bool(c["answers"]) for c in cases}
    has_ids = [k for k, v in has.items() if v]
    no_ids = [k for k, v in has.items() if not v]
    exact_raw, f1_raw = v20_raw_scores(cases, jsquad)

    def threshold(scores):
        return {q: float(not has[q]) if probs[q] > thresh else s for q, s in scores.items()}

    exact_t, f1_t = threshold(exact_raw), threshold(f1_raw)

    def make(ids):
        return {
            "exact": 100.0 * sum(exact_t[k] for k in ids) / len(ids),
            "f1": 100.0 * sum(f1_t[k] for k in ids) / len(ids),
            "total": len(ids),
        }

    out = {
        "exact": 100.0 * sum(exact_t.values()) / len(exact_t),
        "f1": 100.0 * sum(f1_t.values()) / len(f1_t),
        "total": len(exact_t),
    }
    for prefix, ids in (("HasAns", has_ids), ("NoAns", no_ids)):
        if ids:
            out.update({f"{prefix}_{k}": v for k, v in make(ids).items()})
    if na_probs:
        out["best_exact"], out["best_exact_thresh"] = v20_find_best_thresh(preds, exact_raw, probs, has)
        out["best_f1"], out["best_f1_thresh"] = v20_find_best_thresh(preds, f1_raw, probs, has)
    return out


# ---------------------------------------------------------------------------------------------------- HF evaluate
def hf_exact_match(
    predictions, references, regexes_to_ignore=None, ignore_case=False, ignore_punctuation=False, ignore_numbers=False
) -> float:
    if regexes_to_ignore is not None:
        for s in regexes_to_ignore:
            predictions = np.array([re.sub(s, "", x) for x in predictions])
            references = np.array([re.sub(s, "", x) for x in references])
    else:
        predictions = np.asarray(predictions)
        references = np.asarray(references)
    if ignore_case:
        predictions = np.char.lower(predictions)
        references = np.char.lower(references)
    if ignore_punctuation:
        repl_table = string.punctuation.maketrans("", "", string.punctuation)
        predictions = np.char.translate(predictions, table=repl_table)
        references = np.char.translate(references, table=repl_table)
    if ignore_numbers:
        repl_table = string.digits.maketrans("", "", string.digits)
        predictions = np.char.translate(predictions, table=repl_table)
        references = np.char.translate(references, table=repl_table)
    score_list = predictions == references
    return float(np.mean(score_list))


# ---------------------------------------------------------------------------------------------------- CMRC 2018
SP_CHAR = [
    "-", ":", "_", "*", "^", "/", "\\", "~", "`", "+", "=",
    "，", "。", "：", "？", "！", "“", "”", "；", "’", "《", "》", "……", "·", "、",
    "「", "」", "（", "）", "－", "～", "『", "』",
]  # fmt: skip


def _word_tokenize(text: str) -> list[str]:
    """``nltk.word_tokenize`` with punkt's untrained parameters (the same as the English model wherever the text
    holds no candidate sentence end, which is where the tests use it)."""
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return [t for sent in PunktSentenceTokenizer().tokenize(text) for t in NLTKWordTokenizer().tokenize(sent)]


def cmrc_mixed_segmentation(in_str: str, rm_punc: bool = False) -> list[str]:
    in_str = str(in_str).lower().strip()
    segs_out: list[str] = []
    temp_str = ""
    for char in in_str:
        if rm_punc and char in SP_CHAR:
            continue
        if re.search(r"[\u4e00-\u9fa5]", char) or char in SP_CHAR:
            if temp_str != "":
                segs_out.extend(_word_tokenize(temp_str))
                temp_str = ""
            segs_out.append(char)
        else:
            temp_str += char
    if temp_str != "":
        segs_out.extend(_word_tokenize(temp_str))
    return segs_out


def cmrc_remove_punctuation(in_str: str) -> str:
    in_str = str(in_str).lower().strip()
    return "".join(char for char in in_str if char not in SP_CHAR)


def cmrc_find_lcs(s1: list[str], s2: list[str]) -> int:
    m = [[0 for _ in range(len(s2) + 1)] for _ in range(len(s1) + 1)]
    mmax = 0
    for i in range(len(s1)):
        for j in range(len(s2)):
            if s1[i] == s2[j]:
                m[i + 1][j + 1] = m[i][j] + 1
                mmax = max(mmax, m[i + 1][j + 1])
    return mmax


def cmrc_calc_f1_score(answers: list[str], prediction: str) -> float:
    f1_scores = []
    for ans in answers:
        ans_segs = cmrc_mixed_segmentation(ans, rm_punc=True)
        prediction_segs = cmrc_mixed_segmentation(prediction, rm_punc=True)
        lcs_len = cmrc_find_lcs(ans_segs, prediction_segs)
        if lcs_len == 0:
            f1_scores.append(0)
            continue
        precision = 1.0 * lcs_len / len(prediction_segs)
        recall = 1.0 * lcs_len / len(ans_segs)
        f1_scores.append((2 * precision * recall) / (precision + recall))
    return max(f1_scores)


def cmrc_calc_em_score(answers: list[str], prediction: str) -> int:
    for ans in answers:
        if cmrc_remove_punctuation(ans) == cmrc_remove_punctuation(prediction):
            return 1
    return 0


def cmrc_evaluate(cases: list[dict[str, Any]]) -> dict[str, Any]:
    f1 = em = total = 0
    for c in cases:
        total += 1
        f1 += cmrc_calc_f1_score(c["answers"], c["prediction"])
        em += cmrc_calc_em_score(c["answers"], c["prediction"])
    f1_score, em_score = 100.0 * f1 / total, 100.0 * em / total
    return {"AVERAGE": "%.3f" % ((em_score + f1_score) * 0.5), "F1": f"{f1_score:.3f}", "EM": f"{em_score:.3f}"}


# ---------------------------------------------------------------------------------------------------- llm-jp-eval
def llm_jp_normalize(s: str) -> str:
    return unicodedata.normalize("NFKC", s)


def llm_jp_eval(cases: list[dict[str, Any]]) -> dict[str, float]:
    """One reference per question (llm-jp-eval's); several here: the best."""
    from rapidfuzz import fuzz

    em, f1 = [], []
    for c in cases:
        y_pred = llm_jp_normalize(c["prediction"]).strip()
        y_trues = [llm_jp_normalize(a) for a in c["answers"]]
        em.append(max((y_pred == t) * 1.0 for t in y_trues))
        f1.append(max(fuzz.token_sort_ratio(y_pred, t) / 100.0 for t in y_trues))
    return {"exact_match": statistics.mean(em), "char_f1": statistics.mean(f1)}
