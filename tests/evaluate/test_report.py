"""The HTML report: self-contained, every signature, worst segments, and Japanese rendered in Chromium."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from nlgmetrics.evaluate import Texts, evaluate
from nlgmetrics.evaluate.report import render_report, write_report

REFS = Texts(["今日は良い天気です", "東京は日本の首都です", "我喜欢学习中文", "the cat sat on the mat"])
SYSTEMS = {
    "sys-a": ["今日はいい天気です", "東京は首都です", "我喜欢中文", "the cat sat on mat"],
    "sys-b": ["今日は天気", "大阪は日本の都市です", "我学习", "a dog"],
}


@pytest.fixture(scope="module")
def evaluation():
    return evaluate(
        REFS, SYSTEMS, ["cer", "nls"], baseline="sys-a", bootstrap=20, paired_samples=20, keep_segments=True
    )


def test_report_holds_table_plots_worst_segments_and_signatures(evaluation):
    page = render_report(evaluation, REFS, SYSTEMS, worst=4)
    assert page.startswith("<!DOCTYPE html>")
    assert '<meta charset="utf-8">' in page
    for sig in evaluation.signatures.values():
        assert sig in page
    assert "大阪は日本の都市です" in page  # a worst segment, prediction side
    assert "東京は日本の首都です" in page  # and its reference
    assert page.count("<svg") == 4  # one distribution per metric and system
    # self-contained: nothing is fetched from anywhere (XML namespace names are not fetched)
    for needle in ('src="http', "src='http", 'href="http', "href='http", "url(http", "<script", "<link "):
        assert needle not in page


def test_report_needs_segments():
    ev = evaluate(REFS, SYSTEMS, ["cer"], bootstrap=0, test=None)
    with pytest.raises(ValueError, match="keep_segments=True"):
        render_report(ev, REFS, SYSTEMS)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian package 'chromium')")
def test_report_renders_in_headless_chromium_without_console_errors(evaluation, tmp_path):
    html_path = tmp_path / "report.html"
    png = tmp_path / "report.png"
    write_report(evaluation, str(html_path), REFS, SYSTEMS, worst=2)
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1100,1600",
    ]
    proc = subprocess.run(
        [CHROMIUM, *flags, f"--screenshot={png}", html_path.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert png.is_file(), proc.stderr[-2000:]
    assert png.stat().st_size > 10_000
    console_errors = [line for line in proc.stderr.splitlines() if "CONSOLE" in line and "ERROR" in line.upper()]
    assert console_errors == []
    # The Japanese text must be drawn with real glyphs: compare the rendered width of a Japanese line against
    # the width of the same number of "tofu" boxes is not possible from outside, so check that a CJK font is
    # available to Chromium; the screenshot itself is checked by eye in development.
    fc = shutil.which("fc-list")
    if fc:
        fonts = subprocess.run([fc, ":lang=ja"], capture_output=True, text=True).stdout
        assert fonts.strip(), "no Japanese font installed: Chromium would draw tofu boxes"
