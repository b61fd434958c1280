"""No import circle among lexcite's modules, read from the source (every import, lazy ones inside functions too).

A module imported inside a function to dodge a circle still forms one: the two modules cannot be
read, tested or replaced alone. `KNOWN_CYCLES` lists the circles that exist today, each owned by a
restructuring still to land; any other circle fails, and so does a listed one that is gone
(remove it from the list then).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parent.parent / "lexcite"

KNOWN_CYCLES: set[frozenset[str]] = set()  # none left: the index and parser circles are gone


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The lexcite modules `name` imports anywhere in its source (not under `if TYPE_CHECKING:`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and ast.unparse(node.test).endswith("TYPE_CHECKING") for n in ast.walk(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from .x import y
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for a in node.names:
                sub = f"{base}.{a.name}"
                if sub in known:
                    out.add(sub)
                elif base in known:
                    out.add(base)
    out.discard(name)
    return out


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan), each a frozenset of names."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def lexcite_graph() -> dict[str, set[str]]:
    files = module_files()
    return {name: imports(name, path, set(files)) for name, path in files.items()}


class TestTheCheckItself:
    def test_a_lazy_import_inside_a_function_closes_a_circle(self, tmp_path):
        pkg = tmp_path / "pkg"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "a.py").write_text("from pkg.b import f\n")
        (pkg / "b.py").write_text("def f():\n    from pkg import a\n    return a\n")
        (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n")
        files = module_files(pkg)
        graph = {n: imports(n, p, set(files)) for n, p in files.items()}
        assert cycles(graph) == {frozenset({"pkg.a", "pkg.b"})}  # c's typing-only import is no edge

    def test_a_relative_import_is_resolved(self, tmp_path):
        pkg = tmp_path / "pkg"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "a.py").write_text("from . import b\n")
        (pkg / "b.py").write_text("from .a import x\n")
        files = module_files(pkg)
        assert cycles({n: imports(n, p, set(files)) for n, p in files.items()}) == {frozenset({"pkg.a", "pkg.b"})}


def test_no_import_circle_beyond_the_known_ones():
    new = cycles(lexcite_graph()) - KNOWN_CYCLES
    assert not new, "new import circle(s): " + "; ".join(" <-> ".join(sorted(c)) for c in new)


def test_every_known_circle_still_exists():
    gone = KNOWN_CYCLES - cycles(lexcite_graph())
    assert not gone, "remove from KNOWN_CYCLES, the circle is gone: " + "; ".join(
        " <-> ".join(sorted(c)) for c in gone)
