"""Is a failure the PR's? A ``history`` verdict per failed check and per failing test.

- ``flaky``: the same job on the same head commit passed in another attempt of its workflow run (a re-run),
  or the test failed and then passed on a rerun inside the job (pytest-rerunfailures, nextest retries,
  surefire's ``flakyFailure``, CTRF ``flaky``).
- ``failing_on_base``: the latest completed run of the same workflow on the PR's base branch failed the same
  job (for a test: its log or its test reports, :mod:`pr_agent.ci.base_reports`, name the same test as
  failed). The verdict names that run and its date.
- ``new_in_this_pr``: that base run passed the job (or its job failed, but not on this test).
- ``unknown``: no comparable run (none on the base branch, no job of that name, the job was cancelled or
  skipped there, or its failures could not be read).

Requests, all REST reads through the gh gateway, bounded: per workflow run with a failed job (at most
:data:`MAX_RUNS`) ``GET …/actions/runs/{id}`` (attempt number and workflow id), for a re-run attempt the jobs of
at most :data:`MAX_ATTEMPTS` earlier attempts (``…/runs/{id}/attempts/{n}/jobs``); per workflow
``GET …/actions/workflows/{id}/runs?branch=BASE&status=completed`` and the jobs of the run found there
(``…/runs/{id}/jobs``; when that run failed, its artifact list next to it); and the logs of at most
:data:`MAX_BASE_LOGS` base jobs that failed too and their report artifacts, to compare tests. So a PR whose
failed jobs sit in one run of one workflow costs 3 requests, plus 1 per base job log, plus, when the base run
failed, 1 artifact list and 1 per report artifact of a base job that failed too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pr_agent.ci import base_reports
from pr_agent.ci.analyze import Analysis
from pr_agent.ci.artifacts import same_test
from pr_agent.ci.github import download_log, text_lines
from pr_agent.ci.parsers import parse_log
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.refs import PRRef

MAX_RUNS = 4
MAX_ATTEMPTS = 2
MAX_BASE_LOGS = 4
FAILED = ("failure", "timed_out", "startup_failure")
_NOT_BASE_EVENTS = ("pull_request", "pull_request_target")


@dataclass
class Run:
    run_id: int
    info: dict[str, Any] | None = None
    passed_before: dict[str, int] = field(default_factory=dict)  # job name -> attempt it passed in


@dataclass
class Base:
    run: dict[str, Any] | None = None
    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    why: str = ""
    artifacts: list[dict[str, Any]] | None = None  # a failed base run's report artifacts (base_reports)


def _get(ctx: Context, ref: PRRef, path: str, params: dict[str, Any] | None = None) -> Any:
    """One REST read; None when GitHub refuses it (404/403): the verdict is then unknown, never an error."""
    try:
        return ctx.gh.rest("GET", f"repos/{ref.full_name}/{path}", params=params, hostname=ref.host).json()
    except PrAgentError as err:
        if err.code in ("not_found", "forbidden"):
            return None
        raise


def _jobs(data: Any) -> list[dict[str, Any]]:
    return [j for j in (data or {}).get("jobs") or [] if isinstance(j, dict)] if isinstance(data, dict) else []


def read_run(ctx: Context, ref: PRRef, run_id: int, on_info: Callable[[Run], None] | None = None) -> Run:
    """The run and the jobs that passed in its earlier attempts; ``on_info(run)`` as soon as the run itself is
    read (its workflow's base-branch reads need nothing more)."""
    run = Run(run_id, _get(ctx, ref, f"actions/runs/{run_id}"))
    if on_info is not None:
        on_info(run)
    attempt = (run.info or {}).get("run_attempt")
    if isinstance(attempt, int) and attempt > 1:
        for n in range(attempt - 1, max(0, attempt - 1 - MAX_ATTEMPTS), -1):
            for j in _jobs(_get(ctx, ref, f"actions/runs/{run_id}/attempts/{n}/jobs", {"per_page": 100})):
                if j.get("conclusion") == "success":
                    run.passed_before.setdefault(str(j.get("name")), n)
    return run


def read_base(ctx: Context, ref: PRRef, workflow_id: int, base: str, head_sha: str) -> Base:
    runs = _get(ctx, ref, f"actions/workflows/{workflow_id}/runs",
                {"branch": base, "status": "completed", "per_page": 10, "exclude_pull_requests": "true"})
    items = [r for r in (runs or {}).get("workflow_runs") or [] if isinstance(r, dict)]
    found = next((r for r in items if r.get("event") not in _NOT_BASE_EVENTS and r.get("head_sha") != head_sha),
                 None)
    if found is None:
        return Base(why=f"no completed run of this workflow on {base}")
    jobs_of, artifacts = ctx.gh.map(lambda read: read(), [  # both need only the run's id
        lambda: _get(ctx, ref, f"actions/runs/{int(found['id'])}/jobs", {"per_page": 100}),
        lambda: base_reports.list_base_artifacts(ctx, ref, found)], max_workers=2)
    return Base(found, {str(j.get("name")): j for j in _jobs(jobs_of)}, artifacts=artifacts)


def base_failures(ctx: Context, ref: PRRef, job_id: int) -> list[str] | None:
    """The failing test names in a base job's log (None: not readable)."""
    try:
        raw = download_log(ctx, ref, job_id)
    except PrAgentError as err:
        if err.code in ("not_found", "forbidden", "log_expired", "validation_failed"):
            return None
        raise
    try:
        parsed = parse_log(text_lines(raw))
    finally:
        raw.close()
    return [f.test_name for f in parsed.failures]


def _verdict(verdict: str, reason: str, run: dict[str, Any] | None = None, attempt: int | None = None) -> dict:
    out: dict[str, Any] = {"verdict": verdict, "reason": reason}
    if run is not None:
        out.update(run_id=run.get("id"), run_date=run.get("run_started_at") or run.get("created_at"))
    if attempt is not None:
        out["attempt"] = attempt
    return out


def _when(run: dict[str, Any]) -> str:
    return str(run.get("run_started_at") or run.get("created_at") or "")[:10]


@dataclass
class Gathered:
    """What GitHub said about the failed checks' runs, their earlier attempts and the base branch."""

    runs: dict[int, Run] = field(default_factory=dict)
    bases: dict[int, Base] = field(default_factory=dict)
    base_logs: dict[int, list[str] | None] = field(default_factory=dict)  # base job id -> failing tests
    base_reports: dict[int, list[str]] = field(default_factory=dict)  # base job id -> its reports' failed tests
    base: str = ""
    error: str | None = None  # the error code that stopped the reads (then every verdict is unknown)


def _failed(analyses: list[Analysis]) -> list[Analysis]:
    return [a for a in analyses if a.is_actions and a.check.run_id is not None and a.check.bucket == "failed"]


def gather(ctx: Context, ref: PRRef, analyses: list[Analysis], base: str, head_sha: str,
           pre: Any = None) -> Gathered:
    """The reads behind the verdicts (see the module doc for their bound); needs only the failed checks, so it
    runs while the test reports are read. ``pre`` (a :class:`pr_agent.ci.prefetch.Prefetch`): the reads it
    already started, each used instead of asking again."""
    failed = _failed(analyses)
    run_ids = list(dict.fromkeys(a.check.run_id for a in failed if a.check.run_id is not None))[:MAX_RUNS]
    g = Gathered(base=base)

    def run(i: int) -> Run:
        got = pre.run(i) if pre is not None else None
        return got if got is not None else read_run(ctx, ref, i)

    g.runs = {r.run_id: r for r in ctx.gh.map(run, run_ids, max_workers=4)}
    workflows = list(dict.fromkeys(w for r in g.runs.values()
                                   if isinstance(w := (r.info or {}).get("workflow_id"), int)))

    def base_of(w: int) -> Base:
        got = pre.base_of(w) if pre is not None else None
        return got if got is not None else read_base(ctx, ref, w, base, head_sha)

    g.bases = dict(zip(workflows, ctx.gh.map(base_of, workflows, max_workers=4), strict=True))
    wanted: list[int] = []
    for a in failed:
        job = _base_job(g, a)
        if job and job.get("conclusion") in FAILED and isinstance(job.get("id"), int) and job["id"] not in wanted:
            wanted.append(int(job["id"]))
    if pre is not None:  # the ones already read first: the bound counts requests, whichever were asked
        wanted = [j for j in pre.prefetched_logs() if j in wanted] + [j for j in wanted
                                                                     if j not in pre.prefetched_logs()]
    wanted = wanted[:MAX_BASE_LOGS]

    reports = [p for w, b in g.bases.items() for p in base_reports.picks(
        b.artifacts, b.jobs, _wanted_names(g, failed, w), pre.prefetched_reports() if pre is not None else ())]

    def read(task: tuple[str, Any]) -> list[str] | None:
        kind, item = task
        got = (pre.base_log(item) if kind == "log" else pre.base_report(item[0]["id"])) if pre is not None \
            else MISSING
        if got is not MISSING:
            return got  # type: ignore[no-any-return]
        return base_failures(ctx, ref, item) if kind == "log" else base_reports.read_report(ctx, ref, item[0])

    tasks = [("log", j) for j in wanted] + [("report", p) for p in reports]
    results = ctx.gh.map(read, tasks, max_workers=4)
    g.base_logs = dict(zip(wanted, results[: len(wanted)], strict=True))
    for (_, (_, job_id)), found in zip(tasks[len(wanted):], results[len(wanted):], strict=True):
        if found is not None:
            g.base_reports.setdefault(job_id, []).extend(found)
    return g


def _wanted_names(g: Gathered, failed: list[Analysis], workflow_id: int) -> list[str]:
    """The PR's failed jobs of this workflow whose namesake failed in its base run."""
    out = []
    for a in failed:
        run = g.runs.get(a.check.run_id or 0)
        if run is not None and (run.info or {}).get("workflow_id") == workflow_id:
            job = _base_job(g, a)
            if job and job.get("conclusion") in FAILED and a.check.name not in out:
                out.append(a.check.name)
    return out


MISSING = object()


def _base_job(g: Gathered, a: Analysis) -> dict[str, Any] | None:
    run = g.runs.get(a.check.run_id or 0)
    wid = (run.info or {}).get("workflow_id") if run else None
    b = g.bases.get(wid) if isinstance(wid, int) else None
    return b.jobs.get(a.check.name) if b else None


def assign(analyses: list[Analysis], g: Gathered) -> None:
    """Set ``history`` on every failed Actions check of ``analyses`` and on each of its failures."""
    base = g.base
    for a in _failed(analyses):
        run = g.runs.get(a.check.run_id or 0)
        if run is None:
            a.history = _verdict("unknown", f"history could not be read ({g.error})" if g.error else
                                 f"history not read (at most {MAX_RUNS} workflow runs)")
            _tests(a, a.history, None)
            continue
        wid = (run.info or {}).get("workflow_id")
        b = g.bases.get(wid) if isinstance(wid, int) else None
        base_run = b.run if b else None
        job = _base_job(g, a)
        if a.check.name in run.passed_before:
            n = run.passed_before[a.check.name]
            a.history = _verdict("flaky", f"passed on attempt {n} of this run (same commit)", attempt=n)
        elif run.info is None:
            a.history = _verdict("unknown", "GitHub did not show this workflow run")
        elif base_run is None or job is None:
            why = (b.why if b and b.why else f"the latest completed run of this workflow on {base} has no job "
                   f"named {a.check.name!r}" if b else "GitHub did not show this workflow run's workflow")
            a.history = _verdict("unknown", why, base_run)
        elif job.get("conclusion") in FAILED:
            a.history = _verdict("failing_on_base", f"failed on {base} too, in run {base_run.get('id')} "
                                 f"({_when(base_run)})", base_run)
        elif job.get("conclusion") == "success":
            a.history = _verdict("new_in_this_pr", f"passed on {base} in run {base_run.get('id')} "
                                 f"({_when(base_run)})", base_run)
        else:
            a.history = _verdict("unknown", f"{job.get('conclusion') or job.get('status')} on {base} in run "
                                 f"{base_run.get('id')}", base_run)
        job_id = job.get("id") if job else None
        logged = g.base_logs.get(job_id) if isinstance(job_id, int) else None
        reported = g.base_reports.get(job_id) if isinstance(job_id, int) else None
        _tests(a, a.history, logged, reported)


def _tests(a: Analysis, check: dict[str, Any], logged: list[str] | None, reported: list[str] | None = None) -> None:
    """Each failure's verdict from its check's, refined by the tests the base job failed. Compact: a failure
    that simply shares its job's verdict carries only the verdict (the reason, run id and date are on the
    failed check); one refined by the base job's tests has its own reason naming the run and its date."""
    where = f"run {check.get('run_id')} ({str(check.get('run_date') or '')[:10]})"
    base_failed = None if logged is None and reported is None else [*(logged or []), *(reported or [])]
    for f in a.failures:
        name = f["test_name"]
        if any(same_test(name, t) for t in a.flaky_tests):
            f["history"] = _verdict("flaky", "it failed, then passed on a rerun inside the job")
        elif check["verdict"] != "failing_on_base":  # the job's verdict; its reason is on the failed check
            f["history"] = {"verdict": check["verdict"]}
        elif base_failed is None:
            f["history"] = _verdict("unknown", f"the job failed on the base branch too ({where}), but which tests "
                                    "failed there could not be read")
        elif any(same_test(name, t) for t in base_failed):
            how = "" if any(same_test(name, t) for t in logged or []) else ", by its test report"
            f["history"] = _verdict("failing_on_base", f"it failed on the base branch too, in {where}{how}")
        elif base_failed:
            f["history"] = _verdict("new_in_this_pr", f"the job failed on the base branch too ({where}), but not on "
                                    "this test")
        else:
            f["history"] = _verdict("unknown", f"the job failed on the base branch ({where}) without a recognisable "
                                    "test failure")
