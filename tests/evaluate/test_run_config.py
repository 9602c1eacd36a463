"""A run setting is declared once, in ``RunConfig``: evaluate()'s keywords, the command's flags and the keys of a
run-config file are read from its fields, and a wrong value is named by its keyword and its flag."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re

import pytest

from nlgmetrics.cli.main import build_parser, main
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.evaluate import Texts, evaluate, load_config
from nlgmetrics.evaluate.config import INPUTS, RunConfig, declarations

#: The command's own flags: its inputs are in INPUTS, these are neither settings nor inputs.
COMMAND_ONLY = {"-h", "--help", "--config", "--json", "--quiet"}


def _flags() -> dict[str, argparse.Action]:
    parser = build_parser("evaluate")
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {s: a for a in sub.choices["evaluate"]._actions for s in a.option_strings}


def test_evaluate_keywords_are_the_api_fields_in_order():
    params = inspect.signature(evaluate).parameters.values()
    keywords = [(p.name, p.default) for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    # ``sources`` is an input (like references and systems), not a setting: INPUTS declares it for the file
    assert "sources" in INPUTS
    api = [(f.name, f.default) for f in dataclasses.fields(RunConfig) if declarations()[f.name].api]
    assert [k for k in keywords if k[0] != "sources"] == api


def test_command_flags_are_the_cli_fields():
    flags = _flags()
    declared = {s.flag: name for name, s in declarations().items() if s.flag is not None}
    assert set(flags) == set(declared) | {i.flag for i in INPUTS.values()} | COMMAND_ONLY
    for flag, name in declared.items():
        action = flags[flag]
        assert action.dest == name
        assert action.default is None  # "not given": a config file's value applies
        assert action.help == declarations()[name].help


def test_file_keys_are_the_key_fields(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('references = "r.txt"\nno_such_key = 1\n', encoding="utf-8")
    with pytest.raises(InvalidInputError, match="valid keys: ") as err:
        load_config(path)
    listed = re.search(r"valid keys: ([^)]*)\)", str(err.value)).group(1).split(", ")
    assert listed == [*INPUTS, *(s.key for _, s in declarations().items() if s.key is not None)]


def test_every_setting_travels_from_file_and_flag(tmp_path):
    """Each key of a file reaches its field; a flag wins over the file; ``none`` spells None."""
    path = tmp_path / "run.toml"
    path.write_text(
        'references = "r.txt"\nbaseline = "a"\nbootstrap = 7\nconfidence = 0.9\ntest = "none"\n'
        'paired_samples = 11\nseed = 3\njobs = 2\nchunk_size = 5\nref_field = "r"\npred_field = "p"\n'
        'src_field = "s"\ncache = "c"\ncache_max_size = "1G"\noutput = "o.json"\nreport = "x.html"\nworst = 2\n',
        encoding="utf-8",
    )
    conf = load_config(path)
    keys = {s.key for _, s in declarations().items() if s.key is not None}
    assert keys <= set(conf)
    args = build_parser("evaluate").parse_args(["evaluate", "--seed", "9", "--test", "ar"])
    run = RunConfig.from_args(args, conf)
    counts = {"bootstrap": 7, "confidence": 0.9, "paired_samples": 11, "jobs": 2, "chunk_size": 5, "worst": 2}
    assert {k: getattr(run, k) for k in counts} == counts
    assert (run.seed, run.test) == (9, "ar")  # the flags
    assert run.cache_dir == str(tmp_path / "c")  # relative to the file
    assert run.report == str(tmp_path / "x.html")
    assert (run.ref_field, run.pred_field, run.src_field, run.baseline) == ("r", "p", "s", "a")
    no_flags = build_parser("evaluate").parse_args(["evaluate"])
    assert RunConfig.from_args(no_flags, conf).test is None
    assert RunConfig.from_args(no_flags) == RunConfig()


@pytest.mark.parametrize("name", [n for n, s in declarations().items() if s.check is not None and s.flag is not None])
def test_a_bad_value_names_the_keyword_and_the_flag(name):
    flag = declarations()[name].flag
    with pytest.raises(InvalidInputError, match=re.escape(f"{name} ({flag}) must be")):
        RunConfig(**{name: object()})


def test_evaluate_and_the_command_name_the_keyword_and_the_flag(tmp_path, capsys):
    with pytest.raises(InvalidInputError, match=re.escape("chunk_size (--chunk-size) must be >= 1, got 0")):
        evaluate(Texts(["a b"]), {"a": ["a b"]}, ["nls"], chunk_size=0)
    ref = tmp_path / "r.txt"
    ref.write_text("a b\n", encoding="utf-8")
    code = main(["evaluate", "--ref", str(ref), "--sys", f"a={ref}", "--metric", "nls", "--chunk-size", "0"])
    assert code == 2
    assert "chunk_size (--chunk-size) must be >= 1, got 0" in capsys.readouterr().err
