"""Look at a PR's CI once, or poll it until it finishes, fails (``bail_on_first``) or times out.

Each poll is one GraphQL query (the rollup of the head commit, with the base branch's required checks), plus
a query per further rollup page. A failed check is analysed once (its log downloaded as soon as the rollup
page listing it arrives, concurrently with the other failed checks', its steps and annotations read in one
query for all of them: :mod:`pr_agent.ci.fanout`) and cached, so polling never re-downloads a log. A new
head commit while waiting ends the wait: the results are then for a stale head, and say so. "No checks
yet" right after a push is waited out for a grace period. Every wait goes through ``ctx.wait`` (prompt
cancellation) and every poll reports progress through ``ctx.report``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

from pr_agent import surface
from pr_agent.ci.analyze import Analysis
from pr_agent.ci.fanout import FanOut, key_of
from pr_agent.ci.github import Snapshot, fetch_snapshot
from pr_agent.ci.rollup import counts
from pr_agent.context import Context
from pr_agent.errors import PrAgentError, tool_repair
from pr_agent.refs import PRRef

DEFAULT_INTERVAL_S = 15.0
DEFAULT_GRACE_S = 120.0
Ended = Literal["immediate", "complete", "first_failure", "no_checks", "stale_head", "wait_limit"]


def _env_seconds(env: Mapping[str, str], name: str, default: float, low: float = 0.05) -> float:
    from pr_agent import envvars  # a bad value is a typed error naming the variable, not a silent default

    return envvars.seconds(name, env)


def poll_interval(env: Mapping[str, str]) -> float:
    """Seconds between polls: GH_PR_AGENT_POLL_INTERVAL, default 15 (the spec asks for 10-30)."""
    return _env_seconds(env, "GH_PR_AGENT_POLL_INTERVAL", DEFAULT_INTERVAL_S)


def no_checks_grace(env: Mapping[str, str]) -> float:
    """How long "no checks reported yet" is treated as CI not started: GH_PR_AGENT_NO_CHECKS_GRACE (120s)."""
    return _env_seconds(env, "GH_PR_AGENT_NO_CHECKS_GRACE", DEFAULT_GRACE_S, low=0.0)


@dataclass
class Outcome:
    snapshot: Snapshot
    analyses: list[Analysis]
    ended: Ended
    polls: int = 1
    waited_s: float = 0.0
    new_head: str | None = None  # set when a new commit was pushed while waiting
    started_recently: bool = False  # no checks, but the head commit is younger than the grace period


@dataclass
class _State:
    start: float = field(default_factory=time.monotonic)
    polls: int = 0
    cache: dict[tuple[str, str, int], Analysis] = field(default_factory=dict)


def _poll(ctx: Context, ref: PRRef, st: _State, waiting: bool, pre: Any = None) -> tuple[Snapshot, list[Analysis]]:
    fan = FanOut(ctx, ref, skip=lambda k: k in st.cache and st.cache[k].final,
                 on_failed=pre.failed if pre is not None else None)
    try:
        snap = fetch_snapshot(ctx, ref, on_page=fan.page, on_pr=pre.pr if pre is not None else None)
        failed = snap.rollup.in_bucket("failed")
        for check in failed:  # anything the pages did not start (normally nothing)
            fan.start(check)
        done = fan.results()
    finally:
        fan.shutdown()
    st.polls += 1
    final_pass = not (waiting and snap.rollup.in_bucket("pending"))
    by_key = {key_of(c): c for c in failed}
    for key, a in done.items():
        if key not in by_key:
            continue  # a run that a later page superseded
        a.check = by_key[key]
        a.final = a.final or final_pass  # a log not available yet is asked for again while CI still runs
        st.cache[key] = a
    return snap, [st.cache[key_of(c)] for c in failed]


def _recent(committed_at: str | None, grace_s: float) -> bool:
    if not committed_at:
        return False
    try:
        when = datetime.fromisoformat(committed_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    return (datetime.now(timezone.utc) - when).total_seconds() < grace_s


def last_state(snap: Snapshot, analyses: list[Analysis]) -> dict[str, Any]:
    """What a timeout error carries: where CI stood at the last poll."""
    r = snap.rollup
    return {"head_sha": snap.head_sha, "counts": counts(r.checks),
            "pending_checks": [c.display_name for c in r.in_bucket("pending")][:50],
            "failed_checks": [c.display_name for c in r.in_bucket("failed")][:50],
            "failures_found": sum(len(a.failures) for a in analyses)}


def _progress(ctx: Context, snap: Snapshot, waited: float) -> None:
    checks = snap.rollup.checks
    pending = snap.rollup.in_bucket("pending")
    failed = snap.rollup.in_bucket("failed")
    total = len(checks)
    msg = (f"{len(pending)} of {total} checks still running, {len(failed)} failed ({waited:.0f}s)" if checks
           else f"no checks reported yet ({waited:.0f}s)")
    ctx.report(float(total - len(pending)), float(total) if total else None, msg)


def _cancelled(waited: float) -> PrAgentError:
    return PrAgentError("cancelled", f"The wait for CI was cancelled after {waited:.0f}s.",
                        suggestion="Call again when you want the answer.", details={"waited_s": round(waited, 1)})


def watch(ctx: Context, ref: PRRef, *, wait: bool, bail_on_first: bool, timeout_s: float,
          prefetch: Any = None) -> Outcome:
    """One look (``wait`` false) or poll until done / first failure / timeout (a ``wait_timeout`` error).
    ``prefetch`` (a :class:`pr_agent.ci.prefetch.Prefetch`) is told the base branch and each failed check as
    the pages arrive."""
    interval, grace = poll_interval(ctx.env), no_checks_grace(ctx.env)
    st = _State()
    deadline = st.start + timeout_s
    first: tuple[Snapshot, list[Analysis]] | None = None
    while True:
        snap, analyses = _poll(ctx, ref, st, wait, prefetch)
        waited = time.monotonic() - st.start
        if first is not None and snap.head_sha != first[0].head_sha:
            prev_snap, prev = first
            return Outcome(prev_snap, prev, "stale_head", st.polls, waited, new_head=snap.head_sha)
        first = (snap, analyses)
        checks = snap.rollup.checks
        pending = snap.rollup.in_bucket("pending")
        if not wait:
            return Outcome(snap, analyses, "immediate", st.polls, waited,
                           started_recently=not checks and _recent(snap.committed_at, grace))
        settled = all(a.final for a in analyses)
        if bail_on_first and analyses and any(a.final for a in analyses):
            return Outcome(snap, analyses, "first_failure", st.polls, waited)
        if not checks and waited >= grace and st.polls >= 2:  # never concluded from a single look
            return Outcome(snap, analyses, "no_checks", st.polls, waited)
        if checks and not pending and settled:
            return Outcome(snap, analyses, "complete", st.polls, waited)
        _progress(ctx, snap, waited)
        now = time.monotonic()
        limit = ctx.wait_limit_s
        if limit is not None and limit < timeout_s and now - st.start >= limit:
            return Outcome(snap, analyses, "wait_limit", st.polls, now - st.start)
        if now >= deadline:
            raise PrAgentError(
                "wait_timeout",
                f"CI on {ref} did not finish within {timeout_s:.0f}s "
                f"({len(pending)} of {len(checks)} checks still pending).",
                suggestion=surface.text("Call again with ", surface.arg("get_failing_tests", "wait", True),
                                        " to keep waiting, or without it for the current state."),
                details={"timeout_s": timeout_s, "waited_s": round(now - st.start, 1), "polls": st.polls,
                         "last_state": last_state(snap, analyses)},
                repair=tool_repair("get_failing_tests", {"pr": ref.qualified, "wait": True},
                                   "Call again to keep waiting for CI."))
        until = deadline if limit is None else min(deadline, st.start + limit)
        if ctx.wait(min(interval, max(0.0, until - now))):
            raise _cancelled(waited)


def env_poll_hint(env: Mapping[str, str] | None = None) -> int:
    """retry_after_seconds for poll_info: the poll interval, at least 10s unless configured lower."""
    env = env if env is not None else os.environ
    value = poll_interval(env)
    return max(1, round(value if "GH_PR_AGENT_POLL_INTERVAL" in env else max(value, 30.0)))
