"""pr_agent.ci.rollup: the one classification table, latest run per check, required-but-missing."""

from __future__ import annotations

import pytest

from pr_agent.ci.rollup import build_rollup, check_from_node, classify, counts, overall


@pytest.mark.parametrize(("state", "bucket"), [
    ("FAILURE", "failed"), ("ERROR", "failed"), ("TIMED_OUT", "failed"), ("STARTUP_FAILURE", "failed"),
    ("ACTION_REQUIRED", "failed"), ("CANCELLED", "cancelled"), ("STALE", "cancelled"),
    ("QUEUED", "pending"), ("IN_PROGRESS", "pending"), ("PENDING", "pending"), ("WAITING", "pending"),
    ("EXPECTED", "pending"), ("REQUESTED", "pending"), ("SUCCESS", "passed"), ("NEUTRAL", "passed"),
    ("SKIPPED", "passed"), ("something_new", "pending"), (None, "pending"), ("success", "passed"),
])
def test_classification_table(state: str | None, bucket: str) -> None:
    assert classify(state) == bucket


def run(name: str, *, status: str = "COMPLETED", conclusion: str | None = "SUCCESS", run_id: int = 1,
        db: int | None = None, started: str | None = "2026-11-01T10:00:00Z", required: bool = False,
        workflow: str = "CI") -> dict:
    return {"__typename": "CheckRun", "name": name, "status": status, "conclusion": conclusion,
            "databaseId": db, "startedAt": started, "isRequired": required, "detailsUrl": f"https://x/{name}",
            "checkSuite": {"app": {"slug": "github-actions"},
                           "workflowRun": {"databaseId": run_id, "event": "pull_request",
                                           "workflow": {"name": workflow}}}}


def test_check_run_state_is_conclusion_only_when_completed() -> None:
    c = check_from_node(run("t", status="IN_PROGRESS", conclusion=None))
    assert c and (c.state, c.bucket, c.workflow, c.run_id) == ("IN_PROGRESS", "pending", "CI", 1)
    assert c.display_name == "CI / t"
    s = check_from_node({"__typename": "StatusContext", "context": "ci/jenkins", "state": "ERROR", "isRequired": True})
    assert s and (s.kind, s.bucket, s.required) == ("status_context", "failed", True)
    assert check_from_node({"__typename": "Mystery"}) is None


def test_latest_run_per_check_wins() -> None:
    old = run("test", conclusion="FAILURE", db=10, started="2026-11-01T10:00:00Z")
    rerun = run("test", status="QUEUED", conclusion=None, db=11, started=None)
    other_workflow = run("test", conclusion="SUCCESS", db=5, workflow="Nightly")
    r = build_rollup([old, rerun, other_workflow, None])
    assert [(c.display_name, c.state) for c in r.checks] == [("CI / test", "QUEUED"), ("Nightly / test", "SUCCESS")]
    by_time = build_rollup([run("lint", conclusion="FAILURE", started="2026-11-01T09:00:00Z"),
                            run("lint", started="2026-11-01T11:00:00Z")])
    assert [c.state for c in by_time.checks] == ["SUCCESS"]


def test_required_names_and_missing_required_checks() -> None:
    r = build_rollup([run("test"), run("lint", conclusion="FAILURE")], ["test", "build", "build"])
    assert [(c.name, c.kind, c.bucket, c.required) for c in r.checks] == [
        ("test", "check_run", "passed", True), ("lint", "check_run", "failed", False),
        ("build", "missing", "pending", True)]
    assert (r.status, r.required_status) == ("failed", "pending")
    assert counts(r.checks) == {"failed": 1, "cancelled": 0, "pending": 1, "passed": 1}
    assert [c.name for c in r.in_bucket("failed", required=False)] == ["lint"]
    assert overall([]) == "none"
