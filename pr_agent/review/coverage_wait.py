"""find_unresolved_comments ``wait``: poll the PR until the AI reviewers seen on it have covered the head.

Each poll is one feedback read (:func:`pr_agent.review.fetch.fetch_feedback`). The wait ends when every
reviewer seen covers the head (``covered``), when the only ones left are rate-limited, paused, skipped or
errored — states no wait clears (``blocked``) —, when no AI reviewer is seen at all (``no_ai_reviewers``),
at ``timeout_seconds`` (``timeout``: the answer is the last state, not an error, since the feedback itself
is still worth having) or, over MCP without a progress token, at the client-safe bound (``wait_limit``).
A new head commit while waiting simply moves the target: coverage is always of the current head. Every
sleep goes through ``ctx.wait`` (prompt cancellation) and every poll reports progress through ``ctx.report``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.review.coverage import WAITABLE, ai_review_coverage, describe
from pr_agent.review.fetch import Feedback

Ended = Literal["covered", "blocked", "no_ai_reviewers", "timeout", "wait_limit"]
DEFAULT_TIMEOUT_S = 900
MAX_TIMEOUT_S = 3600


@dataclass
class WaitResult:
    feedback: Feedback
    coverage: list[dict[str, Any]]
    ended: Ended
    polls: int
    waited_s: float


def coverage_of(fb: Feedback) -> list[dict[str, Any]]:
    return ai_review_coverage(fb.reviews, fb.issue_comments, fb.pr.get("headRefOid"), fb.rollup_nodes)


def _ended(coverage: list[dict[str, Any]]) -> Ended | None:
    if not coverage:
        return "no_ai_reviewers"
    open_ = [c for c in coverage if not c["covers_head"]]
    if not open_:
        return "covered"
    if not any(c["status"] in WAITABLE for c in open_):
        return "blocked"
    return None


def wait_for_coverage(ctx: Context, fetch: Callable[[], Feedback], *, timeout_s: float) -> WaitResult:
    from pr_agent.ci.watch import poll_interval

    interval = poll_interval(ctx.env)
    start = time.monotonic()
    polls = 0
    while True:
        fb = fetch()
        polls += 1
        coverage = coverage_of(fb)
        waited = time.monotonic() - start
        ended = _ended(coverage)
        if ended is not None:
            return WaitResult(fb, coverage, ended, polls, waited)
        done = sum(1 for c in coverage if c["covers_head"])
        waiting = [describe(c) for c in coverage if not c["covers_head"]]
        ctx.report(float(done), float(len(coverage)),
                   f"{done} of {len(coverage)} AI reviewers have reviewed the head; waiting for "
                   f"{', '.join(waiting)} ({waited:.0f}s)")
        limit = ctx.wait_limit_s
        if limit is not None and limit < timeout_s and waited >= limit:
            return WaitResult(fb, coverage, "wait_limit", polls, waited)
        if waited >= timeout_s:
            return WaitResult(fb, coverage, "timeout", polls, waited)
        until = timeout_s if limit is None else min(timeout_s, limit)
        if ctx.wait(min(interval, max(0.0, until - waited))):
            raise PrAgentError("cancelled", f"The wait for AI reviewers was cancelled after {waited:.0f}s.",
                               suggestion="Call again when you want the answer.",
                               details={"waited_s": round(waited, 1)})
