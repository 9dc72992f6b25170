"""docs/benchmarks.md shows the committed figures: its table is exactly bench/results.json's, and what the prose
says about the machine and the targets matches that file."""

from __future__ import annotations

import json
from pathlib import Path

from bench import report

ROOT = Path(__file__).resolve().parents[1]
RESULTS = json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))
DOC = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")


def test_the_table_is_the_committed_results() -> None:
    table = report.markdown(RESULTS).strip()
    assert table in DOC, "docs/benchmarks.md is stale: paste `python -m bench --table bench/results.json`"


def test_the_prose_names_the_measured_machine_and_verdict() -> None:
    machine = RESULTS["machine"]
    for fact in (machine["python"], f"gh {machine['gh']}", f"git {machine['git']}", f"{machine['cores']} cores"):
        assert fact in DOC, fact
    assert RESULTS["size"] == "full"
    verdicts = [row[-1] for row in report.rows(RESULTS)]
    missed = verdicts.count("**NO**")
    assert ("Every target is met" in DOC) == (missed == 0), "the verdict sentence disagrees with the table"
