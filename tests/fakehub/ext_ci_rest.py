"""fakehub REST routes for GitHub Actions jobs, job logs and check-run annotations (see ext_ci.py).
Registered into rest.ROUTES by tests/fakehub/rest.py."""

from __future__ import annotations

from typing import Any

from . import rest
from .ext_ci import BLOB_HOST, derive_steps, find_check, log_bytes, run_of, signature
from .spec import node_id

_JOB_STATUS = {"QUEUED": "queued", "IN_PROGRESS": "in_progress", "COMPLETED": "completed", "PENDING": "pending",
               "WAITING": "waiting", "REQUESTED": "requested"}
_JOB_CONCLUSION = {"STARTUP_FAILURE": "failure", "STALE": "cancelled"}  # not in the REST enum


def job_object(ctx: rest.Ctx, repo: dict[str, Any], pr: dict[str, Any], c: dict[str, Any]) -> dict[str, Any]:
    api = ctx.objects.repo_api(repo)
    full = (repo["owner"], repo["name"])
    run = run_of(pr, c)
    steps = run["steps"] if run and run.get("steps") is not None else derive_steps(log_bytes(run))
    conclusion = c.get("conclusion")
    started = c["started_at"]
    return {
        "id": c["id"], "run_id": c["run_id"] or 0, "run_url": f"{api}/actions/runs/{c['run_id'] or 0}",
        "run_attempt": 1, "node_id": node_id("CR", c["id"]), "head_sha": pr["head_sha"],
        "url": f"{api}/actions/jobs/{c['id']}",
        "html_url": c["url"] or ctx.world.web(*full, "actions", "runs", c["run_id"] or 0, "job", c["id"]),
        "status": _JOB_STATUS.get(c["status"], "queued"),
        "conclusion": _JOB_CONCLUSION.get(conclusion, conclusion.lower()) if conclusion else None,
        "created_at": started, "started_at": started, "completed_at": c["completed_at"], "name": c["name"],
        "steps": steps, "check_run_url": f"{api}/check-runs/{c['id']}", "labels": ["ubuntu-latest"],
        "runner_id": 1, "runner_name": "GitHub Actions 1", "runner_group_id": 2,
        "runner_group_name": "GitHub Actions", "workflow_name": c["workflow"], "head_branch": pr["head_ref"],
    }


def _job(ctx: rest.Ctx) -> tuple[dict, dict, dict]:
    found = find_check(ctx.world, ctx.params["owner"], ctx.params["repo"], int(ctx.params["job_id"]))
    if found is None or found[2].get("app") != "github-actions":
        raise rest.not_found()
    return found


def get_job(ctx: rest.Ctx) -> rest.RestResponse:
    return rest.RestResponse(200, job_object(ctx, *_job(ctx)))


def get_job_logs(ctx: rest.Ctx) -> rest.RestResponse:
    from .ext_ci_runs import find_base_job

    base = find_base_job(ctx.world, ctx.params["owner"], ctx.params["repo"], int(ctx.params["job_id"]))
    if base is not None:  # a job of a base-branch run (ext_ci_runs)
        repo, _, j = base
        c, status = {"id": j["id"], "status": "COMPLETED"}, j.get("log_status")
    else:
        repo, pr, c = _job(ctx)
        status = (run_of(pr, c) or {}).get("log_status")
    if c["status"] != "COMPLETED" or status == 404:
        raise rest.not_found()
    if status in (403, 410):
        raise rest.RestError(status, {"message": "Resource not accessible by integration" if status == 403
                                      else "Logs have expired", "documentation_url": rest.DOCS,
                                      "status": str(status)})
    owner, name = repo["owner"], repo["name"]
    sig = signature(owner, name, c["id"])
    location = f"http://{BLOB_HOST}/job-logs/{owner}/{name}/{c['id']}?sv=2024-08-04&sig={sig}"
    return rest.RestResponse(302, "", {"Location": location})


def rerun_job(ctx: rest.Ctx) -> rest.RestResponse:
    """``POST …/actions/jobs/{job_id}/rerun``: 201 with an empty object; GitHub refuses (403) a job whose run
    started more than 30 days ago ("You can re-run … for up to 30 days after the initial run"). The re-run is
    recorded on the check (``reruns``) for tests to see."""
    from datetime import datetime, timedelta, timezone

    c = _job(ctx)[2]
    started = datetime.fromisoformat(str(c["started_at"]).replace("Z", "+00:00"))
    if datetime.now(timezone.utc) - started > timedelta(days=30):
        raise rest.RestError(403, {"message": "Unable to retry this workflow run because it was created over a "
                                   "month ago", "documentation_url": rest.DOCS, "status": "403"})
    c["reruns"] = c.get("reruns", 0) + 1
    return rest.RestResponse(201, {})


def list_annotations(ctx: rest.Ctx) -> rest.RestResponse:
    found = find_check(ctx.world, ctx.params["owner"], ctx.params["repo"], int(ctx.params["check_run_id"]))
    if found is None:
        raise rest.not_found()
    repo, pr, c = found
    run = run_of(pr, c)
    web = ctx.world.web(repo["owner"], repo["name"], "blob", pr["head_sha"])
    items = [{"path": a.get("path") or ".github", "blob_href": f"{web}/{a.get('path') or '.github'}",
              "start_line": a.get("start_line") or 1, "end_line": a.get("end_line") or a.get("start_line") or 1,
              "start_column": a.get("start_column"), "end_column": a.get("end_column"),
              "annotation_level": a.get("annotation_level") or "failure", "title": a.get("title"),
              "message": a.get("message"), "raw_details": a.get("raw_details")}
             for a in (run or {}).get("annotations") or []]
    page, headers = ctx.paginate(items)
    return rest.RestResponse(200, page, headers)


ROUTES: dict[str, Any] = {
    "GET /repos/{owner}/{repo}/actions/jobs/{job_id}": get_job,
    "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs": get_job_logs,
    "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations": list_annotations,
    "POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun": rerun_job,
}
