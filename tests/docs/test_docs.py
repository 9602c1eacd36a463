"""Every code block of README.md and docs/*.md runs as written.

Each page is one test; a new ``docs/*.md`` page is picked up by itself. In a fresh temporary folder that holds a
copy of ``examples/`` (and ``../shared/data`` when the real data is there):

* ``python`` blocks run in order in one interpreter, sharing their names like the cells of a notebook; a block of
  ``>>>`` lines is a doctest whose printed values are checked. A failure points at the page's own line.
* ``bash``/``sh``/``shell`` blocks run command by command (a line ending in ``\\`` continues), with the
  ``nlgmetrics`` of this environment first on ``PATH``; a command must exit 0. A command that reads
  ``../shared/data`` is skipped when that data is absent.
* ``toml``, ``json`` and ``yaml`` blocks must parse; ``text`` blocks and blocks without a language are output or
  diagrams, not code.

A block that cannot run here is marked on the line before it (blank lines between are allowed) with the reason::

    <!-- docs-test: skip needs the bert-base-multilingual-cased model in the Hugging Face cache -->

The marker needs a reason, and must stand before a code block.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHARED_DATA = Path(os.environ.get("NLGMETRICS_SHARED_DATA", ROOT.parent / "shared" / "data"))

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")
_PYTHON = {"python", "py", "python3", "pycon"}
_SHELL = {"bash", "sh", "shell", "console", "zsh"}
_DATA = {"toml", "json", "yaml", "yml"}


@dataclasses.dataclass
class Block:
    page: Path
    line: int  # 1-based line of the first code line
    lang: str
    code: str
    skip: str | None  # the reason, when marked not runnable

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page, with their skip markers."""
    lines = page.read_text(encoding="utf-8").split("\n")
    out: list[Block] = []
    marker: tuple[int, str] | None = None
    i = 0
    while i < len(lines):
        m = _MARKER.match(lines[i])
        if m:
            body = m.group("body")
            if not body.startswith("skip"):
                raise AssertionError(f"{page.name}:{i + 1}: unknown docs-test marker {body!r} (only 'skip REASON')")
            reason = body[len("skip") :].strip(" :")
            if not reason:
                raise AssertionError(f"{page.name}:{i + 1}: a docs-test skip marker needs a reason")
            marker = (i + 1, reason)
            i += 1
            continue
        f = _FENCE.match(lines[i])
        if f is None:
            if marker is not None and lines[i].strip():
                raise AssertionError(f"{page.name}:{marker[0]}: the skip marker is not followed by a code block")
            i += 1
            continue
        indent, fence = f.group("indent"), f.group("fence")
        lang = (f.group("info").strip().split() or [""])[0].lower()
        body = []
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence) and lines[j].strip().strip(fence[0]) == ""):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        out.append(Block(page, i + 2, lang, "\n".join(body), marker[1] if marker else None))
        marker = None
        i = j + 1
    return out


# ---------------------------------------------------------------------------------------------- running
def _workdir(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    shutil.copytree(ROOT / "examples", work / "examples")
    if SHARED_DATA.is_dir():
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "data").symlink_to(SHARED_DATA)
    return work


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded, in the docs as anywhere
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("MPLBACKEND", "Agg")
    env.pop("PYTHONPATH", None)
    return env


_DOCTEST_HELPER = """
import doctest as _doctest


def _docs_doctest(source, name, lineno, globs):
    test = _doctest.DocTestParser().get_doctest(source, globs, name, name, lineno - 1)
    runner = _doctest.DocTestRunner(optionflags=_doctest.ELLIPSIS | _doctest.NORMALIZE_WHITESPACE)
    runner.run(test, clear_globs=False)
    if runner.failures:
        raise SystemExit(f"{name}: a doctest block failed (see above)")
"""


def _python_script(page: Path, blocks: list[Block]) -> str:
    """One script for the page's Python blocks, each code line at its line number in the page."""
    n = page.read_text(encoding="utf-8").count("\n") + 2
    lines = [""] * n
    name = str(page.relative_to(ROOT))
    for b in blocks:
        code = b.code
        if any(line.lstrip().startswith(">>>") for line in code.split("\n")):
            lines[b.line - 1] = f"_docs_doctest({code!r}, {name!r}, {b.line}, globals())"
            continue
        for k, line in enumerate(code.split("\n")):
            lines[b.line - 1 + k] = line
    return "\n".join(lines)


def _run_python(page: Path, blocks: list[Block], work: Path) -> None:
    if not blocks:
        return
    helper = work / "_docs_helper.py"
    helper.write_text(_DOCTEST_HELPER, encoding="utf-8")
    script = work / (page.name + ".py")
    body = _python_script(page, blocks)
    # the helper comes in on the script's first line, which in a Markdown page is never code
    first = "from _docs_helper import _docs_doctest; "
    parts = body.split("\n")
    parts[0] = first + parts[0]
    script.write_text("\n".join(parts), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, script.name], cwd=work, env=_env(), capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, (
        f"the Python blocks of {page.name} failed (line numbers are the page's):\n{proc.stdout[-3000:]}\n"
        f"{proc.stderr[-4000:]}"
    )


def _commands(code: str) -> list[tuple[int, str]]:
    """``(offset, command)`` of each command of a shell block (``\\`` continues a line; comments dropped)."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for k, raw in enumerate(code.split("\n")):
        line = raw.rstrip()
        if not pending:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.lstrip().startswith("$ "):
                line = line.lstrip()[2:]
            start = k
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        out.append((start, " ".join(p.strip() for p in pending)))
        pending = []
    return out


def _run_shell(block: Block, work: Path, skipped: list[str]) -> None:
    for offset, command in _commands(block.code):
        where = f"{block.page.name}:{block.line + offset}"
        if "../shared/data" in command and not SHARED_DATA.is_dir():
            skipped.append(f"{where}: needs ../shared/data")
            continue
        proc = subprocess.run(
            ["bash", "-eo", "pipefail", "-c", command],
            cwd=work,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, (
            f"{where}: `{command}` exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
        )


def _check_data(block: Block) -> None:
    if block.lang == "json":
        json.loads(block.code)
    elif block.lang == "toml":
        tomllib = pytest.importorskip("tomllib")
        tomllib.loads(block.code)
    else:
        yaml = pytest.importorskip("yaml")
        yaml.safe_load(block.code)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_code_block_runs(page: Path, tmp_path: Path) -> None:
    blocks = blocks_of(page)
    runnable = [b for b in blocks if b.skip is None]
    work = _workdir(tmp_path)
    _run_python(page, [b for b in runnable if b.lang in _PYTHON], work)
    skipped = [f"{b.where}: {b.skip}" for b in blocks if b.skip is not None]
    for b in runnable:
        if b.lang in _SHELL:
            _run_shell(b, work, skipped)
        elif b.lang in _DATA:
            _check_data(b)
    if skipped:
        print("not run:\n  " + "\n  ".join(skipped))


# ---------------------------------------------------------------------------------------------- the runner
def test_the_runner_reads_blocks_markers_and_line_numbers(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        textwrap.dedent(
            """\
            # Title

            ```python
            x = 1
            ```

            <!-- docs-test: skip needs a GPU -->

            ```bash
            nlgmetrics gpu-thing \\
                --fast
            ```

            * a list item:

              ```toml
              a = 1
              ```
            """
        ),
        encoding="utf-8",
    )
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        got = blocks_of(page)
    finally:
        ROOT = old
    assert [(b.line, b.lang, b.skip) for b in got] == [
        (4, "python", None),
        (10, "bash", "needs a GPU"),
        (17, "toml", None),
    ]
    assert got[2].code == "a = 1"
    assert _commands(got[1].code) == [(0, "nlgmetrics gpu-thing --fast")]
    bad = tmp_path / "bad.md"
    bad.write_text("<!-- docs-test: skip -->\n```bash\nfalse\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="needs a reason"):
        blocks_of(bad)
    bad.write_text("<!-- docs-test: skip why -->\nsome text\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="not followed by a code block"):
        blocks_of(bad)


def test_a_failing_block_names_the_line_of_the_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# T\n\n```python\nx = 1\ny = undefined_name\n```\n\n```python\n>>> 1 + 1\n2\n\n```\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        (tmp_path / "examples").mkdir()
        with pytest.raises(AssertionError) as err:
            _run_python(page, blocks_of(page), _workdir(tmp_path))
    finally:
        ROOT = old
    assert 'page.md.py", line 5' in str(err.value)
    assert "undefined_name" in str(err.value)


def test_doctest_blocks_check_their_output(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# T\n\n```python\n>>> 1 + 1\n3\n\n```\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        (tmp_path / "examples").mkdir()
        with pytest.raises(AssertionError) as err:
            _run_python(page, blocks_of(page), _workdir(tmp_path))
    finally:
        ROOT = old
    message = " ".join(str(err.value).split())
    assert "Expected: 3 Got: 2" in message


def test_every_extra_the_docs_and_messages_name_exists() -> None:
    tomllib = pytest.importorskip("tomllib")
    extras = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    )
    texts = [p.read_text(encoding="utf-8") for p in PAGES]
    texts += [p.read_text(encoding="utf-8") for p in (ROOT / "src" / "nlgmetrics").rglob("*.py")]
    named = {
        e for text in texts for group in re.findall(r"nlgmetrics\[([a-z0-9_,-]+)\]", text) for e in group.split(",")
    }
    assert named, "no extra named anywhere: the pattern is wrong"
    assert named <= extras, f"named but not in pyproject.toml: {sorted(named - extras)}"
