"""The HTML report: per-segment scores that mean something, direction and scale, Δ against the baseline, the
system-level plot, shared histogram axes, provenance, and the page as Chromium draws it (20 systems, CJK)."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess

import numpy as np
import pytest

import nlgmetrics as nm
from nlgmetrics.evaluate import Texts, evaluate
from nlgmetrics.evaluate.report import render_report, write_report
from nlgmetrics.metrics.catalog import CATALOG, get_family
from tests.unit.test_catalog import TEST_OPTIONS

REFS = Texts(["今日は良い天気です", "東京は日本の首都です", "我喜欢学习中文", "the cat sat on the mat"])
SYSTEMS = {
    "sys-a": ["今日はいい天気です", "東京は首都です", "我喜欢中文", "the cat sat on mat"],
    "sys-b": ["今日は天気", "大阪は日本の都市です", "我学习", "a dog"],
}
DATE = "2026-01-01 00:00:00 UTC"


@pytest.fixture(scope="module")
def evaluation():
    return evaluate(
        REFS, SYSTEMS, ["cer", "nls"], baseline="sys-a", bootstrap=20, paired_samples=20, keep_segments=True
    )


def _svgs(page: str) -> list[str]:
    return re.findall(r"<svg.*?</svg>", page, flags=re.S)


def test_report_holds_table_plots_worst_segments_signatures_and_provenance(evaluation):
    page = render_report(evaluation, REFS, SYSTEMS, worst=4, date=DATE)
    assert page.startswith("<!DOCTYPE html>")
    assert '<meta charset="utf-8">' in page
    for sig in evaluation.signatures.values():
        assert sig in page
    assert "大阪は日本の都市です" in page  # a worst segment, prediction side
    assert "東京は日本の首都です" in page  # and its reference
    assert "<span lang='ja'>東京は日本の首都です</span>" in page  # tagged, for Japanese glyph forms
    assert "lang='zh'>我学习<" in page
    # one system-level plot per metric, one histogram per metric and system
    assert len(_svgs(page)) == 2 + 2 * 2
    # self-contained: nothing is fetched from anywhere (XML namespace names are not fetched)
    for needle in ('src="http', "src='http", 'href="http', "href='http", "url(http", "<script", "<link "):
        assert needle not in page
    # provenance: the API call, the date, the versions
    assert "nlgmetrics.evaluate.evaluate(" in page
    assert DATE in page
    assert f"nlgmetrics {nm.__version__}" in page


def test_report_needs_segments():
    ev = evaluate(REFS, SYSTEMS, ["cer"], bootstrap=0, test=None)
    with pytest.raises(ValueError, match="keep_segments=True"):
        render_report(ev, REFS, SYSTEMS)


# ---------------------------------------------------------------------------------------------- per segment
def test_per_segment_bleu_is_sentence_bleu_so_a_perfect_short_segment_scores_100():
    refs = ["Good day!", "The cat sat on the mat.", "Thanks."]
    preds = ["Good day!", "The cat sat on a mat.", "Thank you."]
    ev = evaluate(Texts(refs), {"a": preds}, ["bleu"], bootstrap=0, test=None, keep_segments=True)
    per = ev.segment_scores["bleu"]["a"]
    assert per[0] == pytest.approx(100.0)  # the corpus settings gave 0.0: no 4-gram in 3 tokens
    for p, r, got in zip(preds, refs, per, strict=True):
        assert got == nm.sentence_bleu(p, [r]).score
    # the corpus score is untouched
    assert ev.scores["bleu"]["a"].score == nm.bleu(preds, refs).score
    assert "eff:yes" in ev.segment_signatures["bleu"]
    assert "eff:no" in ev.signatures["bleu"]
    page = render_report(ev, Texts(refs), {"a": preds}, date=DATE)
    assert ev.segment_signatures["bleu"] in page  # the report says which settings its per-segment column used


def test_per_segment_bleu_equals_sacrebleus_sentence_bleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    refs = ["Good day!", "The cat sat on the mat.", "Thanks.", "", "a b c d e f"]
    preds = ["Good day!", "The cat sat on a mat.", "Thank you.", "nothing", "a b c x e f"]
    for preset in ("sacrebleu", "nltk", "moses"):
        ev = evaluate(Texts(refs), {"a": preds}, [f"bleu:preset={preset}"], bootstrap=0, test=None, keep_segments=True)
        scale = 100.0 if preset != "nltk" else 1.0
        got = ev.segment_scores["bleu"]["a"]
        if preset == "sacrebleu":
            want = [sacrebleu.sentence_bleu(p, [r]).score / 100 * scale for p, r in zip(preds, refs, strict=True)]
            assert got == pytest.approx(want, abs=1e-9)
        assert got[0] == pytest.approx(scale)  # a perfect match scores the top of the scale under every convention


def test_per_segment_chrf_and_ter_are_sacrebleus_sentence_scores():
    sacrebleu = pytest.importorskip("sacrebleu")
    refs = ["Good day!", "The cat sat on the mat.", "Thanks."]
    preds = ["Good day!", "The cat sat on a mat.", "Thank you."]
    ev = evaluate(Texts(refs), {"a": preds}, ["chrf", "ter"], bootstrap=0, test=None, keep_segments=True)
    chrf = [sacrebleu.sentence_chrf(p, [r]).score for p, r in zip(preds, refs, strict=True)]
    ter = [sacrebleu.sentence_ter(p, [r]).score for p, r in zip(preds, refs, strict=True)]
    assert ev.segment_scores["chrf"]["a"] == pytest.approx(chrf, abs=1e-9)
    assert ev.segment_scores["ter"]["a"] == pytest.approx(ter, abs=1e-9)
    assert ev.segment_signatures["chrf"] == ev.signatures["chrf"]  # chrF and TER score a segment as a corpus


def test_segment_config_is_a_family_hook_identity_except_where_declared():
    for name in CATALOG:
        family = get_family(name)
        if name in ("bertscore", "anls_star"):
            continue  # need a model / structured config: the default is checked on the others
        cfg = family.make_config(**TEST_OPTIONS.get(name, {}))  # the learned metrics' test checkpoints
        seg = family.segment_config(cfg)
        if name == "bleu":
            assert seg.effective_order
            assert seg.smoothing == "exp"
            assert seg.tokenizer == cfg.tokenizer
        else:
            assert seg == cfg, name
    bleu = get_family("bleu")
    assert bleu.bounds_for(bleu.make_config(preset="nltk")) == (0.0, 1.0)
    assert bleu.bounds_for(bleu.make_config()) == (0.0, 100.0)


def test_wmt22_segments_equal_to_their_reference_score_100(shared_data):
    root = shared_data / "wmt22"
    refs = (root / "references" / "generaltest2022.en-ja.ref.A.ja").read_text(encoding="utf-8").split("\n")[:400]
    systems = {}
    for path in sorted((root / "system-outputs").glob("generaltest2022.en-ja.hyp.*"))[:6]:
        systems[path.name.split(".hyp.")[1]] = path.read_text(encoding="utf-8").split("\n")[:400]
    ev = evaluate(Texts(refs), systems, ["bleu:tokenizer=char"], bootstrap=0, test=None, keep_segments=True)
    exact = 0
    for name, preds in systems.items():
        per = ev.segment_scores["bleu"][name]
        for p, r, s in zip(preds, refs, per, strict=True):
            if p.strip() and p == r:
                exact += 1
                assert s == pytest.approx(100.0), (name, p)
    print(f"{exact} segments equal their reference; each scores 100")
    assert exact > 0


# ---------------------------------------------------------------------------------------------- direction, Δ
def test_direction_scale_and_a_worse_system_never_reads_as_a_win():
    refs = ["the cat sat on the mat", "a dog ran in the park", "it is a fine day", "we like green tea"] * 5
    good = list(refs)
    bad = ["the cat", "dog", "it is day", "we tea"] * 5
    ev = evaluate(
        Texts(refs),
        {"good": good, "bad": bad},
        ["wer", "nls", "bleu"],
        baseline="good",
        bootstrap=50,
        paired_samples=50,
        keep_segments=True,
    )
    page = render_report(ev, Texts(refs), {"good": good, "bad": bad}, date=DATE)
    # each metric says its direction and scale
    assert "wer ↓ <span class='scale'>lower is better, ≥ 0" in page
    assert "nls ↑ <span class='scale'>higher is better, 0–1" in page
    assert "bleu ↑ <span class='scale'>higher is better, 0–100" in page
    # the bad system is worse on every metric, whatever the sign of Δ (WER went up, NLS and BLEU went down)
    cells = re.findall(r"<td class='num delta (\w+)'[^>]*>(.)", page)
    assert cells == [("worse", "▼")] * 3
    assert ev.scores["wer"]["bad"].paired["difference"] > 0 > ev.scores["nls"]["bad"].paired["difference"]
    table = ev.table()
    rows = "\n\n".join(table.split("\n\n")[:-1])  # the blocks of metrics (wrapped at 120 columns), not the notes
    assert rows.count("worse") == 3
    assert "better" not in rows
    assert "wer ↓" in table
    assert "nls ↑" in table
    # Δ has its interval, and it excludes 0 here
    paired = ev.scores["bleu"]["bad"].paired
    assert paired["difference_lower"] <= paired["difference"] <= paired["difference_upper"] < 0


def test_equal_scores_read_as_the_same():
    refs = ["a b c d", "e f g h", "i j k l", "m n o p"]
    a = ["a b c d", "e f g x", "i j k l", "m n o p"]
    b = ["a b c d", "e f g h", "i j k x", "m n o p"]  # one error each: no significant difference
    ev = evaluate(
        Texts(refs), {"a": a, "b": b}, ["wer"], baseline="a", bootstrap=20, paired_samples=20, keep_segments=True
    )
    page = render_report(ev, Texts(refs), {"a": a, "b": b}, date=DATE)
    cell = re.search(r"<td class='num delta (\w*)(?: ns)?'[^>]*>([^<]*)<", page)
    assert cell is not None
    assert cell.group(1) == "same"
    assert cell.group(2).startswith("=")
    assert ev.scores["wer"]["b"].paired["p_value"] >= 0.05


# ---------------------------------------------------------------------------------------------- plots
def _tick_labels(svg: str) -> list[str]:
    return re.findall(r'text-anchor="(?:middle|end)" fill="#57606a">([^<]*)</text>', svg)


def test_histograms_share_their_axes_within_a_metric_and_systems_are_plotted_with_intervals():
    rng = np.random.default_rng(0)
    refs = [" ".join(rng.choice(list("abcdefgh"), size=6)) for _ in range(40)]
    systems = {
        f"s{k}": [" ".join(w if rng.random() > 0.1 * k else "z" for w in r.split()) for r in refs] for k in range(4)
    }
    ev = evaluate(
        Texts(refs), systems, ["ter", "chrf"], baseline="s0", bootstrap=30, paired_samples=30, keep_segments=True
    )
    page = render_report(ev, Texts(refs), systems, date=DATE)
    svgs = _svgs(page)
    plots, hists = svgs[:2], svgs[2:]
    for k, metric in enumerate(["ter", "chrf"]):
        assert all(f">{s}<title>" in plots[k] for s in systems)  # every system on the system-level plot
        assert plots[k].count("<line") >= len(systems)  # with its interval
        panels = hists[k * len(systems) : (k + 1) * len(systems)]
        axes = {tuple(_tick_labels(p)) for p in panels}
        assert len(axes) == 1, f"{metric}: the panels have different axes: {axes}"
    chrf_axis = _tick_labels(hists[len(systems)])
    assert chrf_axis[-1].startswith("segment score")
    assert "100" in chrf_axis


# ---------------------------------------------------------------------------------------------- provenance
def test_provenance_names_the_command_and_digests_every_input_file(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("今日は良い天気です\nthe cat sat\n", encoding="utf-8")
    a = tmp_path / "a.txt"
    a.write_text("今日はいい天気です\nthe cat\n", encoding="utf-8")
    ev = evaluate([str(ref)], {"a": str(a)}, ["cer"], bootstrap=0, test=None, keep_segments=True)
    page = render_report(ev, [str(ref)], {"a": str(a)}, command="nlgmetrics evaluate --ref ref.txt", date=DATE)
    assert "nlgmetrics evaluate --ref ref.txt" in page
    for path in (ref, a):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert f"title='{digest}'>sha256:{digest[:16]}" in page
        assert str(path) in page


def test_cli_report_records_the_command_line(tmp_path):
    from nlgmetrics.cli.main import main

    ref = tmp_path / "ref.txt"
    ref.write_text("a b c\nd e f\n", encoding="utf-8")
    out = tmp_path / "report.html"
    argv = ["evaluate", "--ref", str(ref), "--sys", f"x={ref}", "--metric", "chrf", "--report", str(out), "--quiet"]
    assert main(argv) == 0
    page = out.read_text(encoding="utf-8")
    assert f"nlgmetrics evaluate --ref {ref}" in page
    assert ">command<" in page


# ---------------------------------------------------------------------------------------------- Chromium
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_WORDS_JA = ["今日", "は", "良い", "天気", "です", "東京", "日本", "の", "首都", "大阪", "都市", "雨", "が", "降る"]
_WORDS_ZH = ["我", "喜欢", "学习", "中文", "今天", "天气", "很", "好", "北京", "是", "首都"]


def _twenty_systems() -> tuple[list[str], dict[str, list[str]]]:
    rng = np.random.default_rng(7)
    refs = []
    for i in range(60):
        words = _WORDS_JA if i % 2 == 0 else _WORDS_ZH
        refs.append("".join(rng.choice(words, size=int(rng.integers(2, 9)))))
    systems = {}
    for k in range(20):
        out = []
        for r in refs:
            chars = [c if rng.random() > 0.03 * k else "の" for c in r]
            out.append("".join(chars[: max(1, len(chars) - int(rng.integers(0, 3)))]))
        systems[f"system-{k:02d}" + ("-with-a-rather-long-name" if k == 7 else "")] = out
    return refs, systems


def _screenshot(html_path, png, tmp_path, width: int, height: int) -> subprocess.CompletedProcess[str]:
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        f"--window-size={width},{height}",
    ]
    return subprocess.run(
        [CHROMIUM, *flags, f"--screenshot={png}", html_path.as_uri()], capture_output=True, text=True, timeout=120
    )


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian package 'chromium')")
def test_report_with_20_systems_and_cjk_renders_readably_in_headless_chromium(tmp_path):
    image = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
    refs, systems = _twenty_systems()
    ev = evaluate(
        Texts(refs),
        systems,
        ["bleu:tokenizer=char", "chrf", "ter:asian_support=true,normalized=true", "cer"],
        baseline="system-00",
        bootstrap=50,
        paired_samples=50,
        keep_segments=True,
    )
    html_path = tmp_path / "report.html"
    png = tmp_path / "report.png"
    write_report(ev, str(html_path), Texts(refs), systems, worst=3, date=DATE)
    width = 1400
    proc = _screenshot(html_path, png, tmp_path, width, 3000)
    assert png.is_file(), proc.stderr[-2000:]
    console_errors = [line for line in proc.stderr.splitlines() if "CONSOLE" in line and "ERROR" in line.upper()]
    assert console_errors == []
    with image.open(png) as im:
        rgb = np.asarray(im.convert("RGB"), dtype=np.int16)
    assert rgb.shape[1] == width
    # nothing is cut off at the right: the last 12 pixel columns are the page's white background
    assert (rgb[:, -12:] >= 250).all(), "the page is wider than the window: the 20-system table overflows"
    # and the page is not blank: table text and plots are drawn
    assert (rgb[:, :, 0] < 100).mean() > 0.01
    # Chromium draws CJK with a real font: without one, every character would be a box (tofu)
    fc = shutil.which("fc-list")
    if fc:
        fonts = subprocess.run([fc, ":lang=ja"], capture_output=True, text=True).stdout
        assert fonts.strip(), "no Japanese font installed: Chromium would draw tofu boxes"


# ---------------------------------------------------------------------------------------------- a wide run
def _wide_run(sentences: int = 1):
    """Six metrics with ROUGE, a baseline, four systems: the run whose table overflowed 1,280 px and 120 columns."""
    rng = np.random.default_rng(0)
    words = [
        "the",
        "a",
        "cat",
        "dog",
        "sat",
        "on",
        "mat",
        "rug",
        "big",
        "small",
        "tree",
        "park",
        "near",
        "here",
        "there",
        "is",
        "was",
    ]
    refs = ["\n".join(" ".join(rng.choice(words, size=6)) for _ in range(sentences)) for _ in range(40)]
    systems = {}
    for k in range(4):
        name = f"system-number-{k}" + ("-with-a-rather-long-name" if k == 2 else "")
        lines = [
            [" ".join(w if rng.random() > 0.1 * k else "x" for w in s.split()) for s in r.split("\n")] for r in refs
        ]
        # sentences in another order: the whole-text LCS (rougeL) drops, the sentence-level one (rougeLsum) less
        systems[name] = ["\n".join(line[::-1] if k % 2 else line) for line in lines]
    ev = evaluate(
        Texts(refs),
        systems,
        ["bleu", "chrf", "ter", "rouge", "cer", "wer"],
        baseline="system-number-0",
        bootstrap=50,
        paired_samples=50,
        keep_segments=True,
    )
    return ev, refs, systems


def test_one_rouge_l_column_when_rouge_l_equals_rouge_lsum():
    ev, refs, systems = _wide_run(sentences=1)
    headings = [h for _, h in ev.shown_columns()]
    assert "rouge-rougeL/Lsum" in headings
    assert "rouge-rougeLsum" not in headings
    assert {m.label for m in ev.metrics} >= {"rouge-rougeL", "rouge-rougeLsum"}  # the data keeps both
    page = render_report(ev, Texts(refs), systems, date=DATE)
    assert "rouge-rougeL/Lsum" in page
    assert "rouge-rougeLsum ↑" not in page
    assert "rougeL and rougeLsum are equal for every system" in page
    # several sentences per segment: the two differ and both are shown
    ev2, _, _ = _wide_run(sentences=3)
    headings2 = [h for _, h in ev2.shown_columns()]
    assert "rouge-rougeL" in headings2
    assert "rouge-rougeLsum" in headings2


def test_terminal_table_fits_120_columns_by_wrapping_metrics():
    ev, _, _ = _wide_run()
    table = ev.table()
    assert max(len(line) for line in table.splitlines()) <= 120
    blocks = table.split("\n\n")
    assert len(blocks) >= 3  # wrapped by metric, each block with the system column
    assert all(b.startswith("system") for b in blocks[:-1])
    wide = ev.table(width=1000)
    assert len(wide.split("\n\n")) == 2  # one block and the notes


def test_plot_colours_only_significant_differences():
    refs = ["a b c d e f", "g h i j k l", "m n o p q r", "s t u v w x"] * 6
    slightly = list(refs)
    slightly[0] = "a b c d e x"  # one error in 24 segments: not significant
    badly = [" ".join("x" for _ in r.split()) for r in refs]
    systems = {"base": refs, "slightly": slightly, "badly": badly}
    ev = evaluate(Texts(refs), systems, ["wer"], baseline="base", bootstrap=50, paired_samples=50, keep_segments=True)
    assert ev.scores["wer"]["slightly"].paired["p_value"] >= 0.05
    assert ev.scores["wer"]["badly"].paired["p_value"] < 0.05
    page = render_report(ev, Texts(refs), systems, date=DATE)
    plot = next(svg for svg in _svgs(page) if "system scores" in svg)
    colour = {name: fill for fill, name in re.findall(r'<circle [^>]*fill="(#[0-9a-f]+)"><title>([\w-]+):', plot)}
    assert colour["badly"] == "#cf222e"  # significantly worse: red
    assert colour["slightly"] == "#57606a"  # worse but not significant: grey, not red
    assert "grey not significant" in page
    cells = dict(re.findall(r"<td class='num delta ([\w ]+)'[^>]*>(.)", page))
    assert cells == {"worse ns": "▽", "worse": "▼"}  # the table too: only a significant difference is coloured


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian package 'chromium')")
def test_report_with_a_baseline_and_rouge_fits_1280_px(tmp_path):
    """The run that overflowed at 1,400 and 1,920 px: baseline, ROUGE (four types) and five more metrics. At
    1,280 px nothing reaches past the window: the score table scrolls inside its own box."""
    image = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
    ev, refs, systems = _wide_run(sentences=3)  # rougeL and rougeLsum differ: both columns, the widest table
    html_path, png = tmp_path / "report.html", tmp_path / "report.png"
    write_report(ev, str(html_path), Texts(refs), systems, worst=2, date=DATE)
    assert "<div class='wide'><table class='scores'>" in html_path.read_text(encoding="utf-8")
    width = 1280
    proc = _screenshot(html_path, png, tmp_path, width, 2400)
    assert png.is_file(), proc.stderr[-2000:]
    with image.open(png) as im:
        rgb = np.asarray(im.convert("RGB"), dtype=np.int16)
    assert rgb.shape[1] == width
    assert (rgb[:, -12:] >= 250).all(), "the page is wider than 1,280 px"
