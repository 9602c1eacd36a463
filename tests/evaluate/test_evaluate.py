"""The evaluation runner: same numbers as the single-metric functions, any --jobs, streamed files, errors."""

from __future__ import annotations

import json

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.evaluate import Texts, evaluate, load_config, parse_metric
from nlgmetrics.metrics.catalog import get_family
from nlgmetrics.metrics.significance import bootstrap_ci_from_stats, paired_test_from_stats

REFS = [f"the quick brown fox {i} jumps over the lazy dog" for i in range(57)]
SYSTEMS = {
    "base": [f"the quick brown fox {i} jumped over a lazy dog" for i in range(57)],
    "good": [f"the quick brown fox {i} jumps over the lazy dog" if i % 3 else "a fox" for i in range(57)],
    "日本": [f"速い茶色の狐 {i} が怠惰な犬を飛び越える" for i in range(57)],
}
METRICS = ["wer", "cer", "nls", "anls:preset=anls-pkg", "edit_distance"]


def write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_scores_equal_the_single_metric_functions():
    ev = evaluate(Texts(REFS), SYSTEMS, METRICS, bootstrap=0, test=None)
    for name, preds in SYSTEMS.items():
        assert ev.scores["wer"][name].score == nm.wer(preds, REFS).score
        assert ev.scores["cer"][name].score == nm.cer(preds, REFS).score
        assert ev.scores["nls"][name].score == nm.nls(preds, REFS).score
        assert ev.scores["anls"][name].score == nm.anls(preds, REFS, preset="anls-pkg").score
        assert ev.scores["edit_distance"][name].score == nm.edit_distance(preds, REFS).score
    assert ev.signatures["anls"] == nm.anls(["a"], ["a"], preset="anls-pkg").signature


def test_jobs_and_chunking_give_byte_identical_json():
    kwargs = dict(baseline="base", bootstrap=50, paired_samples=50, seed=7)
    one = evaluate(Texts(REFS), SYSTEMS, METRICS, jobs=1, chunk_size=10, **kwargs).to_json()
    two = evaluate(Texts(REFS), SYSTEMS, METRICS, jobs=2, chunk_size=10, **kwargs).to_json()
    assert one == two


def test_files_are_streamed_and_equal_lists(tmp_path):
    ref = write_lines(tmp_path / "ref.txt", REFS)
    systems = {n: write_lines(tmp_path / f"{i}.txt", p) for i, (n, p) in enumerate(SYSTEMS.items())}
    from_files = evaluate([ref], systems, METRICS, bootstrap=20, seed=3, baseline="base", paired_samples=20)
    from_lists = evaluate(Texts(REFS), SYSTEMS, METRICS, bootstrap=20, seed=3, baseline="base", paired_samples=20)
    assert from_files.to_json() == from_lists.to_json()


def test_intervals_and_paired_tests_come_from_the_significance_module():
    ev = evaluate(Texts(REFS), SYSTEMS, ["nls"], baseline="base", bootstrap=30, paired_samples=40, seed=11)
    family = get_family("nls")
    cfg = family.make_config()
    base = family.batch_stats(SYSTEMS["base"], REFS, cfg)
    good = family.batch_stats(SYSTEMS["good"], REFS, cfg)
    ci = bootstrap_ci_from_stats(family, cfg, good, n_samples=30, seed=11)
    paired = paired_test_from_stats(family, cfg, base, good, test="bs", n_samples=40, seed=11)
    assert ev.scores["nls"]["good"].ci == ci.to_dict()
    assert ev.scores["nls"]["good"].paired == paired.to_dict()
    assert ev.scores["nls"]["base"].paired is None


def test_several_reference_files(tmp_path):
    refs_a = write_lines(tmp_path / "a.txt", REFS)
    refs_b = write_lines(tmp_path / "b.txt", [r.upper() for r in REFS])
    ev = evaluate([refs_a, refs_b], {"s": SYSTEMS["good"]}, ["nls"], bootstrap=0, test=None)
    assert ev.scores["nls"]["s"].score == nm.nls(SYSTEMS["good"], [[a, a.upper()] for a in REFS]).score


def test_metric_specs():
    spec = parse_metric("anls:label=anls-official,threshold=0.4")
    assert (spec.name, spec.label, dict(spec.options)) == ("anls", "anls-official", {"threshold": 0.4})
    assert parse_metric('{"name": "wer", "preset": "jiwer"}').preset == "jiwer"
    with pytest.raises(UnknownOptionError, match="unknown metric 'blue'"):
        parse_metric("blue")
    with pytest.raises(UnknownOptionError, match="unknown option 'treshold'"):
        parse_metric("anls:treshold=0.4")
    with pytest.raises(InvalidInputError, match="repeated: nls"):
        evaluate(Texts(REFS), SYSTEMS, ["nls", "nls"])


def test_length_mismatch_names_every_file(tmp_path):
    ref = write_lines(tmp_path / "ref.txt", REFS)
    short = write_lines(tmp_path / "short.txt", SYSTEMS["base"][:-2])
    with pytest.raises(InvalidInputError, match=r"ref\.txt has 57, .*short\.txt has 55 segments"):
        evaluate([ref], {"s": short}, ["wer"])


def test_invalid_utf8_names_file_and_line(tmp_path):
    ref = write_lines(tmp_path / "ref.txt", REFS[:3])
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\nfine\n\xff\xfe broken\n")
    with pytest.raises(InvalidInputError, match=r"bad\.txt:3: invalid UTF-8"):
        evaluate([ref], {"s": str(bad)}, ["wer"])


def test_bad_values_in_lists_are_located():
    with pytest.raises(InvalidInputError, match=r"\[1\]: expected a string, got NoneType"):
        evaluate(Texts(REFS[:2]), {"s": ["a", None]}, ["wer"])


def test_run_errors():
    with pytest.raises(InvalidInputError, match="baseline 'x' is not one of the systems"):
        evaluate(Texts(REFS), SYSTEMS, ["wer"], baseline="x")
    with pytest.raises(InvalidInputError, match="no system"):
        evaluate(Texts(REFS), {}, ["wer"])
    with pytest.raises(InvalidInputError, match="empty corpus"):
        evaluate(Texts([]), {"s": []}, ["wer"])


def test_toml_config(tmp_path):
    write_lines(tmp_path / "ref.txt", REFS)
    write_lines(tmp_path / "a.txt", SYSTEMS["base"])
    (tmp_path / "run.toml").write_text(
        'references = "ref.txt"\nbaseline = "a"\n[systems]\na = "a.txt"\n'
        '[[metrics]]\nname = "anls"\nlabel = "anls-pkg"\npreset = "anls-pkg"\n',
        encoding="utf-8",
    )
    conf = load_config(tmp_path / "run.toml")
    assert conf["systems"]["a"] == str(tmp_path / "a.txt")
    ev = evaluate([conf["references"]], conf["systems"], conf["metrics"], bootstrap=0, test=None)
    assert ev.scores["anls-pkg"]["a"].score == nm.anls(SYSTEMS["base"], REFS, preset="anls-pkg").score


def test_json_is_complete():
    ev = evaluate(Texts(REFS), SYSTEMS, ["wer"], baseline="base", bootstrap=10, paired_samples=10)
    data = json.loads(ev.to_json())
    assert data["segments"] == 57
    assert set(data["systems"]) == set(SYSTEMS)
    assert data["systems"]["good"]["wer"]["paired"]["p_value"] > 0
    assert data["metrics"]["wer"]["signature"].startswith("wer|")
    assert "日本" in ev.table()


def test_cache_reuses_statistics_and_never_goes_stale(tmp_path, monkeypatch):
    from nlgmetrics.evaluate import runner

    ref = write_lines(tmp_path / "ref.txt", REFS)
    a = write_lines(tmp_path / "a.txt", SYSTEMS["base"])
    b = write_lines(tmp_path / "b.txt", SYSTEMS["good"])
    cache = str(tmp_path / "cache")
    first = evaluate([ref], {"a": a}, ["wer", "nls"], bootstrap=10, seed=1, cache_dir=cache)
    calls = []
    real = runner._stats_task
    monkeypatch.setattr(
        runner, "_stats_task", lambda spec, p, r, s=None: calls.append(spec.label) or real(spec, p, r, s)
    )
    second = evaluate([ref], {"a": a, "b": b}, ["wer", "nls"], bootstrap=10, seed=1, cache_dir=cache)
    assert sorted(set(calls)) == ["nls", "wer"]  # only system b was computed ...
    assert len(calls) == 2  # ... once per metric (one chunk): nothing for a
    assert second.scores["wer"]["a"] == first.scores["wer"]["a"]
    uncached = evaluate([ref], {"a": a, "b": b}, ["wer", "nls"], bootstrap=10, seed=1)
    assert second.to_json() == uncached.to_json()
    # a different setting is a different key: nothing stale
    calls.clear()
    evaluate([ref], {"a": a}, ["wer:substitution_cost=2"], bootstrap=0, test=None, cache_dir=cache)
    assert calls == ["wer"]
    # changed content is a different key too (the key is the content, not the file name)
    write_lines(tmp_path / "a.txt", SYSTEMS["日本"])
    calls.clear()
    changed = evaluate([ref], {"a": a}, ["wer"], bootstrap=0, test=None, cache_dir=cache)
    assert calls == ["wer"]
    assert changed.scores["wer"]["a"].score == nm.wer(SYSTEMS["日本"], REFS).score


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_rerun_with_one_more_system_does_not_tokenise_the_references_again(tmp_path, monkeypatch, jobs):
    from nlgmetrics.algorithms import ngrams
    from nlgmetrics.metrics import chrf
    from nlgmetrics.metrics.bleu import kernel as bleu

    refs = [[r, r.upper()] for r in REFS]
    n_flat = 2 * len(REFS)
    metrics = ["bleu", "chrf:word_order=2"]
    cache = str(tmp_path / "cache")
    evaluate(refs, {"a": SYSTEMS["base"]}, metrics, bootstrap=0, test=None, cache_dir=cache, jobs=jobs)
    assert ngrams._DISK_DIR is None  # restored after the run
    # a new process: nothing in memory, so only the files on disk can spare the tokenisation
    bleu._CACHE.clear()
    chrf._CACHE.clear()
    tokenised = []
    real_tokenize = bleu.tokenize
    monkeypatch.setattr(bleu, "tokenize", lambda lines, cfg: tokenised.append(len(lines)) or real_tokenize(lines, cfg))
    both = {"a": SYSTEMS["base"], "b": SYSTEMS["good"]}
    again = evaluate(refs, both, metrics, bootstrap=0, test=None, cache_dir=cache, jobs=1)
    assert n_flat not in tokenised  # the system was tokenised, the references were not
    assert tokenised == [len(REFS)]
    monkeypatch.undo()
    bleu._CACHE.clear()
    chrf._CACHE.clear()
    fresh = evaluate(refs, both, metrics, bootstrap=0, test=None)
    assert again.to_json() == fresh.to_json()
    assert again.scores["bleu"]["b"].score == nm.bleu(SYSTEMS["good"], refs).score
    # other settings are other entries: cached tokens are never used for them
    bleu._CACHE.clear()
    tokenised.clear()
    monkeypatch.setattr(bleu, "tokenize", lambda lines, cfg: tokenised.append(len(lines)) or real_tokenize(lines, cfg))
    evaluate(refs, both, ["bleu:lowercase=true"], bootstrap=0, test=None, cache_dir=cache)
    assert n_flat in tokenised
