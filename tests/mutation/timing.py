"""A pytest plugin for the mutation runner's baseline: each item's outcome and seconds, to a JSON file.

Loaded as ``-p tests.mutation.timing`` with ``PR_AGENT_MUTATION_TIMES`` naming the output file.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

TIMES_VAR = "PR_AGENT_MUTATION_TIMES"
_items: dict[str, dict[str, object]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    item = _items.setdefault(report.nodeid, {"seconds": 0.0, "passed": True})
    item["seconds"] = float(item["seconds"]) + report.duration  # type: ignore[arg-type]
    if report.failed or (report.when == "call" and report.skipped):
        item["passed"] = False


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    out = os.environ.get(TIMES_VAR)
    if out:
        Path(out).write_bytes(orjson.dumps(_items))
