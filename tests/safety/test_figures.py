"""docs/safety.md carries the suite's figures and bug list as generated from the test definitions."""

from __future__ import annotations

from pathlib import Path

from tests.safety import figures


def test_docs_safety_figures_match_the_suite() -> None:
    text = figures.DOC.read_text(encoding="utf-8")
    assert figures.current_block(text) == figures.render(), (
        "docs/safety.md is out of date: run `.venv/bin/python -m tests.safety.figures --write`")


def test_every_bug_is_guarded_by_an_existing_test() -> None:
    for bug in figures.BUGS:
        path, _, name = bug.test.partition("::")
        source = (figures.ROOT / path).read_text(encoding="utf-8")
        assert f"def {name}(" in source, bug.test
        for where in bug.where.replace(",", " ").split():
            if where.startswith("pr_agent/"):
                assert (figures.ROOT / where).exists(), where
            elif where.endswith(".py") and "/" not in where:
                assert any(Path(figures.ROOT / "pr_agent").rglob(where)), where
