"""PR worlds for the end-to-end tests, built as scenario dicts (format: fixtures/scenarios/README.md)."""

from __future__ import annotations

from typing import Any

HOSTILE_BODY = "Don't do this: `rm -rf /` $(touch /tmp/pwned) 'quoted' \"double\"\nsecond line; echo hi \\ end"
HOSTILE_PATH = "src/$(touch pwned)/it's \"x\"`id`.py"


def _ts(minute: int) -> str:
    return f"2026-11-01T{10 + minute // 60:02d}:{minute % 60:02d}:00Z"


def comment(cid: int, author: str, body: str, minute: int, **extra: Any) -> dict[str, Any]:
    return {"id": cid, "author": author, "body": body, "created_at": _ts(minute),
            "author_association": extra.pop("association", "MEMBER"), "diff_hunk": "@@ -1,3 +1,4 @@\n a\n+b",
            **extra}


def thread(tid: str, path: str, line: int | None, comments: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": tid, "path": path, "line": line, "original_line": line or 3, "comments": comments, **extra}


def pr(number: int, threads: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"number": number, "title": f"PR {number}", "author": "octocat", "head_ref": f"feature-{number}",
            "base_ref": "main", "threads": threads, **extra}


def world(*pulls: dict[str, Any], viewer: str = "octocat") -> dict[str, Any]:
    return {
        "viewer": {"login": viewer},
        "users": {
            "coderabbitai": {"type": "Bot"}, "copilot-pull-request-reviewer": {"type": "Bot"},
            "github-actions": {"type": "Bot"},
        },
        "repositories": [{"owner": "acme", "name": "widgets", "pull_requests": list(pulls)}],
    }


def feedback_world() -> dict[str, Any]:
    """PR 7: a bit of everything find_unresolved_comments must tell apart. PR 8: a second PR."""
    threads = [
        thread("PRRT_human", "src/app.py", 12, [
            comment(1001, "alice", "Please rename `x` to something meaningful.", 1),
            comment(1002, "bob", "Agreed.", 2),
            comment(1003, "octocat", "Will do.", 3),
        ]),
        thread("PRRT_resolved", "src/app.py", 30, [comment(1011, "alice", "Typo here.", 4)], resolved=True),
        thread("PRRT_outdated", "src/old.py", None, [comment(1021, "carol", "This loop is O(n^2).", 5)],
               outdated=True),
        thread("PRRT_rabbit", "src/db.py", 40, [
            comment(1031, "coderabbitai", "_⚠️ Potential issue_ | _🟠 Major_\n\n**SQL injection risk.**", 6,
                    association="NONE")]),
        thread("PRRT_copilot", "src/db.py", 7, [
            comment(1041, "copilot-pull-request-reviewer", "Consider a context manager here.", 7,
                    association="NONE")]),
        thread("PRRT_hostile", HOSTILE_PATH, 1, [comment(1051, "mallory", HOSTILE_BODY, 8, association="NONE")]),
        thread("PRRT_locked", "README.md", 2, [comment(1061, "dave", "Reword this.", 9)],
               viewer_can_resolve=False),
    ]
    reviews = [
        {"id": 2001, "author": "erin", "state": "CHANGES_REQUESTED", "body": "Please add tests.",
         "submitted_at": _ts(10)},
        {"id": 2002, "author": "frank", "state": "CHANGES_REQUESTED", "body": "Split this PR.",
         "submitted_at": _ts(11)},
        {"id": 2003, "author": "frank", "state": "APPROVED", "body": "Fine now.", "submitted_at": _ts(12)},
        {"id": 2004, "author": "alice", "state": "COMMENTED", "body": "", "submitted_at": _ts(1)},
    ]
    issue_comments = [
        {"id": 3001, "author": "carol", "body": "When will this land?", "created_at": _ts(13)},
        {"id": 3002, "author": "spammer", "body": "buy now", "created_at": _ts(14), "minimized": True},
        {"id": 3003, "author": "github-actions", "body": "Coverage: 91%", "created_at": _ts(15),
         "author_association": "NONE"},
    ]
    other = pr(8, [thread("PRRT_other", "x.py", 1, [comment(4001, "alice", "Other PR.", 1)])])
    return world(pr(7, threads, reviews=reviews, issue_comments=issue_comments), other)


def big_world(n_threads: int = 150, long_thread: int = 130, resolved_every: int = 10) -> dict[str, Any]:
    """PR 9: > 100 unresolved threads, one of them with > 100 comments, some resolved."""
    threads = []
    cid = 10_000
    for i in range(n_threads):
        n_comments = long_thread if i == 3 else 1 + i % 3
        comments = []
        for j in range(n_comments):
            cid += 1
            comments.append(comment(cid, "alice" if j % 2 == 0 else "bob", f"thread {i} comment {j}", i + j))
        threads.append(thread(f"PRRT_big{i:04d}", f"src/f{i % 17}.py", 1 + i, comments,
                              resolved=(i % resolved_every == resolved_every - 1)))
    return world(pr(9, threads))
