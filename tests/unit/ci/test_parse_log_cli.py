"""`gh pr-agent parse-log`: every sample log under fixtures/logs yields exactly its expected failures, through
the CLI (`--json` in the shape of issue 4), plus formats, stdin and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pr_agent.ci.parsers import HINTS
from pr_agent.cli import cli
from pr_agent.offline import LOG_FORMATS

from .regen_expected import LOGS, ROOT, cases, expected_path

CASES = cases()
SPEC_KEYS = ("test_name", "file_path", "line_number", "error_message", "confidence")


def _want(log: Path) -> dict:
    data = json.loads(expected_path(log).read_text(encoding="utf-8"))
    ntf = data["non_test_failure"]
    return {
        "format": ",".join(data["runners_detected"]) or "unknown",
        "failures": [{k: f[k] for k in SPEC_KEYS} for f in data["failures"]],
        "non_test_failure": ntf["summary"] if ntf else None,
        "passed_count": data["passed_count"],
        "failed_count": data["failed_count"],
        "lines_cut": data.get("lines_cut", 0),
    }


@pytest.mark.parametrize("log", CASES, ids=lambda p: p.relative_to(LOGS).as_posix())
def test_parse_log_json_matches_expected(log: Path) -> None:
    result = CliRunner().invoke(cli, ["parse-log", str(log), "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert list(got) == ["format", "failures", "non_test_failure", "passed_count", "failed_count",
                         "lines_cut"]
    assert got == _want(log)


def test_there_are_enough_sample_logs() -> None:
    assert len(CASES) >= 30
    assert any(not _want(p)["failures"] and _want(p)["non_test_failure"] is None for p in CASES)  # all passed
    assert sum(1 for p in CASES if _want(p)["non_test_failure"]) >= 5


def test_formats_match_the_parsers() -> None:
    assert LOG_FORMATS == HINTS


def test_forced_format_and_stdin_via_the_real_cli() -> None:
    log = (LOGS / "go" / "plain_single.log").read_bytes()
    proc = subprocess.run([sys.executable, "-m", "pr_agent", "parse-log", "-", "--format", "go", "--json"],
                          input=log, capture_output=True, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["format"] == "go" and [f["test_name"] for f in got["failures"]] == ["TestAdd"]
    forced = CliRunner().invoke(cli, ["parse-log", str(LOGS / "go" / "plain_single.log"), "--format", "jest",
                                      "--json"])
    assert json.loads(forced.stdout)["failures"] == []  # jest sees no jest failure in go output


def test_text_view_shows_failures_and_non_test_causes() -> None:
    text = CliRunner().invoke(cli, ["parse-log", str(LOGS / "nontest" / "tsc_compile_error.log")]).stdout
    assert "not a test failure: Compilation failed" in text and "| src/components/Cart.tsx(42,7)" in text
    text = CliRunner().invoke(cli, ["parse-log", str(LOGS / "pytest" / "xdist_verbose.log")]).stdout
    assert text.startswith("format: pytest; 4 failing test(s) (5 passed, 4 failed)")
    assert "● tests/test_db.py::test_roundtrip  (tests/conftest.py:14)" in text


def test_errors_are_typed() -> None:
    missing = CliRunner().invoke(cli, ["parse-log", "/nonexistent/job.log", "--json"])
    assert missing.exit_code == 2 and json.loads(missing.stdout)["error"]["code"] == "file_not_found"
    bad = CliRunner().invoke(cli, ["parse-log", "x.log", "--format", "nunit"])
    assert bad.exit_code == 2 and "nunit" in bad.output


def test_invalid_utf8_and_huge_lines_do_not_crash(tmp_path: Path) -> None:
    log = tmp_path / "odd.log"
    log.write_bytes(b"\xff\xfe garbage\n" + b"x" * 2_000_000 + b"\n--- FAIL: TestX (0.00s)\n    x_test.go:3: boom\n"
                    + b"FAIL\n")
    got = json.loads(CliRunner().invoke(cli, ["parse-log", str(log), "--json"]).stdout)
    assert [f["test_name"] for f in got["failures"]] == ["TestX"]
