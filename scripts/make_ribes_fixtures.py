"""Run the official RIBES.py 1.03.1 once and record its outputs as test fixtures (numbers only, no code).

RIBES.py is GPL-2 and is not part of this repository. Fetch it yourself (the repository nttcslab-nlp/RIBES at
commit 7e76cf24d32de70e9e6afd0c9b95d8c140b7235c, file RIBES.py) and run, from the repository root::

    python scripts/make_ribes_fixtures.py --ribes path/to/RIBES.py --data ../shared/data

It writes ``tests/fixtures/ribes/generated.json`` (generated token sequences, and the script's scores) and
``tests/fixtures/ribes/wmt22-en-ja.json`` (the script's scores of the WMT22 en-ja systems, MeCab-tokenised with
nlgmetrics' ``ja-mecab`` tokenizer). Two ways of running the script are recorded:

* its command line, ``python3 RIBES.py [-c] [-z] [-a A -b B] -r REF [-r REF2] HYP``, whose printed line (six
  decimals) is stored as ``cli``;
* its evaluator at full precision: the script is imported as a module and ``RIBESevaluator(alpha=, beta=)
  .eval(hyp_corpus, [ref_corpus, ...], emptyref=)`` is called on the same files read by its ``Corpus`` class
  (the corpus score), and on one-sentence corpora (the sentence scores).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ribes"
SOURCE = "nttcslab-nlp/RIBES@7e76cf24d32de70e9e6afd0c9b95d8c140b7235c:RIBES.py"


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("ribes_official", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _run(
    script: Path, module: Any, workdir: Path, hyps: list[str], refsets: list[list[str]], options: dict[str, Any]
) -> dict[str, Any]:
    """Score ``hyps`` (lines) against the reference files ``refsets`` (one list of lines per reference)."""
    hyp_file = workdir / "hyp.txt"
    _write(hyp_file, hyps)
    ref_files = []
    for r, lines in enumerate(refsets):
        ref_files.append(workdir / f"ref{r}.txt")
        _write(ref_files[-1], lines)
    argv = [sys.executable, str(script)]
    if options.get("case"):
        argv.append("-c")
    if options.get("emptyref"):
        argv.append("-z")
    argv += ["-a", repr(options.get("alpha", 0.25)), "-b", repr(options.get("beta", 0.10))]
    for f in ref_files:
        argv += ["-r", str(f)]
    argv.append(str(hyp_file))
    printed = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=workdir).stdout
    cli = float(printed.split()[0])
    case = bool(options.get("case"))
    evaluator = module.RIBESevaluator(alpha=options.get("alpha", 0.25), beta=options.get("beta", 0.10), output=None)
    hyp_corpus = module.Corpus(str(hyp_file), case=case)
    ref_corpora = [module.Corpus(str(f), case=case) for f in ref_files]
    emptyref = bool(options.get("emptyref"))
    corpus = evaluator.eval(hyp_corpus, ref_corpora, emptyref=emptyref)

    class _One(list):  # a one-sentence corpus with the attribute the evaluator's messages use
        filename = "sentence"

    sentences: list[float | None] = []
    for i in range(len(hyps)):
        refs_i = [_One([c[i]]) for c in ref_corpora]
        try:
            sentences.append(evaluator.eval(_One([hyp_corpus[i]]), refs_i, emptyref=emptyref))
        except ZeroDivisionError:  # every reference empty and left out (-z): the sentence has no score
            sentences.append(None)
    return {"cli": cli, "corpus": corpus, "sentences": sentences}


def _generated(rng: random.Random) -> list[dict[str, Any]]:
    """Small corpora of generated sentences: repeated words (the context alignment), case, empty lines."""
    cases = []
    words = ["a", "b", "c", "d", "A", "the", "cat", "の", "は", "猫", "É", "é"]
    for k in range(12):
        n = 40
        vocab = words[: 3 + k % 9]
        hyps, ref1, ref2 = [], [], []
        for _ in range(n):
            hyps.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 14))))
            ref1.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(0 if k % 3 == 2 else 1, 14))))
            ref2.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(0 if k % 3 == 2 else 1, 14))))
        options: dict[str, Any] = {}
        if k % 4 == 1:
            options["case"] = True
        if k % 3 == 2:
            options["emptyref"] = True
        if k % 5 == 3:
            options["alpha"], options["beta"] = 0.5, 0.2
        refsets = [ref1] if k % 2 == 0 else [ref1, ref2]
        cases.append({"hyps": hyps, "refs": refsets, "options": options})
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ribes", type=Path, required=True, help="RIBES.py 1.03.1")
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder (wmt22/ inside)")
    args = parser.parse_args()
    module = _load(args.ribes)
    OUT.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20240611)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        generated = []
        for case in _generated(rng):
            case["ribes"] = _run(args.ribes, module, work, case["hyps"], case["refs"], case["options"])
            generated.append(case)
        (OUT / "generated.json").write_text(
            json.dumps({"source": SOURCE, "cases": generated}, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
        )

        from nlgmetrics.text import get_tokenizer
        from nlgmetrics.text.cjk import JaMecabTokenizer

        tokenize = get_tokenizer("ja-mecab")
        wmt = args.data / "wmt22"
        ref_lines = (wmt / "references" / "generaltest2022.en-ja.ref.A.ja").read_text(encoding="utf-8").split("\n")
        ref_lines = ref_lines[:-1] if ref_lines[-1] == "" else ref_lines

        def tok(line: str) -> str:  # MeCab's words, written space-separated (a U+3000 token then splits away)
            return " ".join(tokenize(line))

        ref_tok = [tok(x) for x in ref_lines]
        systems: dict[str, Any] = {}
        for path in sorted((wmt / "system-outputs").glob("generaltest2022.en-ja.hyp.*.ja")):
            system = path.name.split(".")[3]
            hyp_lines = path.read_text(encoding="utf-8").split("\n")
            hyp_lines = hyp_lines[:-1] if hyp_lines[-1] == "" else hyp_lines
            assert len(hyp_lines) == len(ref_tok), system
            result = _run(args.ribes, module, work, [tok(x) for x in hyp_lines], [ref_tok], {})
            systems[system] = result
        keep = ("NT5", "Online-W")  # sentence scores of two systems; corpus scores of all
        for system, result in systems.items():
            if system not in keep:
                del result["sentences"]
        tagger = JaMecabTokenizer().version
        (OUT / "wmt22-en-ja.json").write_text(
            json.dumps({"source": SOURCE, "tokenizer": f"ja-mecab ({tagger})", "systems": systems}, indent=0) + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
