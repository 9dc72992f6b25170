"""What a user reads off the check rollup (issue 19 mutation survivors of ci/rollup.py): which run of a re-run
job is the current one, which app and context a check comes from, and which checks a bucket filter returns.
Input: GraphQL ``statusCheckRollup.contexts`` nodes as GitHub sends them."""

from __future__ import annotations

from typing import Any

from pr_agent.ci.rollup import build_rollup, check_from_node, latest_per_check


def job(name: str, conclusion: str, *, job_id: int, started: str, required: bool = False,
        app: str = "github-actions") -> dict[str, Any]:
    return {"__typename": "CheckRun", "name": name, "status": "COMPLETED", "conclusion": conclusion,
            "databaseId": job_id, "startedAt": started, "isRequired": required,
            "checkSuite": {"app": {"slug": app},
                           "workflowRun": {"databaseId": 500, "event": "pull_request", "workflow": {"name": "CI"}}}}


def status(context: str, state: str, *, required: bool = False) -> dict[str, Any]:
    return {"__typename": "StatusContext", "context": context, "state": state, "isRequired": required,
            "targetUrl": f"https://ci.example.com/{context}"}


def test_a_rerun_started_in_the_same_second_is_the_current_run() -> None:
    """GitHub's times have whole seconds: a job re-run at once has the same startedAt; its larger id is newer."""
    first = check_from_node(job("test", "FAILURE", job_id=41, started="2026-11-01T10:00:00Z"))
    rerun = check_from_node(job("test", "SUCCESS", job_id=42, started="2026-11-01T10:00:00Z"))
    assert first is not None and rerun is not None
    assert [(c.check_run_id, c.state) for c in latest_per_check([first, rerun])] == [(42, "SUCCESS")]
    assert [(c.check_run_id, c.state) for c in latest_per_check([rerun, first])] == [(42, "SUCCESS")]


def test_a_check_names_its_app_and_a_status_its_context() -> None:
    run = check_from_node(job("lint", "FAILURE", job_id=7, started="2026-11-01T10:00:00Z", app="circleci-checks"))
    assert run is not None and run.app == "circleci-checks"
    ctx = check_from_node(status("ci/jenkins: build", "FAILURE"))
    assert ctx is not None
    assert (ctx.name, ctx.display_name, ctx.url) == ("ci/jenkins: build", "ci/jenkins: build",
                                                     "https://ci.example.com/ci/jenkins: build")


def test_a_bucket_filter_returns_exactly_the_checks_of_that_bucket_and_requiredness() -> None:
    t = "2026-11-01T10:00:00Z"
    r = build_rollup([job("unit", "FAILURE", job_id=1, started=t, required=True),
                      job("docs", "FAILURE", job_id=2, started=t),
                      job("build", "SUCCESS", job_id=3, started=t, required=True),
                      job("spell", "SUCCESS", job_id=4, started=t),
                      status("deploy/preview", "PENDING")], ["unit", "e2e"])
    names = lambda checks: [c.name for c in checks]  # noqa: E731
    assert names(r.in_bucket("failed")) == ["unit", "docs"]
    assert names(r.in_bucket("failed", required=True)) == ["unit"]
    assert names(r.in_bucket("failed", required=False)) == ["docs"]
    assert names(r.in_bucket("passed", required=False)) == ["spell"]
    assert names(r.in_bucket("pending", required=True)) == ["e2e"]  # required, never reported
    assert names(r.in_bucket("cancelled")) == []
    assert names(r.required) == ["unit", "build", "e2e"]
    assert names(r.optional) == ["docs", "spell", "deploy/preview"]
