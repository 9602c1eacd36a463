"""``nlgmetrics sacrebleu``: sacrebleu 2.6.0's command line, with its arguments, output text, JSON and signatures.

``nlgmetrics sacrebleu ref.txt -i hyp.txt -m bleu chrf ter -tok zh -lc -w 4 --confidence`` prints what
``sacrebleu ref.txt -i hyp.txt -m bleu chrf ter -tok zh -lc -w 4 --confidence`` prints, byte for byte: the JSON
(the default ``--format``) or text lines, ``-b`` scores alone, ``-sh`` short signatures, several systems
(``-i a.txt b.txt``) as a table, ``--paired-bs``/``--paired-ar`` against the first system, ``-sl`` one line per
sentence, and input on stdin (one system per tab-separated column). Only parsing and printing live here: the
numbers come from the BLEU, chrF and TER families (:mod:`nlgmetrics.metrics.bleu`, ``chrf``, ``ter``) and the
intervals and p-values from :mod:`nlgmetrics.metrics.significance`, which reproduce sacrebleu for the same seed
(``SACREBLEU_SEED``, default 12345, as sacrebleu reads it).

The arguments that fetch WMT test sets (``-t``, ``-l`` with ``--echo``, ``--download``, ``--list``,
``--citation``, ``--origlang``, ``--subset``, ``--detail``) stop with an error: nlgmetrics never downloads anything.
The SentencePiece tokenizers (``-tok spm``, ``flores101``, ``flores200``, ``spBLEU-1K``: spBLEU) take the model file
sacrebleu would have downloaded: ``--spm-model PATH``, or the file where sacrebleu keeps it
(``$SACREBLEU/models/``); without either the error names the URL. ``-l SRC-TRG`` alone is
accepted, as sacrebleu accepts it with reference files: it picks the target language's default tokenizer.
``--paired-jobs`` is accepted and changes nothing (the tests run in one process; the numbers are the same).
Tables of several systems need ``tabulate`` (the package sacrebleu prints them with): ``pip install
'nlgmetrics[sacrebleu]'``.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import re
import sys
import warnings
from typing import Any, ClassVar

from ..errors import InvalidInputError, MissingDependencyError
from .command import Command

__all__ = ["SacreBLEUCommand"]

SACREBLEU_VERSION = "2.6.0"
_METRICS = ("bleu", "chrf", "ter")
_TOKENIZERS = (
    "none",
    "zh",
    "13a",
    "intl",
    "char",
    "ja-mecab",
    "ko-mecab",
    "spm",
    "flores101",
    "flores200",
    "spBLEU-1K",
)
_SMOOTH = ("none", "floor", "add-k", "exp")
_TOKENIZER_OF_LANGUAGE = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
_FORMATS = ("json", "text", "latex")
#: sacrebleu's short names of the signature keys (``Signature._abbr`` and each metric's additions).
_SHORT = {
    "version": "v",
    "nrefs": "#",
    "bs": "bs",
    "ar": "ar",
    "seed": "rs",
    "case": "c",
    "eff": "e",
    "tok": "tok",
    "smooth": "s",
    "nc": "nc",
    "nw": "nw",
    "space": "s",
    "norm": "nr",
    "punct": "pn",
    "asian": "as",
}
_TER_SHORT = {"tok": "t"}  # TER abbreviates its tokenizer key differently from BLEU
_NO_DOWNLOAD = "nlgmetrics never downloads test sets: give the reference files as arguments (sacrebleu REF... -i HYP)"


# ---------------------------------------------------------------------------------------------- colours
class _Color:
    """sacrebleu's ``Color``: colorama's codes, which colorama strips when stdout is not a terminal."""

    enabled = False
    _CODES: ClassVar[dict[str, str]] = {
        "red": "\x1b[31m",
        "green": "\x1b[32m",
        "yellow": "\x1b[33m",
        "cyan": "\x1b[36m",
    }

    @classmethod
    def format(cls, msg: str, color: str) -> str:
        return f"{cls._CODES[color]}{msg}\x1b[0m" if cls.enabled else msg


# ---------------------------------------------------------------------------------------------- scores
@dataclasses.dataclass
class _Score:
    """What sacrebleu's ``Score`` prints: name, score, the bootstrap mean and interval, the verbose tail."""

    name: str
    score: float
    mean: float = -1.0
    ci: float = -1.0
    verbose: str = ""

    def format(self, width: int, score_only: bool = False, signature: str = "", is_json: bool = False) -> str:
        d: dict[str, Any] = {"name": self.name, "score": float(f"{self.score:.{width}f}"), "signature": signature}
        sc = f"{self.score:.{width}f}"
        if self.mean > 0:
            mean, ci = f"{self.mean:.{width}f}", f"{self.ci:.{width}f}"
            confidence = f"μ = {mean} ± {ci}"
            sc += f" ({confidence})"
            if is_json:
                d.update(confidence_mean=float(mean), confidence_var=float(ci), confidence=confidence)
        full = f"{self.name}|{signature}" if signature else self.name
        full = f"{full} = {sc}"
        if self.verbose:
            full += f" {self.verbose}"
            d["verbose_score"] = self.verbose
        if score_only:
            return sc
        if is_json:
            for param in signature.split("|"):
                key, value = param.split(":")
                d[key] = value
            return json.dumps(d, indent=1, ensure_ascii=False)
        return full


def _score_of(metric: str, result: Any) -> _Score:
    """A family's result in sacrebleu's terms (name and, for BLEU, the precisions and lengths)."""
    if metric == "bleu":
        precisions = list(result.precisions)
        # sacrebleu stops at the first order with no n-gram of the hypothesis: the later precisions print as 0
        for i, total in enumerate(result.totals):
            if total == 0:
                precisions[i:] = [0.0] * (len(precisions) - i)
                break
        ratio = result.hyp_len / result.ref_len if result.ref_len else 0
        verbose = "/".join(f"{p:.1f}" for p in precisions)
        verbose += (
            f" (BP = {result.bp:.3f} ratio = {ratio:.3f} hyp_len = {result.hyp_len:d} ref_len = {result.ref_len:d})"
        )
        return _Score("BLEU", float(result.score), verbose=verbose)
    if metric == "chrf":
        return _Score(result.name, float(result.score))
    return _Score("TER", float(result.score))


def _signature(metric: str, signature: str, short: bool, seed: str | None = None) -> str:
    """A sacrebleu signature (long, as the families write it) in its long or short form."""
    pairs = [p.partition(":") for p in signature.split("|")]
    out = []
    for key, _, value in pairs:
        if key == "seed" and seed is not None:
            value = seed
        name = (_TER_SHORT.get(key) if metric == "ter" else None) or _SHORT.get(key, key) if short else key
        out.append(f"{name}:{value}")
    return "|".join(out)


# ---------------------------------------------------------------------------------------------- metrics
@dataclasses.dataclass
class _Metric:
    """One metric of the run: its family, config, and the statistics of each system (computed once)."""

    name: str  # bleu, chrf, ter
    family: Any
    config: Any
    references: list[list[str]]
    cache: dict[int, Any] = dataclasses.field(default_factory=dict)

    def stats(self, index: int, hypotheses: list[str]) -> Any:
        if index not in self.cache:
            self.cache[index] = self.family.batch_stats(hypotheses, self.references, self.config)
        return self.cache[index]

    def result(self, batch: Any) -> Any:
        return self.family.formula(batch.total(), self.config)

    @property
    def key(self) -> str:
        return self.name.upper()


def _seed() -> tuple[int, str]:
    """The seed of the resampling: ``SACREBLEU_SEED`` as sacrebleu reads it (default 12345)."""
    text = os.environ.get("SACREBLEU_SEED", "12345")
    if text.lower() == "none":
        import secrets

        return secrets.randbits(63), "none"  # an unseeded run, as sacrebleu's: entropy from the OS
    try:
        return int(text), str(text).lower()
    except ValueError:
        raise InvalidInputError(f"SACREBLEU_SEED must be an integer or 'none', got {text!r}") from None


def _make_metrics(args: argparse.Namespace, references: list[list[str]]) -> dict[str, _Metric]:
    from ..metrics.catalog import get_family

    metrics: dict[str, _Metric] = {}
    for name in args.metrics:
        if name in metrics:
            continue
        if name == "bleu":
            tokenizer = args.bleu_tokenize
            if tokenizer is None:
                tokenizer = _TOKENIZER_OF_LANGUAGE.get(args.trg_lang, "13a")
            elif args.trg_lang in _TOKENIZER_OF_LANGUAGE and tokenizer != _TOKENIZER_OF_LANGUAGE[args.trg_lang]:
                _log(args, f"Consider using the {_TOKENIZER_OF_LANGUAGE[args.trg_lang]!r} tokenizer.")
            options: dict[str, Any] = {
                "tokenizer": tokenizer,  # spm/flores*/spBLEU-1K: the model of --spm-model, or sacrebleu's own file
                "lowercase": args.bleu_lowercase,
                "smoothing": args.bleu_smooth_method,
                "effective_order": bool(args.sentence_level),
            }
            if args.spm_model is not None:
                options["spm_model"] = args.spm_model
            if args.bleu_smooth_value is not None and args.bleu_smooth_method in ("floor", "add-k"):
                options["smooth_value"] = args.bleu_smooth_value  # sacrebleu ignores it for exp and none
        elif name == "chrf":
            options = {
                "char_order": args.chrf_char_order,
                "word_order": args.chrf_word_order,
                "beta": args.chrf_beta,
                "lowercase": args.chrf_lowercase,
                "whitespace": args.chrf_whitespace,
                "eps_smoothing": args.chrf_eps_smoothing,
            }
        else:
            options = {
                "case_sensitive": args.ter_case_sensitive,
                "asian_support": args.ter_asian_support,
                "no_punct": args.ter_no_punct,
                "normalized": args.ter_normalized,
            }
        fam = get_family(name)
        metrics[name] = _Metric(name, fam, fam.make_config(None, **options), references)
    return metrics


# ---------------------------------------------------------------------------------------------- input
def _log(args: argparse.Namespace, message: str) -> None:
    if not args.quiet:
        sys.stderr.write(f"nlgmetrics: warning: {message}\n")


def _read(path: str, encoding: str, what: str) -> list[str]:
    """The lines of a file as sacrebleu reads them: universal newlines, each line right-stripped."""
    try:
        with open(path, encoding=encoding) as f:
            return [line.rstrip() for line in f]
    except FileNotFoundError:
        raise InvalidInputError(f"{what} {path}: no such file") from None
    except (OSError, UnicodeDecodeError, LookupError) as e:
        raise InvalidInputError(f"{what} {path}: cannot read it as {encoding} text ({e})") from None


def _read_references(args: argparse.Namespace) -> list[list[str]]:
    """One list per reference stream (file, or tab-separated column with ``--num-refs``)."""
    if args.num_refs != 1 and len(args.refs) > 1:
        raise InvalidInputError(
            "--num-refs reads several tab-separated references from one file; it cannot be used with several "
            "reference files"
        )
    streams: list[list[str]] = [[] for _ in range(max(len(args.refs), args.num_refs))]
    for refno, path in enumerate(args.refs):
        for lineno, line in enumerate(_read(path, args.encoding, "reference"), 1):
            if args.num_refs == 1:
                streams[refno].append(line)
                continue
            fields = line.split("\t", args.num_refs - 1)
            if len(fields) != args.num_refs:
                raise InvalidInputError(
                    f"{path}:{lineno}: expected {args.num_refs} tab-separated references, found {len(fields)}"
                )
            for i, ref in enumerate(fields):
                streams[i].append(ref)
    return streams


def _read_systems(args: argparse.Namespace, paired: bool) -> tuple[list[list[str]], list[str]]:
    systems: list[list[str]] = []
    names: list[str] = []
    if args.input is None:  # stdin: one system per tab-separated column
        stream = io.TextIOWrapper(sys.stdin.buffer, encoding=args.encoding)
        first = stream.readline().rstrip().split("\t")
        systems = [[s] for s in first]
        names = [f"System {i + 1}" for i in range(len(first))]
        for lineno, line in enumerate(stream, 2):
            fields = line.rstrip().split("\t")
            if len(fields) != len(systems):
                raise InvalidInputError(
                    f"stdin line {lineno}: {len(fields)} tab-separated systems, but the first line has {len(systems)}"
                )
            for column, sent in zip(systems, fields, strict=True):
                column.append(sent.rstrip())
        if paired:
            names = ["Baseline"] + [f"System {i + 1}" for i in range(len(systems) - 1)]
        return systems, names
    if not args.input:
        raise InvalidInputError("-i/--input needs at least one file (or leave it out to read stdin)")
    for path in args.input:
        if path in names:
            if paired and path == names[0]:
                continue  # sacrebleu ignores a system that is also the baseline
            raise InvalidInputError(f"{path!r} already used to name a system: give each system once")
        systems.append(_read(path, args.encoding, "system"))
        names.append(path)
    if paired:
        names[0] = f"Baseline: {names[0]}"
    return systems, names


# ---------------------------------------------------------------------------------------------- output
def _print_single(results: list[str], args: argparse.Namespace, out: list[str]) -> None:
    """sacrebleu's ``print_single_results``."""
    if args.format == "json":
        out.append("[\n" + ",\n".join(results) + "\n]" if len(results) > 1 else results[0])
        return
    if "μ" in results[0]:
        pattern = re.compile(r"(\(μ = [0-9\.]+ ± [0-9\.]+\))")
        results = [pattern.sub(lambda m: _Color.format(m.group(), "cyan"), r) for r in results]
    if len(results) == 1:
        out.append(results[0])
        return
    lens = []
    for line in results:
        try:
            lens.append(line.index("=") - 1)
        except ValueError:
            out.append(line)
    if lens:
        w = max(lens)
        out.extend(f"{line[:n]:>{w}}{line[n:]}" for n, line in zip(lens, results, strict=False))


@dataclasses.dataclass
class _Cell:
    """sacrebleu's ``significance.Result``: a system's score in a paired test."""

    score: float
    p_value: float | None = None
    mean: float | None = None
    ci: float | None = None


def _format_cells(scores: dict[str, list[Any]], width: int, multiline: bool) -> dict[str, list[str]]:
    """sacrebleu's ``_format_score_lines``."""
    new: dict[str, list[str]] = {"System": scores.pop("System")}
    brk = "\n" if multiline else " "
    is_bootstrap = False
    for metric, values in scores.items():
        cells = []
        for r in values:
            if isinstance(r, str):
                cells.append(r)
                continue
            text = f"{r.score:.{width}f}"
            if r.mean is not None:
                is_bootstrap = True
                text += f" ({r.mean:.{width}f} ± {r.ci:.{width}f})"
            if r.p_value is not None:
                p = f"(p = {r.p_value:.4f})"
                text += brk + (_Color.format(p, "red") if r.p_value > 0.05 else p + "*")
            cells.append(text)
        new[metric + " (μ ± 95% CI)" if is_bootstrap else metric] = cells
    return new


def _print_table(
    scores: dict[str, list[Any]], signatures: dict[str, str], args: argparse.Namespace, out: list[str]
) -> None:
    """sacrebleu's ``print_results_table``."""
    if args.format == "json":
        rows = []
        keys = list(scores)
        for i in range(len(scores["System"])):
            row: dict[str, Any] = {"system": scores["System"][i]}
            for key in keys[1:]:
                value = scores[key][i]
                row[key] = value if isinstance(value, str) else dataclasses.asdict(value)
            rows.append(row)
        out.append(json.dumps(rows, indent=4))
        return
    try:
        from tabulate import tabulate
    except ImportError:
        raise MissingDependencyError(
            "the table of several systems", "pip install 'nlgmetrics[sacrebleu]' (or: pip install tabulate)"
        ) from None
    tablefmt = "fancy_grid" if args.format == "text" else "latex_booktabs"
    cells = _format_cells(scores, args.width, multiline=tablefmt == "fancy_grid")
    table: dict[str, list[str]] = {}
    has_baseline = False
    baseline_name = ""
    for name, values in cells.items():
        if values[0].startswith("Baseline:") or has_baseline:
            if values[0].startswith("Baseline:"):
                baseline_name = values[0]
            has_baseline = True
            values[0] = _Color.format(values[0], "yellow")
        table[_Color.format(name, "cyan")] = values
    out.append(
        tabulate(
            table,
            headers="keys",
            tablefmt=tablefmt,
            colalign=("right",),
            stralign="center",
            numalign="center",
            floatfmt=f".{args.width}f",
        )
    )
    out.append("")
    if args.paired_bs or args.paired_ar:
        kind = "bootstrap resampling" if args.paired_bs else "approximate randomization"
        n = args.paired_bs_n if args.paired_bs else args.paired_ar_n
        trials = "resampling trials" if args.paired_bs else "trials"
        msg = f"Paired {kind} test with {n} {trials}"
        bline = _Color.format("baseline", "yellow")
        bline_name = _Color.format(baseline_name, "yellow")
        null_hyp = _Color.format("Null hypothesis", "green")
        red = _Color.format("highlighted in red", "red")
        out.append("-" * len(msg) + "\n" + msg + "\n" + "-" * len(msg))
        out.append(f" - Each system is pairwise compared to {bline_name}.")
        if args.paired_bs:
            out.append("   Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric.")
        else:
            out.append("   Actual system score is provided for each metric.")
        out += [
            "",
            f" - {null_hyp}: the system and the {bline} translations are essentially",
            f"   generated by the same underlying process. For a given system and the {bline},",
            "   the p-value is roughly the probability of the absolute score difference (delta)",
            f"   or higher occurring due to chance, under the assumption that the {null_hyp.lower()} is correct.",
            "",
            f" - Assuming a significance threshold of 0.05, the {null_hyp.lower()} can be rejected",
            '   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely to be attributed',
            f'   to chance, hence the system is significantly "different" than the {bline}.',
            f"   Otherwise, the p-values are {red}.",
            "",
            f' - NOTE: Significance does not tell whether a system is "better" than the {bline} but rather',
            '   emphasizes the "difference" of the systems in terms of the replicability of the delta.',
            "",
        ]
    out += ["-----------------", "Metric signatures", "-----------------"]
    out.extend(f" - {name:<10} {sig}" for name, sig in signatures.items())


# ---------------------------------------------------------------------------------------------- the run
def _check_unsupported(args: argparse.Namespace) -> None:
    if args.test_set is not None or args.download is not None or args.echo is not None:
        raise InvalidInputError(_NO_DOWNLOAD + " (-t/--test-set, --download and --echo are not supported)")
    if args.list or args.citation:
        raise InvalidInputError(_NO_DOWNLOAD + " (--list and --citation describe sacrebleu's test sets)")
    if args.origlang is not None or args.subset is not None or args.detail:
        raise InvalidInputError(
            "--origlang, --subset and --detail select segments by the document annotations of sacrebleu's "
            "downloaded test sets; " + _NO_DOWNLOAD
        )
    if not args.refs:
        raise InvalidInputError("give the reference file(s) first: nlgmetrics sacrebleu REF... -i HYP...")


def _run(args: argparse.Namespace) -> list[str]:
    _check_unsupported(args)
    paired = bool(args.paired_bs or args.paired_ar)
    if args.sentence_level and len(args.metrics) > 1:
        raise InvalidInputError("only one metric can be used in sentence-level mode (-sl)")
    if args.langpair is not None and "-" not in args.langpair:
        raise InvalidInputError(f"-l/--language-pair expects SRC-TRG (e.g. en-zh), got {args.langpair!r}")
    args.trg_lang = args.langpair.split("-")[1] if args.langpair else ""
    refs = _read_references(args)
    systems, names = _read_systems(args, paired)
    n_sys = len(systems)
    if args.sentence_level:
        if n_sys > 1:
            raise InvalidInputError("only one system can be evaluated in sentence-level mode (-sl)")
        if args.confidence or paired:
            raise InvalidInputError("statistical tests are unavailable in sentence-level mode (-sl)")
    if paired and n_sys == 1:
        raise InvalidInputError("paired tests need several systems given to -i/--input (the first is the baseline)")
    if n_sys > 1 and args.confidence:
        raise InvalidInputError("use a paired test (--paired-bs or --paired-ar) for several systems")
    for name, system in zip(names, systems, strict=True):
        if not system:
            raise InvalidInputError(f"{name} contains no sentence")
        for path, stream in zip(args.refs if args.num_refs == 1 else [args.refs[0]] * len(refs), refs, strict=False):
            if len(stream) != len(system):
                raise InvalidInputError(
                    f"system and reference streams have different lengths: {name} has {len(system)} lines but "
                    f"{path} has {len(stream)}"
                )
    references = [list(r) for r in zip(*refs, strict=True)]
    metrics = _make_metrics(args, references)
    if "bleu" in metrics and not args.bleu_force:
        for name, system in zip(names, systems, strict=True):
            if sum(1 for h in system if h.endswith(" .")) >= 100:
                _log(
                    args,
                    f"{name}: 100 lines or more end in a tokenized period (' .'): it looks like the test data was "
                    "not detokenized, which may hurt the score; --force silences this message",
                )
    out: list[str] = []
    if args.sentence_level:
        metric = next(iter(metrics.values()))
        batch = metric.stats(0, systems[0])
        for row in batch:
            result = metric.family.formula(row, metric.config)
            sig = _signature(metric.name, result.sacrebleu_signature, args.short)
            out.append(_score_of(metric.name, result).format(args.width, args.score_only, sig))
        return out
    ordered = [metrics[k] for k in sorted(metrics, key=str.upper)]
    if n_sys == 1:
        results = []
        seed, seed_text = _seed()
        for metric in ordered:
            batch = metric.stats(0, systems[0])
            result = metric.result(batch)
            score = _score_of(metric.name, result)
            signature = result.sacrebleu_signature
            if args.confidence:
                ci = _bootstrap(metric, batch, args.confidence_n, seed)
                score.mean, score.ci = float(ci.mean), float(ci.ci)
                signature = ci.sacrebleu_signature
            short = args.short if args.format != "json" else False
            sig = _signature(metric.name, signature, short, seed_text)
            results.append(score.format(args.width, args.score_only, sig, args.format == "json"))
        _print_single(results, args, out)
        return out
    scores: dict[str, list[Any]] = {"System": names}
    sigs: dict[str, str] = {}
    if not paired:
        for index, system in enumerate(systems):
            for metric in ordered:
                result = metric.result(metric.stats(index, system))
                score = _score_of(metric.name, result)
                sigs[score.name] = _signature(metric.name, result.sacrebleu_signature, args.short)
                scores.setdefault(score.name, []).append(score.format(args.width, True))
    else:
        _paired(args, metrics, systems, scores, sigs)
    _print_table(scores, sigs, args, out)
    return out


def _bootstrap(metric: _Metric, batch: Any, n: int, seed: int) -> Any:
    from ..metrics.significance import bootstrap_ci_from_stats

    if n < 1:
        raise InvalidInputError(f"--confidence-n must be a positive number of resamples, got {n}")
    return bootstrap_ci_from_stats(metric.family, metric.config, batch, n_samples=n, seed=seed)


def _paired(
    args: argparse.Namespace,
    metrics: dict[str, _Metric],
    systems: list[list[str]],
    scores: dict[str, list[Any]],
    sigs: dict[str, str],
) -> None:
    """sacrebleu's ``PairedTest``: each system against the first, metric by metric in the order given."""
    from ..metrics.significance import paired_test_from_stats

    test = "bs" if args.paired_bs else "ar"
    n = args.paired_bs_n if args.paired_bs else args.paired_ar_n
    if n <= 0:  # sacrebleu: 0 (or less) means the default
        n = 1000 if test == "bs" else 10000
    if args.paired_bs:
        args.paired_bs_n = n
    else:
        args.paired_ar_n = n
    seed, seed_text = _seed()
    for metric in metrics.values():
        baseline = metric.stats(0, systems[0])
        column: list[Any] = []
        signature = ""
        name = ""
        for index in range(1, len(systems)):
            r = paired_test_from_stats(
                metric.family, metric.config, baseline, metric.stats(index, systems[index]), test=test, n_samples=n,
                seed=seed,
            )  # fmt: skip
            if not column:
                name = _score_of(metric.name, metric.result(baseline)).name
                column.append(_Cell(r.baseline, None, r.baseline_mean, r.baseline_ci))
                signature = r.sacrebleu_signature or ""
            column.append(_Cell(r.system, r.p_value, r.system_mean, r.system_ci))
        scores[name] = column
        sigs[name] = _signature(metric.name, signature, args.short, seed_text)


# ---------------------------------------------------------------------------------------------- the command
@dataclasses.dataclass(frozen=True)
class SacreBLEUCommand(Command):
    """``nlgmetrics sacrebleu``: sacrebleu's own arguments and output."""

    standalone: bool = True

    def add_all_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        add = parser.add_argument
        add("refs", nargs="*", default=[], help="reference files (before -i); several for several references")
        add("--input", "-i", nargs="*", default=None, help="system output file(s) (default: stdin, tab-separated)")
        add("--num-refs", "-nr", type=int, default=1, help="split each reference line on tabs into this many")
        add("--encoding", "-e", default="utf-8", help="encoding of the files (default: %(default)s)")
        add("--metrics", "-m", choices=_METRICS, nargs="+", default=["bleu"], help="metrics (default: bleu)")
        add("--sentence-level", "-sl", action="store_true", help="a score for each sentence")
        bleu = parser.add_argument_group("BLEU related arguments")
        bleu.add_argument("--smooth-method", "-s", choices=_SMOOTH, default="exp", dest="bleu_smooth_method")
        bleu.add_argument("--smooth-value", "-sv", type=float, default=None, dest="bleu_smooth_value")
        bleu.add_argument("--tokenize", "-tok", choices=_TOKENIZERS, default=None, dest="bleu_tokenize")
        bleu.add_argument(
            "--spm-model",
            metavar="PATH",
            default=None,
            help="the SentencePiece model of -tok spm/flores101/flores200/spBLEU-1K (nlgmetrics' option; default: "
            "the file sacrebleu downloads to $SACREBLEU/models/, which nlgmetrics never downloads)",
        )
        bleu.add_argument("--lowercase", "-lc", action="store_true", dest="bleu_lowercase")
        bleu.add_argument("--force", action="store_true", dest="bleu_force", help="no warning on tokenized input")
        chrf = parser.add_argument_group("chrF related arguments")
        chrf.add_argument("--chrf-char-order", "-cc", type=int, default=6)
        chrf.add_argument("--chrf-word-order", "-cw", type=int, default=0)
        chrf.add_argument("--chrf-beta", type=int, default=2)
        chrf.add_argument("--chrf-whitespace", action="store_true")
        chrf.add_argument("--chrf-lowercase", action="store_true")
        chrf.add_argument("--chrf-eps-smoothing", action="store_true")
        ter = parser.add_argument_group("TER related arguments")
        ter.add_argument("--ter-case-sensitive", action="store_true")
        ter.add_argument("--ter-asian-support", action="store_true")
        ter.add_argument("--ter-no-punct", action="store_true")
        ter.add_argument("--ter-normalized", action="store_true")
        sig = parser.add_argument_group("confidence intervals and paired tests")
        sig.add_argument("--confidence", "-ci", action="store_true", help="bootstrap 95%% confidence interval")
        sig.add_argument("--confidence-n", "-cin", type=int, default=1000)
        pair = sig.add_mutually_exclusive_group()
        pair.add_argument("--paired-ar", "-par", action="store_true", help="approximate randomization test")
        pair.add_argument("--paired-bs", "-pbs", action="store_true", help="paired bootstrap resampling test")
        sig.add_argument("--paired-ar-n", "-parn", type=int, default=10000)
        sig.add_argument("--paired-bs-n", "-pbsn", type=int, default=1000)
        sig.add_argument("--paired-jobs", "-j", type=int, default=1, help="accepted; the numbers do not change")
        rep = parser.add_argument_group("reporting")
        rep.add_argument("--quiet", "-q", action="store_true")
        rep.add_argument("--short", "-sh", action="store_true", help="short signatures")
        rep.add_argument("--score-only", "-b", action="store_true")
        rep.add_argument("--width", "-w", type=int, default=1)
        rep.add_argument("--no-color", "-nc", action="store_true")
        rep.add_argument("--format", "-f", default="json", choices=_FORMATS, help="(default: json; SACREBLEU_FORMAT)")
        down = parser.add_argument_group("test sets (not supported: nlgmetrics never downloads)")
        down.add_argument("--test-set", "-t", default=None)
        down.add_argument("--language-pair", "-l", dest="langpair", default=None, help="SRC-TRG: picks the tokenizer")
        down.add_argument("--origlang", "-ol", default=None)
        down.add_argument("--subset", default=None)
        down.add_argument("--download", default=None)
        down.add_argument("--echo", nargs="+", default=None)
        down.add_argument("--list", action="store_true")
        down.add_argument("--citation", "--cite", action="store_true")
        down.add_argument("--detail", "-d", action="store_true")

    def run(self, args: argparse.Namespace) -> int:
        fmt = os.environ.get("SACREBLEU_FORMAT", "").lower()
        if fmt in _FORMATS:
            args.format = fmt
        _Color.enabled = not (os.environ.get("NO_COLOR") or args.no_color) and sys.stdout.isatty()
        with warnings.catch_warnings():
            # sacrebleu's own output, byte for byte: nlgmetrics' note on CJK text and a tokenizer that does not
            # split it (nlgmetrics bleu / ter / chrf say it) is not one of sacrebleu's
            warnings.filterwarnings(
                "ignore", message=r".* tokenizer does not split \w+ text into words", category=UserWarning
            )
            lines = _run(args)
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
        return 0

    def configure(self, preset: str | None, options: dict[str, Any]) -> Any:  # pragma: no cover - standalone
        raise NotImplementedError

    def compute(
        self, predictions: list[Any], references: list[Any], config: Any, segments: bool, sources: Any = None
    ) -> Any:  # pragma: no cover - standalone
        raise NotImplementedError
