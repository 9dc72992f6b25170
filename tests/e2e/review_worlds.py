"""Review-feedback worlds for issue 15's e2e tests: hidden comments, bot threads humans joined, a pending
review, threads the viewer may not resolve. Scenario format: fixtures/scenarios/README.md."""

from __future__ import annotations

from typing import Any

from tests.e2e.worlds import _ts, comment, pr, thread, world

SPAM = "Great post! Visit cheap-pills.example for 90% off"


def hidden_world(*, pending: bool = False) -> dict[str, Any]:
    """PR 11: a reviewer asked, the viewer answered "Fixed in …", then a spammer replied and a maintainer
    hid it; a CodeRabbit thread a human reviewer agreed with; a thread the viewer may not resolve; a hidden
    conversation comment and a hidden bot review body."""
    threads = [
        thread("PRRT_spam", "src/app.py", 12, [
            comment(1101, "alice", "Please handle None here.", 1),
            comment(1102, "octocat", "Fixed in abc1234.", 2),
            comment(1103, "spammer", SPAM, 3, association="NONE", minimized=True, minimized_reason="SPAM"),
        ]),
        thread("PRRT_botchat", "src/db.py", 40, [
            comment(1111, "coderabbitai", "_⚠️ Potential issue_ | _🟠 Major_\n\n**Unbounded retry loop.**", 4,
                    association="NONE"),
            comment(1112, "bob", "Agreed — please fix this before merging.", 5),
            comment(1113, "coderabbitai", "Thanks for confirming!", 6, association="NONE"),
        ]),
        thread("PRRT_botonly", "src/db.py", 7, [
            comment(1121, "copilot-pull-request-reviewer", "Consider a context manager here.", 7,
                    association="NONE")]),
        thread("PRRT_locked", "README.md", 2, [comment(1131, "dave", "Reword this.", 8)],
               viewer_can_resolve=False),
        thread("PRRT_allhidden", "src/x.py", 3, [
            comment(1141, "spammer", SPAM, 9, association="NONE", minimized=True, minimized_reason="spam")]),
    ]
    reviews = [
        {"id": 2101, "author": "erin", "state": "COMMENTED", "body": "Off-topic rant.", "submitted_at": _ts(10),
         "minimized": True},
    ]
    issue_comments = [
        {"id": 3101, "author": "carol", "body": "When will this land?", "created_at": _ts(11)},
        {"id": 3102, "author": "spammer", "body": SPAM, "created_at": _ts(12), "minimized": True,
         "minimized_reason": "SPAM"},
    ]
    return world(pr(11, threads, reviews=reviews, issue_comments=issue_comments, viewer_pending_review=pending))


CODEOWNERS = """\
# GitHub: the last matching pattern takes precedence
*.md        @acme/docs
/src/       @alice @acme/core
/src/vendor/
"""


def code_owner_world() -> dict[str, Any]:
    """main requires 1 approval and a code owner's. PR 21: bob (no owner) approved a change to src/, README.md,
    docs/guide/intro.md and src/vendor/. PR 22: carol of @acme/core approved a change to src/. PR 23: bob approved
    a change to src/vendor/, which the last matching line leaves unowned."""
    ruleset = {"id": 7, "name": "owners", "rules": [{"type": "pull_request", "parameters": {
        "required_approving_review_count": 1, "required_review_thread_resolution": False,
        "dismiss_stale_reviews_on_push": False, "require_code_owner_review": True,
        "require_last_push_approval": False}}]}

    def approved(number: int, by: str, files: list[str]) -> dict[str, Any]:
        return pr(number, [], files=files, reviews=[{"author": by, "state": "APPROVED", "body": "LGTM"}])

    w = world(approved(21, "bob", ["src/app.py", "README.md", "src/vendor/lib.py", "docs/guide/intro.md"]),
              approved(22, "carol", ["src/app.py"]),
              approved(23, "bob", ["src/vendor/lib.py"]))
    w["users"].update({"alice": {}, "bob": {}, "carol": {}})
    w["repositories"][0].update(codeowners=CODEOWNERS, teams={"acme/core": ["carol"], "acme/docs": ["dave"]},
                                branch_rules={"main": {"rulesets": [ruleset]}})
    return w


GEMINI_BODY = ("## Code Review\n\nI found one issue.\n\n**src/db.py:41**\n\n"
               "![high](https://www.gstatic.com/codereviewagent/high-priority.svg) The query interpolates user "
               "input (SQL injection risk).\n")


def two_bots_world() -> dict[str, Any]:
    """PR 12: CodeRabbit's inline thread and Gemini's review body report the same SQL injection."""
    threads = [thread("PRRT_sql", "src/db.py", 42, [
        comment(1201, "coderabbitai", "_⚠️ Potential issue_ | _🔴 Critical_\n\n**SQL injection: user input is "
                "interpolated into the query.**\n\nUse a parameterised query.", 1, association="NONE")])]
    reviews = [{"id": 2201, "author": "gemini-code-assist", "state": "COMMENTED", "body": GEMINI_BODY,
                "submitted_at": _ts(2), "author_association": "NONE"}]
    w = world(pr(12, threads, reviews=reviews))
    w["users"]["gemini-code-assist"] = {"type": "Bot"}
    return w


HEAD, OLD = "b" * 40, "a" * 40


def coverage_world() -> dict[str, Any]:
    """PR 13: Gemini reviewed the head; CodeRabbit reviewed an older commit and its summary now says it is
    rate-limited; Copilot only errored; Greptile reviewed an older commit and says a review is in progress;
    Bugbot reviewed only the older commit (not the new head); cubic has not reviewed yet but its status check
    on the head is running."""
    reviews = [
        {"id": 2301, "author": "coderabbitai", "state": "COMMENTED", "body": "**Actionable comments posted: 0**",
         "submitted_at": _ts(1), "commit_id": OLD, "author_association": "NONE"},
        {"id": 2302, "author": "gemini-code-assist", "state": "COMMENTED", "body": "## Code Review\n\nLooks fine.",
         "submitted_at": _ts(5), "commit_id": HEAD, "author_association": "NONE"},
        {"id": 2303, "author": "copilot-pull-request-reviewer", "state": "COMMENTED",
         "body": "Copilot encountered an error and was unable to review this pull request.", "submitted_at": _ts(6),
         "commit_id": HEAD, "author_association": "NONE"},
        {"id": 2304, "author": "greptile-apps", "state": "COMMENTED", "body": "<h3>Greptile Summary</h3>\n\nOK.",
         "submitted_at": _ts(2), "commit_id": OLD, "author_association": "NONE"},
        {"id": 2305, "author": "cursor", "state": "COMMENTED", "body": "Cursor Bugbot has reviewed your changes and "
         "found no bugs.", "submitted_at": _ts(3), "commit_id": OLD, "author_association": "NONE"},
    ]
    comments = [
        {"id": 3301, "author": "coderabbitai", "created_at": _ts(7), "author_association": "NONE",
         "body": "<!-- This is an auto-generated comment: rate limited by coderabbit.ai -->\n\n> [!WARNING]\n> "
                 "## Rate limit exceeded\n> Please wait 12 minutes before requesting another review."},
        {"id": 3302, "author": "greptile-apps", "created_at": _ts(8), "author_association": "NONE",
         "body": "Greptile review in progress for the latest commit…"},
    ]
    checks = [{"name": "cubic · AI code reviewer", "status": "IN_PROGRESS"}, {"name": "test", "status": "COMPLETED",
                                                                              "conclusion": "SUCCESS"}]
    w = world(pr(13, [], head_sha=HEAD, reviews=reviews, issue_comments=comments, checks=checks))
    w["users"].update({name: {"type": "Bot"} for name in ("gemini-code-assist", "greptile-apps", "cursor")})
    return w


def coverage_wait_world(*, done_at_poll: int | None = 3) -> dict[str, Any]:
    """PR 14: CodeRabbit's status check on the head is running (a review of the head under way); it completes
    at the ``done_at_poll``-th read of the PR (never when None). PR 15: the only AI reviewer is rate-limited."""
    rabbit = {"id": 2401, "author": "coderabbitai", "state": "COMMENTED", "body": "**Actionable comments posted: 0**",
              "submitted_at": _ts(1), "commit_id": HEAD, "author_association": "NONE"}
    timeline = [] if done_at_poll is None else [
        {"at_poll": done_at_poll, "update": {"CodeRabbit": {"status": "COMPLETED", "conclusion": "SUCCESS"}}}]
    limited = {"id": 3501, "author": "coderabbitai", "created_at": _ts(7), "author_association": "NONE",
               "body": "<!-- This is an auto-generated comment: rate limited by coderabbit.ai -->\n\n> [!WARNING]\n"
                       "> ## Rate limit exceeded"}
    return world(
        pr(14, [], head_sha=HEAD, reviews=[rabbit], checks=[{"name": "CodeRabbit", "status": "IN_PROGRESS"}],
           ci={"timeline": timeline}),
        pr(15, [], head_sha=HEAD, reviews=[{**rabbit, "id": 2501, "commit_id": OLD}], issue_comments=[limited]))
