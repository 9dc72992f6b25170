"""AI-review coverage of the head: for each AI reviewer that has reviewed the PR, has it reviewed the
current head commit, or is it still reviewing, rate-limited, paused, skipped or errored?

Pure, from what find_unresolved_comments and check_merge_readiness already read (reviews with their
commit, conversation comments, the head commit's status checks). Markers: CodeRabbit's summary comment
carries ``<!-- … rate limited by coderabbit.ai -->`` / "Rate limit exceeded", ``review in progress by
coderabbit.ai`` / "Currently processing new changes", and "Reviews paused"; a Copilot review saying it
"encountered an error" is an error, not a review; Bito's "Run Status" comment saying it "skipped reviewing
this change" is a skip; CodeAnt's "CodeAnt AI is reviewing your PR" comment, until its "finished reviewing"
one follows, is a review in progress. A reviewer's status check on the head (CodeRabbit, Bugbot, Greptile,
cubic, CodeAnt, Bito, Qodo, Sourcery) that is still queued or running means it is still reviewing.
"""

from __future__ import annotations

import re
from typing import Any

from pr_agent.review.authors import display_login, is_bot, normalize_login

_ERROR = re.compile(r"encountered an error|wasn'?t able to review|unable to review this pull request", re.I)
_RATE = re.compile(r"rate limited by coderabbit|rate limit exceeded|reached (?:your|the) (?:hourly |daily )?"
                   r"(?:review )?(?:rate )?limit", re.I)
_PROGRESS = re.compile(r"review in progress by coderabbit|currently processing new changes|review in progress"
                       r"|codeant ai is (?:reviewing|running)", re.I)
_PAUSED = re.compile(r"reviews? paused", re.I)
_SKIPPED = re.compile(r"skipped reviewing this change|review (?:was )?skipped", re.I)
_DONE = re.compile(r"codeant ai finished|incremental review completed", re.I)
# a status check's name → the bot whose review it reports (GitHub shows the app's check name); anchored, so
# that a CI job that merely mentions a bot is not taken for its review
_CHECK_BOT: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.I), b) for p, b in (
    (r"^coderabbit", "coderabbit"), (r"bugbot", "cursor"), (r"^greptile", "greptile"), (r"^cubic\b", "cubic"),
    (r"^codeant", "codeant"), (r"^bito\b", "bito"), (r"^qodo", "qodo"), (r"^sourcery", "sourcery")))
_RUNNING = frozenset({"PENDING", "EXPECTED", "QUEUED", "IN_PROGRESS", "WAITING", "REQUESTED"})
STATUSES = ("reviewed_head", "behind", "in_progress", "rate_limited", "paused", "skipped", "errored",
            "not_reviewed")
# statuses that clear without anyone's action: a wait (find_unresolved_comments wait=true) can end them
WAITABLE = frozenset({"in_progress", "behind", "not_reviewed"})


def _login(author: dict[str, Any] | None) -> str:
    a = author or {}
    login = display_login(a)
    return login + "[bot]" if a.get("__typename") == "Bot" and not login.endswith("[bot]") else login


def _status_marker(body: str) -> str | None:
    if _ERROR.search(body):
        return "errored"
    if _RATE.search(body):
        return "rate_limited"
    if _PAUSED.search(body):
        return "paused"
    if _SKIPPED.search(body):
        return "skipped"
    if _DONE.search(body):
        return None
    if _PROGRESS.search(body):
        return "in_progress"
    return None


def check_bot(name: str) -> str | None:
    """The AI reviewer a status check belongs to, from its name (``CodeRabbit``, ``Cursor Bugbot``, …)."""
    return next((bot for pat, bot in _CHECK_BOT if pat.search(name or "")), None)


def running_review_checks(rollup_nodes: list[dict[str, Any]]) -> dict[str, str]:
    """{bot: check name} of the AI reviewers' status checks still queued or running on the head."""
    out: dict[str, str] = {}
    for n in rollup_nodes or []:
        name = n.get("name") or n.get("context") or ""
        state = (n.get("status") if n.get("__typename", "CheckRun") == "CheckRun" and "status" in n
                 else n.get("state")) or ""
        bot = check_bot(name)
        if bot and str(state).upper() in _RUNNING:
            out.setdefault(bot, name)
    return out


def ai_review_coverage(reviews: list[dict[str, Any]], comments: list[dict[str, Any]],
                       head: str | None, rollup_nodes: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    from pr_agent.review.bots import detect_bot

    events: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    names: dict[str, tuple[str, str]] = {}
    for kind, nodes in (("review", reviews), ("comment", comments)):
        for n in nodes:
            author = n.get("author") or {}
            if n.get("state") == "PENDING" or not is_bot(author.get("login"), author.get("__typename")):
                continue
            bot = detect_bot(_login(author), n.get("body") or "")
            if bot is None:
                continue
            key = normalize_login(author.get("login"))
            names[key] = (display_login(author), bot)
            when = n.get("submittedAt") or n.get("updatedAt") or n.get("createdAt") or ""
            events.setdefault(key, []).append((when, kind, n))
    running = running_review_checks(rollup_nodes or [])
    out = []
    for key, evs in sorted(events.items()):
        evs.sort(key=lambda e: e[0])
        real = [n for _, kind, n in evs if kind == "review" and not _ERROR.search(n.get("body") or "")]
        last_review = real[-1] if real else None
        commit = ((last_review or {}).get("commit") or {}).get("oid")
        covers = bool(head) and commit == head
        status = "reviewed_head" if covers else ("behind" if last_review else "not_reviewed")
        latest = evs[-1][2]
        marker = _status_marker(latest.get("body") or "")
        if marker and latest is not last_review:  # its newest word (e.g. the edited summary comment) says so
            status = marker
        login, bot = names[key]
        if bot in running:  # its check on the head is still running: a review of the head is under way
            status, covers = "in_progress", False
            running.pop(bot)
        out.append({"reviewer": login, "bot": bot, "reviewed_commit": commit, "covers_head": covers,
                    "status": status})
    for bot, check in sorted(running.items()):  # reviewing the head before its first review or comment
        out.append({"reviewer": check, "bot": bot, "reviewed_commit": None, "covers_head": False,
                    "status": "in_progress"})
    return out


def describe(c: dict[str, Any]) -> str:
    return f"{c['reviewer']} ({c['status'].replace('_', ' ')})"
