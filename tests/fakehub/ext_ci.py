"""fakehub: GitHub Actions jobs, job logs, check-run annotations and CI that moves while you poll
(scenario key ``ci`` on a pull request; documented in fixtures/scenarios/README.md).

The checks themselves are ext_merge's ``checks``. ``ci.runs`` adds, per check run, the Actions job (steps
with times, derived from the log's ``##[group]Run`` markers when not given), its raw log and its
annotations. ``ci.timeline`` changes the world as the PR is polled: a *poll* is one GraphQL request that
reads the pull request; event ``at_poll: N`` is applied before the N-th poll is answered.

REST served (ext_ci_rest.py): ``GET /repos/{o}/{r}/actions/jobs/{job_id}``, ``…/actions/jobs/{job_id}/logs`` (302 to a
short-lived loopback "blob" URL that gh follows without sending the token, answered with the raw log; 404
while the job runs) and ``GET /repos/{o}/{r}/check-runs/{check_run_id}/annotations``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from . import spec as spec_mod
from .spec import ScenarioError, check

REPO_ROOT = Path(__file__).resolve().parents[2]
BLOB_HOST = "blob.actions.githubusercontent.localhost"
_TS = re.compile(r"^\ufeff?(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?Z ?(.*)$")

SPEC: dict[str, dict[str, Any]] = {
    "ci": {"runs": list, "timeline": list, "polls": int, "attempts": list, "base_runs": list,
           "artifacts": list},  # attempts, base_runs, artifacts: ext_ci_runs
    "run": {"check": str, "check_id": int, "steps": list, "log": str, "log_text": str, "log_status": int,
            "annotations": list},
    "annotation": {"path": str, "start_line": int, "end_line": int, "start_column": int, "end_column": int,
                   "annotation_level": str, "title": str, "message": str, "raw_details": str},
    "event": {"at_poll": int, "head_sha": str, "update": dict, "add": list, "replace": list},
}
spec_mod.SPEC.update({f"ci.{kind}": keys for kind, keys in SPEC.items()})


# ------------------------------------------------------------------ scenario
def normalize(pr: dict[str, Any], where: str) -> None:
    """Check ``pr["ci"]`` (after ext_merge normalized ``pr["checks"]``) and fill its defaults."""
    ci = check(pr.get("ci") or {}, "ci.ci", f"{where}.ci")
    runs = []
    for i, run in enumerate(ci.get("runs") or []):
        w = f"{where}.ci.runs[{i}]"
        run = check(run, "ci.run", w)
        if not run.get("check") and not run.get("check_id"):
            raise ScenarioError(f"{w}: 'check' (a check name) or 'check_id' is required")
        if run.get("log") and not (REPO_ROOT / run["log"]).is_file():
            raise ScenarioError(f"{w}.log: no file {run['log']} (paths are relative to the repository root)")
        run["annotations"] = [check(a, "ci.annotation", f"{w}.annotations[{j}]")
                              for j, a in enumerate(run.get("annotations") or [])]
        runs.append(run)
    events = [check(e, "ci.event", f"{where}.ci.timeline[{i}]") for i, e in enumerate(ci.get("timeline") or [])]
    for i, e in enumerate(events):
        if not isinstance(e.get("at_poll"), int) or e["at_poll"] < 1:
            raise ScenarioError(f"{where}.ci.timeline[{i}].at_poll: a poll number >= 1 is required")
    from . import ext_ci_runs

    pr["ci"] = {"runs": runs, "timeline": sorted(events, key=lambda e: e["at_poll"]), "polls": ci.get("polls") or 0}
    ext_ci_runs.normalize(pr, pr["ci"], ci, where)


def _new_checks(pr: dict[str, Any], checks: list[dict[str, Any]], first_index: int) -> list[dict[str, Any]]:
    from .ext_merge import normalize_pull

    base = pr["number"] * 100 + first_index
    temp = {"number": pr["number"], "created_at": pr["created_at"],
            "checks": [{**c, "id": c.get("id") or 7_000_001 + base + i} for i, c in enumerate(checks)]}
    normalize_pull(temp, "ci.timeline", lambda login: login)
    return temp["checks"]  # type: ignore[no-any-return]


def _apply(pr: dict[str, Any], event: dict[str, Any]) -> None:
    if event.get("head_sha"):
        pr["head_sha"] = event["head_sha"]
    if event.get("replace") is not None:
        pr["checks"] = _new_checks(pr, event["replace"], 50)
    if event.get("add"):
        pr["checks"] = pr["checks"] + _new_checks(pr, event["add"], len(pr["checks"]) + 60)
    for name, changes in (event.get("update") or {}).items():
        targets = [c for c in pr["checks"] if c["name"] == name]
        if not targets:
            raise ScenarioError(f"ci.timeline: no check named {name!r} to update")
        for key, value in changes.items():
            if key not in ("status", "conclusion", "state", "started_at", "completed_at", "title", "description"):
                raise ScenarioError(f"ci.timeline: cannot update {key!r} of check {name!r}")
            targets[-1][key] = value


def advance(views: Any, pr: dict[str, Any]) -> None:
    """Count one poll per GraphQL request that reads this PR, applying the timeline's events for it."""
    seen = views.__dict__.setdefault("_ci_polled", set())
    if pr["node_id"] in seen or "ci" not in pr:
        return
    seen.add(pr["node_id"])
    ci = pr["ci"]
    ci["polls"] += 1
    for event in ci["timeline"]:
        if event["at_poll"] == ci["polls"]:
            _apply(pr, event)


def pr_fields(views: Any, repo: dict[str, Any], pr: dict[str, Any]) -> dict[str, Any]:
    """Extra GraphQL fields of a PullRequest view: the head, after the timeline moved it."""
    with views.world.lock:
        advance(views, pr)
    return {"headRefOid": pr["head_sha"]}


# ------------------------------------------------------------------ jobs and logs
def find_check(world: Any, owner: str, name: str, check_id: int) -> tuple[dict, dict, dict] | None:
    repo = world.repo(owner, name)
    for pr in repo["pull_requests"] if repo else []:
        for c in pr.get("checks") or []:
            if c.get("kind") == "check_run" and c["id"] == check_id:
                return repo, pr, c
    return None


def run_of(pr: dict[str, Any], c: dict[str, Any]) -> dict[str, Any] | None:
    runs = (pr.get("ci") or {}).get("runs") or []
    by_id = [r for r in runs if r.get("check_id") == c["id"]]
    return (by_id or [r for r in runs if r.get("check") == c["name"] and not r.get("check_id")] or [None])[-1]


def log_bytes(run: dict[str, Any] | None) -> bytes:
    if run is None:
        return b""
    if run.get("log"):
        return (REPO_ROOT / run["log"]).read_bytes()
    return str(run.get("log_text") or "").encode()


def derive_steps(log: bytes) -> list[dict[str, Any]]:
    """Steps as the jobs API would report them, from the ``##[group]Run`` markers of a raw Actions log."""
    steps: list[dict[str, Any]] = []
    post = False

    def start(name: str, ts: str) -> None:
        steps.append({"name": name, "status": "completed", "conclusion": "success", "number": len(steps) + 1,
                      "started_at": ts + "Z", "completed_at": ts + "Z"})

    failed = False
    for raw in log.decode("utf-8", "replace").splitlines():
        m = _TS.match(raw)
        if not m:
            continue
        ts, body = m[1], m[2]
        if not steps:
            start("Set up job", ts)
        elif body.startswith("##[group]Run ") and not post:
            start(body[len("##[group]"):].strip(), ts)
        elif body.startswith("Post job cleanup.") and not post:
            post = True
            start("Post job cleanup", ts)
        elif body.startswith("Cleaning up orphan processes") and steps[-1]["name"] != "Complete job":
            start("Complete job", ts)
        step = steps[-1]
        step["completed_at"] = ts + "Z"
        if body.startswith("##[error]") and not post and not failed:
            cancelled = "canceled" in body or "cancelled" in body
            step["conclusion"] = "cancelled" if cancelled else "failure"
            failed = True
    return steps


def signature(owner: str, name: str, job_id: int) -> str:
    return hashlib.sha256(f"fakehub-blob:{owner.lower()}/{name.lower()}/{job_id}".encode()).hexdigest()[:32]


def serve_blob(world: Any, host: str, path: str, query: str) -> tuple[int, dict[str, str], bytes]:
    """The "blob storage" a job-log redirect points at: no token needed, a signature in the URL."""
    from .ext_ci_runs import find_base_job, serve_artifact_blob

    sig = dict(parse_qsl(query)).get("sig")
    art = re.fullmatch(r"/artifacts/([^/]+)/([^/]+)/(\d+)", path)
    if art:
        return serve_artifact_blob(world, art[1], art[2], int(art[3]), sig)
    m = re.fullmatch(r"/job-logs/([^/]+)/([^/]+)/(\d+)", path)
    with world.lock:
        found = find_check(world, m[1], m[2], int(m[3])) if m else None
        base = find_base_job(world, m[1], m[2], int(m[3])) if m and found is None else None
        if (found is None and base is None) or sig != signature(m[1], m[2], int(m[3])):  # type: ignore[index]
            body = b'<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>'
            return 403, {"Content-Type": "application/xml"}, body
        data = log_bytes(run_of(found[1], found[2])) if found else log_bytes(base[2])  # type: ignore[index]
    return 200, {"Content-Type": "text/plain; charset=utf-8"}, data


def is_blob(target: str, host: str) -> bool:
    return (host or urlsplit(target).netloc).split(":")[0] == BLOB_HOST


# ------------------------------------------------------------------ GraphQL: CheckRun.steps / .annotations
def steps_of(pr: dict[str, Any], c: dict[str, Any]) -> list[dict[str, Any]]:
    """A check run's steps as the jobs API reports them (given by the scenario, else derived from the log);
    none for a check run of another app (it is not an Actions job)."""
    if c.get("app") != "github-actions":
        return []
    run = run_of(pr, c)
    return run["steps"] if run and run.get("steps") is not None else derive_steps(log_bytes(run))


def annotations_of(pr: dict[str, Any], c: dict[str, Any]) -> list[dict[str, Any]]:
    return list((run_of(pr, c) or {}).get("annotations") or [])


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else None


def check_run_fields(views: Any, repo: dict[str, Any], pr: dict[str, Any], c: dict[str, Any]) -> dict[str, Any]:
    """``CheckRun.steps`` and ``CheckRun.annotations``: the data ``GET …/actions/jobs/{id}`` (``steps``) and
    ``GET …/check-runs/{id}/annotations`` serve (ext_ci_rest.py), in GraphQL's shape."""
    from .gql_views import connection

    web = views.world.web(repo["owner"], repo["name"], "blob", pr["head_sha"])

    def step(s: dict[str, Any]) -> dict[str, Any]:
        return {"__typename": "CheckStep", "number": s["number"], "name": s["name"],
                "status": _upper(s.get("status")) or "COMPLETED", "conclusion": _upper(s.get("conclusion")),
                "startedAt": s.get("started_at"), "completedAt": s.get("completed_at"), "externalId": None,
                "secondsToCompletion": None}

    def annotation(a: dict[str, Any]) -> dict[str, Any]:
        path = a.get("path") or ".github"
        line = a.get("start_line") or 1
        return {"__typename": "CheckAnnotation", "path": path, "blobUrl": f"{web}/{path}", "databaseId": None,
                "location": {"start": {"line": line, "column": a.get("start_column")},
                             "end": {"line": a.get("end_line") or line, "column": a.get("end_column")}},
                "annotationLevel": _upper(a.get("annotation_level") or "failure"), "title": a.get("title"),
                "message": a.get("message"), "rawDetails": a.get("raw_details")}

    def steps(info: Any, number: int | None = None, **page: Any) -> dict[str, Any]:
        items = [s for s in steps_of(pr, c) if number is None or s["number"] == number]
        return connection(items, step, **page)

    return {"steps": steps,
            "annotations": lambda info, **page: connection(annotations_of(pr, c), annotation, **page)}


def locate_check_run(views: Any, node_id_: str) -> dict[str, Any] | None:
    """The CheckRun view of a check run's GraphQL id (for ``node`` / ``nodes``), or None."""
    from .ext_merge import _check_view
    from .spec import node_id

    for repo in views.world.repositories:
        for pr in repo["pull_requests"]:
            for c in pr.get("checks") or []:
                if c.get("kind") == "check_run" and node_id("CR", c["id"]) == node_id_:
                    return _check_view(views, repo, pr, c)
    return None
