"""get_failing_tests' history verdicts and test reports from artifacts (real gh, fakehub): each verdict
(rerun passed, failing on base, new, no base run), the switch that turns history off (flag and 💾 stored
preference), the requests each costs, and reports in artifacts that disagree with the logs."""

from __future__ import annotations

import re
import shlex
from typing import Any

import orjson

from bench.github import observed_depth, stamp_responses
from tests.e2e.ci_worlds import API, CART, FAST, RATE, TOTAL, history_world, reports_world
from tests.fakehub import Fault

HISTORY_PATHS = {"/repos/acme/widgets/actions/runs/9001", "/repos/acme/widgets/actions/runs/9002",
                 "/repos/acme/widgets/actions/runs/9001/attempts/1/jobs", "/repos/acme/widgets/actions/runs/8001/jobs",
                 "/repos/acme/widgets/actions/jobs/8011/logs"}


def run_json(a: Any, *args: str) -> dict[str, Any]:
    proc = a.cli("checks", "acme/widgets#7", *args, "--json", env=a.env(**FAST))
    assert proc.returncode == 1, proc.stderr
    return orjson.loads(proc.stdout)  # type: ignore[no-any-return]


def _paths(a: Any) -> list[str]:
    return [r.path for r in a.hub.requests if r.path.startswith("/repos/")]


def test_each_verdict_with_the_run_it_compares_with_and_the_priority(agent) -> None:
    a = agent(history_world())
    out = run_json(a)
    tests = {f["test_name"]: f["history"] for f in out["failures"]}
    assert {name: h["verdict"] for name, h in tests.items()} == {
        TOTAL[0]: "new_in_this_pr",  # unit failed on main too, but not on this test
        RATE[0]: "failing_on_base",  # unit failed this very test on main
        API[0]: "new_in_this_pr",  # integration passed on main
        CART[0]: "flaky",  # e2e passed on attempt 1 of the same run (same commit)
        "tests/test_docs.py::test_links": "unknown"}  # workflow Docs never ran on main
    # the run compared with is main's latest completed non-PR run (8001), not 7990 (older) nor 8002 (a PR's)
    assert tests[RATE[0]]["reason"] == "it failed on the base branch too, in run 8001 (2026-11-29)"
    assert tests[TOTAL[0]]["reason"] == "the job failed on the base branch too (run 8001 (2026-11-29)), but not on " \
        "this test"
    unit = next(c["history"] for c in out["failed_checks"] if c["check_name"] == "CI / unit")
    assert unit == {"verdict": "failing_on_base", "reason": "failed on main too, in run 8001 (2026-11-29)",
                    "run_id": 8001, "run_date": "2026-11-29T08:00:00Z"}
    e2e = next(c["history"] for c in out["failed_checks"] if c["check_name"] == "CI / e2e")
    assert e2e == {"verdict": "flaky", "reason": "passed on attempt 1 of this run (same commit)", "attempt": 1}
    assert tests[CART[0]] == {"verdict": "flaky"}  # the job's verdict: its reason is on the failed check
    checks = {c["check_name"]: c["history"]["verdict"] for c in out["failed_checks"]}
    assert checks == {"CI / unit": "failing_on_base", "CI / integration": "new_in_this_pr", "CI / e2e": "flaky",
                      "Docs / docs": "unknown"}
    docs = next(c for c in out["failed_checks"] if c["check_name"] == "Docs / docs")
    assert docs["history"]["reason"] == "no completed run of this workflow on main"
    # priority: what the PR broke first; not its fault last, and said so
    order = [p["test"] for p in out["instructions"]["priority"]]
    assert order[:2] == [API[0], TOTAL[0]] and order[-2:] == [CART[0], RATE[0]]
    last = out["instructions"]["priority"][-1]["reason"]
    assert last.startswith("not this PR's fault: ") and "run 8001 (2026-11-29)" in last
    assert "History: 2 new in this PR, 1 failing on the base branch too" in out["instructions"]["summary"]
    # bounded, measured cost: 2 runs, 1 earlier attempt, 2 workflows, 1 base run's jobs, 1 base job log
    workflows = {p for p in _paths(a) if "/actions/workflows/" in p}
    assert len(workflows) == 2
    history = [p for p in _paths(a) if p in HISTORY_PATHS]
    assert sorted(history) == sorted(HISTORY_PATHS)  # each asked once


def test_no_run_on_the_base_branch_is_unknown_and_history_can_be_turned_off(agent) -> None:
    a = agent(history_world(base_runs=False))
    out = run_json(a)
    verdicts = {f["test_name"]: f["history"]["verdict"] for f in out["failures"]}
    assert verdicts == {TOTAL[0]: "unknown", RATE[0]: "unknown", API[0]: "unknown", CART[0]: "flaky",
                        "tests/test_docs.py::test_links": "unknown"}
    assert all(c["history"]["reason"] == "no completed run of this workflow on main"
               for c in out["failed_checks"] if c["history"]["verdict"] == "unknown")
    before = len(a.hub.requests)
    off = run_json(a, "--no-history")
    assert all("history" not in f for f in off["failures"]) and all("history" not in c for c in off["failed_checks"])
    asked = [r.path for r in a.hub.requests[before:]]
    assert not [p for p in asked if "/actions/runs/" in p and not p.endswith("/artifacts")]
    assert not [p for p in asked if "/actions/workflows/" in p]
    # 💾: a stored preference turns it off too
    assert a.cli("config", "set", "get_failing_tests.history", "false", env=a.env()).returncode == 0
    assert all("history" not in f for f in run_json(a)["failures"])


def test_reports_in_artifacts_come_first_and_merge_with_the_logs(agent) -> None:
    a = agent(reports_world())
    out = run_json(a)
    got = {(f["check_name"], f["test_name"]): f for f in out["failures"]}
    assert set(got) == {
        ("CI / unit", "tests/test_invoice.py::test_total_includes_shipping"),  # in the log and the report: once
        ("CI / unit", "tests/test_tax.py::test_rounding[0.005-0.01]"),  # only in the report
        ("CI / web", "Button › renders the label passed as children"),  # the log's (jest's own) id kept
        ("CI / web", "Cart shows the empty state"),  # only in the CTRF report
        ("CI / dotnet", "Acme.Billing.Tests.InvoiceTests.Total_IncludesShipping")}  # TRX; the log had nothing
    assert {f["source"] for f in got.values()} == {"artifact"} and {f["confidence"] for f in got.values()} == {"high"}
    unit = got[("CI / unit", "tests/test_invoice.py::test_total_includes_shipping")]
    assert unit["artifact"] == "test-results-unit" and unit["line_number"] == 9
    assert shlex.split(unit["reproduce_command"]) == ["pytest", "tests/test_invoice.py::test_total_includes_shipping"]
    failed = {c["check_name"]: c for c in out["failed_checks"]}
    assert failed["CI / unit"]["test_reports"] == ["test-results-unit"] and failed["CI / unit"]["test_failures"] == 2
    assert failed["CI / dotnet"].get("non_test_failure") is None  # the report explains the failure
    assert "evil-junit" in failed["CI / unit"]["note"] and "DOCTYPE: refused" in failed["CI / unit"]["note"]
    zips = {r.path for r in a.hub.requests if r.path.endswith("/zip")}
    assert len(zips) == 4  # docs-coverage is not a test report by its name: never downloaded
    assert out["total_failures"] == 5
    # GitHub failing the extra reads (after the gateway's retries) never fails the answer: said, the log stands
    fault = r"GET /repos/acme/widgets/actions/runs/9001(/artifacts)?(\?|$)"
    a.hub.add_fault(Fault(match=fault, status=502, times=None))
    again = run_json(a)
    unit = next(c for c in again["failed_checks"] if c["check_name"] == "CI / unit")
    assert "the test-report artifacts of run 9001 could not be read (" in unit["note"]
    assert unit["history"] == {"verdict": "unknown", "reason": "history could not be read (server_error)"}
    assert [f["source"] for f in again["failures"] if f["check_name"] == "CI / unit"] == ["log"]


def test_history_and_report_reads_start_with_the_logs_not_after_the_look(agent) -> None:
    """The critical path: a failed run's history chain (run → base runs → base jobs and artifacts → base log
    or report) and its artifact list start when the rollup page names the run, next to the jobs' own logs
    (each 302 + blob), not after them. Observed with 1.5 s a round trip (as bench reads it): 6 sequential
    round trips, bench's floor for this chain (rollup, run, base runs, base jobs, 302, blob), where reading
    history after the look put its chain behind the look's; the request count stays what the unhurried order asks."""
    stamp_responses()
    a = agent(history_world(base_report=True), latency_ms=1500)
    out = run_json(a)
    assert {f["history"]["verdict"] for f in out["failures"]} == {"new_in_this_pr", "failing_on_base", "flaky",
                                                                  "unknown"}
    reqs = [r for r in a.hub.requests if r.method != "CONNECT"]
    first_log = min(r.started for r in reqs if re.fullmatch(r"/repos/acme/widgets/actions/jobs/80\d/logs", r.path))
    for path in ("/repos/acme/widgets/actions/runs/9001", "/repos/acme/widgets/actions/runs/9002",
                 "/repos/acme/widgets/actions/runs/9001/artifacts"):
        start = min(r.started for r in reqs if r.path.split("?")[0] == path)
        assert start - first_log < 1.5, f"{path} waited for a job log (1.5 s a round trip)"
    assert observed_depth(reqs, 1.5) == 6
    history = [p for p in _paths(a) if p in HISTORY_PATHS]
    assert sorted(history) == sorted(HISTORY_PATHS)  # each still asked once


def test_the_base_runs_test_report_decides_when_its_log_has_expired(agent) -> None:
    """main's ``unit`` job log has expired (410), but run 8001 uploaded its JUnit report: the test-level
    verdicts come from it (RATE failed there, TOTAL did not), for 1 artifact list and 1 download more."""
    a = agent(history_world(base_report=True))
    out = run_json(a)
    tests = {f["test_name"]: f["history"] for f in out["failures"]}
    assert tests[RATE[0]] == {"verdict": "failing_on_base", "reason": "it failed on the base branch too, in run 8001 "
                              "(2026-11-29), by its test report"}
    assert tests[TOTAL[0]]["verdict"] == "new_in_this_pr"
    assert [p for p in _paths(a) if p.endswith("/artifacts") and "/runs/8001/" in p] == [
        "/repos/acme/widgets/actions/runs/8001/artifacts"]
    zips = [p for p in _paths(a) if p.endswith("/zip")]
    unit_report = next(x for x in a.hub.world.repo("acme", "widgets")["pull_requests"][0]["ci"]["artifacts"]
                       if x["name"] == "test-results-unit")
    assert zips == [f"/repos/acme/widgets/actions/artifacts/{unit_report['id']}/zip"]  # integration's: passed
    assert "/repos/acme/widgets/actions/jobs/8011/logs" in _paths(a)  # asked, 410: the report stands in
    # waiting for the whole CI: the same reads, after the watch
    waited = {f["test_name"]: f["history"] for f in run_json(a, "--wait")["failures"]}
    extra = [p for p in _paths(a) if re.search(r"/actions/(runs|workflows|artifacts)/|/jobs/8011/", p)]
    assert waited == tests and sorted(extra[len(extra) // 2:]) == sorted(extra[: len(extra) // 2])
    # without the report the expired log leaves the test verdicts unknown
    b = agent(history_world(base_report=True))
    b.hub.world.repo("acme", "widgets")["pull_requests"][0]["ci"]["artifacts"] = []
    bare = {f["test_name"]: f["history"]["verdict"] for f in run_json(b)["failures"]}
    assert bare[RATE[0]] == bare[TOTAL[0]] == "unknown"
