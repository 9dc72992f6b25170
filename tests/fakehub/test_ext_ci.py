"""fakehub's CI extension (ext_ci / ext_ci_rest): jobs, job logs behind a signed redirect, annotations,
steps derived from a raw log, the same steps and annotations as GraphQL ``CheckRun.steps`` /
``CheckRun.annotations`` through ``nodes(ids:)``, and a CI timeline that moves as the PR is polled."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pr_agent.queries import load_query
from tests.e2e.ci_worlds import (
    NEW_HEAD,
    annotated_world,
    expired_world,
    failing_world,
    stale_world,
    waiting_world,
)
from tests.fakehub import FakeHub, Fault, ScenarioError
from tests.fakehub.ext_ci import BLOB_HOST, derive_steps
from tests.fakehub.ext_ci_rest import ROUTES
from tests.fakehub.test_fakehub_unit import call, gql

ROOT = Path(__file__).resolve().parents[2]
POLL = "query($n:Int!){ repository(owner:\"acme\",name:\"widgets\"){ pullRequest(number:$n){ headRefOid " \
       "statusCheckRollup { contexts(first:100){ nodes { ... on CheckRun { name status conclusion } } } } } } }"


def test_routes_validate_and_logs_come_through_a_signed_redirect() -> None:
    with FakeHub(failing_world()) as hub:
        status, _, job = call(hub, "GET", "/repos/acme/widgets/actions/jobs/101")
        assert status == 200 and job["steps"][3]["name"] == "Run tests" and job["conclusion"] == "failure"
        status, headers, _ = call(hub, "GET", "/repos/acme/widgets/actions/jobs/101/logs")
        assert status == 302 and headers["Location"].startswith(f"http://{BLOB_HOST}/job-logs/acme/widgets/101?")
        status, headers, body = call(hub, "GET", headers["Location"], headers={"Authorization": ""})
        assert status == 200 and body == (ROOT / "fixtures/logs/multistep/pytest_job.log").read_bytes()
        assert headers["Content-Type"].startswith("text/plain")
        assert call(hub, "GET", f"http://{BLOB_HOST}/job-logs/acme/widgets/101?sig=0")[0] == 403
        assert call(hub, "GET", "/repos/acme/widgets/actions/jobs/104")[0] == 200   # passed job
        assert call(hub, "GET", "/repos/acme/widgets/actions/jobs/999")[0] == 404
        status, _, notes = call(hub, "GET", "/repos/acme/widgets/check-runs/101/annotations")
        assert status == 200 and notes == []
        assert hub.schema_violations == [] and hub.unhandled == [] and hub.errors == []
        rerun = "POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun"  # test_rerun_is_refused_after_30_days
        assert {r.route for r in hub.requests if r.route} == set(ROUTES) - {rerun}


def test_rerun_is_refused_after_30_days() -> None:
    for age, status in ((2, 201), (45, 403)):
        with FakeHub(expired_world(age_days=age)) as hub:
            got, _, body = call(hub, "POST", "/repos/acme/widgets/actions/jobs/202/rerun")
            assert got == status, body
            assert call(hub, "POST", "/repos/acme/widgets/actions/jobs/999/rerun")[0] == 404
            assert hub.schema_violations == [] and hub.unhandled == [] and hub.errors == []


def test_annotations_and_unavailable_logs(make_hub, gh_path) -> None:
    hub = make_hub(annotated_world())
    proc = hub.run_gh(gh_path, "api", "repos/acme/widgets/check-runs/201/annotations")
    notes = orjson.loads(proc.stdout)
    assert [n["title"] for n in notes][:2] == ["tests/test_cart.py::test_total", "App › renders $(id) 'x'"]
    assert notes[2]["path"] == ".github" and notes[3]["annotation_level"] == "warning"
    expired = hub.run_gh(gh_path, "api", "repos/acme/widgets/actions/jobs/202/logs")
    assert expired.returncode == 1 and "HTTP 410" in expired.stderr


def test_gh_follows_the_redirect_without_sending_the_token(make_hub, gh_path) -> None:
    hub = make_hub(failing_world())
    args = ["api", "repos/acme/widgets/actions/jobs/103/logs"]
    flags = hub.run_gh(gh_path, "api", "--help").stdout
    if "--allow-escape-sequences" in flags:  # newer gh refuses raw escape sequences otherwise
        args.append("--allow-escape-sequences")
    proc = hub.run_gh(gh_path, *args)
    assert proc.returncode == 0, proc.stderr
    assert "--- FAIL: TestAdd" in proc.stdout
    blob = [r for r in hub.requests if r.host.startswith(BLOB_HOST)]
    assert len(blob) == 1 and "authorization" not in {k.lower() for k in blob[0].headers}


def test_logs_are_not_available_while_the_job_runs() -> None:
    with FakeHub(waiting_world()) as hub:
        assert call(hub, "GET", "/repos/acme/widgets/actions/jobs/301/logs")[0] == 404
        job = call(hub, "GET", "/repos/acme/widgets/actions/jobs/301")[2]
        assert job["status"] == "queued" and job["conclusion"] is None


def test_timeline_moves_one_step_per_poll() -> None:
    with FakeHub(waiting_world(fail_at=3, finish_at=4)) as hub:
        def states() -> dict[str, str | None]:
            pr = gql(hub, POLL, n=7)["data"]["repository"]["pullRequest"]
            return {n["name"]: n["conclusion"] or n["status"] for n in pr["statusCheckRollup"]["contexts"]["nodes"]}

        assert states() == {"pytest": "QUEUED", "jest": "QUEUED", "lint": "IN_PROGRESS"}
        assert states() == {"pytest": "IN_PROGRESS", "jest": "IN_PROGRESS", "lint": "IN_PROGRESS"}
        assert states()["pytest"] == "FAILURE"
        assert states() == {"pytest": "FAILURE", "jest": "FAILURE", "lint": "SUCCESS"}
        assert states() == {"pytest": "FAILURE", "jest": "FAILURE", "lint": "SUCCESS"}


def test_new_head_mid_wait() -> None:
    with FakeHub(stale_world()) as hub:
        heads = [gql(hub, POLL, n=7)["data"]["repository"]["pullRequest"]["headRefOid"] for _ in range(4)]
        assert heads[:2] == ["a" * 40] * 2 and heads[2:] == [NEW_HEAD] * 2


def test_steps_derived_from_a_raw_log() -> None:
    steps = derive_steps((ROOT / "fixtures/logs/pytest/single_failure.log").read_bytes())
    names = [s["name"] for s in steps]
    assert names[0] == "Set up job" and "Run pytest --color=yes" in names and names[-1] == "Complete job"
    failed = [s for s in steps if s["conclusion"] == "failure"]
    assert [s["name"] for s in failed] == ["Run pytest --color=yes"]
    assert [s["number"] for s in steps] == list(range(1, len(steps) + 1))


@pytest.mark.parametrize(("ci", "message"), [
    ({"runs": [{"log": "fixtures/logs/go/plain_single.log"}]}, "'check' (a check name) or 'check_id' is required"),
    ({"runs": [{"check": "x", "log": "no/such.log"}]}, "no file no/such.log"),
    ({"runs": [{"check": "x", "colour": "red"}]}, "unknown key(s) colour"),
    ({"timeline": [{"update": {}}]}, "at_poll: a poll number >= 1 is required"),
])
def test_scenario_errors(ci: dict, message: str) -> None:
    world = failing_world()
    world["repositories"][0]["pull_requests"][0]["ci"] = ci
    with pytest.raises(ScenarioError, match="ci") as err:
        FakeHub(world)
    assert message in str(err.value)


def _check_run_ids(hub: FakeHub) -> dict[str, str]:
    q = "query{ repository(owner:\"acme\",name:\"widgets\"){ pullRequest(number:7){ statusCheckRollup { " \
        "contexts(first:100){ nodes { ... on CheckRun { id name } } } } } } }"
    nodes = gql(hub, q)["data"]["repository"]["pullRequest"]["statusCheckRollup"]["contexts"]["nodes"]
    return {n["name"]: n["id"] for n in nodes if n}


def test_check_run_steps_and_annotations_are_the_rest_data() -> None:
    """nodes(ids:) on check-run ids serves the steps GET …/actions/jobs/{id} lists and the annotations
    GET …/check-runs/{id}/annotations lists, in GraphQL's shape; an unknown id is null with NOT_FOUND."""
    with FakeHub(annotated_world()) as hub:
        ids = _check_run_ids(hub)
        body = gql(hub, load_query("check_run_details"), ids=[ids["unit"], ids["buildkite/integration"], "CR_nope"])
        unit, buildkite, missing = body["data"]["nodes"]
        rest_job = call(hub, "GET", "/repos/acme/widgets/actions/jobs/201")[2]
        assert [(s["number"], s["name"], (s["conclusion"] or "").lower(), s["startedAt"], s["completedAt"])
                for s in unit["steps"]["nodes"]] == [
            (s["number"], s["name"], s["conclusion"], s["started_at"], s["completed_at"]) for s in rest_job["steps"]]
        rest_notes = call(hub, "GET", "/repos/acme/widgets/check-runs/201/annotations")[2]
        got = unit["annotations"]
        assert got["totalCount"] == len(rest_notes) == 4 and not got["pageInfo"]["hasNextPage"]
        assert [(a["path"], a["location"]["start"]["line"], a["location"]["end"]["line"],
                 a["annotationLevel"].lower(), a["title"], a["message"]) for a in got["nodes"]] == [
            (a["path"], a["start_line"], a["end_line"], a["annotation_level"], a["title"], a["message"])
            for a in rest_notes]
        assert buildkite["steps"]["nodes"] == [] and missing is None  # another app's check run has no job steps
        assert [(e["type"], e["path"]) for e in body["errors"]] == [("NOT_FOUND", ["nodes", 2])]
        more = gql(hub, load_query("check_run_more"), id=ids["unit"], withSteps=False, withAnnotations=True,
                   annotationsAfter=got["pageInfo"]["endCursor"])
        assert more["data"]["node"]["annotations"]["nodes"] == [] and "steps" not in more["data"]["node"]
        assert hub.schema_violations == [] and hub.unhandled == [] and hub.errors == []


def test_a_refused_field_is_null_with_a_typed_error() -> None:
    with FakeHub(failing_world()) as hub:
        ids = _check_run_ids(hub)
        hub.add_fault(Fault(match="graphql:CheckRunDetails", kind="graphql_field_refused",
                            body={"field": "annotations"}))
        body = gql(hub, load_query("check_run_details"), ids=[ids["pytest"]])
        node = body["data"]["nodes"][0]
        assert node["annotations"] is None and node["steps"]["nodes"][3]["conclusion"] == "FAILURE"
        assert [(e["type"], e["path"]) for e in body["errors"]] == [("FORBIDDEN", ["nodes", 0, "annotations"])]
