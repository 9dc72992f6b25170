"""CI worlds for get_failing_tests end-to-end tests (scenario keys ``checks`` and ``ci``; see
fixtures/scenarios/README.md). Job logs are the sample logs under fixtures/logs/."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WEB = "https://github.localhost"
HEAD = "a" * 40
NEW_HEAD = "b" * 40
T0 = "2026-11-30T10:00:00Z"
T1 = "2026-11-30T10:05:00Z"
FAST = {"GH_PR_AGENT_POLL_INTERVAL": "0.2", "GH_PR_AGENT_NO_CHECKS_GRACE": "2"}  # env for quick polling


def steps_of(name: str) -> list[dict[str, Any]]:
    return json.loads((ROOT / "fixtures/logs/multistep" / f"{name}.steps.json").read_text())["steps"]


def job(name: str, job_id: int, conclusion: str | None = "FAILURE", *, status: str = "COMPLETED",
        workflow: str = "CI", required: bool | None = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "id": job_id, "run_id": 9001, "workflow": workflow, "status": status,
            "conclusion": conclusion if status == "COMPLETED" else None, "started_at": T0,
            "completed_at": T1 if status == "COMPLETED" else None, "required": required, **extra}


def world(checks: list[dict[str, Any]], ci: dict[str, Any] | None = None, **pr_extra: Any) -> dict[str, Any]:
    return {
        "viewer": {"login": "octocat"},
        "repositories": [{"owner": "acme", "name": "widgets", "pull_requests": [{
            "number": 7, "title": "Fix invoices", "author": "octocat", "head_ref": "fix-invoices",
            "base_ref": "main", "head_sha": HEAD, "created_at": "2026-11-30T09:55:00Z",
            "checks": checks, "ci": ci or {}, **pr_extra}]}],
    }


def failing_world() -> dict[str, Any]:
    """PR 7: failing pytest (explicit steps), jest and go jobs, a passing job, a cancelled job, an external
    commit status and a job that failed on a TypeScript compile error."""
    checks = [
        job("pytest", 101, required=True),
        job("jest", 102),
        job("go test", 103),
        job("lint", 104, "SUCCESS"),
        job("deploy-preview", 105, "CANCELLED"),
        job("build", 106),
        {"kind": "status", "name": "ci/circleci: integration", "state": "FAILURE",
         "description": "Your tests failed on CircleCI", "url": "https://circleci.example/gh/acme/widgets/77"},
    ]
    ci = {"runs": [
        {"check": "pytest", "log": "fixtures/logs/multistep/pytest_job.log", "steps": steps_of("pytest_job")},
        {"check": "jest", "log": "fixtures/logs/jest/single_failure.log"},
        {"check": "go test", "log": "fixtures/logs/go/plain_single.log"},
        {"check": "lint", "log": "fixtures/logs/pytest/all_passed.log"},
        {"check": "build", "log": "fixtures/logs/nontest/tsc_compile_error.log"},
    ]}
    return world(checks, ci)


def annotated_world() -> dict[str, Any]:
    """PR 7: a job whose log is not parseable but whose check run carries test-reporter annotations, and a
    job whose log has expired."""
    checks = [job("unit", 201), job("e2e", 202),
              {"name": "buildkite/integration", "app": "buildkite", "id": 203, "conclusion": "FAILURE",
               "url": "https://buildkite.example/acme/widgets/builds/12"}]
    ci = {"runs": [
        {"check": "unit", "log_text": "2026-11-30T10:00:00.0000000Z ##[group]Run ./run-tests.sh\n"
                                      "2026-11-30T10:00:01.0000000Z 2 tests failed, see the report\n"
                                      "2026-11-30T10:00:01.1000000Z ##[error]Process completed with exit code 1.\n",
         "annotations": [
             {"path": "tests/test_cart.py", "start_line": 14, "title": "tests/test_cart.py::test_total",
              "message": "AssertionError: assert 3 == 4", "annotation_level": "failure"},
             {"path": "src/App.test.tsx", "start_line": 9, "title": "App › renders $(id) 'x'",
              "message": "expect(received).toBe(expected)", "annotation_level": "failure"},
             {"path": ".github", "title": "", "message": "Process completed with exit code 1.",
              "annotation_level": "failure"},
             {"path": "src/cart.py", "start_line": 3, "title": "", "message": "unused import",
              "annotation_level": "warning"}]},
        {"check": "e2e", "log_status": 410},
    ]}
    return world(checks, ci)


def waiting_world(*, fail_at: int = 3, finish_at: int = 5) -> dict[str, Any]:
    """Checks that are queued, then running, then (poll ``fail_at``) one fails, then (poll ``finish_at``)
    the rest finish."""
    checks = [job("pytest", 301, status="QUEUED"), job("jest", 302, status="QUEUED"),
              job("lint", 303, status="IN_PROGRESS")]
    timeline = [
        {"at_poll": 2, "update": {"pytest": {"status": "IN_PROGRESS"}, "jest": {"status": "IN_PROGRESS"}}},
        {"at_poll": fail_at, "update": {"pytest": {"status": "COMPLETED", "conclusion": "FAILURE",
                                                   "completed_at": T1}}},
        {"at_poll": finish_at, "update": {
            "jest": {"status": "COMPLETED", "conclusion": "FAILURE", "completed_at": T1},
            "lint": {"status": "COMPLETED", "conclusion": "SUCCESS", "completed_at": T1}}},
    ]
    ci = {"runs": [{"check": "pytest", "log": "fixtures/logs/pytest/single_failure.log"},
                   {"check": "jest", "log": "fixtures/logs/jest/single_failure.log"}],
          "timeline": timeline}
    return world(checks, ci)


def stale_world() -> dict[str, Any]:
    """Checks run; at poll 3 a new commit is pushed (new head, fresh queued checks)."""
    checks = [job("pytest", 401, status="IN_PROGRESS")]
    timeline = [{"at_poll": 3, "head_sha": NEW_HEAD, "replace": [job("pytest", 402, status="QUEUED")]}]
    return world(checks, {"timeline": timeline})


def no_checks_world() -> dict[str, Any]:
    return world([], {})


def pending_world() -> dict[str, Any]:
    """pytest still running; the base branch requires "security-scan", which has not reported."""
    out = world([job("pytest", 501, status="IN_PROGRESS"), job("lint", 502, "SUCCESS")], {})
    out["repositories"][0]["branch_rules"] = {"main": {"classic": {"required_checks": ["security-scan"]}}}
    return out


def many_failures_world(n: int = 35) -> dict[str, Any]:
    """PR 7: one pytest job with ``n`` failures (more than a page)."""
    lines = ["============================= test session starts ==============================",
             f"collected {n + 2} items", "",
             "=========================== short test summary info ============================"]
    lines += [f"FAILED tests/test_many.py::test_{i:02d} - AssertionError: assert {i} == -1" for i in range(n)]
    lines += [f"========================= {n} failed, 2 passed in 1.23s =========================",
              "##[error]Process completed with exit code 1."]
    log = "".join(f"2026-11-30T10:00:0{1 + i * 9 // len(lines)}.{i:07d}Z {line}\n" for i, line in enumerate(lines))
    return world([job("pytest", 601)], {"runs": [{"check": "pytest", "log_text": log}]})


def iso(when: datetime) -> str:
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def expired_world(*, age_days: float = 2.0) -> dict[str, Any]:
    """PR 7: job "e2e" failed ``age_days`` ago and GitHub answers 410 for its log (past the retention period);
    its check run still has a problem-matcher annotation and its steps. Job "unit" failed with a readable log."""
    start = datetime.now(timezone.utc) - timedelta(days=age_days)
    t0, t1 = iso(start), iso(start + timedelta(minutes=4))
    steps = [{"number": 1, "name": "Set up job", "status": "completed", "conclusion": "success",
              "started_at": t0, "completed_at": t0},
             {"number": 2, "name": "Run npm run e2e", "status": "completed", "conclusion": "failure",
              "started_at": t0, "completed_at": t1},
             {"number": 3, "name": "Complete job", "status": "completed", "conclusion": "success",
              "started_at": t1, "completed_at": t1}]
    checks = [job("e2e", 202, started_at=t0, completed_at=t1), job("unit", 203, started_at=t0, completed_at=t1)]
    ci = {"runs": [
        {"check": "e2e", "log_status": 410, "steps": steps, "annotations": [
            {"path": "e2e/cart.spec.ts", "start_line": 31, "title": "", "annotation_level": "failure",
             "message": "TimeoutError: locator.click: Timeout 30000ms exceeded."},
            {"path": ".github", "title": "", "message": "Process completed with exit code 1.",
             "annotation_level": "failure"}]},
        {"check": "unit", "log": "fixtures/logs/go/plain_single.log"},
    ]}
    return world(checks, ci)


def live_world() -> dict[str, Any]:
    """PR 7: workflow run 9001 is still going (two jobs in progress) while its job "pytest" already failed:
    the job-log API serves a completed job's log inside a running run."""
    checks = [job("pytest", 701), job("integration (1)", 702, status="IN_PROGRESS"),
              job("integration (2)", 703, status="IN_PROGRESS")]
    ci = {"runs": [{"check": "pytest", "log": "fixtures/logs/pytest/single_failure.log"},
                   {"check": "integration (1)", "log": "fixtures/logs/jest/single_failure.log"}],
          "timeline": [{"at_poll": 30, "update": {"integration (1)": {"status": "COMPLETED", "conclusion": "FAILURE",
                                                                      "completed_at": T1}}}]}
    return world(checks, ci)


def pytest_log(failures: list[tuple[str, str]], passed: int = 3) -> str:
    """A raw Actions log of a pytest step with these (node id, message) failures."""
    lines = ["Current runner version: '2.321.0'", "##[group]Run pytest",
             "============================= test session starts ==============================",
             f"collected {len(failures) + passed} items", "",
             "=========================== short test summary info ============================"]
    lines += [f"FAILED {node} - {msg}" for node, msg in failures]
    lines += [f"========================= {len(failures)} failed, {passed} passed in 0.52s =========================",
              "##[error]Process completed with exit code 1."]
    return "".join(f"2026-11-30T10:00:0{1 + i * 8 // len(lines)}.{i:07d}Z {line}\n" for i, line in enumerate(lines))


TOTAL = ("tests/test_invoice.py::test_total", "AssertionError: assert 12 == 17")
RATE = ("tests/test_tax.py::test_rate", "AssertionError: assert 0.19 == 0.2")
API = ("tests/test_api.py::test_get_invoice", "KeyError: 'total'")
CART = ("tests/test_cart.py::test_checkout", "TimeoutError: checkout took 31s")


BASE_JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1"
 skipped="0" tests="2"><testcase classname="tests.test_invoice" name="test_total" time="0.01"/><testcase
 classname="tests.test_tax" name="test_rate" time="0.01"><failure message="AssertionError: assert 0.19 == 0.2">def
 test_rate():
&gt;       assert rate() == 0.2
E       AssertionError: assert 0.19 == 0.2

tests/test_tax.py:9: AssertionError</failure></testcase></testsuite></testsuites>
"""


def history_world(*, base_runs: bool = True, base_report: bool = False) -> dict[str, Any]:
    """PR 7 (base ``main``), run 9001 of workflow CI on attempt 2, and run 9002 of workflow Docs:

    - ``unit`` fails TOTAL and RATE; on main (run 8001, the latest completed) ``unit`` failed RATE only;
    - ``integration`` fails API; it passed on main in run 8001;
    - ``e2e`` fails CART; the same job passed on attempt 1 of run 9001 (same commit);
    - ``docs`` (workflow Docs) fails; Docs never ran on main.
    An older main run (7990, unit passed) and a newer ``pull_request`` run on main (8002) must not be chosen.
    ``base_runs=False``: no run on main at all. ``base_report=True``: the log of ``unit`` on main (job 8011) has
    expired (410), but run 8001 uploaded its JUnit report (``test-results-unit``: RATE failed, TOTAL passed),
    next to ``test-results-integration`` (a job that passed there) and ``coverage-html`` (no report by its
    name): neither is downloaded."""
    checks = [job("unit", 801), job("integration", 802), job("e2e", 803),
              job("docs", 804, workflow="Docs", run_id=9002)]
    ci: dict[str, Any] = {
        "runs": [{"check": "unit", "log_text": pytest_log([TOTAL, RATE])},
                 {"check": "integration", "log_text": pytest_log([API])},
                 {"check": "e2e", "log_text": pytest_log([CART])},
                 {"check": "docs", "log_text": pytest_log([("tests/test_docs.py::test_links", "404 for /api")])}],
        "attempts": [{"run_id": 9001, "attempt": 1, "jobs": [
            {"name": "unit", "id": 781, "conclusion": "failure"}, {"name": "integration", "id": 782,
                                                                   "conclusion": "failure"},
            {"name": "e2e", "id": 783, "conclusion": "success"}]}],
    }
    if base_runs:
        ci["base_runs"] = [
            {"id": 7990, "workflow": "CI", "created_at": "2026-11-20T08:00:00Z", "jobs": [
                {"name": "unit", "id": 7991}, {"name": "integration", "id": 7992}, {"name": "e2e", "id": 7993}]},
            {"id": 8001, "workflow": "CI", "created_at": "2026-11-29T08:00:00Z", "jobs": [
                {"name": "unit", "id": 8011, "conclusion": "failure", "log_text": pytest_log([RATE])},
                {"name": "integration", "id": 8012}, {"name": "e2e", "id": 8013}]},
            {"id": 8002, "workflow": "CI", "event": "pull_request", "created_at": "2026-11-30T08:00:00Z", "jobs": [
                {"name": "unit", "id": 8021}, {"name": "integration", "id": 8022, "conclusion": "failure"}]},
        ]
        if base_report:
            ci["base_runs"][1]["jobs"][0] = {"name": "unit", "id": 8011, "conclusion": "failure", "log_status": 410}
            ci["artifacts"] = [
                {"name": "test-results-unit", "run_id": 8001, "files": [{"path": "junit.xml", "text": BASE_JUNIT}]},
                {"name": "test-results-integration", "run_id": 8001, "files": [{"path": "junit.xml",
                                                                              "text": BASE_JUNIT}]},
                {"name": "coverage-html", "run_id": 8001, "files": [{"path": "index.html", "text": "<html/>"}]}]
    return world(checks, ci)


def reports_world() -> dict[str, Any]:
    """PR 7, run 9001: test reports in artifacts that disagree with the logs.

    - ``unit`` (pytest): its log shows one failure (fixtures/logs/pytest/single_failure.log); artifact
      ``test-results-unit`` (JUnit XML, fixtures/reports/pytest_junit.xml) has that one and a second;
    - ``web`` (jest): its log shows one failure; artifact ``web-ctrf-report`` (CTRF) has it and another;
    - ``dotnet``: its log has nothing recognisable; artifact ``dotnet-test-results`` holds a TRX report;
    - ``docs-coverage``: no report hint in its name, never downloaded; ``evil-junit``: a billion-laughs report,
      refused (it cannot be matched to one job either)."""
    checks = [job("unit", 901), job("web", 902), job("dotnet", 903), job("lint", 904, "SUCCESS")]
    ci = {"runs": [{"check": "unit", "log": "fixtures/logs/pytest/single_failure.log"},
                   {"check": "web", "log": "fixtures/logs/jest/single_failure.log"},
                   {"check": "dotnet", "log_text": "2026-11-30T10:00:00.0000000Z Current runner version: '2.321.0'\n"
                                                   "2026-11-30T10:00:00.1000000Z ##[group]Run dotnet test\n"
                                                   "2026-11-30T10:00:01.0000000Z Test run failed, see the report\n"
                                                   "2026-11-30T10:00:01.1000000Z ##[error]Process completed with "
                                                   "exit code 1.\n"}],
          "artifacts": [
              {"name": "evil-junit", "files": [{"path": "junit.xml", "file": "fixtures/reports/billion_laughs.xml"}]},
              {"name": "test-results-unit", "files": [{"path": "reports/junit.xml",
                                                       "file": "fixtures/reports/pytest_junit.xml"}]},
              {"name": "web-ctrf-report", "files": [{"path": "ctrf/ctrf-report.json",
                                                     "file": "fixtures/reports/jest_ctrf.json"}]},
              {"name": "dotnet-test-results", "files": [{"path": "TestResults/runner.trx",
                                                         "file": "fixtures/reports/dotnet.trx"}]},
              {"name": "docs-coverage", "files": [{"path": "coverage.xml", "text": "<coverage/>"}]},
          ]}
    return world(checks, ci)
