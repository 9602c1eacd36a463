"""Helpers for the CLI tests: write small input files, run ``main(argv)`` in-process and capture its output."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from nlgmetrics.cli.main import main


@dataclasses.dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        assert self.code == 0, self.err
        return json.loads(self.out)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """``cli("nls", "--pred", p, ...)``: the exit status and what was printed."""

    def run(*argv: Any) -> Run:
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """``write("p.txt", ["a", "b"])`` writes lines joined by newline (with a final newline); ``write(name,
    text=...)`` or ``write(name, data=b"...")`` writes exactly that."""

    def _write(
        name: str, lines: Sequence[str] | None = None, *, text: str | None = None, data: bytes | None = None
    ) -> Path:
        path = tmp_path / name
        if data is None:
            if text is None:
                text = "".join(f"{line}\n" for line in lines or [])
            data = text.encode("utf-8")
        path.write_bytes(data)
        return path

    return _write


@pytest.fixture
def write_jsonl(write: Callable[..., Path]) -> Callable[[str, Sequence[Any]], Path]:
    def _write(name: str, rows: Sequence[Any]) -> Path:
        return write(name, [json.dumps(r, ensure_ascii=False) for r in rows])

    return _write
