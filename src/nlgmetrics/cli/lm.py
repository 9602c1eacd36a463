"""``nlgmetrics perplexity``: perplexity and bits per byte from per-token log-probabilities (or saved logits).

Its input is numbers, not text, so it reads its own files:

* **JSON Lines** (``.jsonl`` or ``-``), one sequence per line. The log-probabilities are in the field
  ``--pred-field`` (default ``logprobs``, else ``prediction``), in any of the shapes inference servers return:
  a list of numbers; a list of token objects with a ``logprob`` (and optionally ``bytes``, the token's UTF-8
  bytes), as in OpenAI-style ``logprobs.content``; or an object holding such a list under ``content``, or a
  list of numbers under ``token_logprobs`` (the older completions API). Bits per byte come from
  ``--bytes-field`` (a byte count per line), from ``--text-field`` (the text whose UTF-8 length counts), or from
  the tokens' ``bytes`` when every token has them.
* **numpy** (``.npy``): logits ``(batch, seq_len, vocab)`` with ``--ref`` target ids ``(batch, seq_len)``
  (``--ignore-index`` as torchmetrics'), or per-token log-probabilities ``(batch, seq_len)`` alone.

Bad input exits with status 2 and names the file, the line and the token.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING, Any

from .command import FamilyCommand, add_metric_options, outcome_of
from .io import CLIInputError, display_name, json_kind, jsonl_objects

if TYPE_CHECKING:  # numpy is imported by the perplexity command only: every other command loads this module too
    import numpy as np

__all__ = ["PERPLEXITY_COMMAND", "PerplexityCommand"]

LOGPROB_FIELDS = ("logprobs", "prediction")


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CLIInputError(f"{where} is {json_kind(value)}; expected a number (a log-probability)")
    return float(value)


def parse_logprobs(value: Any, where: str) -> tuple[list[float], int | None]:
    """One line's log-probabilities, and the UTF-8 bytes of its tokens when every token carries them."""
    if isinstance(value, dict):
        if "content" in value:
            return parse_logprobs(value["content"], f"{where}.content")
        if "token_logprobs" in value:
            return parse_logprobs(value["token_logprobs"], f"{where}.token_logprobs")
        raise CLIInputError(
            f"{where} is an object without 'content' or 'token_logprobs'; expected a list of log-probabilities"
        )
    if not isinstance(value, list):
        raise CLIInputError(f"{where} is {json_kind(value)}; expected a list of log-probabilities")
    values: list[float] = []
    n_bytes: int | None = 0
    for j, item in enumerate(value):
        if isinstance(item, dict):
            if "logprob" not in item:
                raise CLIInputError(f"{where}[{j}] is an object without 'logprob'")
            values.append(_number(item["logprob"], f"{where}[{j}].logprob"))
            token_bytes = item.get("bytes")
            if isinstance(token_bytes, list) and n_bytes is not None:
                n_bytes += len(token_bytes)
            else:
                n_bytes = None
        else:
            values.append(_number(item, f"{where}[{j}]"))
            n_bytes = None
    return values, (n_bytes if value else None)


def _byte_count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CLIInputError(f"{where} is {value!r}; expected a byte count (a non-negative integer)")
    return value


def read_logprob_lines(
    path: str, pred_field: str | None, bytes_field: str | None, text_field: str | None
) -> tuple[list[np.ndarray], list[int] | None]:
    """Per-line log-probabilities from a JSON Lines file (checked: finite, at most 0), and the byte counts."""
    import numpy as np

    from ..metrics.perplexity import check_logprobs

    name = display_name(path)
    names = [pred_field] if pred_field else list(LOGPROB_FIELDS)
    sequences: list[np.ndarray] = []
    byte_counts: list[int | None] = []
    for where, obj in jsonl_objects(path, "--pred"):
        field = next((n for n in names if n in obj), None)
        if field is None:
            present = ", ".join(repr(k) for k in obj) or "none"
            wanted = " or ".join(repr(n) for n in names)
            raise CLIInputError(f"{where}: no field {wanted} (fields present: {present}; choose one with --pred-field)")
        values, token_bytes = parse_logprobs(obj[field], f"{where}: {field}")
        array = np.asarray(values, dtype=np.float64)
        check_logprobs(array, lambda j, where=where, field=field: f"{where}: {field}[{j}]")
        sequences.append(array)
        if bytes_field is not None:
            if bytes_field not in obj:
                raise CLIInputError(f"{where}: no field {bytes_field!r} (--bytes-field)")
            byte_counts.append(_byte_count(obj[bytes_field], f"{where}: {bytes_field}"))
        elif text_field is not None:
            text = obj.get(text_field)
            if not isinstance(text, str):
                raise CLIInputError(
                    f"{where}: field {text_field!r} (--text-field) is {json_kind(text)}; expected a string"
                )
            byte_counts.append(len(text.encode("utf-8")))
        else:
            byte_counts.append(token_bytes)
    if not sequences:
        raise CLIInputError(f"--pred {name} is empty: there is nothing to score")
    if any(b is None for b in byte_counts):
        return sequences, None
    return sequences, [int(b) for b in byte_counts if b is not None]


def _load_npy(path: str, option: str) -> np.ndarray:
    """A ``.npy`` array, its header checked against the file before anything is allocated: the shape times the
    item size must be the bytes that follow the header (a forged header asking for petabytes is an error naming
    the file, not a ``MemoryError``); never an object array, never a pickle."""
    import io
    import os
    import stat

    import numpy as np

    from .._files import check_input

    fmt = np.lib.format
    where = f"cannot read {option} {path} as a numpy array (.npy)"
    name = check_input(path, option)  # a missing file or a directory: its own message
    try:
        with open(name, "rb") as raw:
            fh: Any = raw
            info = os.fstat(raw.fileno())
            size = info.st_size
            if not stat.S_ISREG(info.st_mode):  # a pipe: what it sends, then the same checks
                data = raw.read()
                fh, size = io.BytesIO(data), len(data)
            version = fmt.read_magic(fh)
            if version == (1, 0):
                shape, fortran, dtype = fmt.read_array_header_1_0(fh)
            elif version == (2, 0):
                shape, fortran, dtype = fmt.read_array_header_2_0(fh)
            else:
                raise ValueError(f"format version {version[0]}.{version[1]} is not supported")
            if dtype.hasobject:
                raise ValueError(f"it holds Python objects (dtype {dtype}); only numbers are read, never a pickle")
            count = 1
            for n in shape:
                count *= int(n)
            need, have = count * dtype.itemsize, size - fh.tell()
            if need != have:
                raise ValueError(
                    f"its header says shape {tuple(shape)} of {dtype} ({need:,} bytes), but {have:,} bytes follow it"
                )
            array = np.frombuffer(fh.read(need), dtype=dtype, count=count).copy()
    except (OSError, ValueError, SyntaxError, TypeError, EOFError) as e:
        raise CLIInputError(f"{where}: {e}") from None
    return array.reshape(shape, order="F" if fortran else "C")


@dataclasses.dataclass(frozen=True)
class PerplexityCommand(FamilyCommand):
    """The ``perplexity`` subcommand: it reads log-probabilities (or logits), not text."""

    streams: bool = False  # read whole: see FamilyCommand.streams

    standalone: bool = True

    def add_all_arguments(self, parser: argparse.ArgumentParser) -> None:
        inp = parser.add_argument_group("input")
        inp.add_argument(
            "--pred",
            required=True,
            metavar="FILE",
            help="per-token log-probabilities, JSON Lines (one sequence per line; '-': stdin), or a .npy array: "
            "logits (batch, seq_len, vocab) with --ref, or log-probabilities (batch, seq_len)",
        )
        inp.add_argument("--ref", metavar="FILE", help="target ids (batch, seq_len), .npy, for logits given as --pred")
        inp.add_argument(
            "--pred-field",
            metavar="NAME",
            help=f"JSON field of the log-probabilities (default: {' or '.join(LOGPROB_FIELDS)})",
        )
        inp.add_argument("--bytes-field", metavar="NAME", help="JSON field of each sequence's UTF-8 byte count")
        inp.add_argument("--text-field", metavar="NAME", help="JSON field of each sequence's text (its UTF-8 bytes)")
        add_metric_options(self, parser)
        out = parser.add_argument_group("output")
        out.add_argument("--json", action="store_true", help="print one JSON object instead of text")
        out.add_argument("--per-segment", action="store_true", help="also print the perplexity of every sequence")

    def run(self, args: argparse.Namespace) -> int:
        from .output import format_human, format_json

        options: dict[str, Any] = {}
        for opt in self.all_options():
            value = getattr(args, f"opt_{opt.name}")
            if value is not None:
                options[opt.name] = value
        config = self.configure(args.preset, options)
        if args.bytes_field and args.text_field:
            raise CLIInputError("give --bytes-field or --text-field, not both")
        references: Any = None
        num_bytes: Any = None
        if args.pred.lower().endswith(".npy"):
            if args.bytes_field or args.text_field:
                raise CLIInputError("--bytes-field and --text-field read JSON Lines; --pred is a .npy array")
            predictions: Any = _load_npy(args.pred, "--pred")
            if args.ref:
                references = _load_npy(args.ref, "--ref")
        else:
            if args.ref:
                raise CLIInputError("--ref gives target ids for logits in a .npy --pred; log-probabilities need none")
            predictions, num_bytes = read_logprob_lines(args.pred, args.pred_field, args.bytes_field, args.text_field)
        result = self.metric().compute(predictions, references, config, segments=args.per_segment, num_bytes=num_bytes)
        out = outcome_of(result, dataclasses.asdict(config))
        text = (format_json if args.json else format_human)(self, out, args.per_segment)
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0


PERPLEXITY_COMMAND = PerplexityCommand(
    "perplexity",
    "nlgmetrics.metrics.perplexity:PERPLEXITY",
    key="perplexity",
    label="Perplexity",
    help="perplexity, cross-entropy and bits per byte from per-token log-probabilities (JSON Lines, as inference "
    "servers return them) or saved logits and target ids (.npy), torchmetrics' numbers",
)
