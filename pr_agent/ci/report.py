"""Turn a CI look (:class:`~pr_agent.ci.watch.Outcome`) into get_failing_tests' answer (pure)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta, timezone
from typing import Any

from pr_agent import surface
from pr_agent.ci.analyze import Analysis, step_url
from pr_agent.ci.rollup import Check, counts
from pr_agent.ci.watch import Outcome
from pr_agent.refs import PRRef
from pr_agent.shellcmd import command

MAX_PRIORITY = 10
MAX_COMMANDS = 20
RERUN_DAYS = 30  # "You can re-run a workflow or jobs in a workflow for up to 30 days after the initial run."


def job_log_uri(ref: PRRef, job_id: int) -> str:
    """The MCP resource holding one job's full (cleaned) log."""
    host = f"{ref.host}/" if ref.host and ref.host != "github.com" else ""
    return f"pr-agent://job-log/{host}{ref.owner}/{ref.repo}/{job_id}"


def job_log_command(ref: PRRef, job_id: int) -> str | None:
    """The CLI command printing the job's log; None over MCP (there the log is full_log_resource)."""
    if surface.current() == "mcp":
        return None
    return command(["gh", "pr-agent", "checks", ref.qualified, "--log", str(job_id)])


def repo_arg(ref: PRRef) -> str:
    return f"{ref.host}/{ref.full_name}" if ref.host and ref.host != "github.com" else ref.full_name


def rerun_command(ref: PRRef, check: Check, now: datetime | None = None) -> str | None:
    """``gh run rerun --job ID`` for a finished Actions job that GitHub still lets us re-run (a run started
    within the last 30 days); None otherwise (a command that GitHub would refuse is no help)."""
    if check.check_run_id is None or check.run_id is None or check.bucket == "pending":
        return None
    try:
        started = datetime.fromisoformat(str(check.started_at or check.completed_at).replace("Z", "+00:00"))
    except ValueError:
        return None
    if (now or datetime.now(timezone.utc)) - started > timedelta(days=RERUN_DAYS):
        return None
    return command(["gh", "run", "rerun", "--job", str(check.check_run_id), "--repo", repo_arg(ref)])


def check_kind(check: Check) -> str:
    if check.kind == "status_context":
        return "status"
    if check.kind == "missing":
        return "missing"
    return "github_actions" if check.app == "github-actions" or check.run_id is not None else "check_run"


def status_of(out: Outcome) -> str:
    r = out.snapshot.rollup
    if r.in_bucket("failed"):
        return "failed"
    pending = r.in_bucket("pending")
    if pending:
        return "running" if any(c.state == "IN_PROGRESS" for c in pending) else "pending"
    if not r.checks:
        return "pending" if out.started_recently else "unknown"
    return "cancelled" if r.in_bucket("cancelled") else "passed"


def _seconds(start: str | None, end: str | None) -> int | None:
    try:
        a = datetime.fromisoformat(str(start).replace("Z", "+00:00"))
        b = datetime.fromisoformat(str(end).replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0, int((b - a).total_seconds()))


def workflow_runs(checks: list[Check]) -> list[dict[str, Any]]:
    """One entry per Actions workflow run, from its check runs (earliest start, latest completion)."""
    runs: dict[int, list[Check]] = {}
    for c in checks:
        if c.run_id is not None:
            runs.setdefault(c.run_id, []).append(c)
    out = []
    for run_id, members in runs.items():
        starts = [c.started_at for c in members if c.started_at]
        done = all(c.bucket != "pending" for c in members)
        ends = [c.completed_at for c in members if c.completed_at]
        info: dict[str, Any] = {"workflow_name": members[0].workflow or members[0].name, "run_id": run_id,
                                "started_at": min(starts) if starts else ""}
        if done and ends:
            info["completed_at"] = max(ends)
            info["duration_seconds"] = _seconds(info["started_at"], info["completed_at"]) if starts else None
        out.append(info)
    return out


def check_view(check: Check, full: bool) -> dict[str, Any]:
    view: dict[str, Any] = {"name": check.display_name, "kind": check_kind(check), "state": check.state,
                            "bucket": check.bucket, "required": check.required, "url": check.url}
    if check.check_run_id is not None and check_kind(check) == "github_actions":
        view["job_id"] = check.check_run_id
    if full:
        view.update(description=check.description, started_at=check.started_at, completed_at=check.completed_at)
    return view


def failed_check_view(a: Analysis, ref: PRRef, full: bool) -> dict[str, Any]:
    c = a.check
    view: dict[str, Any] = {"check_name": c.display_name, "kind": check_kind(c), "state": c.state,
                            "required": c.required, "url": a.job_url or c.url, "test_failures": len(a.failures),
                            "non_test_failure": a.non_test, "note": a.note}
    if a.is_actions and a.job_id is not None:
        view.update(job_id=a.job_id, run_id=c.run_id, log_url=step_url(a.job_url, a.step) or None,
                    log_status=a.log_status, rerun_command=rerun_command(ref, c))
        if a.log_status != "log_expired":  # an expired log cannot be printed: no command that cannot work
            view.update(full_log_command=job_log_command(ref, a.job_id), full_log_resource=job_log_uri(ref, a.job_id))
        if a.step is not None:
            view.update(failed_step=a.step.name, failed_step_number=a.step.number)
    if a.reports:
        view["test_reports"] = list(a.reports)
    if a.history is not None:
        view["history"] = a.history
    if full:
        view.update(log_excerpt=a.excerpt or None, annotations=a.annotations or None, slice_method=a.slice_method)
    elif view.get("log_url") and view["log_url"].startswith(f"{view['url']}#"):
        view["url"] = None  # concise: log_url is this page with the failed step's anchor (docs/mcp.md)
    return view


def concise_failure(f: dict[str, Any], failed_steps: dict[int, str]) -> dict[str, Any]:
    """A failure without what its failed check already says: the step, when it is the check's failed step."""
    if f.get("step_name") and f["step_name"] == failed_steps.get(f.get("job_id") or -1):
        return {k: v for k, v in f.items() if k != "step_name"}
    return f


def sorted_failures(analyses: list[Analysis]) -> list[dict[str, Any]]:
    """Every failure with its page key (check, job, position in the job)."""
    out = []
    for a in sorted(analyses, key=lambda a: (not a.check.required, a.check.display_name, a.check.check_run_id or 0)):
        for i, f in enumerate(a.failures):
            out.append({**f, "_key": [int(not a.check.required), a.check.display_name, a.check.check_run_id or 0, i]})
    return out


def _where(f: dict[str, Any]) -> str:
    if not f.get("file_path"):
        return ""
    return f" at {f['file_path']}" + (f":{f['line_number']}" if f.get("line_number") else "")


_RANK = {"new_in_this_pr": 0, None: 1, "unknown": 1, "flaky": 2, "failing_on_base": 3}
_NOT_YOURS = {"failing_on_base": "not this PR's fault", "flaky": "probably not this PR's fault: flaky"}


_VERDICT_WORDS = (("new_in_this_pr", "new in this PR"), ("failing_on_base", "failing on the base branch too (not this "
                  "PR's fault)"), ("flaky", "flaky"), ("unknown", "without a comparable run"))


def _rank(history: dict[str, Any] | None) -> int:
    return _RANK.get((history or {}).get("verdict"), 1)


def priority(analyses: list[Analysis], page: list[dict[str, Any]], all_failures: list[dict[str, Any]],
             ref: PRRef) -> list[dict[str, Any]]:
    """What the PR's own changes broke first (history ``new_in_this_pr``, then no verdict or ``unknown``, then
    ``flaky``, then ``failing_on_base``, which are said not to be the PR's fault); within each, non-test failures
    first (nothing else in that job could run), then the page's test failures, with the facts that make one
    matter more: a required check, an error shared with other failures."""
    out: list[dict[str, Any]] = []
    ranks: list[int] = []
    for a in analyses:
        if a.log_status == "log_expired" and not a.failures:
            again = ("re-run the job (its rerun_command) for a new log" if rerun_command(ref, a.check) else
                     "GitHub no longer re-runs it (over 30 days): push a commit to run CI again")
            ranks.append(_rank(a.history))
            out.append({"test": a.check.display_name,
                        "reason": f"its log has expired, so why it failed is unknown beyond its annotations and "
                        f"failed step; {again}"})
        elif a.non_test and not a.failures:
            kind = a.non_test["kind"]
            req = " in a required check" if a.check.required else ""
            verdict = (a.history or {}).get("verdict")
            mine = f"; {_NOT_YOURS[verdict]}: {a.history['reason']}" if verdict in _NOT_YOURS else \
                "; new in this PR" if verdict == "new_in_this_pr" else ""  # type: ignore[index]
            ranks.append(_rank(a.history))
            out.append({"test": a.check.display_name,
                        "reason": f"{kind.replace('_', ' ')}{req}: {a.non_test['summary']} — the job's tests did "
                        f"not run or their results are unknown until this is fixed{mine}"})
    shared = Counter(f["error_message"] for f in all_failures)
    required = {a.check.display_name for a in analyses if a.check.required}
    checks_history = {a.check.display_name: a.history for a in analyses}
    for f in page:
        bits = []
        verdict = (f.get("history") or {}).get("verdict")
        if verdict == "new_in_this_pr":
            bits.append("new in this PR")
        elif verdict in _NOT_YOURS:
            why = f["history"].get("reason") or (checks_history.get(f["check_name"]) or {}).get("reason") or ""
            bits.append(f"{_NOT_YOURS[verdict]}: {why}" if why else _NOT_YOURS[verdict])
        if f["check_name"] in required:
            bits.append("required check")
        others = shared[f["error_message"]] - 1
        if others > 0:
            bits.append(f"same error as {others} other failure{'s' if others > 1 else ''}")
        bits.append(f"failed in {f['check_name']}{_where(f)}")
        ranks.append(_rank(f.get("history")))
        out.append({"test": f["test_name"], "reason": "; ".join(bits)})
    order = sorted(range(len(out)), key=lambda i: ranks[i])  # stable: non-test failures stay first in a rank
    out = [out[i] for i in order]
    return out[:MAX_PRIORITY]


def summary(out: Outcome, status: str, total_failures: int) -> str:
    text = _summary(out, status, total_failures)
    if out.snapshot.rules_unreadable:
        text += (" The base branch's rulesets could not be read, so a required check that has not reported yet may "
                 "be missing here (check_merge_readiness goes by GitHub's own merge state).")
    if out.snapshot.unread_contexts:
        read = len(out.snapshot.nodes)
        text += (f" Only the first {read} checks of the rollup could be read (GitHub lists "
                 f"{read + out.snapshot.unread_contexts}); failures in the others are missing here.")
    return text


def _summary(out: Outcome, status: str, total_failures: int) -> str:
    r = out.snapshot.rollup
    n = counts(r.checks)
    if not r.checks:
        return ("No CI checks reported yet for the head commit (CI may not have started)." if status == "pending"
                else "No CI checks configured: nothing reported for the head commit.")
    parts = []
    if total_failures:
        with_tests = {f for a in out.analyses for f in [a.check.display_name] if a.failures}
        parts.append(f"{total_failures} test{'s' if total_failures != 1 else ''} failed in "
                     f"{len(with_tests)} check{'s' if len(with_tests) != 1 else ''} ({', '.join(sorted(with_tests))})")
    non_test = [a for a in out.analyses if a.non_test and not a.failures]
    for a in non_test:
        parts.append(f"{a.check.display_name} failed without a test failure ({a.non_test['kind']})")  # type: ignore[index]
    other = [a.check.display_name for a in out.analyses if not a.failures and not a.non_test]
    if other:
        parts.append(f"failed without details here (see the link): {', '.join(other[:5])}"
                     + (", …" if len(other) > 5 else ""))
    if n["cancelled"]:
        parts.append(f"{n['cancelled']} cancelled")
    if n["pending"]:
        parts.append(f"{n['pending']} still pending")
    parts.append(f"{n['passed']} passed")
    text = "; ".join(parts) + "."
    verdicts = Counter(str((f.get("history") or {}).get("verdict")) for a in out.analyses for f in a.failures)
    verdicts.update(str((a.history or {}).get("verdict")) for a in out.analyses if a.history and not a.failures)
    said = [f"{verdicts[v]} {words}" for v, words in _VERDICT_WORDS if verdicts[v]]
    if said:
        text += f" History: {', '.join(said)}."
    if status == "passed":
        text = f"All {len(r.checks)} checks passed."
    return text[0].upper() + text[1:]


def _in_seconds(n: int) -> str:
    return f"{n} second" if n == 1 else f"{n} seconds"


def poll_info(out: Outcome, status: str, retry_after: int) -> dict[str, Any] | None:
    if status not in ("pending", "running") and not (status == "failed" and out.snapshot.rollup.in_bucket("pending")):
        return None
    pending = out.snapshot.rollup.in_bucket("pending")
    names = ", ".join(c.display_name for c in pending[:5]) + (", …" if len(pending) > 5 else "")
    if not pending:
        msg = f"No checks reported yet; check back in {_in_seconds(retry_after)}."
    elif out.ended == "first_failure":  # the wait already ran: say why it stopped and how to wait for the rest
        msg = f"CI still running ({len(pending)} of {len(out.snapshot.rollup.checks)} checks pending: {names}); " \
              + surface.text("the wait stopped at the first failed check; to wait for every check, call again with ",
                             surface.arg("get_failing_tests", "wait", True), " and ",
                             surface.arg("get_failing_tests", "bail_on_first", False), ".")
    else:
        msg = f"CI still running ({len(pending)} of {len(out.snapshot.rollup.checks)} checks pending: {names}); " \
              + surface.text(f"check back in {_in_seconds(retry_after)}, or call again with ",
                             surface.arg("get_failing_tests", "wait", True), ".")
    if out.ended == "wait_limit":
        msg += surface.text(f" Waited {out.waited_s:.0f}s, the most this server waits on a call without a "
                            "progressToken; call again with ", surface.arg("get_failing_tests", "wait", True),
                            " to keep waiting, or pass a progressToken to wait up to ",
                            surface.arg("get_failing_tests", "timeout_seconds"), ".")
    return {"message": msg, "retry_after_seconds": retry_after}
