"""The base branch's test reports: the exact source for "did this test fail on the base branch too?".

A ``failing_on_base`` or ``new_in_this_pr`` verdict for one test compares it with what the base branch's
latest completed run of the same workflow failed. The job log is one source (its failures parsed); when
that run uploaded test reports as artifacts (JUnit XML, TRX, CTRF, xunit), they name every failed test
exactly, and still do when the base job's log has expired or says nothing recognisable.

Requests, bounded: when the base run concluded ``failure``, its artifact list (one request, issued next to
its jobs list: both need only the run's id); then, for the PR's failed jobs whose namesake failed in that
run, the report artifacts that belong to them (by name, :func:`pr_agent.ci.artifacts.owner`, else the run's
only failed job), at most :data:`pr_agent.ci.artifacts.MAX_ARTIFACTS` per base run, each a download
(302, then the blob) within the same size bounds as the PR's own reports.
"""

from __future__ import annotations

from typing import Any

from pr_agent.ci.artifacts import MAX_ARTIFACTS, download_reports, is_report_artifact, list_artifacts, owner
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.refs import PRRef

FAILED = ("failure", "timed_out", "startup_failure")


def list_base_artifacts(ctx: Context, ref: PRRef, run: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A failed base run's report artifacts (None: the run passed, or GitHub would not list them: the
    verdicts then rest on the logs)."""
    if run.get("conclusion") not in FAILED or not isinstance(run.get("id"), int):
        return None
    try:
        found, _ = list_artifacts(ctx, ref, int(run["id"]))
    except PrAgentError as err:
        if err.code == "cancelled":
            raise
        return None
    return [a for a in found if is_report_artifact(a)] if found is not None else None


def picks(artifacts: list[dict[str, Any]] | None, jobs: dict[str, dict[str, Any]], wanted: list[str],
          first: tuple[int, ...] = ()) -> list[tuple[dict[str, Any], int]]:
    """(artifact, base job id) to read: the report artifacts of the base jobs named ``wanted`` (the PR's
    failed jobs whose namesake failed on the base branch), at most :data:`MAX_ARTIFACTS`; the artifacts
    whose ids are in ``first`` (already being read) before the others."""
    if not artifacts:
        return []
    failed = [n for n, j in jobs.items() if j.get("conclusion") in FAILED and isinstance(j.get("id"), int)]
    out: list[tuple[dict[str, Any], int]] = []
    for a in artifacts:
        name = owner(str(a.get("name") or ""), jobs) or (failed[0] if len(failed) == 1 else None)
        if name in wanted and name in failed:
            out.append((a, int(jobs[name]["id"])))
    out.sort(key=lambda p: p[0].get("id") not in first)
    return out[:MAX_ARTIFACTS]


def read_report(ctx: Context, ref: PRRef, artifact: dict[str, Any]) -> list[str] | None:
    """The failing test names of one base-run report artifact (None: nothing could be read)."""
    try:
        got = download_reports(ctx, ref, [artifact])
    except PrAgentError as err:
        if err.code == "cancelled":
            raise
        return None
    if not got.reports:
        return None
    return [f["test_name"] for _, failures, _ in got.reports for f in failures]
