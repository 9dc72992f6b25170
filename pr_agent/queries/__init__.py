"""Every GraphQL document gh-pr-agent sends, one file each, and :func:`load_query`, which adds the shared
fragments (``fragments_*.graphql``) a document uses."""

from __future__ import annotations

import re
from importlib import resources

_FRAGMENT = re.compile(r"^fragment\s+(\w+)\s+on\s+\w+\s*\{.*?^\}", re.S | re.M)
_fragments: dict[str, str] = {}
_queries: dict[str, str] = {}


def _all_fragments() -> dict[str, str]:
    if not _fragments:
        for entry in resources.files("pr_agent.queries").iterdir():
            if entry.name.startswith("fragments_") and entry.name.endswith(".graphql"):
                for m in _FRAGMENT.finditer(entry.read_text(encoding="utf-8")):
                    _fragments[m[1]] = m[0]
    return _fragments


def load_query(name: str) -> str:
    """``pr_agent/queries/<name>.graphql`` plus the shared fragments it uses (transitively)."""
    if name not in _queries:
        text = resources.files("pr_agent.queries").joinpath(f"{name}.graphql").read_text(encoding="utf-8")
        fragments = _all_fragments()
        needed: list[str] = []
        todo = re.findall(r"\.\.\.\s*([A-Z]\w*)", text)
        while todo:
            frag = todo.pop()
            if frag in fragments and frag not in needed:
                needed.append(frag)
                todo.extend(re.findall(r"\.\.\.\s*([A-Z]\w*)", fragments[frag]))
        _queries[name] = "\n".join([text, *(fragments[f] for f in sorted(needed))])
    return _queries[name]
