"""fakehub's workflow runs, attempts, base-branch runs and artifacts (ext_ci_runs): every route answers what
GitHub's REST docs describe and validates against the pinned OpenAPI schemas; artifact zips come through a
signed redirect like job logs."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from tests.e2e.ci_worlds import history_world, reports_world
from tests.fakehub import FakeHub, ScenarioError
from tests.fakehub.ext_ci import BLOB_HOST
from tests.fakehub.ext_ci_runs import ROUTES, workflow_id
from tests.fakehub.test_fakehub_unit import call

ROOT = Path(__file__).resolve().parents[2]
R = "/repos/acme/widgets"


def test_runs_attempts_and_base_branch_runs() -> None:
    with FakeHub(history_world()) as hub:
        status, _, run = call(hub, "GET", f"{R}/actions/runs/9001")
        assert status == 200 and run["run_attempt"] == 2 and run["head_branch"] == "fix-invoices"
        assert run["workflow_id"] == workflow_id("acme", "widgets", "CI") and run["event"] == "pull_request"
        _, _, jobs = call(hub, "GET", f"{R}/actions/runs/9001/attempts/1/jobs")
        assert {j["name"]: j["conclusion"] for j in jobs["jobs"]} == {"unit": "failure", "integration": "failure",
                                                                      "e2e": "success"}
        _, _, latest = call(hub, "GET", f"{R}/actions/runs/9001/attempts/2/jobs")  # the latest: the PR's checks
        assert {j["id"] for j in latest["jobs"]} == {801, 802, 803}
        assert call(hub, "GET", f"{R}/actions/runs/9001/attempts/3/jobs")[0] == 404
        wid = run["workflow_id"]
        _, _, runs = call(hub, "GET", f"{R}/actions/workflows/{wid}/runs?branch=main&status=completed")
        assert [r["id"] for r in runs["workflow_runs"]] == [8002, 8001, 7990]  # newest first
        _, _, pushes = call(hub, "GET", f"{R}/actions/workflows/{wid}/runs?branch=main&event=push")
        assert [r["id"] for r in pushes["workflow_runs"]] == [8001, 7990]
        assert call(hub, "GET", f"{R}/actions/workflows/{wid}/runs?branch=other")[2]["total_count"] == 0
        _, _, base_jobs = call(hub, "GET", f"{R}/actions/runs/8001/jobs")
        assert {j["name"]: j["conclusion"] for j in base_jobs["jobs"]} == {"unit": "failure", "integration": "success",
                                                                           "e2e": "success"}
        status, headers, _ = call(hub, "GET", f"{R}/actions/jobs/8011/logs")  # a base job's log
        assert status == 302
        status, _, log = call(hub, "GET", headers["Location"], headers={"Authorization": ""})
        assert status == 200 and b"FAILED tests/test_tax.py::test_rate" in log
        assert call(hub, "GET", f"{R}/actions/runs/8001")[2]["conclusion"] == "failure"
        assert call(hub, "GET", f"{R}/actions/runs/424242")[0] == 404
        assert call(hub, "GET", f"{R}/actions/runs/9001/artifacts")[2] == {"total_count": 0, "artifacts": []}
        assert hub.schema_violations == [] and hub.unhandled == [] and hub.errors == []


def test_artifacts_are_zips_behind_a_signed_redirect() -> None:
    with FakeHub(reports_world()) as hub:
        _, _, listed = call(hub, "GET", f"{R}/actions/runs/9001/artifacts")
        names = [a["name"] for a in listed["artifacts"]]
        assert names == ["evil-junit", "test-results-unit", "web-ctrf-report", "dotnet-test-results", "docs-coverage"]
        unit = listed["artifacts"][1]
        status, headers, _ = call(hub, "GET", f"{R}/actions/artifacts/{unit['id']}/zip")
        assert status == 302 and headers["Location"].startswith(f"http://{BLOB_HOST}/artifacts/acme/widgets/")
        status, headers, body = call(hub, "GET", headers["Location"], headers={"Authorization": ""})
        assert status == 200 and headers["Content-Type"] == "application/zip" and len(body) == unit["size_in_bytes"]
        with zipfile.ZipFile(io.BytesIO(body)) as zf:
            assert zf.read("reports/junit.xml") == (ROOT / "fixtures/reports/pytest_junit.xml").read_bytes()
        assert call(hub, "GET", f"http://{BLOB_HOST}/artifacts/acme/widgets/{unit['id']}?sig=0")[0] == 403
        assert call(hub, "GET", f"{R}/actions/artifacts/{unit['id']}/tar")[0] == 404
        assert call(hub, "GET", f"{R}/actions/artifacts/1/zip")[0] == 404
        hub.world.pull_request("acme/widgets", 7)["ci"]["artifacts"][1]["expired"] = True
        assert call(hub, "GET", f"{R}/actions/artifacts/{unit['id']}/zip")[0] == 410
        assert hub.schema_violations == [] and hub.unhandled == [] and hub.errors == []
        served = {r.route for r in hub.requests if r.route}
    assert {"GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
            "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}"} <= served <= set(ROUTES) | {
        "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs"}


@pytest.mark.parametrize("bad, message", [
    ({"attempts": [{"jobs": []}]}, "attempt number"),
    ({"base_runs": [{"workflow": "CI"}]}, "'id' and 'workflow' are required"),
    ({"base_runs": [{"id": 1, "workflow": "CI", "jobs": [{"name": "x"}]}]}, "'name' and 'id' are required"),
    ({"artifacts": [{"files": []}]}, "name is required"),
    ({"artifacts": [{"name": "x", "files": [{"path": "a.xml", "file": "no/such.xml"}]}]}, "no file no/such.xml"),
    ({"artifacts": [{"name": "x", "colour": 1}]}, "colour"),
])
def test_bad_scenarios_are_named(bad: dict, message: str) -> None:
    scenario = history_world()
    scenario["repositories"][0]["pull_requests"][0]["ci"].update(bad)
    with pytest.raises(ScenarioError, match=message):
        FakeHub(scenario)
