"""Word segmentation for Japanese (MeCab) and Chinese (jieba), imported only when asked for.

Registered as the tokenizers ``"ja-mecab"`` and ``"zh-jieba"``. The registry builds each class once per process,
so the MeCab tagger and jieba's dictionary are loaded once, never per line. Both return the surface forms of
the words in order, punctuation included; metrics decide what to drop.
"""

from __future__ import annotations

import logging
from importlib import metadata
from typing import Any

from ..errors import MissingDependencyError

__all__ = ["JaMecabTokenizer", "ZhJiebaTokenizer"]


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


class JaMecabTokenizer:
    """Japanese words from MeCab (through ``fugashi``) with the UniDic-lite dictionary.

    Extra ``[ja]``: ``pip install 'nlgmetrics[ja]'``. The text is segmented line by line.
    """

    name = "ja-mecab"

    def __init__(self) -> None:
        try:
            import fugashi
            import unidic_lite
        except ImportError as err:
            raise MissingDependencyError("the 'ja-mecab' tokenizer", "pip install 'nlgmetrics[ja]'") from err
        # the dictionary is named explicitly, so that an installed full UniDic cannot change the segmentation
        self._tagger: Any = fugashi.Tagger(f'-d "{unidic_lite.DICDIR}"')
        self.version = f"fugashi-{_version('fugashi')}+unidic-lite-{_version('unidic-lite')}"

    def __call__(self, text: str) -> list[str]:
        tagger = self._tagger
        return [word.surface for line in text.split("\n") for word in tagger(line)]


class ZhJiebaTokenizer:
    """Chinese words from ``jieba`` (its default dictionary, precise mode with the HMM for unknown words).

    Extra ``[zh]``: ``pip install 'nlgmetrics[zh]'``.
    """

    name = "zh-jieba"

    def __init__(self) -> None:
        try:
            import jieba
        except ImportError as err:
            raise MissingDependencyError("the 'zh-jieba' tokenizer", "pip install 'nlgmetrics[zh]'") from err
        # jieba reports the loading of its dictionary on its own logger; keep it quiet
        logging.getLogger("jieba").setLevel(logging.WARNING)
        jieba.setLogLevel(logging.WARNING)
        self._tokenizer: Any = jieba.Tokenizer()
        self._tokenizer.initialize()
        self.version = f"jieba-{_version('jieba')}"

    def __call__(self, text: str) -> list[str]:
        return [w for w in self._tokenizer.lcut(text) if not w.isspace()]
