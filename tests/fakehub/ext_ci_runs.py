"""fakehub: workflow runs, their earlier attempts, the base branch's runs and run artifacts (zip), for
get_failing_tests' test reports and history verdicts (scenario keys ``ci.attempts``, ``ci.base_runs`` and
``ci.artifacts`` of a pull request; documented in fixtures/scenarios/README.md).

REST served, as GitHub's REST docs describe them (https://docs.github.com/en/rest/actions/workflow-runs,
…/actions/workflow-jobs, …/actions/artifacts):

- ``GET …/actions/runs/{run_id}``: the PR's run (the ``run_id`` of its checks; ``run_attempt`` = 1 + the
  attempts listed in ``ci.attempts``) or a base run;
- ``GET …/actions/runs/{run_id}/jobs`` (latest attempt) and ``…/runs/{run_id}/attempts/{n}/jobs``;
- ``GET …/actions/workflows/{workflow_id}/runs?branch=&status=&event=``: newest first;
- ``GET …/actions/runs/{run_id}/artifacts`` and ``GET …/actions/artifacts/{id}/zip``: 302 to a signed
  loopback "blob" URL (GitHub: "Look for Location: in the response header … This URL expires after 1
  minute") that gh follows without the token and that answers the zip (``application/zip``); 410 for an
  expired artifact.

Base runs' jobs have logs too (``GET …/actions/jobs/{id}/logs``, served by ext_ci_rest through
:func:`find_base_job`).
"""

from __future__ import annotations

import hashlib
import io
import zipfile
import zlib
from pathlib import Path
from typing import Any

from . import rest
from . import spec as spec_mod
from .spec import ScenarioError, check, node_id

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC: dict[str, dict[str, Any]] = {
    "attempt": {"run_id": int, "attempt": int, "jobs": list},
    "base_run": {"id": int, "workflow": str, "branch": str, "event": str, "head_sha": str, "conclusion": str,
                 "created_at": str, "jobs": list},
    "job": {"name": str, "id": int, "conclusion": str, "log": str, "log_text": str, "log_status": int},
    "artifact": {"id": int, "run_id": int, "name": str, "files": list, "expired": bool, "zip_file": str,
                 "size_in_bytes": int},
    "artifact_file": {"path": str, "file": str, "text": str},
}
spec_mod.SPEC.update({f"ci.{kind}": keys for kind, keys in SPEC.items()})


def _file(path: str, where: str) -> None:
    if not (REPO_ROOT / path).is_file():
        raise ScenarioError(f"{where}: no file {path} (paths are relative to the repository root)")


def normalize(pr: dict[str, Any], ci: dict[str, Any], raw: dict[str, Any], where: str) -> None:
    """Check and fill ``ci.attempts``, ``ci.base_runs`` and ``ci.artifacts`` (``raw``: the scenario's ``ci``)."""
    run_ids = [c.get("run_id") for c in pr.get("checks") or [] if c.get("run_id")]
    default_run = run_ids[0] if run_ids else None
    attempts = []
    for i, a in enumerate(raw.get("attempts") or []):
        w = f"{where}.ci.attempts[{i}]"
        a = check(a, "ci.attempt", w)
        a.setdefault("run_id", default_run)
        if not a.get("attempt"):
            raise ScenarioError(f"{w}.attempt: the attempt number (1 for the first run) is required")
        a["jobs"] = [_job(j, f"{w}.jobs[{k}]") for k, j in enumerate(a.get("jobs") or [])]
        attempts.append(a)
    bases = []
    for i, b in enumerate(raw.get("base_runs") or []):
        w = f"{where}.ci.base_runs[{i}]"
        b = check(b, "ci.base_run", w)
        if not b.get("id") or not b.get("workflow"):
            raise ScenarioError(f"{w}: 'id' and 'workflow' are required")
        b.setdefault("branch", pr["base_ref"])
        b.setdefault("event", "push")
        b.setdefault("head_sha", hashlib.sha1(f"base-{b['id']}".encode()).hexdigest())
        b.setdefault("created_at", "2026-11-29T08:00:00Z")
        b["jobs"] = [_job(j, f"{w}.jobs[{k}]") for k, j in enumerate(b.get("jobs") or [])]
        b.setdefault("conclusion", "failure" if any(j["conclusion"] == "failure" for j in b["jobs"]) else "success")
        bases.append(b)
    artifacts = []
    for i, a in enumerate(raw.get("artifacts") or []):
        w = f"{where}.ci.artifacts[{i}]"
        a = check(a, "ci.artifact", w)
        if not a.get("name"):
            raise ScenarioError(f"{w}.name is required")
        a.setdefault("run_id", default_run)
        a.setdefault("id", 6_000_000 + pr["number"] * 100 + i)
        a["files"] = [check(f, "ci.artifact_file", f"{w}.files[{k}]") for k, f in enumerate(a.get("files") or [])]
        for k, f in enumerate(a["files"]):
            if f.get("file"):
                _file(f["file"], f"{w}.files[{k}].file")
        if a.get("zip_file"):
            _file(a["zip_file"], f"{w}.zip_file")
        artifacts.append(a)
    ci.update(attempts=attempts, base_runs=bases, artifacts=artifacts)


def _job(j: dict[str, Any], where: str) -> dict[str, Any]:
    j = check(j, "ci.job", where)
    if not j.get("name") or not j.get("id"):
        raise ScenarioError(f"{where}: 'name' and 'id' are required")
    j.setdefault("conclusion", "success")
    if j.get("log"):
        _file(j["log"], f"{where}.log")
    return j


def workflow_id(owner: str, name: str, workflow: str) -> int:
    return 100_000 + zlib.crc32(f"{owner.lower()}/{name.lower()}/{workflow}".encode()) % 900_000


def zip_bytes(a: dict[str, Any]) -> bytes:
    if a.get("zip_file"):
        return (REPO_ROOT / a["zip_file"]).read_bytes()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in a["files"]:
            data = (REPO_ROOT / f["file"]).read_bytes() if f.get("file") else str(f.get("text") or "").encode()
            zf.writestr(f["path"], data)
    return buf.getvalue()


# ------------------------------------------------------------------ lookups
def _repo(ctx: rest.Ctx) -> dict[str, Any]:
    repo = ctx.world.repo(ctx.params["owner"], ctx.params["repo"])
    if repo is None:
        raise rest.not_found()
    return repo


def _pr_run(repo: dict[str, Any], run_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    for pr in repo["pull_requests"]:
        checks = [c for c in pr.get("checks") or [] if c.get("run_id") == run_id and c.get("kind") == "check_run"]
        if checks:
            return pr, checks
    return None


def _base_run(repo: dict[str, Any], run_id: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
    for pr in repo["pull_requests"]:
        for b in (pr.get("ci") or {}).get("base_runs") or []:
            if b["id"] == run_id:
                return pr, b
    return None


def find_base_job(world: Any, owner: str, name: str, job_id: int) -> tuple[dict, dict, dict] | None:
    """(repository, base run, job) of a base-branch run's job, or None."""
    repo = world.repo(owner, name)
    for pr in repo["pull_requests"] if repo else []:
        for b in (pr.get("ci") or {}).get("base_runs") or []:
            for j in b["jobs"]:
                if j["id"] == job_id:
                    return repo, b, j
    return None


def _attempts(pr: dict[str, Any], run_id: int) -> list[dict[str, Any]]:
    return [a for a in (pr.get("ci") or {}).get("attempts") or [] if a["run_id"] == run_id]


# ------------------------------------------------------------------ objects
def run_object(ctx: rest.Ctx, repo: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    api = ctx.objects.repo_api(repo)
    full = (repo["owner"], repo["name"])
    rid = run["id"]
    repo_obj = ctx.objects.repository(repo)
    return {
        "id": rid, "name": run["workflow"], "node_id": node_id("WFR", rid), "head_branch": run["branch"],
        "head_sha": run["head_sha"], "path": f".github/workflows/{run['workflow'].lower()}.yml",
        "display_title": run.get("title") or run["workflow"], "run_number": run.get("run_number", 1),
        "run_attempt": run.get("run_attempt", 1), "event": run["event"], "status": run["status"],
        "conclusion": run["conclusion"], "workflow_id": workflow_id(*full, run["workflow"]),
        "url": f"{api}/actions/runs/{rid}", "html_url": ctx.world.web(*full, "actions", "runs", rid),
        "created_at": run["created_at"], "updated_at": run["created_at"], "run_started_at": run["created_at"],
        "jobs_url": f"{api}/actions/runs/{rid}/jobs", "logs_url": f"{api}/actions/runs/{rid}/logs",
        "check_suite_url": f"{api}/check-suites/{rid}", "cancel_url": f"{api}/actions/runs/{rid}/cancel",
        "rerun_url": f"{api}/actions/runs/{rid}/rerun", "artifacts_url": f"{api}/actions/runs/{rid}/artifacts",
        "workflow_url": f"{api}/actions/workflows/{workflow_id(*full, run['workflow'])}", "pull_requests": [],
        "head_commit": None, "head_repository": repo_obj, "repository": repo_obj,
    }


def _pr_run_view(pr: dict[str, Any], checks: list[dict[str, Any]], run_id: int) -> dict[str, Any]:
    from .ext_merge import check_state

    states = [check_state(c) for c in checks]
    done = all(c["status"] == "COMPLETED" for c in checks)
    conclusion = None if not done else "failure" if any(s in ("FAILURE", "TIMED_OUT") for s in states) else "success"
    attempts = _attempts(pr, run_id)
    return {"id": run_id, "workflow": checks[0].get("workflow") or "CI", "branch": pr["head_ref"],
            "head_sha": pr["head_sha"], "event": checks[0].get("event") or "pull_request",
            "status": "completed" if done else "in_progress", "conclusion": conclusion,
            "created_at": min(c["started_at"] for c in checks if c.get("started_at")) if any(
                c.get("started_at") for c in checks) else pr["created_at"],
            "run_attempt": 1 + max([a["attempt"] for a in attempts], default=0)}


def _job_object(ctx: rest.Ctx, repo: dict[str, Any], run: dict[str, Any], j: dict[str, Any],
                attempt: int) -> dict[str, Any]:
    api = ctx.objects.repo_api(repo)
    full = (repo["owner"], repo["name"])
    t = run["created_at"]
    return {"id": j["id"], "run_id": run["id"], "run_url": f"{api}/actions/runs/{run['id']}", "run_attempt": attempt,
            "node_id": node_id("CR", j["id"]), "head_sha": run["head_sha"], "url": f"{api}/actions/jobs/{j['id']}",
            "html_url": ctx.world.web(*full, "actions", "runs", run["id"], "job", j["id"]), "status": "completed",
            "conclusion": j["conclusion"], "created_at": t, "started_at": t, "completed_at": t, "name": j["name"],
            "steps": [], "check_run_url": f"{api}/check-runs/{j['id']}", "labels": ["ubuntu-latest"],
            "runner_id": 1, "runner_name": "GitHub Actions 1", "runner_group_id": 2,
            "runner_group_name": "GitHub Actions", "workflow_name": run["workflow"], "head_branch": run["branch"]}


# ------------------------------------------------------------------ routes
def get_run(ctx: rest.Ctx) -> rest.RestResponse:
    repo, run_id = _repo(ctx), int(ctx.params["run_id"])
    found = _pr_run(repo, run_id)
    if found is not None:
        return rest.RestResponse(200, run_object(ctx, repo, _pr_run_view(*found, run_id)))
    base = _base_run(repo, run_id)
    if base is None:
        raise rest.not_found()
    return rest.RestResponse(200, run_object(ctx, repo, {**base[1], "status": "completed"}))


def _jobs_page(ctx: rest.Ctx, jobs: list[dict[str, Any]]) -> rest.RestResponse:
    page, headers = ctx.paginate(jobs)
    return rest.RestResponse(200, {"total_count": len(jobs), "jobs": page}, headers)


def list_run_jobs(ctx: rest.Ctx) -> rest.RestResponse:
    from .ext_ci_rest import job_object

    repo, run_id = _repo(ctx), int(ctx.params["run_id"])
    found = _pr_run(repo, run_id)
    if found is not None:
        pr, checks = found
        attempt = 1 + len(_attempts(pr, run_id))
        return _jobs_page(ctx, [{**job_object(ctx, repo, pr, c), "run_attempt": attempt} for c in checks])
    base = _base_run(repo, run_id)
    if base is None:
        raise rest.not_found()
    b = {**base[1], "status": "completed"}
    return _jobs_page(ctx, [_job_object(ctx, repo, b, j, 1) for j in b["jobs"]])


def list_attempt_jobs(ctx: rest.Ctx) -> rest.RestResponse:
    repo, run_id, n = _repo(ctx), int(ctx.params["run_id"]), int(ctx.params["attempt_number"])
    found = _pr_run(repo, run_id)
    if found is None:
        raise rest.not_found()
    pr, _ = found
    attempt = next((a for a in _attempts(pr, run_id) if a["attempt"] == n), None)
    if attempt is None:
        if n == 1 + len(_attempts(pr, run_id)):
            return list_run_jobs(ctx)
        raise rest.not_found()
    run = {**_pr_run_view(*found, run_id), "status": "completed"}
    return _jobs_page(ctx, [_job_object(ctx, repo, run, j, n) for j in attempt["jobs"]])


def list_workflow_runs(ctx: rest.Ctx) -> rest.RestResponse:
    repo = _repo(ctx)
    wid = ctx.params["workflow_id"]
    q = ctx.query
    runs = []
    for pr in repo["pull_requests"]:
        for b in (pr.get("ci") or {}).get("base_runs") or []:
            if wid in (str(workflow_id(repo["owner"], repo["name"], b["workflow"])),
                       f"{b['workflow'].lower()}.yml"):
                runs.append({**b, "status": "completed"})
    runs = [r for r in runs if (not q.get("branch") or r["branch"] == q["branch"])
            and (not q.get("event") or r["event"] == q["event"])
            and (not q.get("status") or q["status"] in (r["status"], r["conclusion"]))]
    runs = list({r["id"]: r for r in runs}.values())
    runs.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)
    page, headers = ctx.paginate([run_object(ctx, repo, r) for r in runs])
    return rest.RestResponse(200, {"total_count": len(runs), "workflow_runs": page}, headers)


def _artifact_object(ctx: rest.Ctx, repo: dict[str, Any], a: dict[str, Any]) -> dict[str, Any]:
    api = ctx.objects.repo_api(repo)
    found = _pr_run(repo, a["run_id"])
    base = _base_run(repo, a["run_id"]) if found is None else None
    branch, sha = ((found[0]["head_ref"], found[0]["head_sha"]) if found else
                   (base[1]["branch"], base[1]["head_sha"]) if base else ("main", "0" * 40))
    size = a.get("size_in_bytes")
    return {"id": a["id"], "node_id": node_id("MDg", a["id"]), "name": a["name"],
            "size_in_bytes": size if isinstance(size, int) else len(zip_bytes(a)),
            "url": f"{api}/actions/artifacts/{a['id']}",
            "archive_download_url": f"{api}/actions/artifacts/{a['id']}/zip",
            "expired": bool(a.get("expired")), "created_at": "2026-11-30T10:05:00Z",
            "expires_at": "2027-02-28T10:05:00Z", "updated_at": "2026-11-30T10:05:00Z",
            "digest": "sha256:" + hashlib.sha256(zip_bytes(a)).hexdigest(),
            "workflow_run": {"id": a["run_id"], "repository_id": repo["id"], "head_repository_id": repo["id"],
                             "head_branch": branch, "head_sha": sha}}


def _artifacts(repo: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for pr in repo["pull_requests"] for a in (pr.get("ci") or {}).get("artifacts") or []]


def list_run_artifacts(ctx: rest.Ctx) -> rest.RestResponse:
    repo, run_id = _repo(ctx), int(ctx.params["run_id"])
    if _pr_run(repo, run_id) is None and _base_run(repo, run_id) is None:
        raise rest.not_found()
    items = [_artifact_object(ctx, repo, a) for a in _artifacts(repo) if a["run_id"] == run_id]
    page, headers = ctx.paginate(items)
    return rest.RestResponse(200, {"total_count": len(items), "artifacts": page}, headers)


def signature(owner: str, name: str, artifact_id: int) -> str:
    return hashlib.sha256(f"fakehub-artifact:{owner.lower()}/{name.lower()}/{artifact_id}".encode()).hexdigest()[:32]


def download_artifact(ctx: rest.Ctx) -> rest.RestResponse:
    from .ext_ci import BLOB_HOST

    repo, artifact_id = _repo(ctx), int(ctx.params["artifact_id"])
    if ctx.params["archive_format"] != "zip":
        raise rest.not_found()
    a = next((x for x in _artifacts(repo) if x["id"] == artifact_id), None)
    if a is None:
        raise rest.not_found()
    if a.get("expired"):
        raise rest.RestError(410, {"message": "Artifact has expired", "documentation_url": rest.DOCS, "status": "410"})
    owner, name = repo["owner"], repo["name"]
    location = (f"http://{BLOB_HOST}/artifacts/{owner}/{name}/{artifact_id}?sv=2024-08-04"
                f"&sig={signature(owner, name, artifact_id)}")
    return rest.RestResponse(302, "", {"Location": location})


def serve_artifact_blob(world: Any, owner: str, name: str, artifact_id: int,
                        sig: str | None) -> tuple[int, dict, bytes]:
    with world.lock:
        repo = world.repo(owner, name)
        a = next((x for x in _artifacts(repo) if x["id"] == artifact_id), None) if repo else None
        if a is None or sig != signature(owner, name, artifact_id):
            body = b'<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>'
            return 403, {"Content-Type": "application/xml"}, body
        data = zip_bytes(a)
    return 200, {"Content-Type": "application/zip"}, data


ROUTES: dict[str, Any] = {
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}": get_run,
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs": list_run_jobs,
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs": list_attempt_jobs,
    "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs": list_workflow_runs,
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts": list_run_artifacts,
    "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}": download_artifact,
}
