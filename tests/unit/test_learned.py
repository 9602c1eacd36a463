"""The learned MT metrics: bad input, safe loading, invariances, the command line and HF's ``load("comet")``.

Every test runs on the tiny checkpoints of ``tests/fixtures/learned`` (see its README): nothing is downloaded.
"""

from __future__ import annotations

import json
import shutil

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import nlgmetrics as nm  # noqa: E402
from nlgmetrics.cli.main import main  # noqa: E402
from nlgmetrics.errors import InvalidInputError, NlgMetricsError  # noqa: E402
from tests.learned_fixtures import FIXTURES, comet_options, load_cases, metricx_options, recorded  # noqa: E402

COMET22 = "comet-xlmr-sparsemax-noln"
KIWI = "cometkiwi-xlmr-sparsemax-ln"
XC = "xcomet-xlmr-sparsemax-noln"
CASES, _ = load_cases(None)
SRC = [c["src"] for c in CASES]
MT = [c["mt"] for c in CASES]
REF = [c["ref"] for c in CASES]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def _copy(tmp_path, variant=COMET22):
    dst = tmp_path / variant
    shutil.copytree(FIXTURES / "comet" / variant, dst)
    return dst


# ----------------------------------------------------------------------------------------------- bad input
def test_folder_without_hparams(tmp_path):
    folder = _copy(tmp_path)
    (folder / "hparams.yaml").unlink()
    with pytest.raises(NlgMetricsError, match=r"hparams.yaml file is missing from .*comet-xlmr"):
        nm.comet(MT[:1], REF[:1], sources=SRC[:1], model=str(folder), encoder=comet_options(COMET22)["encoder"])


def test_folder_without_weights(tmp_path):
    folder = _copy(tmp_path)
    shutil.rmtree(folder / "checkpoints")
    with pytest.raises(NlgMetricsError, match=r"holds no weights: expected checkpoints/model.ckpt"):
        nm.comet(MT[:1], REF[:1], sources=SRC[:1], model=str(folder), encoder=comet_options(COMET22)["encoder"])


def test_missing_model_names_the_download():
    with pytest.raises(NlgMetricsError, match=r"hf download Unbabel/wmt22-comet-da .*2.3 GB"):
        nm.comet(MT[:1], REF[:1], sources=SRC[:1], model="Unbabel/wmt22-comet-da")
    with pytest.raises(NlgMetricsError, match=r"gated"):
        nm.xcomet(MT[:1], REF[:1], sources=SRC[:1], model="Unbabel/XCOMET-XL")
    with pytest.raises(InvalidInputError, match="model= is required"):
        nm.comet(MT[:1], REF[:1], sources=SRC[:1], model=None)  # type: ignore[arg-type]


def test_unknown_architecture(tmp_path):
    folder = _copy(tmp_path)
    text = (folder / "hparams.yaml").read_text(encoding="utf-8")
    (folder / "hparams.yaml").write_text(text.replace("regression_metric", "ranking_metric"), encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"hparams.yaml: unknown COMET architecture .*ranking_metric"):
        nm.comet(MT[:1], REF[:1], sources=SRC[:1], model=str(folder), encoder=comet_options(COMET22)["encoder"])


def test_wrong_family_for_the_checkpoint():
    with pytest.raises(InvalidInputError, match="is scored by comet, not by xcomet"):
        nm.xcomet(MT[:1], REF[:1], sources=SRC[:1], **comet_options(COMET22))


def test_pickled_objects_are_refused(tmp_path):
    """A checkpoint that needs more than tensors to load is refused: nothing is unpickled."""
    folder = _copy(tmp_path)
    ckpt = folder / "checkpoints" / "model.ckpt"
    data = torch.load(str(ckpt), weights_only=True)
    data["callbacks"] = {"x": _Evil()}
    torch.save(data, str(ckpt))
    with pytest.raises(NlgMetricsError, match=r"cannot be read safely.*never unpickles code"):
        nm.comet(MT[:1], REF[:1], sources=SRC[:1], model=str(folder), encoder=comet_options(COMET22)["encoder"])
    assert not _Evil.ran


class _Evil:
    ran = False

    def __reduce__(self):
        return (_Evil._run, ())

    @staticmethod
    def _run():  # pragma: no cover - must never run
        _Evil.ran = True
        return None


def test_sources_and_references_required_or_refused():
    with pytest.raises(InvalidInputError, match="comet needs sources"):
        nm.comet(MT[:2], REF[:2], sources=None, **comet_options(COMET22))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="comet needs references"):
        nm.comet(MT[:2], None, sources=SRC[:2], **comet_options(COMET22))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="takes no references"):
        nm.cometkiwi(MT[:2], REF[:2], sources=SRC[:2], **comet_options(KIWI))
    with pytest.raises(InvalidInputError, match="cometkiwi needs sources"):
        nm.cometkiwi(MT[:2], sources=None, **comet_options(KIWI))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="xcomet needs sources=, references, or both"):
        nm.xcomet(MT[:2], **comet_options(XC))
    with pytest.raises(InvalidInputError, match="metricx with qe=True takes no references"):
        nm.metricx(MT[:2], REF[:2], sources=SRC[:2], qe=True, **metricx_options("metricx-relu-tied"))
    with pytest.raises(InvalidInputError, match="metricx needs sources"):
        nm.metricx(MT[:2], REF[:2], sources=None, **metricx_options("metricx-relu-tied"))  # type: ignore[arg-type]


def test_mismatched_lengths_and_bad_items():
    with pytest.raises(InvalidInputError, match="2 predictions but 1 references"):
        nm.comet(MT[:2], REF[:1], sources=SRC[:2], **comet_options(COMET22))
    with pytest.raises(InvalidInputError, match="1 sources but 2 predictions"):
        nm.comet(MT[:2], REF[:2], sources=SRC[:1], **comet_options(COMET22))
    with pytest.raises(InvalidInputError, match=r"predictions\[1\]"):
        nm.comet([MT[0], None], REF[:2], sources=SRC[:2], **comet_options(COMET22))  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match=r"references\[0\]"):
        nm.comet(MT[:1], [["a", "b"]], sources=SRC[:1], **comet_options(COMET22))
    with pytest.raises(InvalidInputError, match="dtype"):
        nm.comet(MT[:1], REF[:1], sources=SRC[:1], dtype="float64", **comet_options(COMET22))


# ----------------------------------------------------------------------------------------------- invariances
def test_signature_and_system_score():
    r = nm.comet(MT, REF, sources=SRC, segments=True, **comet_options(COMET22))
    assert r.signature.startswith("comet|ckpt:")
    assert "|mix:sparsemax|ln:no|trunc:62|dtype:float32|dev:cpu|" in r.signature
    assert "/" not in r.signature
    assert r.count == len(MT)
    assert len(r.scores) == len(MT)
    assert abs(r.score - sum(r.scores) / len(r.scores)) < 1e-12
    assert abs(r.score - recorded(COMET22)["ref/cases"]["system_score"]) <= 1e-6


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.permutations(range(10)), st.integers(1, 9))
def test_permutation_and_split(order, cut):
    """Per-segment scores follow their segments whatever the order and batching; statistics add."""
    full = nm.xcomet(MT[:10], REF[:10], sources=SRC[:10], segments=True, **comet_options(XC))
    p = [MT[i] for i in order]
    r = [REF[i] for i in order]
    s = [SRC[i] for i in order]
    perm = nm.xcomet(p, r, sources=s, segments=True, **comet_options(XC))
    for k, i in enumerate(order):
        assert abs(perm.scores[k] - full.scores[i]) <= 1e-6
        assert [x["text"] for x in perm.error_spans[k]] == [x["text"] for x in full.error_spans[i]]
    metric = nm.XCOMET(**comet_options(XC))
    metric.update(p[:cut], r[:cut], sources=s[:cut])
    other = nm.XCOMET(**comet_options(XC))
    other.update(p[cut:], r[cut:], sources=s[cut:])
    merged = metric.merge(other).compute()
    assert abs(merged.score - full.score) <= 1e-6
    assert merged.count == 10


def test_embedding_cache_changes_nothing():
    a = nm.comet(MT, REF, sources=SRC, segments=True, cache=False, **comet_options(COMET22))
    b = nm.comet(MT, REF, sources=SRC, segments=True, **comet_options(COMET22))
    c = nm.comet(MT[::-1], REF[::-1], sources=SRC[::-1], segments=True, **comet_options(COMET22))
    assert max(abs(x - y) for x, y in zip(a.scores, b.scores, strict=True)) <= 1e-6
    assert max(abs(x - y) for x, y in zip(a.scores, c.scores[::-1], strict=True)) <= 1e-6
    assert a.signature == b.signature


@pytest.mark.parametrize(("family", "variant"), [("xcomet", "xcomet-bert-softmax-ln"), ("comet", COMET22)])
def test_the_accelerator_shape_policy_changes_nothing(family, variant):
    """The runner's accelerator policy (widths in fitted buckets, batches padded with empty rows), run on the
    CPU, gives the CPU policy's numbers and spans; a unified call's passes share one runner call of few shapes."""
    from nlgmetrics.metrics.comet.model import _MODELS

    fn = getattr(nm, family)
    a = fn(MT, REF, sources=SRC, segments=True, cache=False, **comet_options(variant))
    runner = next(reversed(_MODELS._items.values())).runner  # the model the call above loaded
    saved = runner.bucketed, runner.budget
    runner.bucketed, runner.budget = True, 256
    try:
        b = fn(MT, REF, sources=SRC, segments=True, cache=False, **comet_options(variant))
        assert len(runner.shapes) > 1
        assert len(set(runner.shapes)) <= 32
    finally:
        runner.bucketed, runner.budget = saved
    assert max(abs(x - y) for x, y in zip(a.scores, b.scores, strict=True)) <= 1e-6
    strip = [[{k: v for k, v in s.items() if k != "confidence"} for s in seg] for seg in a.error_spans or ()]
    assert strip == [[{k: v for k, v in s.items() if k != "confidence"} for s in seg] for seg in b.error_spans or ()]


def test_batch_size_changes_nothing():
    a = nm.metricx(MT, REF, sources=SRC, segments=True, batch_size=1, **metricx_options("metricx-gelu-untied"))
    b = nm.metricx(MT, REF, sources=SRC, segments=True, **metricx_options("metricx-gelu-untied"))
    assert max(abs(x - y) for x, y in zip(a.scores, b.scores, strict=True)) <= 1e-5
    assert a.signature == b.signature
    assert all(0.0 <= x <= 25.0 for x in b.scores)


# ----------------------------------------------------------------------------------------------- CLI, HF
def test_cli_prints_what_comet_score_prints(tmp_path, capsys):
    paths = {}
    for name, lines in (("src", SRC[:3]), ("mt", MT[:3]), ("ref", REF[:3])):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    opts = comet_options(COMET22)
    args = ["comet", "--src", str(paths["src"]), "--pred", str(paths["mt"]), "--ref", str(paths["ref"])]
    args += ["--model", opts["model"], "--encoder", opts["encoder"]]
    assert main(args) == 0
    out = capsys.readouterr()
    expected = nm.comet(
        [m.strip() for m in MT[:3]],
        [r.strip() for r in REF[:3]],
        sources=[s.strip() for s in SRC[:3]],
        segments=True,
        **opts,
    )
    lines = out.out.splitlines()
    assert lines[:3] == [f"{paths['mt']}\tSegment {i}\tscore: {s:.4f}" for i, s in enumerate(expected.scores)]
    assert lines[3] == f"{paths['mt']}\tscore: {expected.score:.4f}"
    assert f"signature: {expected.signature}" in out.err
    assert main([*args, "--only-system"]) == 0
    assert capsys.readouterr().out == f"{paths['mt']}\tscore: {expected.score:.4f}\n"


def test_cli_bad_input(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("x\ny\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("x\n", encoding="utf-8")
    opts = comet_options(COMET22)
    code = main(["comet", "--src", str(tmp_path / "a.txt"), "--pred", str(tmp_path / "a.txt"), "--ref",
                 str(tmp_path / "b.txt"), "--model", opts["model"], "--encoder", opts["encoder"]])  # fmt: skip
    assert code == 2
    assert "has 2 lines but --ref" in capsys.readouterr().err
    code = main(["comet", "--pred", str(tmp_path / "a.txt"), "--ref", str(tmp_path / "a.txt"), "--model",
                 opts["model"], "--encoder", opts["encoder"]])  # fmt: skip
    assert code == 2
    assert "comet needs sources" in capsys.readouterr().err
    code = main(["comet", "--src", str(tmp_path / "a.txt"), "--pred", str(tmp_path / "a.txt"), "--ref",
                 str(tmp_path / "a.txt"), "--model", str(tmp_path / "nowhere")])  # fmt: skip
    assert code == 2
    assert "not found" in capsys.readouterr().err


def test_cli_qe_and_xcomet_json(tmp_path, capsys):
    (tmp_path / "src.txt").write_text("\n".join(SRC[:4]) + "\n", encoding="utf-8")
    (tmp_path / "mt.txt").write_text("\n".join(MT[:4]) + "\n", encoding="utf-8")
    opts = comet_options(XC)
    code = main(["xcomet", "--src", str(tmp_path / "src.txt"), "--pred", str(tmp_path / "mt.txt"), "--json",
                 "--model", opts["model"], "--encoder", opts["encoder"]])  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"xcomet", "scores", "signature", "error_spans"}
    assert len(data["scores"]) == 4
    assert len(data["error_spans"]) == 4


def test_hf_load_comet():
    metric = nm.load("comet", **comet_options(COMET22))
    out = metric.compute(predictions=MT, references=REF, sources=SRC, gpus=0, progress_bar=False)
    rec = recorded(COMET22)["ref/cases"]
    assert set(out) == {"mean_score", "scores"}
    assert abs(out["mean_score"] - rec["system_score"]) <= 1e-6
    assert max(abs(a - b) for a, b in zip(out["scores"], rec["scores"], strict=True)) <= 1e-6
