"""The CLI as a gh citizen: no traceback for bad environment values, odd output streams or usage errors;
--json means an envelope on stdout for every failure. Offline commands, so no fakehub is needed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NON_ASCII_LOG = "=== FAILURES ===\nFAILED tests/test_x.py::test_naïve - AssertionError: “bad” → 1\n=== 1 failed ===\n"


def run(*args: str, stdin: str | None = None, stdout: int | None = subprocess.PIPE, **env: str,
        ) -> subprocess.CompletedProcess[str]:
    full = {**{k: v for k, v in os.environ.items() if not k.startswith("GH_")}, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-m", "pr_agent", *args], input=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=full, timeout=60, check=False)


@pytest.mark.parametrize("name", ["GH_PR_AGENT_TIMEOUT", "GH_PR_AGENT_MAX_RETRY_WAIT",
                                  "GH_PR_AGENT_POLL_INTERVAL", "GH_PR_AGENT_MERGEABLE_WAIT"])
def test_bad_environment_values_are_typed_errors_naming_the_variable(name: str) -> None:
    proc = run("checks", "acme/widgets#1", "--json", **{name: "abc"})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    err = json.loads(proc.stdout)["error"]
    assert err["code"] == "invalid_environment" and err["details"]["variable"] == name
    assert name in proc.stderr


def test_mcp_with_a_bad_environment_value_stops_before_serving() -> None:
    proc = run("mcp", stdin="", GH_PR_AGENT_TIMEOUT="abc")
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert "GH_PR_AGENT_TIMEOUT" in proc.stderr and "invalid_environment" in proc.stderr


def test_ascii_stdout_gets_escapes_not_a_traceback() -> None:
    proc = run("parse-log", "-", stdin=NON_ASCII_LOG, PYTHONIOENCODING="ascii")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "test_na\\xefve" in proc.stdout and "\\u201cbad\\u201d \\u2192 1" in proc.stdout, proc.stdout


def test_full_disk_is_said_once_on_stderr() -> None:
    with open("/dev/full", "w") as full:
        proc = run("--help", stdout=full.fileno())
    assert proc.returncode == 3 and "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    assert proc.stderr.strip() == "error [output_failed]: cannot write the output: No space left on device."


@pytest.mark.parametrize("args", [("parse-log", "-"), ("parse-log", "-", "--json"), ("--help",),
                                  ("checks", "--help"), ("config", "list")])
def test_a_closed_pipe_ends_quietly(args: tuple[str, ...]) -> None:
    """`… | head` closed the pipe: no traceback, no "Exception ignored", exit 141 (what a shell shows for gh)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "pr_agent", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stdin is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is written
    proc.stdin.write(NON_ASCII_LOG.encode())
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == "", err


@pytest.mark.parametrize(("args", "field"), [
    (("comments", "--sort", "bogus"), "--sort"),
    (("checks", "--log", "abc"), "--log"),
    (("ready", "--no-such-option"), "--no-such-option"),
    (("parse-log", "-", "--format", "cobol"), "--format"),
    (("config", "get"), "KEY"),
])
def test_usage_errors_with_json_are_an_envelope_on_stdout(args: tuple[str, ...], field: str) -> None:
    proc = run(*args, "--json", stdin="")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    err = json.loads(proc.stdout)["error"]
    assert err["code"] == "invalid_arguments" and err["details"]["field"].upper() == field.upper(), err
    assert "--help" in err["suggestion"]


def test_help_says_which_commands_take_json() -> None:
    top = run("--help").stdout
    assert "not by config set|unset or mcp" in " ".join(top.split())
    for cmd in (["checks"], ["comments"], ["parse-log"], ["config", "list"], ["config", "get"]):
        assert "--json" in run(*cmd, "--help").stdout, cmd
    for cmd in (["config", "set"], ["config", "unset"], ["mcp"]):
        assert "--json" not in run(*cmd, "--help").stdout, cmd


def test_repo_flag_and_a_full_reference_must_agree() -> None:
    proc = run("checks", "acme/widgets#3", "-R", "other/repo", "--json")
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["details"]["field"] == "--repo"


def test_gh_override_that_does_not_exist_is_named() -> None:
    proc = run("checks", "acme/widgets#3", GH_PR_AGENT_GH="/nonexistent/gh")
    assert proc.returncode == 3 and "GH_PR_AGENT_GH='/nonexistent/gh' does not exist" in proc.stderr
    assert "on PATH" not in proc.stderr


def test_an_invalid_stored_preference_says_where_it_is_stored(tmp_path: Path) -> None:
    (tmp_path / "preferences.json").write_text('{"find_unresolved_comments.sort": "bogus"}')
    proc = run("comments", "acme/widgets#3", "--json", GH_PR_AGENT_CONFIG_DIR=str(tmp_path))
    err = json.loads(proc.stdout)["error"]
    assert proc.returncode == 2 and err["code"] == "invalid_preference", err
    assert str(tmp_path / "preferences.json") in err["message"] and "config unset" in err["suggestion"]
    assert "Input should" not in err["message"]


PYTEST_LOG = ROOT / "fixtures/logs/pytest/single_failure.log"


def test_jq_prints_like_gh() -> None:
    """gh's --jq output (checked against `gh api --jq` 2.23 and 2.103): strings raw, null an empty line, booleans
    as words, integral numbers without decimals, others with two, arrays and objects as compact JSON."""
    proc = run("parse-log", str(PYTEST_LOG), "--jq",
               '.format, .non_test_failure, .passed_count, .lines_cut == 0, 1.5, 2.0, [.failed_count], {f: .format}')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == 'pytest\n\n41\ntrue\n1.50\n2\n[1]\n{"f":"pytest"}\n'
    assert run("parse-log", str(PYTEST_LOG), "--jq", "empty").stdout == ""
    assert run("config", "get", "find_unresolved_comments.sort", "-q", ".key").stdout == \
        "find_unresolved_comments.sort\n"
    assert run("config", "list", "--jq", ".preferences | map(.key) | index(\"find_unresolved_comments.sort\") "
               "| type").stdout == "number\n"


@pytest.mark.parametrize(("expr", "reason"), [(".failures |", "syntax error"), ('error("boom")', "boom"),
                                              (".format | keys", "has no keys")])
def test_a_bad_jq_expression_is_a_usage_error_with_an_envelope(expr: str, reason: str) -> None:
    proc = run("parse-log", str(PYTEST_LOG), "--jq", expr)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    err = json.loads(proc.stdout)["error"]
    assert err["code"] == "invalid_arguments" and err["details"]["field"] == "--jq" and err["details"]["value"] == expr
    assert reason in err["message"] and "--jq" in proc.stderr


def test_jq_without_json_still_gets_an_envelope_for_a_usage_error() -> None:
    proc = run("comments", "--sort", "bogus", "--jq", ".total_unresolved")
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["details"]["field"] == "--sort"


def test_help_says_jq_wherever_json_is() -> None:
    for cmd in (["checks"], ["parse-review"], ["config", "get"]):
        text = " ".join(run(*cmd, "--help").stdout.split())
        assert "-q, --jq EXPR" in text and "implies --json" in text, cmd
    assert "--jq" not in run("config", "set", "--help").stdout
