"""get_failing_tests end to end: our CLI, the real gh binaries, fakehub serving checks, jobs, logs and
annotations (tests/fakehub/ext_ci.py)."""

from __future__ import annotations

import re
import shlex
from typing import Any

import orjson

from tests.e2e.ci_worlds import (
    FAST,
    HEAD,
    NEW_HEAD,
    WEB,
    annotated_world,
    failing_world,
    many_failures_world,
    no_checks_world,
    pending_world,
    stale_world,
    waiting_world,
)

JOB = f"{WEB}/acme/widgets/actions/runs/9001/job"


def run_json(a: Any, *args: str, **env: str) -> tuple[int, dict[str, Any], str]:
    proc = a.cli("checks", "acme/widgets#7", *args, "--json", env=a.env(**FAST, **env))
    return proc.returncode, orjson.loads(proc.stdout), proc.stderr


def test_failing_pr_reports_exactly_the_failures_with_links_and_commands(agent) -> None:
    a = agent(failing_world())
    code, out, err = run_json(a)
    assert code == 1, err
    requests = list(a.hub.requests)  # the tool's own (the test asks gh for a job below)
    assert out["status"] == "failed" and out["head_sha"] == HEAD
    got = {(f["check_name"], f["test_name"], f["file_path"], f["line_number"], f["runner"], f["source"])
           for f in out["failures"]}
    assert got == {
        ("CI / pytest", "tests/test_invoice.py::test_total_includes_shipping", "tests/test_invoice.py", 48,
         "pytest", "log"),
        ("CI / jest", "Button › renders the label passed as children", "src/components/Button.test.tsx", 12,
         "jest", "log"),
        ("CI / go test", "TestAdd", "calc_test.go", 12, "go", "log"),
    }
    assert out["total_failures"] == 3 and "nextCursor" not in out
    assert out["failures"][0]["check_name"] == "CI / pytest"  # the required check comes first
    by_test = {f["test_name"]: f for f in out["failures"]}
    assert all(f["error_message"].strip() and f["confidence"] == "high" for f in out["failures"])
    assert by_test["TestAdd"]["error_message"] == "Add(2, 2) = 5; want 4"

    # reproduction commands: exact, and each parses back to the intended argv
    commands = {f["test_name"]: f["reproduce_command"] for f in out["failures"]}
    assert commands == {
        "tests/test_invoice.py::test_total_includes_shipping":
            "pytest tests/test_invoice.py::test_total_includes_shipping",
        "Button › renders the label passed as children":
            "npx jest src/components/Button.test.tsx -t '^Button renders the label passed as children$'",
        "TestAdd": "go test github.com/acme/calc -run '^TestAdd$'",
    }
    assert shlex.split(commands["TestAdd"]) == ["go", "test", "github.com/acme/calc", "-run", "^TestAdd$"]
    assert set(out["instructions"]["commands"]) == set(commands.values())

    # log links: the job's page (as the jobs API gives it) anchored at the failed step
    failed = {fc["check_name"]: fc for fc in out["failed_checks"]}
    assert by_test["TestAdd"]["log_url"] == f"{JOB}/103#step:3:1" == failed["CI / go test"]["log_url"]
    pytest_check = failed["CI / pytest"]
    assert pytest_check["failed_step"] == "Run tests" and pytest_check["failed_step_number"] == 4
    assert by_test["tests/test_invoice.py::test_total_includes_shipping"]["log_url"] == f"{JOB}/101#step:4:1"
    job = orjson.loads(a.shell("gh api repos/acme/widgets/actions/jobs/101").stdout)
    assert job["html_url"] == f"{JOB}/101"
    assert job["steps"][3]["number"] == 4 and job["steps"][3]["conclusion"] == "failure"
    # concise: a failed check is said once, in failed_checks; its page is its log_url without the step anchor
    assert not {c["name"] for c in out["checks"]} & set(failed)
    assert pytest_check["log_url"].split("#")[0] == job["html_url"] and "url" not in pytest_check

    # the compile error is a non-test failure with its decisive lines, not an invented test
    build = failed["CI / build"]
    assert build["test_failures"] == 0 and build["non_test_failure"]["kind"] == "compile_error"
    assert any("error TS2322" in line for line in build["non_test_failure"]["decisive_lines"])
    assert build["full_log_resource"] == "pr-agent://job-log/acme/widgets/106"
    assert out["instructions"]["priority"][0]["test"] == "CI / build"
    # external CI: its link and state
    circle = failed["ci/circleci: integration"]
    assert circle["kind"] == "status" and circle["url"] == "https://circleci.example/gh/acme/widgets/77"
    assert "External CI" in circle["note"] and "non_test_failure" not in circle
    # cancelled and passed jobs: reported, never fetched
    assert {c["name"]: c["bucket"] for c in out["checks"]}["CI / deploy-preview"] == "cancelled"
    assert out["counts"] == {"failed": 5, "cancelled": 1, "pending": 0, "passed": 1}
    # the round-trip floor: 1 rollup query (with the rulesets) + 1 query for the failed check runs' steps and
    # annotations + 2 per failed job's log (302, then the blob); no per-job REST reads. Per failed workflow run:
    # its artifact list (test reports), and for the history verdicts the run and its workflow's base-branch runs
    fetched = {r.path for r in requests if r.method == "GET" and r.path.startswith("/repos/")}
    per_run = {"/repos/acme/widgets/actions/runs/9001/artifacts", "/repos/acme/widgets/actions/runs/9001"}
    workflows = {p for p in fetched if p.startswith("/repos/acme/widgets/actions/workflows/")}
    assert len(workflows) == 1  # no run of CI on main: nothing more to read
    assert fetched == {f"/repos/acme/widgets/actions/jobs/{i}/logs" for i in (101, 102, 103, 106)} | per_run | workflows
    assert [r.operation for r in requests if r.path == "/graphql"].count("PrChecks") == 1
    details = [r for r in requests if r.operation == "CheckRunDetails"]
    assert len(details) == 1 and len(details[0].graphql_variables["ids"]) == 4
    assert len(requests) == 1 + 1 + 4 * 2 + 3, [(r.method, r.path, r.operation) for r in requests]


def test_text_view_and_full_log_flag(agent) -> None:
    a = agent(failing_world())
    proc = a.cli("checks", "acme/widgets#7", env=a.env(**FAST))
    assert proc.returncode == 1
    text = proc.stdout
    for needle in ("✗ CI / pytest (required): failure — step 'Run tests'", "rerun: go test github.com/acme/calc",
                   "compile_error: Compilation failed", "https://circleci.example/gh/acme/widgets/77",
                   "⊘ CI / deploy-preview: cancelled", "full log: gh pr-agent checks 'acme/widgets#7' --log 102"):
        assert needle in text, needle
    log = a.cli("checks", "acme/widgets#7", "--log", "102", env=a.env(**FAST))
    assert log.returncode == 0, log.stderr
    assert "● Button › renders the label passed as children" in log.stdout
    assert "\x1b" not in log.stdout and not re.search(r"^\d{4}-\d\d-\d\dT", log.stdout, re.M)
    missing = a.cli("checks", "-R", "acme/widgets", "--log", "999", env=a.env(**FAST))
    assert missing.returncode == 3 and "not_found" in missing.stderr


def test_full_detail_and_annotations_are_preferred(agent) -> None:
    a = agent(annotated_world())
    code, out, _ = run_json(a, "--detail", "full")
    assert code == 1
    unit = [f for f in out["failures"] if f["check_name"] == "CI / unit"]
    assert {(f["test_name"], f["file_path"], f["line_number"], f["source"]) for f in unit} == {
        ("tests/test_cart.py::test_total", "tests/test_cart.py", 14, "annotation"),
        ("App › renders $(id) 'x'", "src/App.test.tsx", 9, "annotation")}
    failed = {fc["check_name"]: fc for fc in out["failed_checks"]}
    assert len(failed["CI / unit"]["annotations"]) == 4  # full: every annotation, generic ones included
    assert failed["CI / unit"]["log_excerpt"][-1] == "##[error]Process completed with exit code 1."
    e2e = failed["CI / e2e"]  # the log expired: said so, never an "Unknown test"
    assert e2e["non_test_failure"]["kind"] == "unknown" and "log" in e2e["non_test_failure"]["summary"]
    assert out["workflow_runs"] and all(c["bucket"] == "failed" for c in out["checks"])
    buildkite = failed["buildkite/integration"]  # another app's check run: its link and state
    assert buildkite["kind"] == "check_run" and buildkite["url"] == "https://buildkite.example/acme/widgets/builds/12"
    assert "External CI (buildkite)" in buildkite["note"] and "job_id" not in buildkite


def test_pagination_returns_every_failure_once(agent) -> None:
    a = agent(many_failures_world(35))
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        code, out, _ = run_json(a, *(["--cursor", cursor] if cursor else []))
        assert code == 1 and out["total_failures"] == 35
        seen += [f["test_name"] for f in out["failures"]]
        pages += 1
        cursor = out.get("nextCursor")
        if not cursor:
            break
    assert pages == 2 and len(seen) == len(set(seen)) == 35
    assert seen == sorted(seen)
    bad = a.cli("checks", "acme/widgets#8", "--cursor", "x.y", "--json", env=a.env(**FAST))
    assert bad.returncode == 2 and orjson.loads(bad.stdout)["error"]["code"] == "invalid_cursor"


def test_wait_bails_at_the_first_failure(agent) -> None:
    a = agent(waiting_world(fail_at=3, finish_at=6))
    code, out, err = run_json(a, "--wait")
    assert code == 1, err
    assert out["wait_info"]["ended"] == "first_failure" and out["wait_info"]["polls"] == 3
    assert [f["test_name"] for f in out["failures"]] == ["tests/test_invoice.py::test_total_includes_shipping"]
    assert out["status"] == "failed" and out["poll_info"]["retry_after_seconds"] >= 1  # jest still running
    assert {c["name"] for c in out["checks"] if c["bucket"] == "pending"} == {"CI / jest", "CI / lint"}
    text = a.cli("checks", "acme/widgets#7", "--wait", env=a.env(**FAST))  # the same, in the CLI's words
    assert text.returncode == 1 and ("the wait stopped at the first failed check; to wait for every check, call "
                                     "again with --wait and --no-bail-on-first.") in text.stdout, text.stdout


def test_wait_without_bail_waits_for_completion(agent) -> None:
    a = agent(waiting_world(fail_at=3, finish_at=6))
    stored = a.cli("config", "set", "get_failing_tests.bail_on_first", "false")  # 💾: a stored preference
    assert stored.returncode == 0, stored.stderr
    code, out, _ = run_json(a, "--wait")
    assert code == 1
    assert out["wait_info"]["ended"] == "complete" and out["wait_info"]["polls"] == 6
    assert {f["runner"] for f in out["failures"]} == {"pytest", "jest"} and "poll_info" not in out
    # each failed job's log was downloaded once, however many polls saw it failed
    assert len(a.hub.find_requests("GET", "/repos/acme/widgets/actions/jobs/301/logs")) == 1


def test_wait_times_out_with_the_last_known_state(agent) -> None:
    a = agent(pending_world())
    code, out, err = run_json(a, "--wait", "--timeout-seconds", "2")
    assert code == 8, err
    error = out["error"]
    assert error["code"] == "wait_timeout" and error["temporary"] is True
    last = error["details"]["last_state"]
    assert last["pending_checks"] == ["CI / pytest", "security-scan"] and last["head_sha"] == HEAD
    assert error["details"]["polls"] >= 1 and error["details"]["waited_s"] >= 2
    assert error["repair"]["command"] == "gh pr-agent checks 'acme/widgets#7' --wait"  # the CLI speaks CLI
    assert "wait=true" not in error["suggestion"] and "--wait" in error["suggestion"]


def test_new_commit_while_waiting_marks_the_results_stale(agent) -> None:
    a = agent(stale_world())
    code, out, _ = run_json(a, "--wait")
    assert out["wait_info"]["ended"] == "stale_head" and out["head_sha"] == HEAD
    assert out["stale_head"]["current_head_sha"] == NEW_HEAD and code == 8


def test_no_checks_yet_grace_period_then_unknown(agent) -> None:
    a = agent(no_checks_world())
    code, out, _ = run_json(a, "--wait")  # never 0: `checks --wait && gh pr merge` must not merge
    assert code == 5 and out["status"] == "unknown" and out["wait_info"]["ended"] == "no_checks"
    assert out["wait_info"]["polls"] >= 2 and "No CI checks" in out["instructions"]["summary"]
    code, out, _ = run_json(a)
    assert code == 5 and out["status"] == "unknown"


def test_immediate_mode_while_ci_runs(agent) -> None:
    a = agent(pending_world())
    code, out, _ = run_json(a)
    assert code == 8 and out["status"] == "running"
    assert "CI / pytest" in out["poll_info"]["message"] and out["failures"] == []
    missing = [c for c in out["checks"] if c["kind"] == "missing"]  # required, never reported: pending
    assert missing == [{"name": "security-scan", "kind": "missing", "state": "EXPECTED", "bucket": "pending",
                        "required": True}]
    assert out["counts"]["pending"] == 2


def test_live_progress_only_on_a_terminal(agent) -> None:
    import os
    import subprocess
    import sys

    a = agent(waiting_world(fail_at=4, finish_at=5))
    args = [sys.executable, "-m", "pr_agent", "checks", "acme/widgets#7", "--wait", "--json"]
    piped = subprocess.run(args, capture_output=True, text=True, env=a.env(**FAST), cwd=a.home, timeout=120)
    assert piped.returncode == 1 and "still running" not in piped.stderr
    a = agent(waiting_world(fail_at=4, finish_at=5))  # the same CI again, now with stderr on a terminal
    master, slave = os.openpty()
    try:
        proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=slave, env=a.env(**FAST), cwd=a.home, timeout=120)
    finally:
        os.close(slave)
    seen = b""
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert proc.returncode == 1 and orjson.loads(proc.stdout)["wait_info"]["ended"] == "first_failure"
    assert b"checks still running" in seen and b"\x1b[2K" in seen  # a live line, cleared at the end


def test_more_than_a_hundred_checks_are_all_read(agent) -> None:
    from tests.e2e.ci_worlds import job, world

    checks = [job(f"matrix ({i})", 800 + i, "SUCCESS") for i in range(120)] + [job("go test", 999)]
    a = agent(world(checks, {"runs": [{"check": "go test", "log": "fixtures/logs/go/plain_single.log"}]}))
    code, out, _ = run_json(a)
    assert code == 1 and out["counts"] == {"failed": 1, "cancelled": 0, "pending": 0, "passed": 120}
    assert [f["test_name"] for f in out["failures"]] == ["TestAdd"]
    assert len(a.hub.find_requests("POST", "/graphql", "PrRollupPage")) == 1


def test_a_flaky_log_download_is_retried(agent) -> None:
    from tests.fakehub import Fault

    a = agent(failing_world())
    a.hub.add_fault(Fault(match=r"GET /repos/acme/widgets/actions/jobs/103/logs", status=502, times=1))
    code, out, _ = run_json(a)
    assert code == 1 and "TestAdd" in {f["test_name"] for f in out["failures"]}
    assert [r.status for r in a.hub.find_requests("GET", "/repos/acme/widgets/actions/jobs/103/logs")] == [502, 302]
