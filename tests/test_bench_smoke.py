"""The benchmark suite's smoke size runs end to end and its results file has every figure.

Never asserts a time: benchmarks report, they do not gate CI on wall time (design §8)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ("round_trips", "latency", "log_throughput", "startup", "output_size", "gh_reference")
# A row may say a tool has not landed yet or that fakehub cannot serve a reference command; it may not fail.
ACCEPTED_PREFIXES = ("ok", "info", "not yet available", "not served by fakehub", "n/a")
TOOL_CASES = ("checks", "ready", "conflicts", "stack (in the clone)", "rebase-after-squash --upstream (in the clone)")


def _status_ok(row: dict[str, Any]) -> None:
    assert row["status"].startswith(ACCEPTED_PREFIXES), row


def _number(value: Any) -> None:
    assert isinstance(value, (int, float)) and not isinstance(value, bool), value


def test_bench_smoke(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--out", str(out), "--cache", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    res = json.loads(out.read_text())

    for key in ("cores", "python", "gh", "git"):
        assert res["machine"][key], key
    assert res["size"] == "smoke" and res["scenario"]["threads"] > 0
    assert set(FIGURES) <= set(res["figures"])
    assert res["fakehub_problems"] == []
    fig = res["figures"]

    trips = {r["case"]: r for r in fig["round_trips"]}
    assert {"comments", "resolve --thread", "resolve --thread --reply", "parse-review (offline)"} <= set(trips)
    for row in trips.values():
        _status_ok(row)
        if row["status"] == "ok":
            _number(row["requests"])
            _number(row["floor"])
    assert trips["parse-review (offline)"]["requests"] == 0
    # The tools that landed after the suite: registered now, so their rows must be measured, not skipped.
    for case in TOOL_CASES:
        assert trips[case]["status"] == "ok", trips[case]
        assert trips[case]["floor"] >= 1 and trips[case]["requests"] >= trips[case]["floor"], trips[case]
    assert trips["checks"]["by_operation"].get("GET /repos/acme/widgets/actions/jobs/{id}/logs")  # logs are served
    assert res["scenario"]["failed_actions_jobs"] >= 3 and res["scenario"]["git_history"]

    assert {r["case"] for r in fig["latency"] if r["status"] == "ok"} >= set(TOOL_CASES)
    for row in fig["latency"]:
        _status_ok(row)
        if row["status"] == "ok":
            for key in ("floor_s", "ratio", "critical_path_floor", "critical_path_observed"):
                _number(row[key])
            _number(row["wall_s"]["median"])
            _number(row["local_overhead_s"]["median"])

    budget = {r["what"]: r for r in fig["context_budget"]["rows"]}  # figure 5b: what an MCP client loads
    assert {"find_unresolved_comments page 1", "get_failing_tests page 1", "check_merge_readiness",
            "tools/list"} <= set(budget)
    for row in budget.values():
        _number(row["bytes"])
        _number(row["tokens_est"])
        assert row["bytes"] > 0 and isinstance(row["met"], bool)

    logs = fig["log_throughput"]
    assert logs["log"]["injected_failures"] >= 3
    grep = next(r for r in logs["rows"] if r["role"] == "floor")
    _number(grep["mb_per_s"])
    _number(grep["peak_rss_mb"])
    tools = [r for r in logs["rows"] if r["role"] == "tool"]
    assert any(r["tool"] == "parse-log" for r in tools)
    for row in tools:
        _status_ok(row)
        if row["status"] == "ok":
            _number(row["mb_per_s"])
            _number(row["peak_rss_mb"])

    startup = {r["name"]: r for r in fig["startup"]["rows"]}
    assert {"import click", "--help", "config list", "bare MCP server", "mcp"} <= set(startup)
    for row in startup.values():
        _status_ok(row)
        if row["status"] == "ok":
            _number(row["wall_s"]["median"])
    assert startup["mcp"]["status"] == "ok" and startup["mcp"]["tools"] >= 2
    assert fig["startup"]["imports"]["--version"]

    for case in ("comments", "checks"):  # per unresolved item / per failure
        sizes = [r for r in fig["output_size"] if r["case"] == case]
        assert {r["detail"] for r in sizes} == {"concise", "full"}, case
        for row in sizes:
            assert row["status"] == "ok", row
            _number(row["bytes_per_item"])
            assert row["items"] > 0
        assert next(r for r in sizes if r["detail"] == "concise")["mcp"]["response_bytes"] > 0

    assert "gh pr checks" in {r["command"] for r in fig["gh_reference"]}
    for row in fig["gh_reference"]:
        _status_ok(row)
        if row["status"] == "ok":
            _number(row["requests"])

    table = subprocess.run([sys.executable, "-m", "bench", "--table", str(out)], cwd=ROOT, capture_output=True,
                           text=True, timeout=60, check=True).stdout
    assert table.startswith("| # |") and "round trips" in table
