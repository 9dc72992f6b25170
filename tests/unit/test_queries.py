"""Every GraphQL document we send validates against GitHub's pinned public schema."""

from __future__ import annotations

from importlib import resources

import pytest
from graphql import parse, validate

from pr_agent.queries import load_query
from tests.fakehub.schemas import graphql_schema

NAMES = sorted(
    e.name[: -len(".graphql")]
    for e in resources.files("pr_agent.queries").iterdir()
    if e.name.endswith(".graphql") and not e.name.startswith("fragments_")
)


@pytest.mark.parametrize("name", NAMES)
def test_query_validates_against_github_schema(name: str) -> None:
    errors = validate(graphql_schema(), parse(load_query(name)))
    assert not errors, [e.message for e in errors]


def test_every_operation_is_named_once() -> None:
    import re

    ops = [re.search(r"\b(?:query|mutation)\s+(\w+)", load_query(n)) for n in NAMES]
    assert all(ops)
    assert len({m[1] for m in ops if m}) == len(NAMES)


def _fragments_complete(text: str) -> bool:
    import re

    defined = set(re.findall(r"^fragment\s+(\w+)", text, re.M))
    return set(re.findall(r"\.\.\.\s*([A-Z]\w*)", text)) <= defined


class _SlowFiles:
    """The package's files on a slow disk (a cold start on a busy machine): every read takes a little while."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "")

    def iterdir(self):  # type: ignore[no-untyped-def]
        return [_SlowFiles(e) for e in self.inner.iterdir()]  # type: ignore[attr-defined]

    def joinpath(self, *parts: str) -> _SlowFiles:
        return _SlowFiles(self.inner.joinpath(*parts))  # type: ignore[attr-defined]

    def read_text(self, encoding: str = "utf-8") -> str:
        import time

        time.sleep(0.002)
        return self.inner.read_text(encoding=encoding)  # type: ignore[attr-defined]


def test_first_loads_racing_on_many_threads_see_whole_fragment_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh MCP server runs its first tool calls on many threads at once: no thread may read the fragment
    table while another is still filling it (GitHub answers `Unknown fragment 'RollupContexts'`)."""
    import sys
    import threading

    import pr_agent.queries as q

    real = resources.files
    monkeypatch.setattr(q.resources, "files", lambda pkg: _SlowFiles(real(pkg)))

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: widen any race window
    try:
        for _ in range(5):
            q._fragments = None
            q._queries.clear()
            barrier = threading.Barrier(len(NAMES))
            got: dict[str, str] = {}

            def load(name: str, barrier: threading.Barrier, got: dict[str, str]) -> None:
                barrier.wait()
                got[name] = load_query(name)

            threads = [threading.Thread(target=load, args=(n, barrier, got)) for n in NAMES]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            broken = [n for n in NAMES if not _fragments_complete(got[n])]
            assert not broken, broken
    finally:
        sys.setswitchinterval(old_interval)
