"""AI-review coverage of the head: for each AI reviewer that has reviewed the PR, has it reviewed the
current head commit, or is it still reviewing, rate-limited, paused or errored?

Pure, from what find_unresolved_comments already reads (reviews with their commit, conversation comments).
Markers: CodeRabbit's summary comment carries ``<!-- … rate limited by coderabbit.ai -->`` / "Rate limit
exceeded", ``review in progress by coderabbit.ai`` / "Currently processing new changes", and "Reviews
paused"; a Copilot review saying it "encountered an error" is an error, not a review.
"""

from __future__ import annotations

import re
from typing import Any

from pr_agent.review.authors import display_login, is_bot, normalize_login

_ERROR = re.compile(r"encountered an error|wasn'?t able to review|unable to review this pull request", re.I)
_RATE = re.compile(r"rate limited by coderabbit|rate limit exceeded|reached (?:your|the) (?:hourly |daily )?"
                   r"(?:review )?(?:rate )?limit", re.I)
_PROGRESS = re.compile(r"review in progress by coderabbit|currently processing new changes|review in progress",
                       re.I)
_PAUSED = re.compile(r"reviews? paused", re.I)


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
    if _PROGRESS.search(body):
        return "in_progress"
    return None


def ai_review_coverage(reviews: list[dict[str, Any]], comments: list[dict[str, Any]],
                       head: str | None) -> list[dict[str, Any]]:
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
        out.append({"reviewer": login, "bot": bot, "reviewed_commit": commit, "covers_head": covers,
                    "status": status})
    return out
