"""Token ids from texts: a Hugging Face tokenizer, its special tokens, truncation that tokenises only what it keeps,
and overlapping windows for texts longer than the model takes.

:class:`Tokenizer` wraps a loaded tokenizer (fast, batched: one call per batch of texts) for a model of
``max_length`` positions. A metric subclasses it for its own conventions (BERTScore strips texts and adds a prefix
space for RoBERTa's tokenizer; COMET and MetricX build their own input strings first).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence, Sized
from typing import Any

import numpy as np

from ..errors import InvalidInputError
from .shapes import Packed

__all__ = ["PREFIX_CHARS", "PREFIX_MARGIN", "Tokenizer"]

#: A text longer than this many characters is tokenised by growing prefixes when it is truncated, so that a 10 MB
#: text cut to 512 tokens costs the tokenisation of a few thousand characters, not of the whole text.
PREFIX_CHARS = 8192
#: Tokens beyond the kept ones that a truncated prefix must reach (so the cut cannot change a kept token).
PREFIX_MARGIN = 64
#: Texts per tokenizer call.
TOKENIZE_BATCH = 4096


class Tokenizer:
    """A tokenizer for a model of ``max_length`` positions: :meth:`tokenize` (whole), :meth:`encode` (truncated
    as the tokenizer truncates, special tokens kept), :meth:`windows` (a long text in overlapping pieces).

    ``encode_kwargs`` go to every tokenizer call (``add_prefix_space=True`` for a byte-level BPE, say)."""

    def __init__(self, tokenizer: Any, max_length: int, *, name: str = "model", **encode_kwargs: Any) -> None:
        self.tokenizer = tokenizer
        self.name = name
        self.max_length = int(max_length)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self._encode_kwargs = dict(encode_kwargs)
        self.prefix, self.suffix = self._template()
        if self.max_length - self.prefix - self.suffix < 2:
            raise InvalidInputError(f"model {name!r}: a maximum length of {self.max_length} leaves no room for text")

    def _template(self) -> tuple[int, int]:
        """How many special tokens the tokenizer puts before and after a text."""
        probe = self._encode(["a"], special=True)[0]
        bare = self._encode(["a"], special=False)[0]
        for start in range(len(probe) - len(bare) + 1):
            if probe[start : start + len(bare)] == bare:
                return start, len(probe) - start - len(bare)
        raise InvalidInputError(f"cannot tell where the special tokens of model {self.name!r} go")

    def _encode(self, texts: list[str], special: bool = True) -> list[list[int]]:
        out = self.tokenizer(
            texts,
            add_special_tokens=special,
            truncation=False,
            verbose=False,
            return_attention_mask=False,
            return_token_type_ids=False,
            **self._encode_kwargs,
        )
        return [list(ids) for ids in out["input_ids"]]

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text, with special tokens, *not* truncated (an empty text: the special tokens)."""
        keep = [i for i, t in enumerate(texts) if t]
        empty = self._encode([""])[0] if len(keep) < len(texts) else []
        out: list[list[int]] = [empty] * len(texts)
        if keep:
            for i, ids in zip(keep, self._encode([texts[i] for i in keep]), strict=True):
                out[i] = ids
        return out

    def truncate(self, ids: list[int]) -> tuple[list[int], bool]:
        """``ids`` cut to the maximum length as the tokenizer cuts them (text tokens dropped from the end)."""
        if len(ids) <= self.max_length:
            return ids, False
        keep = self.max_length - self.prefix - self.suffix
        return ids[: self.prefix + keep] + ids[len(ids) - self.suffix :], True

    def encode(self, texts: Sequence[str], long_inputs: str = "truncate") -> list[tuple[list[int], bool]]:
        """``(ids, truncated)`` of each text: with special tokens and (unless long texts are windowed,
        ``long_inputs="window"``) cut to the maximum length. A text of more than :data:`PREFIX_CHARS` characters
        that is cut is tokenised only as far as the kept tokens reach (:meth:`_truncated_prefix`)."""
        if long_inputs == "window":
            return [(ids, False) for ids in self.tokenize(texts)]
        out: list[tuple[list[int], bool]] = [([], False)] * len(texts)
        short = [i for i, t in enumerate(texts) if len(t) <= PREFIX_CHARS]
        if short:
            for i, ids in zip(short, self.tokenize([texts[i] for i in short]), strict=True):
                out[i] = self.truncate(ids)
        for i, text in enumerate(texts):
            if len(text) > PREFIX_CHARS:
                out[i] = self._truncated_prefix(text)
        return out

    def encode_packed(self, texts: Sequence[str], long_inputs: str = "truncate") -> tuple[Packed, np.ndarray]:
        """:meth:`encode` of every text, tokenised :data:`TOKENIZE_BATCH` texts per call, as one
        :class:`~nlgmetrics.engine.shapes.Packed` array and the truncation flags."""
        parts: list[np.ndarray] = []
        lengths = np.zeros(len(texts), dtype=np.int64)
        cut = np.zeros(len(texts), dtype=bool)
        for lo in range(0, len(texts), TOKENIZE_BATCH):
            encoded = self.encode(texts[lo : lo + TOKENIZE_BATCH], long_inputs)
            for k, (ids, was_cut) in enumerate(encoded):
                lengths[lo + k] = len(ids)
                cut[lo + k] = was_cut
            count = int(lengths[lo : lo + len(encoded)].sum())
            # the ids are read in C (chain), not one Python step per token: 0.1 s of 145k tokens otherwise
            flat_ids = itertools.chain.from_iterable(ids for ids, _ in encoded)
            parts.append(np.fromiter(flat_ids, dtype=np.int64, count=count))
        starts = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        return Packed(flat, starts), cut

    def _truncated_prefix(self, text: str) -> tuple[list[int], bool]:
        """``truncate(tokenize([text])[0])`` without tokenising all of a long text.

        Prefixes of the text, cut at a whitespace where there is one near the cut and doubling in length, are
        tokenised until two successive ones reach :data:`PREFIX_MARGIN` tokens past the kept ones and agree on the
        kept ones. The cut then cannot reach the kept tokens: tokenizers split words at whitespace, and a word's
        pieces never depend on text hundreds of tokens later. A text that never gets that long is tokenised
        whole."""
        keep = self.max_length - self.prefix - self.suffix
        size = PREFIX_CHARS
        previous: list[int] | None = None
        while size < len(text):
            ids = self._encode([text[: _cut_at_space(text, size)]])[0]
            if len(ids) - self.prefix - self.suffix >= keep + PREFIX_MARGIN:
                head = ids[: self.prefix + keep]
                if head == previous:
                    return head + ids[len(ids) - self.suffix :], True
                previous = head
            size *= 2
        return self.truncate(self._encode([text])[0])

    def iter_encoded(self, texts: Sequence[str], long_inputs: str = "truncate") -> Iterator[list[int]]:
        """The ids of each text as :meth:`encode` gives them, tokenised in slices so that a large corpus is never
        held tokenised."""
        for lo in range(0, len(texts), TOKENIZE_BATCH):
            for ids, _ in self.encode(texts[lo : lo + TOKENIZE_BATCH], long_inputs):
                yield ids

    def content_length(self, ids: Sized) -> int:
        """The tokens of a text besides the special ones."""
        return len(ids) - self.prefix - self.suffix

    def windows(self, ids: Sequence[int]) -> tuple[list[list[int]], list[tuple[int, int, int]]]:
        """Overlapping windows of a long text and, per window, ``(start, lo, hi)``: it starts at text token
        ``start`` and gives their embeddings to text tokens ``lo:hi`` (those nearest its centre)."""
        ids = list(ids)
        p, s = self.prefix, self.suffix
        head, content, tail = ids[:p], ids[p : len(ids) - s], ids[len(ids) - s :]
        width = self.max_length - p - s
        n = len(content)
        stride = max(1, width // 2)
        starts = [*range(0, n - width, stride), n - width]
        plan = []
        lo = 0
        for k, a in enumerate(starts):
            hi = n if k + 1 == len(starts) else (a + starts[k + 1] + width - 1) // 2 + 1
            plan.append((a, lo, hi))
            lo = hi
        return [head + content[a : a + width] + tail for a in starts], plan


def _cut_at_space(text: str, size: int) -> int:
    """An end for a prefix of about ``size`` characters: just before the last whitespace within the last 512
    characters before ``size`` (a word boundary for every tokenizer), else ``size`` itself."""
    for i in range(size, max(0, size - 512), -1):
        if text[i].isspace() and not text[i - 1].isspace():
            return i
    return size
