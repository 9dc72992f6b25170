"""Every GraphQL document gh-pr-agent sends, one file each, and :func:`load_query`, which adds the shared
fragments (``fragments_*.graphql``) a document uses.

The tables are filled once under a lock and published whole: the MCP server runs tool calls on many threads at
once, and a reader must never see a half-filled fragment table (``Unknown fragment 'RollupContexts'``)."""

from __future__ import annotations

import re
import threading
from importlib import resources

_FRAGMENT = re.compile(r"^fragment\s+(\w+)\s+on\s+\w+\s*\{.*?^\}", re.S | re.M)
_SPREAD = re.compile(r"\.\.\.\s*([A-Z]\w*)")
_lock = threading.Lock()
_fragments: dict[str, str] | None = None
_queries: dict[str, str] = {}


def _read_fragments() -> dict[str, str]:
    table: dict[str, str] = {}
    for entry in resources.files("pr_agent.queries").iterdir():
        if entry.name.startswith("fragments_") and entry.name.endswith(".graphql"):
            for m in _FRAGMENT.finditer(entry.read_text(encoding="utf-8")):
                table[m[1]] = m[0]
    return table


def _all_fragments() -> dict[str, str]:
    global _fragments
    with _lock:
        if _fragments is None:
            _fragments = _read_fragments()  # built aside, published in one assignment
        return _fragments


def _build(name: str) -> str:
    text = resources.files("pr_agent.queries").joinpath(f"{name}.graphql").read_text(encoding="utf-8")
    fragments = _all_fragments()
    needed: list[str] = []
    todo = _SPREAD.findall(text)
    while todo:
        frag = todo.pop()
        if frag in fragments and frag not in needed:
            needed.append(frag)
            todo.extend(_SPREAD.findall(fragments[frag]))
    return "\n".join([text, *(fragments[f] for f in sorted(needed))])


def load_query(name: str) -> str:
    """``pr_agent/queries/<name>.graphql`` plus the shared fragments it uses (transitively)."""
    query = _queries.get(name)
    if query is None:
        query = _build(name)
        _queries[name] = query  # one dict store: atomic, and every writer stores the same text
    return query
