"""The one place where a ``tokenizer=`` option becomes the name a signature shows.

Every tokenisation has one public name, and every family signs it with that name (``tok:13a`` in BLEU, GLEU,
METEOR, NIST, ...). What a family accepts is family data (:data:`FAMILIES`); how a name given by a user becomes
the public name is :func:`resolve`, called by each config's ``__post_init__``:

* a public name the family offers is kept;
* a short name keeps the meaning it always had in the family and is stored as the explicit name: ``ja-mecab`` is
  MeCab with the IPA dictionary in BLEU and SARI (sacrebleu's ``ja-mecab``) and with UniDic-lite elsewhere;
  ``char`` is sacrebleu's (every non-space character) in BLEU, SARI, METEOR, RIBES and ROUGE, and Python's
  ``list(text)``, spaces included (``char-list``), in GLEU, NIST and the error rates, whose numbers count the
  spaces;
* an old internal name (``sacrebleu-13a``, ...) is refused with the public name to say, except where the
  documentation gave it to users (GLEU's ``sacrebleu-13a``, HF ``google_bleu``'s tokenizer): it is stored and
  signed under the public name;
* a name registered with :func:`nlgmetrics.text.register_tokenizer` is taken as it is by the families that take
  any registered tokenizer (all but SARI, CIDEr and COCO);
* anything else is refused with the family's list.

Old signatures and saved states still read: :func:`canonical` maps every name a signature of a family ever
showed to today's (see :func:`nlgmetrics.signature.parse`).

``none`` means "no tokenizer: the words are what the input already separates" in every family that offers it:
the text split on whitespace (BLEU, SARI, CIDEr, COCO) or token lists given as lists (METEOR, RIBES, which refuse
a token holding whitespace).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import UnknownOptionError, unknown_option
from .spm import SPM_MODELS

__all__ = [
    "FAMILIES",
    "LEGACY",
    "TOKENISATIONS",
    "WORD_TOKENISATIONS",
    "Accepts",
    "Tokenisation",
    "accepted",
    "canonical",
    "choices",
    "declare",
    "resolve",
    "resolve_quietly",
    "tokenizer",
    "tokenizer_help",
]


@dataclass(frozen=True)
class Tokenisation:
    """One tokenisation: its public ``name`` (the one every signature shows), the registry entry that does it
    (``key``; ``None`` for one built into its family's kernel) and what it does."""

    name: str
    key: str | None
    help: str


def _t(name: str, key: str | None, help: str) -> tuple[str, Tokenisation]:
    return name, Tokenisation(name, key, help)


#: Every public tokenisation.
TOKENISATIONS: dict[str, Tokenisation] = dict(
    [
        _t("13a", "sacrebleu-13a", "sacrebleu's 13a (mteval-v13a.pl's rules)"),
        _t("intl", "sacrebleu-intl", "sacrebleu's intl (mteval-v14's international rules)"),
        _t("zh", "sacrebleu-zh", "sacrebleu's zh (Chinese characters apart, 13a for the rest)"),
        _t("ko-mecab", "sacrebleu-ko-mecab", "sacrebleu's ko-mecab (MeCab-ko with mecab-ko-dic)"),
        _t("ja-mecab-ipadic", "ja-mecab-ipadic", "MeCab with the IPA dictionary (sacrebleu's ja-mecab)"),
        _t("ja-mecab-unidic-lite", "ja-mecab-unidic-lite", "MeCab (fugashi) with UniDic-lite"),
        _t("char", "sacrebleu-char", "every non-space character (sacrebleu's char)"),
        _t("char-list", "char-list", "every character, spaces included (Python's list(text))"),
        _t("none", "sacrebleu-none", "no tokenizer: the words the input already separates"),
        _t("whitespace", "whitespace", "split on runs of whitespace (str.split)"),
        _t("perl-whitespace", "perl-whitespace", "Perl's split (multi-bleu.perl)"),
        _t("jiwer-words", "jiwer-words", "jiwer's words: split on spaces only (WER's default)"),
        _t("jiwer-chars", "jiwer-chars", "jiwer's characters, inner spaces included (CER's default)"),
        _t("zh-jieba", "zh-jieba", "jieba's Chinese word segmentation"),
        _t("coco", "coco", "pycocoevalcap's PTB tokenization and punctuation removal"),
        _t("coco-rouge", "coco-rouge", "pycocoevalcap's ROUGE-L tokens"),
        _t("coco-rouge-tokenized", "coco-rouge-tokenized", "captions tokenized by 'coco', split on spaces"),
        _t("mteval-13a", None, "mteval-v13a.pl's tokenization (NIST's mteval convention)"),
        _t("unicode", None, "ROUGE's default: rouge-score's tokens, letters of any script kept, CJK split"),
        _t("rouge-score", None, "rouge-score's ASCII-only tokenizer"),
        _t("rouge155", None, "ROUGE-1.5.5's tokenizer"),
        *(_t(name, None, f"sacrebleu's SentencePiece {name} (spBLEU)") for name in SPM_MODELS),
    ]
)

#: Old internal names (what signatures showed) -> the public name of their tokenisation.
LEGACY: dict[str, str] = {
    "sacrebleu-13a": "13a",
    "sacrebleu-intl": "intl",
    "sacrebleu-zh": "zh",
    "sacrebleu-char": "char",
    "sacrebleu-ja-mecab": "ja-mecab-ipadic",
    "sacrebleu-ko-mecab": "ko-mecab",
    "sacrebleu-none": "whitespace",  # sacrebleu's none on a text: str.split
}

_GENERAL = (
    "13a",
    "intl",
    "zh",
    "ko-mecab",
    "ja-mecab-ipadic",
    "ja-mecab-unidic-lite",
    "char-list",
    "whitespace",
    "perl-whitespace",
    "zh-jieba",
    "coco",
    "coco-rouge",
    "coco-rouge-tokenized",
)
_JIWER = ("jiwer-words", "jiwer-chars")
_UNIDIC = {"ja-mecab": "ja-mecab-unidic-lite"}
_IPADIC = {"ja-mecab": "ja-mecab-ipadic"}
_CHAR_LIST = {"char": "char-list"}


@dataclass(frozen=True)
class _Accepts:
    """What a family accepts: public names, short names (-> public) and old names kept because the documentation
    gave them (-> public)."""

    public: tuple[str, ...]
    short: Mapping[str, str]
    legacy: tuple[str, ...] = ()
    #: also the names registered with ``nlgmetrics.text.register_tokenizer`` (signed as they are named)
    registered: bool = True


_EDIT = _Accepts((*_GENERAL, *_JIWER), {**_UNIDIC, **_CHAR_LIST})
_TOKEN_LISTS = _Accepts((*_GENERAL, "char", *_JIWER, "none"), _UNIDIC)
_CAPTIONS = _Accepts(("coco", "none"), {}, registered=False)

#: Family (catalogue name) -> what its ``tokenizer`` option accepts.
FAMILIES: dict[str, _Accepts] = {
    "bleu": _Accepts((*_GENERAL, "char", "none", *SPM_MODELS), {**_IPADIC, "spm": "flores101"}),
    "sari": _Accepts(("13a", "intl", "zh", "char", "ja-mecab-ipadic", "ko-mecab", "none"), _IPADIC, registered=False),
    "gleu": _Accepts((*_GENERAL, *_JIWER), {**_UNIDIC, **_CHAR_LIST}, legacy=("sacrebleu-13a",)),
    "nist": _Accepts((*_GENERAL, *_JIWER, "mteval-13a"), {**_UNIDIC, **_CHAR_LIST}),
    "meteor": _TOKEN_LISTS,
    "ribes": _TOKEN_LISTS,
    "rouge": _Accepts(("unicode", "rouge-score", "rouge155", *_GENERAL, "char"), _UNIDIC),
    "cider": _CAPTIONS,
    "coco": _CAPTIONS,
    **dict.fromkeys(("cer", "wer", "mer", "wil", "wip"), _EDIT),
}


#: What a family accepts (the type :func:`declare` takes).
Accepts = _Accepts
#: The word tokenisations a new family can offer as they are: sacrebleu's, MeCab, jieba, jiwer's, ... (GLEU's
#: set, with ``char`` as ``list(text)``).
WORD_TOKENISATIONS = _Accepts((*_GENERAL, *_JIWER), {**_UNIDIC, **_CHAR_LIST})


def declare(family: str, accepts: _Accepts = WORD_TOKENISATIONS) -> None:
    """Declare, from a family's own module, what its ``tokenizer`` option accepts: a family added with one module
    and its catalogue line needs no edit here. A family declared in :data:`FAMILIES` keeps its declaration."""
    FAMILIES.setdefault(family, accepts)


def _accepts(family: str) -> _Accepts:
    try:
        return FAMILIES[family]
    except KeyError:
        raise ValueError(f"no tokenizer names are declared for the family {family!r}") from None


def accepted(family: str) -> tuple[str, ...]:
    """The public names ``family`` signs (sorted)."""
    return tuple(sorted(_accepts(family).public))


def choices(family: str) -> tuple[str, ...]:
    """The names ``family`` offers as ``tokenizer=``: its public names and short names (a documented old name it
    still takes, such as GLEU's ``sacrebleu-13a``, is not offered)."""
    acc = _accepts(family)
    return tuple(sorted({*acc.public, *acc.short}))


def tokenizer_help(family: str, what: str) -> str:
    """The help of ``family``'s ``tokenizer`` field: ``what`` it does, then the names it offers."""
    return f"{what}; one of: {', '.join(choices(family))}"


def resolve(name: Any, family: str) -> str:
    """The public name of the tokenisation that ``name`` means in ``family``; an internal or unknown name is
    refused with an :class:`~nlgmetrics.errors.UnknownOptionError` that names what to say instead."""
    public = resolve_quietly(name, family) if isinstance(name, str) else None
    if public is not None:
        return public
    valid = ", ".join(repr(v) for v in choices(family))
    if isinstance(name, str) and name in LEGACY:
        public = LEGACY[name]
        means = resolve_quietly(public, family)
        if means == public:
            hint = f"say {public!r}"
        elif means is None:
            hint = f"its tokenisation, {public!r}, is not one of {family}'s"
        else:
            hint = f"its tokenisation, {public!r}, is not one of {family}'s: there {public!r} means {means!r}"
        raise UnknownOptionError(
            f"tokenizer {name!r} is an internal name, not an option ({hint}); valid values are: {valid}"
        )
    raise unknown_option("tokenizer", name, choices(family))


def resolve_quietly(name: str, family: str) -> str | None:
    """:func:`resolve` without the error: ``None`` where ``family`` does not take ``name``."""
    acc = _accepts(family)
    if name in acc.short:
        return acc.short[name]
    if name in acc.public:
        return name
    if name in acc.legacy:
        return LEGACY[name]
    if acc.registered and name not in TOKENISATIONS and name in _registered():
        return name
    return None


def _registered() -> frozenset[str]:
    from .registry import user_tokenizers

    return user_tokenizers()


def canonical(name: str, family: str | None = None) -> str:
    """Today's public name of a ``tok:`` value that a signature (or saved state) of ``family`` showed, old
    internal names and short names included; a name it cannot place is returned unchanged."""
    acc = FAMILIES.get(family or "")
    if acc is not None:
        if name in acc.short:
            return acc.short[name]
        if name in acc.public:
            return name
    public = LEGACY.get(name)
    if public is None:
        return name
    if acc is None or public in acc.public:
        return public
    return name  # a tokenisation the family no longer offers under any name: left as it was (loading it fails)


def tokenizer(name: str) -> Callable[[str], list[str]]:
    """The callable of the public tokenisation ``name`` (sacrebleu's come with ``.batch``); built once."""
    from .registry import get_tokenizer

    entry = TOKENISATIONS.get(name)
    if entry is None and name in _registered():
        return get_tokenizer(name)
    if entry is None or entry.key is None:
        raise ValueError(f"{name!r} is not a tokenisation of the registry (it is built into its family's kernel)")
    return get_tokenizer(entry.key)
