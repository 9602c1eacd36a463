"""No import circles inside the package, type-only imports included.

An edge is any ``import``: at module level, inside a function (a lazy import still runs, and a circle through one
breaks when the order of first use changes) or under ``if TYPE_CHECKING:`` (a type checker follows it, and a type
that only a circle can name is a sign that two modules are one). Edges into the package root are left out:
``from .. import __version__`` is how modules read the version, and the root imports nothing at import time (it
resolves its names lazily). The same holds between subpackages (``metrics``, ``engine``, ``cli``, ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "nlgmetrics"


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_package)
    return out


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = module.split(".")
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        name = ".".join(base + ([node.module] if node.module else []))
    else:
        name = node.module or ""
    return [f"{name}.{a.name}" if f"{name}.{a.name}" in known else name for a in node.names]


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        edges: set[str] = set()

        def visit(node: ast.AST, module: str = module, is_package: bool = is_package, edges: set[str] = edges) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(module, is_package, child, known):
                        if target in known and target not in (module, "nlgmetrics"):
                            edges.add(target)
                visit(child)

        visit(ast.parse(path.read_text(encoding="utf-8")))
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def subpackage_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between subpackages: ``nlgmetrics.metrics.rouge.kernel`` counts as ``nlgmetrics.metrics``, a
    top-level module as itself."""

    def home(module: str) -> str:
        return ".".join(module.split(".")[:2])

    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        out.setdefault(home(module), set()).update(home(t) for t in targets if home(t) != home(module))
    return out


def test_the_package_has_no_import_circle():
    graph = import_graph()
    assert "nlgmetrics.metrics.rouge.scores" in graph["nlgmetrics.metrics.rouge.bootstrap"]
    assert "nlgmetrics.metrics.rouge.config" in graph["nlgmetrics.metrics.rouge.bootstrap"]  # a type-only import
    assert cycles(graph) == []


def test_the_subpackages_have_no_import_circle():
    assert cycles(subpackage_graph(import_graph())) == []


def test_the_cycle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
