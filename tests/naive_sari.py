"""SARI as HF evaluate's ``metrics/sari/sari.py`` computes it, restated line by line for the tests (a naive oracle).

The script (Apache-2.0) is tensor2tensor's SARI as adapted by EASSE: ``normalize`` lowercases and applies
sacrebleu's ``13a`` tokenizer, ``SARIsent`` splits on single spaces and builds the 1- to 4-grams, ``SARIngram``
scores keep / delete / add with ``collections.Counter`` arithmetic, and ``compute`` averages the sentence scores.
Every operation below is the script's, in the script's order (float sums included), with sacrebleu as the script
calls it; only the names are ours. ``tests/fixtures/sari`` holds the real script's outputs, which this oracle must
give too.
"""

from __future__ import annotations

from collections import Counter


def ngram_scores(sgrams: list[str], cgrams: list[str], rgramslist: list[list[str]], numref: int) -> tuple:
    """The script's ``SARIngram``: (keep F1, delete precision, add F1) of one order."""
    rgramcounter = Counter(g for rgrams in rgramslist for g in rgrams)
    sgramcounter = Counter(sgrams)
    sgramcounter_rep: Counter = Counter()
    for g, n in sgramcounter.items():
        sgramcounter_rep[g] = n * numref
    cgramcounter = Counter(cgrams)
    cgramcounter_rep: Counter = Counter()
    for g, n in cgramcounter.items():
        cgramcounter_rep[g] = n * numref

    # keep
    keep_rep = sgramcounter_rep & cgramcounter_rep
    keep_good = keep_rep & rgramcounter
    keep_all = sgramcounter_rep & rgramcounter
    tmp1 = 0
    tmp2 = 0
    for g in keep_good:
        tmp1 += keep_good[g] / keep_rep[g]
        tmp2 += keep_good[g]
    keep_p = 1
    keep_r = 1
    if len(keep_rep) > 0:
        keep_p = tmp1 / len(keep_rep)
    if len(keep_all) > 0:
        keep_r = tmp2 / sum(keep_all.values())
    keep = 0
    if keep_p > 0 or keep_r > 0:
        keep = 2 * keep_p * keep_r / (keep_p + keep_r)

    # delete
    del_rep = sgramcounter_rep - cgramcounter_rep
    del_good = del_rep - rgramcounter
    del_all = sgramcounter_rep - rgramcounter
    dtmp1 = 0
    dtmp2 = 0
    for g in del_good:
        dtmp1 += del_good[g] / del_rep[g]
        dtmp2 += del_good[g] / del_all[g]
    del_p = 1
    if len(del_rep) > 0:
        del_p = dtmp1 / len(del_rep)

    # add
    add = set(cgramcounter) - set(sgramcounter)
    add_good = set(add) & set(rgramcounter)
    add_all = set(rgramcounter) - set(sgramcounter)
    atmp = 0
    for _ in add_good:
        atmp += 1
    add_p = 1
    add_r = 1
    if len(add) > 0:
        add_p = atmp / len(add)
    if len(add_all) > 0:
        add_r = atmp / len(add_all)
    addscore = 0
    if add_p > 0 or add_r > 0:
        addscore = 2 * add_p * add_r / (add_p + add_r)
    return keep, del_p, addscore


def _grams(words: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The script's 2-, 3- and 4-grams of a token list (its loop, joined with single spaces)."""
    g2, g3, g4 = [], [], []
    for i in range(0, len(words) - 1):
        if i < len(words) - 1:
            g2.append(words[i] + " " + words[i + 1])
        if i < len(words) - 2:
            g3.append(words[i] + " " + words[i + 1] + " " + words[i + 2])
        if i < len(words) - 3:
            g4.append(words[i] + " " + words[i + 1] + " " + words[i + 2] + " " + words[i + 3])
    return g2, g3, g4


def sentence_parts(ssent: str, csent: str, rsents: list[str]) -> tuple[float, float, float, float]:
    """The script's ``SARIsent`` on normalised sentences: (score, mean keep, mean delete, mean add)."""
    numref = len(rsents)
    s1 = ssent.split(" ")
    c1 = csent.split(" ")
    s_grams = [s1, *_grams(s1)]
    c_grams = [c1, *_grams(c1)]
    r_lists: list[list[list[str]]] = [[], [], [], []]
    for rsent in rsents:
        r1 = rsent.split(" ")
        for n, grams in enumerate([r1, *_grams(r1)]):
            r_lists[n].append(grams)
    scores = [ngram_scores(s_grams[n], c_grams[n], r_lists[n], numref) for n in range(4)]
    avgkeep = sum([s[0] for s in scores]) / 4
    avgdel = sum([s[1] for s in scores]) / 4
    avgadd = sum([s[2] for s in scores]) / 4
    final = (avgkeep + avgdel + avgadd) / 3
    return final, avgkeep, avgdel, avgadd


def normalize(sentence: str, lowercase: bool = True, tokenizer: str = "13a") -> str:
    """The script's ``normalize``: ``str.lower``, then a fresh sacrebleu tokenizer (as the script builds one per
    call), or the sentence as it is for a tokenizer the script does not know."""
    import sacrebleu
    from packaging import version
    from sacrebleu.metrics.bleu import _get_tokenizer

    if lowercase:
        sentence = sentence.lower()
    if tokenizer in ("13a", "intl"):
        if version.parse(sacrebleu.__version__).major >= 2:  # the script's check, made for every sentence
            return _get_tokenizer(tokenizer)()(sentence)
        raise RuntimeError("the script's sacrebleu 1.x branch is not restated")
    return sentence


def sentence_sari(source: str, prediction: str, references: list[str], **kw) -> float:
    """One segment's score as the script returns it for a corpus of that segment alone (0-100)."""
    final = sentence_parts(
        normalize(source, **kw), normalize(prediction, **kw), [normalize(r, **kw) for r in references]
    )
    return 100 * (final[0] / 1)


def corpus_sari(sources: list[str], predictions: list[str], references: list[list[str]], **kw) -> float:
    """The script's ``_compute``: the running sum of the sentence scores, over their number, ×100."""
    if not (len(sources) == len(predictions) == len(references)):
        raise ValueError("Sources length must match predictions and references lengths.")
    total = 0
    for src, pred, refs in zip(sources, predictions, references, strict=True):
        total += sentence_parts(normalize(src, **kw), normalize(pred, **kw), [normalize(r, **kw) for r in refs])[0]
    total = total / len(predictions)
    return 100 * total
