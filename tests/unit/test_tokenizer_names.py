"""One public name per tokenisation in every signature (issue 26, item 7).

The catalogue is walked: every family whose config signs a ``tok`` field declares what it accepts in
``nlgmetrics.text.tokenizers``; every name it accepts is stored and signed as the resolver's public name; one
public name gives the same tokens in every family that offers it (what each family does after the tokenizer, its
documented own step, aside); old internal names are refused with the public name; old signatures and saved states
still read.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from nlgmetrics.errors import MissingDependencyError, UnknownOptionError
from nlgmetrics.metrics.catalog import CATALOG, get_family
from nlgmetrics.signature import parse, same_settings
from nlgmetrics.stateful import stateful_class
from nlgmetrics.tables import parse_signature
from nlgmetrics.text import tokenizers as T
from tests.unit.test_public_surface import RECORDED, TOKENIZER_RENAMES

SPM = {"flores101", "flores200", "spBLEU-1K"}  # spBLEU: a SentencePiece model file, not shipped with the tests
EDIT = ("cer", "wer", "mer", "wil", "wip")
_JIWER_UNIT = {"jiwer-chars": "char", "jiwer-words": "word"}


def _tok_families() -> list[str]:
    out = []
    for name in CATALOG:
        fields = {f.name: f for f in dataclasses.fields(get_family(name).config_cls)}
        if "tokenizer" in fields and fields["tokenizer"].metadata.get("signature") == "tok":
            out.append(name)
    return sorted(out)


FAMILIES = _tok_families()


def _config(family: str, name: str, **options: Any) -> Any:
    """The family's config with ``tokenizer=name``, or a skip where an optional tokenizer is not installed."""
    try:
        return get_family(family).make_config(tokenizer=name, **options)
    except MissingDependencyError as err:
        pytest.skip(str(err))


def _refused_in(family: str, name: str) -> bool:
    """A name in the family's list that its config refuses on purpose: CER's tokenizer is not WER's option."""
    unit = get_family(family).make_config().unit if family in EDIT else None
    return name in _JIWER_UNIT and _JIWER_UNIT[name] != unit


def test_every_family_with_a_tokenizer_declares_its_names():
    # a family declared from its own module but not catalogued here (tests/toy, imported by doctest collection) is not
    # one of the catalogue's
    declared = {name for name in T.FAMILIES if name in CATALOG}
    assert set(FAMILIES) == declared, "families with a tok field and the resolver's table differ"
    assert {"bleu", "gleu", "meteor", "nist", "ribes", "sari", "rouge", "wer"} <= set(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
def test_each_accepted_name_is_signed_by_its_public_name(family):
    for name in T.choices(family):
        if name in SPM or name == "spm" or _refused_in(family, name):
            continue
        public = T.resolve(name, family)
        assert public in T.accepted(family)
        assert public in T.TOKENISATIONS
        cfg = _config(family, name)
        assert cfg.tokenizer == public, (family, name)
        signature = get_family(family).config_signature(cfg)
        assert f"|tok:{public}|" in signature, (family, name, signature)


@pytest.mark.parametrize("family", EDIT)
def test_the_other_units_default_is_refused(family):
    unit = get_family(family).make_config().unit
    other = "jiwer-words" if unit == "char" else "jiwer-chars"
    with pytest.raises(UnknownOptionError, match="tokenisation of unit="):
        get_family(family).make_config(tokenizer=other)


# ------------------------------------------------------------------------------------- one name, one tokenisation
def _words(tokens: list[str]) -> list[str]:
    from nlgmetrics.metrics._tokenised import words

    return words(tokens)


def _family_tokens(family: str, public: str, text: str) -> tuple[list[str], list[str]] | None:
    """(the tokens ``family`` makes of ``text`` with tokenizer ``public``, the tokens the resolver's tokenizer
    makes followed by the family's own documented step), or None where the family offers no such comparison."""
    if family in ("meteor", "ribes") and public == "none":  # token lists given as lists
        from nlgmetrics.metrics._tokenised import tokenised_pairs

        given = text.split()
        return tokenised_pairs([given], [[given]], "none")[0][0], T.tokenizer("none")(text)
    if public not in T.TOKENISATIONS or T.TOKENISATIONS[public].key is None:
        return None  # built into one family's kernel (mteval-13a, ROUGE's own, spBLEU)
    tok = T.tokenizer(public)
    if family == "bleu":
        from nlgmetrics.metrics.bleu.config import sacrebleu_name
        from nlgmetrics.metrics.bleu.kernel import tokenize

        cfg = _config(family, public)
        strip = sacrebleu_name(public) is not None  # sacrebleu's BLEU strips each line on the right first
        return tokenize([text], cfg)[0], list(tok(text.rstrip() if strip else text))
    if family == "gleu":
        from nlgmetrics.metrics.gleu import _tokenize

        return _tokenize([text], _config(family, public))[0], list(tok(text))
    if family == "nist":
        from nlgmetrics.metrics.nist import _tokenize

        return _tokenize([text], _config(family, public, lowercase=False))[0], list(tok(text))
    if family in ("meteor", "ribes"):
        from nlgmetrics.metrics._tokenised import tokenised_pairs

        cfg = _config(family, public)
        return tokenised_pairs([text], [text], cfg.tokenizer)[0][0], _words(list(tok(text)))  # words: whitespace out
    if family == "rouge":
        from nlgmetrics.metrics.rouge.kernel import _tokenizer_of

        return list(_tokenizer_of(_config(family, public))(text)), list(tok(text))
    if family == "sari":
        if public == "none":
            return None  # the script splits the untokenised sentence on single spaces: its own step
        from nlgmetrics.metrics.sari import _tokens

        return _tokens([text], _config(family, public, lowercase=False))[0], list(tok(text)) or [""]
    if family in EDIT:
        from nlgmetrics.metrics.edit import _error_rate_pair

        if _refused_in(family, public):
            return None
        counts = _error_rate_pair(text, text, _config(family, public))
        return ["x"] * counts[6], ["x"] * len(tok(text))  # the prediction's length in tokens
    if family in ("cider", "coco"):  # COCO's BLEU, ROUGE-L and CIDEr share CIDEr's captions
        from nlgmetrics.metrics.cider import _tokenized

        cfg = get_family("cider").make_config(tokenizer=public)
        return _tokenized([text], cfg)[0].split(), list(tok(text))
    return None


def _shared_names() -> list[str]:
    """Public names that at least two families offer."""
    count: dict[str, int] = {}
    for family in FAMILIES:
        for name in T.accepted(family):
            count[name] = count.get(name, 0) + 1
    return sorted(name for name, n in count.items() if n > 1)


_ALPHABET = list("abcXYZ019 .,!?-'\"()&\t\u3000日本語東京タワー猫が魚をＡＢ１２、。！？中文字")
TEXTS = st.text(alphabet=st.sampled_from(_ALPHABET), max_size=24)


@pytest.mark.parametrize("public", _shared_names())
def test_one_public_name_gives_the_same_tokens_in_every_family(public):
    families = [f for f in FAMILIES if public in T.accepted(f)]
    assert len(families) > 1
    try:
        T.tokenizer(public)("a") if T.TOKENISATIONS[public].key else None
    except MissingDependencyError as err:
        pytest.skip(str(err))

    @settings(max_examples=25, deadline=None)
    @given(TEXTS)
    @example("")
    @example("...!?")
    @example("ＡＢＣ１２３、。")
    @example("東京タワーに\t行った。 \u3000猫")
    @example("a  b\tc - d")
    def check(text):
        for family in families:
            pair = _family_tokens(family, public, text)
            if pair is not None:
                assert pair[0] == pair[1], (family, public, text)

    check()


def test_each_signature_name_is_one_tokenisation():
    """No public name stands for two tokenisations: a short name that means different things in two families is
    stored as two different public names, and never signed itself unless it is a public name everywhere."""
    for short in ("ja-mecab", "spm"):
        assert short not in T.TOKENISATIONS
        for family in FAMILIES:
            assert T.resolve_quietly(short, family) in (None, *T.accepted(family))
    meanings = {T.resolve_quietly("char", f) for f in FAMILIES} - {None}
    assert meanings == {"char", "char-list"}
    assert T.tokenizer("char")("a b") == ["a", "b"]
    assert T.tokenizer("char-list")("a b") == ["a", " ", "b"]


#: Two public names for the same tokens: sacrebleu's ``none`` (its name, which BLEU's sacrebleu-compatible signatures
#: keep: no tokenizer) splits a text on whitespace, as ``whitespace`` (NLTK's str.split) does. Renaming either would
#: change BLEU's signatures; the names say which tool's convention was asked for.
SAME_TOKENS = {frozenset({"none", "whitespace"})}
_WITNESSES = [
    "",
    "a,b",
    "a\u00a0b",
    "a\tb",
    "a  b",
    " a b ",
    "日本語の文",
    "东京是中国的首都",
    "Hello world.",
    'it\'s "ok"',
    "ＡＢ１２",
    "한국어 문장입니다",
    "a-b",
    "$5.00",
    "x&amp;y",
    "e.g. U.S.",
    "a\u3000b",
]


def test_two_public_names_are_two_tokenisations():
    names = [n for n, t in T.TOKENISATIONS.items() if t.key is not None]
    tokens = {}
    for name in names:
        try:
            tokens[name] = [list(T.tokenizer(name)(w)) for w in _WITNESSES]
        except MissingDependencyError:
            continue
    same = {frozenset({a, b}) for a in tokens for b in tokens if a < b and tokens[a] == tokens[b]}
    assert same <= SAME_TOKENS


# ------------------------------------------------------------------------------------------------ internal names
@pytest.mark.parametrize("family", FAMILIES)
def test_internal_names_are_refused_with_the_public_name(family):
    for old, public in T.LEGACY.items():
        if old in T.FAMILIES[family].legacy:
            assert T.resolve(old, family) == public  # documented for this family (GLEU's sacrebleu-13a)
            continue
        with pytest.raises(UnknownOptionError, match=rf"tokenizer '{re.escape(old)}' is an internal name.*'{public}'"):
            get_family(family).make_config(tokenizer=old)


def test_gleu_keeps_the_documented_old_name():
    import nlgmetrics as nm

    pred, ref = ["the cat sat on the mat ."], ["the cat is on the mat ."]
    old, new = nm.gleu(pred, ref, tokenizer="sacrebleu-13a"), nm.gleu(pred, ref, preset="hf-google-bleu")
    assert "|tok:13a|" in old.signature
    assert "|tok:13a|" in new.signature
    assert old.score == new.score


def test_13a_is_one_tokenisation_in_bleu_gleu_meteor_and_nist():
    import nlgmetrics as nm

    pred, ref = ["The cat, sat (on) the mat."], ["The cat sat on the mat!"]
    for function in (nm.bleu, nm.gleu, nm.meteor, nm.nist, nm.ribes, nm.sari, nm.rouge):
        kw = {"sources": ["A cat sat on a mat."]} if function is nm.sari else {}
        assert "|tok:13a|" in function(pred, ref, tokenizer="13a", **kw).signature


# ------------------------------------------------------------------------------------------------ old signatures
#: What signatures showed before the names were unified: GLEU, METEOR, NIST and RIBES took the registry's internal
#: sacrebleu-* names and signed them as given; they, and SARI, signed ``ja-mecab`` as given; GLEU, NIST and the
#: error rates signed ``list(text)`` as ``char``. (BLEU, ROUGE and the error rates already stored the explicit
#: ``ja-mecab-*`` names, and refused the internal ones.)
_SIGNED_AS_GIVEN = {
    **{f: (*T.LEGACY, "ja-mecab") for f in ("meteor", "ribes")},
    **{f: (*T.LEGACY, "ja-mecab", "char") for f in ("gleu", "nist")},
    "sari": ("ja-mecab",),
    **{f: ("char",) for f in EDIT},
}


def test_the_renames_are_exactly_what_the_resolver_maps():
    """tests/unit/test_public_surface.py's TOKENIZER_RENAMES lists every signature name that changed."""
    mapped = set()
    for family, names in _SIGNED_AS_GIVEN.items():
        for old in names:
            new = T.canonical(old, family)
            if new != old:
                mapped.add((family, old, new))
    assert mapped == set(TOKENIZER_RENAMES)
    for family in set(FAMILIES) - set(_SIGNED_AS_GIVEN):  # nothing else changes name
        for name in T.accepted(family):
            assert T.canonical(name, family) == name


@pytest.mark.parametrize(("family", "old", "new"), TOKENIZER_RENAMES)
def test_old_signatures_parse_to_the_new_names(family, old, new):
    before = f"{family}|tok:{old}|lc:no|nlgmetrics:0.1.0"
    after = f"{family}|tok:{new}|lc:no|nlgmetrics:0.2.0"
    assert parse(before)[1]["tok"] == new
    assert parse_signature(before) == parse(before)
    assert same_settings(before, after)
    assert not same_settings(before, after.replace("lc:no", "lc:yes"))


def test_recorded_signatures_still_name_todays_settings():
    from tests import surface

    checked = 0
    for name in ("gleu", "cer"):
        recorded = RECORDED["families"][name]["results"]
        current = surface.family_surface(name)["results"]
        for preset, was in recorded.items():
            if "signature" in was:
                assert same_settings(was["signature"], current[preset]["signature"]), (name, preset)
                checked += "tok:sacrebleu-13a|" in was["signature"] or "tok:char|" in was["signature"]
    assert checked >= 2  # gleu's hf-google-bleu and cer's torchmetrics presets were renamed


def test_a_sacrebleu_signature_is_left_as_sacrebleu_writes_it():
    sig = "BLEU|nrefs:1|case:mixed|eff:no|tok:ja-mecab-0.996-IPA|smooth:exp|version:2.6.0"
    assert parse(sig)[1]["tok"] == "ja-mecab-0.996-IPA"
    assert parse("chrF2|nrefs:1|case:mixed|nc:6|nlgmetrics:0.1.0")[1] == {
        "nrefs": "1",
        "case": "mixed",
        "nc": "6",
        "nlgmetrics": "0.1.0",
    }


def _old_state(metric: Any, old: str, new: str) -> dict[str, Any]:
    state = metric.state_dict()
    assert state["config"]["tokenizer"] == new
    state["config"]["tokenizer"] = old
    state["signature"] = state["signature"].replace(f"|tok:{new}|", f"|tok:{old}|")
    return state


@pytest.mark.parametrize(
    ("family", "options", "old", "new"),
    [
        ("gleu", {"preset": "hf-google-bleu"}, "sacrebleu-13a", "13a"),
        ("cer", {"preset": "torchmetrics"}, "char", "char-list"),
        ("nist", {"tokenizer": "char"}, "char", "char-list"),
        ("meteor", {"tokenizer": "13a"}, "sacrebleu-13a", "13a"),
    ],
)
def test_a_state_saved_with_an_old_name_loads(family, options, old, new):
    cls = stateful_class(family)
    metric = cls(**options)
    metric.update(["the cat sat on the mat ."], ["the cat is on the mat ."])
    state = _old_state(metric, old, new)
    fresh = cls(**options)
    fresh.load_state_dict(state)
    assert fresh.compute().score == metric.compute().score


def test_a_state_of_a_tokenisation_no_longer_offered_is_refused():
    cls = stateful_class("gleu")
    metric = cls(tokenizer="char")
    metric.update(["ab"], ["ab"])
    state = _old_state(metric, "sacrebleu-char", "char-list")
    with pytest.raises(UnknownOptionError, match="'sacrebleu-char' is an internal name"):
        cls(tokenizer="char").load_state_dict(state)


def test_a_registered_tokenizer_is_taken_under_its_own_name(monkeypatch):
    import nlgmetrics as nm
    from nlgmetrics.text import registry

    # as register_tokenizer does, without clearing the registry's cache of built tokenizers (other tests hold them)
    monkeypatch.setitem(registry._TOKENIZERS, "test-upper-words", lambda text: text.upper().split())
    monkeypatch.setattr(registry, "_USER", {"test-upper-words"})
    pred, ref = ["the cat"], ["The Cat"]
    for function in (nm.bleu, nm.gleu, nm.meteor, nm.nist, nm.ribes, nm.rouge, nm.wer):
        assert "|tok:test-upper-words|" in function(pred, ref, tokenizer="test-upper-words").signature
    assert nm.wer(pred, ref, tokenizer="test-upper-words").score == 0.0
    with pytest.raises(UnknownOptionError):
        nm.cider(pred, ref, tokenizer="test-upper-words")
