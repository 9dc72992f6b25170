"""Faults on the REST reads (job log, branch rules, branch, compare), on the GraphQL reads that took over
REST ones (a failed check run's steps and annotations: ``CheckRunDetails``; the rulesets: ``baseRef.rules``
in ``PrChecks``), including fields GitHub refuses one by one, and on later pages of paginated GraphQL reads.
A read that fails for good either fails the call with the right typed error or the answer says what could
not be read — never a silently smaller answer presented as complete."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.ci_worlds import job
from tests.e2e.ci_worlds import world as ci_world
from tests.e2e.merge_worlds import ok
from tests.e2e.worlds import big_world
from tests.fakehub import Fault
from tests.safety.test_fault_matrix import assert_typed_error, comparable
from tests.safety.worlds import CASES, HANG_ENV, ToolCase, agent_for, baseline, failures_key, pinned_gh, run_json

R = "GET /repos/acme/widgets"
# target id -> (tool call, world, regex on "METHOD /path")
REST_TARGETS: dict[str, tuple[ToolCase, str, str]] = {
    "checks.job_log": (CASES["get_failing_tests"], "ci", rf"{R}/actions/jobs/\d+/logs$"),
    "ready.rulesets": (CASES["check_merge_readiness"], "readiness", rf"{R}/rules/branches/main"),
    "ready.branch": (CASES["check_merge_readiness"], "readiness", rf"{R}/branches/main$"),
    "ready.compare": (CASES["check_merge_readiness"], "readiness", rf"{R}/compare/"),
}
FORBIDDEN = {"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest"}
# fault id -> (fault, outcome): "ok" (exactly the fault-free answer), "stated" (the fault-free answer, or a smaller
# one that says what could not be read) or (code, temporary, wants retry_after)
REST_FAULTS: dict[str, tuple[Fault, Any]] = {
    "500_once": (Fault(status=500, times=1), "ok"),
    "502_burst": (Fault(status=502, times=None), ("server_error", True, False)),
    "secondary_rate_limit": (Fault(kind="secondary_rate_limit", retry_after_s=1, times=1), "ok"),
    "primary_rate_limit": (Fault(kind="primary_rate_limit", times=None), ("rate_limited", True, True)),
    "hang": (Fault(kind="hang", delay_s=6, times=1), ("timeout", True, False)),
    "truncated_once": (Fault(kind="truncated_json", times=1), "ok"),
    "disconnect_once": (Fault(kind="disconnect", times=1), "ok"),
    "404": (Fault(status=404, times=None), "stated"),
    "403": (Fault(status=403, body=FORBIDDEN, times=None), "stated"),
    "401": (Fault(status=401, body={"message": "Bad credentials"}, times=None), ("auth_failed", False, False)),
}


# target id -> (tool call, world, fault match) of the GraphQL reads that replaced REST ones
GRAPHQL_TARGETS: dict[str, tuple[ToolCase, str, str]] = {
    "checks.steps_and_annotations": (CASES["get_failing_tests"], "ci", "graphql:CheckRunDetails"),
    "checks.annotations": (CASES["get_failing_tests"], "ci_annotated", "graphql:CheckRunDetails"),
}


def _refused(field: str, type_: str = "FORBIDDEN", items: bool = False) -> Fault:
    return Fault(kind="graphql_field_refused", body={"field": field, "type": type_, "items": items}, times=None)


GRAPHQL_FAULTS: dict[str, tuple[Fault, Any]] = {
    "500_once": (Fault(status=500, times=1), "ok"),
    "502_burst": (Fault(status=502, times=None), ("server_error", True, False)),
    "secondary_rate_limit": (Fault(kind="secondary_rate_limit", retry_after_s=1, times=1), "ok"),
    "primary_rate_limit": (Fault(kind="primary_rate_limit", times=None), ("rate_limited", True, True)),
    "graphql_rate_limited": (Fault(kind="graphql_rate_limited", times=None), ("rate_limited", True, True)),
    "hang": (Fault(kind="hang", delay_s=6, times=1), ("timeout", True, False)),
    "truncated_once": (Fault(kind="truncated_json", times=1), "ok"),
    "disconnect_once": (Fault(kind="disconnect", times=1), "ok"),
    "graphql_errors_partial": (Fault(kind="graphql_errors_partial", times=None), ("graphql_error", False, False)),
    "401": (Fault(status=401, body={"message": "Bad credentials"}, times=None), ("auth_failed", False, False)),
    # what a token without checks:read meets: the field (or the whole check run) null with a typed error
    "check_runs_forbidden": (_refused("nodes", items=True), "stated"),
    "check_runs_not_found": (_refused("nodes", "NOT_FOUND", items=True), "stated"),
    "steps_forbidden": (_refused("steps"), "stated"),
    "annotations_forbidden": (_refused("annotations"), "stated"),
}


def _checks_stated(base: dict[str, Any], out: dict[str, Any]) -> None:
    assert out["status"] == base["status"]
    before = {fc["check_name"]: fc for fc in base["failed_checks"]}
    for fc in out["failed_checks"]:
        old = before.pop(fc["check_name"])
        mine = [f for f in out["failures"] if f["check_name"] == fc["check_name"]]
        theirs = [f for f in base["failures"] if f["check_name"] == fc["check_name"]]
        if failures_key({"failures": mine}) != failures_key({"failures": theirs}) or \
                fc.get("non_test_failure") != old.get("non_test_failure"):
            assert fc.get("note") and fc.get("note") != old.get("note"), \
                f"{fc['check_name']}: answer changed without saying why: {fc}"
    assert not before, f"failed checks vanished: {list(before)}"
    if (out["counts"], out["checks"]) != (base["counts"], base["checks"]):
        assert "could not be read" in out["instructions"]["summary"], "checks changed without saying why"


def _ready_stated(base: dict[str, Any], out: dict[str, Any]) -> None:
    assert (out["verdict"], [b["code"] for b in out["blocking_issues"]]) == \
        (base["verdict"], [b["code"] for b in base["blocking_issues"]])  # fails closed: same verdict
    new_notes = set(out["branch_protection"]["notes"]) - set(base["branch_protection"]["notes"])
    assert comparable(out) == comparable(base) or new_notes, "a source could not be read and nothing says so"


STATED = {"get_failing_tests": _checks_stated, "check_merge_readiness": _ready_stated}


def _read_under_fault(make_hub: Any, tmp_path: Path, target: tuple[ToolCase, str, str],
                      fault_outcome: tuple[Fault, Any]) -> None:
    case, world_key, match = target
    fault, outcome = fault_outcome
    agent = agent_for(make_hub, world_key, tmp_path / "home")
    agent.hub.add_fault(dataclasses.replace(fault, match=match, hits=0))
    code, data, err = run_json(agent, case.args, **(HANG_ENV if fault.kind == "hang" else {}))
    assert agent.hub.find_requests() and any(r.fault for r in agent.hub.requests), "the fault never fired"
    if outcome in ("ok", "stated"):
        assert code == case.ok_exit and "error" not in data, err
        base = baseline(make_hub, case, tmp_path / "base", world_key)
        if outcome == "ok":
            assert comparable(data) == comparable(base)
        else:
            STATED[case.tool](base, data)
        return
    assert_typed_error(code, data, outcome)


# The reads behind the extras of get_failing_tests (test-report artifacts, history verdicts): GitHub failing them for
# good is said (a note, an unknown verdict), never a failed answer; a one-off failure is retried as usual.
EXTRA_TARGETS: dict[str, tuple[ToolCase, str, str]] = {
    "checks.artifacts": (CASES["get_failing_tests"], "ci", rf"{R}/actions/runs/\d+/artifacts"),
    "checks.history_run": (CASES["get_failing_tests"], "ci", rf"{R}/actions/runs/\d+$"),
}
EXTRA_FAULTS = ("502_burst", "401")  # the retries of one-off failures are the gateway's, tested above


@pytest.mark.parametrize("fault_id", EXTRA_FAULTS)
@pytest.mark.parametrize("target", sorted(EXTRA_TARGETS))
def test_extra_read_under_fault_is_said_never_fatal(make_hub, tmp_path: Path, target: str, fault_id: str) -> None:
    fault, outcome = REST_FAULTS[fault_id]
    _read_under_fault(make_hub, tmp_path, EXTRA_TARGETS[target], (fault, "ok" if outcome == "ok" else "stated"))


@pytest.mark.parametrize("fault_id", sorted(REST_FAULTS))
@pytest.mark.parametrize("target", sorted(REST_TARGETS))
def test_rest_read_under_fault(make_hub, tmp_path: Path, target: str, fault_id: str) -> None:
    _read_under_fault(make_hub, tmp_path, REST_TARGETS[target], REST_FAULTS[fault_id])


@pytest.mark.parametrize("fault_id", sorted(GRAPHQL_FAULTS))
@pytest.mark.parametrize("target", sorted(GRAPHQL_TARGETS))
def test_graphql_read_under_fault(make_hub, tmp_path: Path, target: str, fault_id: str) -> None:
    _read_under_fault(make_hub, tmp_path, GRAPHQL_TARGETS[target], GRAPHQL_FAULTS[fault_id])


@pytest.mark.parametrize("type_", ["FORBIDDEN", "NOT_FOUND"])
def test_refused_rulesets_under_fault(make_hub, tmp_path: Path, type_: str) -> None:
    """The rulesets are read as baseRef.rules in the first query: a refused field is said, never a shorter
    list of required checks presented as complete (the rest of the query still answers)."""
    _read_under_fault(make_hub, tmp_path, (CASES["get_failing_tests"], "ci_rules", "graphql:PrChecks"),
                      (_refused("rules", type_), "stated"))


def test_unreadable_steps_are_said(make_hub, tmp_path: Path) -> None:
    """Without the steps the log link cannot point at the failed step: the check says so (the REST jobs read
    used to drop the anchor silently)."""
    agent = agent_for(make_hub, "ci", tmp_path / "home")
    agent.hub.add_fault(dataclasses.replace(_refused("steps"), match="graphql:CheckRunDetails"))
    code, out, _ = run_json(agent, CASES["get_failing_tests"].args)
    pytest_check = next(fc for fc in out["failed_checks"] if fc["check_name"] == "CI / pytest")
    assert code == 1 and "#step:" not in pytest_check["log_url"] and "failed_step" not in pytest_check
    assert "steps could not be read" in (pytest_check.get("note") or ""), pytest_check


def test_unreadable_annotations_are_said(make_hub, tmp_path: Path) -> None:
    """The failing tests of `CI / unit` exist only as test-reporter annotations: when those cannot be read
    (fine-grained tokens get 403 there) the check must say so rather than report no failing test."""
    agent = agent_for(make_hub, "ci_annotated", tmp_path / "home")
    agent.hub.add_fault(dataclasses.replace(_refused("annotations"), match="graphql:CheckRunDetails"))
    code, out, _ = run_json(agent, CASES["get_failing_tests"].args)
    unit = next(fc for fc in out["failed_checks"] if fc["check_name"] == "CI / unit")
    assert code == 1 and not [f for f in out["failures"] if f["check_name"] == "CI / unit"]
    assert "annotations" in (unit.get("note") or ""), unit


def test_unreadable_rulesets_are_said(make_hub, tmp_path: Path) -> None:
    """A ruleset requires `security-scan`, which never reported: pending. When the rulesets cannot be read the
    answer cannot know that: it must say so instead of a bare 'All checks passed'."""
    from tests.e2e.conftest import Agent
    from tests.safety.worlds import SCAN_RULESET

    w = ci_world([job("lint", 1, "SUCCESS")], {})
    w["repositories"][0]["branch_rules"] = {"main": {"rulesets": [SCAN_RULESET]}}
    clean = run_json(Agent(make_hub(w), pinned_gh(), tmp_path / "base"), CASES["get_failing_tests"].args)
    assert (clean[0], clean[1]["status"]) == (8, "pending")
    agent = Agent(make_hub(w), pinned_gh(), tmp_path / "home")
    agent.hub.add_fault(dataclasses.replace(_refused("rules"), match="graphql:PrChecks"))
    code, out, _ = run_json(agent, CASES["get_failing_tests"].args)
    assert code == 0 and out["status"] == "passed"
    assert "rulesets could not be read" in out["instructions"]["summary"], out["instructions"]["summary"]


# ------------------------------------------------------------------------------------------- later pages
def _many_checks_ci() -> dict[str, Any]:
    checks = [job(f"lint-{i}", 700 + i, "SUCCESS") for i in range(130)] + [job("pytest", 901)]
    return ci_world(checks, {"runs": [{"check": "pytest", "log": "fixtures/logs/pytest/single_failure.log"}]})


def _many_checks_ready() -> dict[str, Any]:
    from tests.e2e.merge_worlds import readiness_world

    w = readiness_world()
    w["repositories"][0]["pull_requests"][0]["checks"] += [ok(f"extra-{i}") for i in range(130)]
    return w


def _many_threads_ready() -> dict[str, Any]:
    from tests.e2e.merge_worlds import readiness_world
    from tests.e2e.worlds import comment, thread

    w = readiness_world()
    w["repositories"][0]["pull_requests"][0]["threads"] = [
        thread(f"PRRT_{i}", "a.py", 1, [comment(50_000 + i, "carol", "ok", 1)], resolved=i != 120)
        for i in range(130)]
    return w


# id -> (world factory, CLI args, GraphQL operation of a later page)
PAGED: dict[str, tuple[Any, list[str], str]] = {
    "comments.threads_page": (lambda: big_world(), ["comments", "acme/widgets#9"], "PrThreadsPage"),
    "comments.thread_tail": (lambda: big_world(), ["comments", "acme/widgets#9"], "ThreadCommentsPage"),
    "checks.rollup_page": (_many_checks_ci, ["checks", "acme/widgets#7"], "PrRollupPage"),
    "ready.rollup_page": (_many_checks_ready, ["ready", "acme/widgets#1"], "PrRollupPage"),
    "ready.thread_states_page": (_many_threads_ready, ["ready", "acme/widgets#1"], "PrThreadStatesPage"),
}
PAGE_FAULTS: dict[str, tuple[Fault, Any]] = {
    "500_once": (Fault(status=500, times=1), "ok"),
    "502_burst": (Fault(status=502, times=None), ("server_error", True, False)),
    "graphql_errors_partial": (Fault(kind="graphql_errors_partial", times=None), ("graphql_error", False, False)),
}


@pytest.mark.parametrize("fault_id", sorted(PAGE_FAULTS))
@pytest.mark.parametrize("target", sorted(PAGED))
def test_a_later_page_fails(make_hub, tmp_path: Path, target: str, fault_id: str) -> None:
    from tests.e2e.conftest import Agent

    factory, args, operation = PAGED[target]
    fault, outcome = PAGE_FAULTS[fault_id]
    clean = run_json(Agent(make_hub(factory()), pinned_gh(), tmp_path / "base"), args)
    agent = Agent(make_hub(factory()), pinned_gh(), tmp_path / "home")
    agent.hub.add_fault(dataclasses.replace(fault, match=f"graphql:{operation}", hits=0))
    code, data, err = run_json(agent, args)
    assert any(r.fault for r in agent.hub.requests), "the fault never fired"
    if outcome == "ok":
        assert (code, comparable(data)) == (clean[0], comparable(clean[1])), err
    else:
        assert_typed_error(code, data, outcome)  # never the first page alone presented as the whole answer
