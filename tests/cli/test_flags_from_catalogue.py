"""The command line from the declaration: every config field of every catalogued family is a flag of its
subcommand, or its family marks it as no flag (role ``object``, ``resolved`` or ``internal``).

The walk builds each subcommand's parser as ``nlgmetrics <command> --help`` does, so a new family, field or custom
command is checked without listing it here. It also checks that every flag has help, that a field's declared
choices are the flag's choices, and that the fields the presets set are listed apart (``conventions``).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

import pytest

from nlgmetrics.cli.command import CONVENTIONS_TITLE, derived_options
from nlgmetrics.cli.main import build_parser
from nlgmetrics.metrics.catalog import CATALOG, get_family
from nlgmetrics.signature import NOT_FLAGS, ROLES, field_role, sig_field

FAMILIES = sorted(name for name, entry in CATALOG.items() if entry.command != "")


def _command(name: str) -> str:
    return CATALOG[name].command or name.replace("_", "-")


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser(only=command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in parser._actions for s in a.option_strings}


def _group_of(parser: argparse.ArgumentParser, action: argparse.Action) -> str | None:
    return next((g.title for g in parser._action_groups if action in g._group_actions), None)


def _fields(name: str) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(get_family(name).config_cls) if f.name != "preset"]


@pytest.mark.parametrize("name", FAMILIES)
def test_every_config_field_is_a_flag_or_marked(name):
    parser = _subparser(_command(name))
    flags = _flags(parser)
    problems = []
    for f in _fields(name):
        role = field_role(f)
        if role not in ROLES:
            problems.append(f"{f.name}: unknown role {role!r}")
            continue
        if role in NOT_FLAGS:
            continue
        flag = "--" + f.name.replace("_", "-")
        action = flags.get(flag)
        if action is None:
            problems.append(f"{f.name}: no flag {flag} (give it one, or mark the field role='object'/'resolved')")
            continue
        if action.dest != f"opt_{f.name}":
            problems.append(f"{flag} sets {action.dest!r}, not the field {f.name!r}")
        choices = f.metadata.get("choices")
        if choices is not None and tuple(action.choices or ()) != tuple(choices):
            problems.append(f"{flag}: choices {action.choices!r}, but the field declares {tuple(choices)!r}")
        in_group = _group_of(parser, action) == CONVENTIONS_TITLE
        if in_group != (role == "convention"):
            problems.append(f"{flag}: role {role!r} but listed under {_group_of(parser, action)!r}")
    assert not problems, f"{_command(name)}:\n" + "\n".join(problems)


#: The subcommands that are not one family (``sacrebleu`` aside: it is sacrebleu's own command line, flag for flag).
OTHERS = ["bertscore-baseline", "bertscore-plot", "compare", "evaluate"]


@pytest.mark.parametrize("command", [*(_command(name) for name in FAMILIES), *OTHERS])
def test_every_flag_has_help(command):
    parser = _subparser(command)
    missing = sorted(
        a.option_strings[0]
        for a in parser._actions
        if a.option_strings and (not a.help or a.help == argparse.SUPPRESS or a.help.startswith("(default"))
    )
    assert not missing, f"{command}: flags without help: {missing}"
    assert "--help" in parser.format_help()  # every help text formats (a lone % would raise here)


def test_the_fields_that_are_no_flags_are_few_and_marked():
    """What no flag sets, family by family: each is marked in its family's config, with a reason in its role."""
    marked = {(name, f.name, field_role(f)) for name in FAMILIES for f in _fields(name) if field_role(f) in NOT_FLAGS}
    by_field = {(n, f): r for n, f, r in marked}
    assert by_field[("bertscore", "idf_weights")] == "object"
    assert by_field[("bertscore", "baseline")] == "resolved"
    assert by_field[("bleu", "spm")] == "resolved"
    assert by_field[("comet", "family")] == "internal"
    assert {r for _, _, r in marked} <= NOT_FLAGS


# ------------------------------------------------------------------------------------------ the flags
def _options(argv: list[str]) -> dict[str, Any]:
    parser = build_parser(only=argv[0])
    args = parser.parse_args([*argv, "--pred", "p.txt"])
    return {k[4:]: v for k, v in vars(args).items() if k.startswith("opt_") and v is not None}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["wer", "--tokenizer", "whitespace"], {"tokenizer": "whitespace"}),
        (["cer", "--tokenizer", "char"], {"tokenizer": "char"}),
        (["cer", "--unit", "char"], {"unit": "char"}),
        (["anls", "--normalizer", "none"], {"normalizer": "none"}),
        (["anls", "--threshold-on", "distance"], {"threshold_on": "distance"}),
        (["anls", "--length-basis", "normalized"], {"length_basis": "normalized"}),
        (["bleu", "--average", "sentence", "--sentence-round", "4"], {"average": "sentence", "sentence_round": 4}),
        (["bleu", "--convention", "nltk"], {"convention": "nltk"}),
        (["bleu", "-tok", "zh"], {"tokenizer": "zh"}),
        (["bleu", "--tokenize", "zh"], {"tokenizer": "zh"}),
        (["chrf", "--convention", "torchmetrics"], {"convention": "torchmetrics"}),
        (["ter", "--convention", "torchmetrics"], {"convention": "torchmetrics"}),
        (["rouge", "--bootstrap-rng", "legacy"], {"bootstrap_rng": "legacy"}),
        (["bertscore", "--progress"], {"progress": True}),
        (["bertscore", "--no-progress"], {"progress": False}),
        (["bertscore", "--quiet"], {"progress": False}),
        (["bertscore", "--no-cache"], {"cache": False}),
        (["bertscore", "--allow-download"], {"allow_download": True}),
    ],
)
def test_the_missing_flags_reach_the_config(argv, expected):
    assert _options(argv) == expected


def test_a_convention_flag_changes_the_signature_as_the_function_does(cli, write):
    import nlgmetrics as nm

    preds, refs = ["the cat sat on the mat", "hello world"], ["the cat is on the mat", "hello there world"]
    pred, ref = write("p.txt", preds), write("r.txt", refs)
    out = cli("bleu", "--pred", pred, "--ref", ref, "--average", "sentence", "--sentence-round", "4", "--json").json()
    want = nm.bleu(preds, refs, average="sentence", sentence_round=4)
    assert (out["bleu"], out["signature"]) == (want.score, want.signature)
    out = cli("wer", "--pred", pred, "--ref", ref, "--tokenizer", "whitespace", "--json").json()
    want = nm.wer(preds, refs, tokenizer="whitespace")
    assert (out["wer"], out["signature"]) == (want.score, want.signature)


def test_a_bad_choice_exits_2_naming_the_flag(cli, write):
    pred = write("p.txt", ["a"])
    run = cli("anls", "--pred", pred, "--ref", pred, "--threshold-on", "bogus")
    assert run.code == 2
    assert "--threshold-on" in run.err
    assert "similarity" in run.err


# ------------------------------------------------------------------------------------------ the derivation itself
@dataclasses.dataclass(frozen=True)
class _Toy:
    size: int = sig_field("n", 3, help="how many; 100% of them")
    mode: str = sig_field("m", "a", help="which mode", choices=("a", "b"), flags=("-m",))
    rounding: str = sig_field("r", "half-even", help="the reference tool's rounding", role="convention")
    verbose: bool | None = sig_field(None, None, help="show progress", negative="--silent")
    table: Any = sig_field(None, None, role="object")  # noqa: RUF009 - a dataclasses.field
    digest: str | None = sig_field("d", None, role="resolved")
    preset: str | None = sig_field("preset", None)


def test_derived_options_follow_the_field_metadata():
    opts = {o.name: o for o in derived_options(_Toy, option_aliases={"kind": "mode"})}
    assert list(opts) == ["size", "mode", "rounding", "verbose"]  # no object, resolved field or preset
    assert opts["size"].help == "how many; 100%% of them"  # argparse formats %
    assert opts["mode"].choices == ("a", "b")
    assert opts["mode"].aliases == ("-m", "--kind")
    assert opts["rounding"].role == "convention"
    assert opts["verbose"].negative == "--silent"


def test_a_command_row_adds_spellings_and_flags_that_are_no_field():
    from nlgmetrics.cli.command import Opt

    opts = derived_options(_Toy, (Opt("size", aliases=("-n",)), Opt("explain", help="say why")))
    assert [o.name for o in opts] == ["size", "mode", "rounding", "verbose", "explain"]
    assert opts[0].aliases == ("-n",)
    assert opts[0].help == "how many; 100%% of them"


def test_sig_field_refuses_an_unknown_role():
    with pytest.raises(ValueError, match="role 'flag'"):
        sig_field("x", 1, role="flag")


# ------------------------------------------------------------------------------------------ compare --metric
def test_compare_offers_every_family_of_the_catalogue():
    action = _flags(_subparser("compare"))["--metric"]
    assert tuple(action.choices) == tuple(sorted(CATALOG))


def test_compare_on_another_family_is_that_familys_paired_test(cli, write):
    import nlgmetrics as nm
    from nlgmetrics.metrics.significance import paired_test_from_stats

    preds = ["the cat sat on the mat", "hello world", "it is raining today"]
    base = ["a cat on a mat", "hello", "rain today"]
    refs = ["the cat is on the mat", "hello there world", "it rains today"]
    pred, bl, ref = write("p.txt", preds), write("b.txt", base), write("r.txt", refs)
    args = ("compare", "--pred", pred, "--baseline", bl, "--ref", ref, "--n-samples", "20", "--json")
    out = cli(*args, "--metric", "rouge", "--score", "rougeL").json()
    family = get_family("rouge")
    cfg = family.make_config(None)
    stats = [family.batch_stats(x, [[r] for r in refs], cfg) for x in (base, preds)]
    want = paired_test_from_stats(family, cfg, *stats, n_samples=20, score="rougeL")
    assert (out["baseline"], out["system"], out["p_value"]) == (want.baseline, want.system, want.p_value)
    assert out["baseline"] == nm.rouge(base, refs).score["rougeL"]
    run = cli(*args, "--metric", "sari")
    assert run.code == 2
    assert "sources" in run.err


def test_the_older_cli_false_metadata_reads_as_internal():
    @dataclasses.dataclass(frozen=True)
    class Old:
        family: str = dataclasses.field(default="x", metadata={"cli": False})

    assert field_role(dataclasses.fields(Old)[0]) == "internal"
    assert derived_options(Old) == ()


@pytest.mark.parametrize("name", FAMILIES)
def test_a_convention_field_is_marked_so(name):
    """A field named for whose arithmetic it follows is set by the presets: its flag is listed with them."""
    for f in _fields(name):
        if f.name in ("convention", "scoring"):
            assert field_role(f) == "convention", f"{name}.{f.name}"


def test_the_help_shows_the_default_presets_value():
    unit = _flags(_subparser("cer"))["--unit"]
    assert unit.help.endswith("(default: char)")  # the field's own default is "word"; cer's jiwer preset sets char


@pytest.mark.parametrize("name", FAMILIES)
def test_the_entry_names_a_known_reader(name):
    assert CATALOG[name].reader in ("text", "docvqa", "json")


def test_a_reader_in_the_catalogue_is_the_generic_commands_input_format(cli, write, write_jsonl):
    docvqa = write("dv.json", text='[{"answer": "denver broncos", "gt_answers": ["Denver Broncos"]}]')
    assert cli("anls", "--pred", docvqa, "--json").json()["anls"] == 1.0
    both = write_jsonl("s.jsonl", [{"prediction": {"total": "12.50"}, "references": {"total": "12.50"}}])
    assert cli("anls-star", "--pred", both, "--json").json()["anls_star"] == 1.0  # JSON values, not strings
