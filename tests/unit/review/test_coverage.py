"""AI-review coverage of the head (pr_agent/review/coverage.py): markers, status checks, what a wait can clear."""

from __future__ import annotations

from pr_agent.review.coverage import WAITABLE, ai_review_coverage

HEAD, OLD = "b" * 40, "a" * 40
BOT = {"__typename": "Bot"}


def _review(login: str, commit: str, body: str = "Reviewed.", when: str = "2026-11-30T10:00:00Z") -> dict:
    return {"author": {"login": login, **BOT}, "state": "COMMENTED", "body": body, "commit": {"oid": commit},
            "submittedAt": when}


def _comment(login: str, body: str, when: str) -> dict:
    return {"author": {"login": login, **BOT}, "body": body, "createdAt": when}


def test_bito_skip_and_codeant_progress_markers() -> None:
    bito = [_comment("bito-code-review", "## Code Review Agent Run Status\n\n- **Limitations and other issues:** "
                     "Failure - The AI Code Review Agent skipped reviewing this change because …",
                     "2026-11-30T11:00:00Z")]
    [got] = ai_review_coverage([_review("bito-code-review", OLD)], bito, HEAD)
    assert (got["bot"], got["status"], got["covers_head"]) == ("bito", "skipped", False)
    assert "skipped" not in WAITABLE  # no wait clears a skip
    reviewing = [_comment("codeant-ai", "CodeAnt AI is reviewing your PR.", "2026-11-30T11:00:00Z")]
    [busy] = ai_review_coverage([_review("codeant-ai", OLD)], reviewing, HEAD)
    assert (busy["bot"], busy["status"]) == ("codeant", "in_progress")
    done = [*reviewing, _comment("codeant-ai", "CodeAnt AI finished reviewing your PR.", "2026-11-30T11:05:00Z")]
    [after] = ai_review_coverage([_review("codeant-ai", HEAD, when="2026-11-30T11:04:00Z")], done, HEAD)
    assert (after["status"], after["covers_head"]) == ("reviewed_head", True)


def test_reviewer_status_checks_are_recognised_by_name_only_when_unambiguous() -> None:
    from pr_agent.review.coverage import check_bot

    assert [check_bot(n) for n in ("CodeRabbit", "Cursor Bugbot", "cubic · AI code reviewer", "Greptile Review",
                                   "CodeAnt AI", "Bito Code Review")] == [
        "coderabbit", "cursor", "cubic", "greptile", "codeant", "bito"]
    assert [check_bot(n) for n in ("lint cursor positions", "test gh-pr-agent", "docs (coderabbit config)")] == [
        None, None, None]
    rollup = [{"__typename": "CheckRun", "name": "CodeRabbit", "status": "COMPLETED", "conclusion": "SUCCESS"},
              {"__typename": "StatusContext", "context": "Cursor Bugbot", "state": "PENDING"}]
    assert ai_review_coverage([], [], "b" * 40, rollup) == [
        {"reviewer": "Cursor Bugbot", "bot": "cursor", "reviewed_commit": None, "covers_head": False,
         "status": "in_progress"}]
