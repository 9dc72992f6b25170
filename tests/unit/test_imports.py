"""Imports are one-way: no module of pr_agent imports (directly or through others) a module that imports it.

Every import counts, including the ones inside functions and under ``TYPE_CHECKING``: a module that needs
its importer's types or functions is asking to be split (a shared lower module, a Protocol, a generated
table). The graph is read from the source with ``ast``, so the test sees what a reader sees.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pr_agent"

# cycles still to split, each with why it is still there (remove the entry when it is gone: the test fails on
# an entry that is no longer a cycle, so the list only shrinks)
KNOWN_CYCLES: list[frozenset[str]] = [
    # the tool modules import the registry's Tool/register; the registry loads the tool modules and applies
    # preferences, which validate values against the tools' models
    frozenset({"pr_agent.prefs", "pr_agent.registry", "pr_agent.tools", "pr_agent.tools.checks",
               "pr_agent.tools.comments", "pr_agent.tools.comments_budget", "pr_agent.tools.conflicts",
               "pr_agent.tools.ready", "pr_agent.tools.rebase", "pr_agent.tools.resolve", "pr_agent.tools.stack"}),
]


def module_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    mods: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        name = ".".join(path.relative_to(package.parent).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = path
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = pkg.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in mods else base
                    if target in mods and target != mod:
                        edges[mod].add(target)
            elif isinstance(node, ast.Import):
                edges[mod] |= {a.name for a in node.names if a.name in mods and a.name != mod}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = set()
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.add(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        found.append(frozenset(comp))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_checker_finds_a_planted_cycle_through_a_lazy_and_a_type_only_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pr_agent"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pr_agent.sub import b\n")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import X\n")
    (pkg / "sub" / "c.py").write_text("from pr_agent import a\n")
    (pkg / "leaf.py").write_text("import pr_agent.a\n")
    assert cycles(module_graph(pkg)) == [frozenset({"pr_agent.a", "pr_agent.sub.b", "pr_agent.sub.c"})]


def test_imports_are_one_way() -> None:
    found = cycles(module_graph())
    unexpected = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert not unexpected, f"import cycles (split the modules: a lower module, a Protocol or a table): {unexpected}"
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not gone, f"no longer cycles, remove them from KNOWN_CYCLES: {gone}"
