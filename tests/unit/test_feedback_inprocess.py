"""Review feedback through the CLI in this process (tests/unit/inproc.py): `comments` and `resolve` against fakehub
through the real gh — what a user reads and what lands on the PR."""

from __future__ import annotations

from typing import Any

from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.review_worlds import SPAM, coverage_world, hidden_world, two_bots_world
from tests.e2e.worlds import HOSTILE_BODY, big_world, feedback_world


def _threads(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t: c for c in out["comments"] if (t := item_thread(c))}


def _thread(hub: Any, thread_id: str) -> dict[str, Any]:
    return hub.world.thread(thread_id)


def test_comments_lists_each_kind_of_feedback_once_with_who_spoke_last(inproc) -> None:
    a = inproc(feedback_world())
    out = a.json("comments", "acme/widgets#7", "--detail", "full")
    threads = _threads(out)
    assert set(threads) == {"PRRT_human", "PRRT_outdated", "PRRT_rabbit", "PRRT_copilot", "PRRT_hostile",
                            "PRRT_locked"}  # the resolved thread is left out and counted
    assert out["summary"]["resolved_threads_skipped"] == 1
    human = threads["PRRT_human"]
    assert human["last_author"] == "octocat" and human["viewer_replied"] is True
    assert [r["body"] for r in human["replies"]] == ["Agreed.", "Will do."]
    assert threads["PRRT_hostile"]["body"] == HOSTILE_BODY  # untrusted text comes back as data, unchanged
    assert threads["PRRT_locked"]["can_resolve"] is False
    # erin's change request stands; frank's was superseded by his own approval
    reviews = {c["id"]: c for c in out["comments"] if c["type"] == "review"}
    assert set(reviews) == {2001}
    assert reviews[2001]["author"] == "erin" and reviews[2001]["body"] == "Please add tests."
    assert out["summary"]["by_type"]["issue_comment"] == 3  # the hidden one only with --detail full


def test_comments_text_view_shows_replies_and_the_commands_to_answer(inproc) -> None:
    a = inproc(feedback_world())
    ran = a.cli("comments", "acme/widgets#7", "--detail", "full")
    assert ran.code == 0, ran.stderr
    first = ran.stdout.split("●")[1]
    assert "src/app.py:12  alice" in first and "↳ bob: Agreed." in first
    assert "reply:   gh api -X POST repos/acme/widgets/pulls/7/comments/1001/replies" in first
    assert "resolve: " in first
    locked = ran.stdout.split("thread PRRT_locked")[1].split("●")[0]
    assert "resolve: " not in locked  # the viewer may not resolve it: no command offered


def test_filters_leave_out_bots_authors_and_outdated_threads(inproc) -> None:
    a = inproc(feedback_world())
    humans = a.json("comments", "acme/widgets#7", "--no-include-bots", "--no-include-outdated")
    assert {c["author"] for c in humans["comments"]} == {"alice", "carol", "mallory", "dave", "erin"}
    assert "PRRT_outdated" not in _threads(humans)
    by_file = [c.get("file_path") for c in a.json("comments", "acme/widgets#7", "--sort", "by_file")["comments"]]
    assert by_file[:3] == ["README.md", "src/$(touch pwned)/it's \"x\"`id`.py", "src/app.py"]


def test_hidden_replies_are_counted_and_never_the_last_word(inproc) -> None:
    a = inproc(hidden_world(pending=True))
    out = a.json("comments", "acme/widgets#11")
    spam = _threads(out)["PRRT_spam"]
    assert spam["hidden_replies"] == 1 and spam["last_author"] == "octocat"
    assert SPAM not in [r["body"] for r in spam["replies"]]
    [warning] = out["warnings"]
    assert warning["code"] == "pending_review"  # a reply would join the viewer's unsent review
    assert spam["action_commands"]["reply_into_pending_review"] is True
    chat = _threads(a.json("comments", "acme/widgets#11", "--no-include-bots"))["PRRT_botchat"]
    assert [r["author"] for r in chat["replies"]] == ["bob"] and chat["root_filtered"] is True


def test_two_bots_reporting_one_finding_make_one_item(inproc) -> None:
    out = inproc(two_bots_world()).json("comments", "acme/widgets#12")
    [item] = out["comments"]
    assert item["severity_level"] == "critical"
    assert [r["author"] for r in item["also_reported_by"]] == ["gemini-code-assist"]


def test_ai_reviewers_that_have_not_reviewed_the_head_are_a_warning(inproc) -> None:
    out = inproc(coverage_world()).json("comments", "acme/widgets#13")
    status = {c["reviewer"]: c["status"] for c in out["ai_review_coverage"]}
    assert status["gemini-code-assist"] == "reviewed_head" and status["cursor"] == "behind"
    [warning] = [w for w in out["warnings"] if w["code"] == "ai_review_not_current"]
    assert "cursor (behind)" in warning["message"]


def test_a_big_pr_pages_with_a_cursor_and_every_thread_comes_once(inproc) -> None:
    a = inproc(big_world(n_threads=60, long_thread=110, resolved_every=10))
    first = a.json("comments", "acme/widgets#9", "--page-size", "25")
    second = a.json("comments", "acme/widgets#9", "--page-size", "25", "--cursor", first["nextCursor"])
    third = a.json("comments", "acme/widgets#9", "--page-size", "25", "--cursor", second["nextCursor"])
    seen = [item_thread(c) for page in (first, second, third) for c in page["comments"]]
    assert len(seen) == len(set(seen)) == 54 and "nextCursor" not in third
    long = _threads(first)["PRRT_big0003"]
    assert (long["reply_count"], len(long["replies"])) == (109, 2)  # summarised; all with --detail full
    mismatch = a.cli("comments", "acme/widgets#9", "--sort", "by_author", "--cursor", first["nextCursor"])
    assert mismatch.code == 2 and "cursor_mismatch" in mismatch.stderr


def test_resolve_by_thread_then_again_changes_nothing_more(inproc) -> None:
    a = inproc(feedback_world())
    out = a.json("resolve", "acme/widgets#7", "--thread", "PRRT_human")
    assert (out["ok"], out["alreadyResolved"], out["replied"]) == (True, False, False)
    assert _thread(a.hub, "PRRT_human")["resolved"] is True
    again = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_human", "--reply", "Done")
    assert again.code == 0 and "already resolved" in again.stdout.lower()
    assert len(_thread(a.hub, "PRRT_human")["comments"]) == 3


def test_resolve_by_a_comment_id_posts_the_reply_first(inproc) -> None:
    a = inproc(feedback_world())
    out = a.json("resolve", "acme/widgets#7", "--comment", "1021", "--reply", "Fixed: now O(n).")
    assert out["thread_id"] == "PRRT_outdated" and out["replied"] is True
    posted = _thread(a.hub, "PRRT_outdated")["comments"][-1]
    assert (posted["author"], posted["body"]) == ("octocat", "Fixed: now O(n).")
    assert _thread(a.hub, "PRRT_outdated")["resolved"] is True
    repeat = a.json("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--reply", "Fixed: now O(n).")
    assert repeat["alreadyResolved"] is True and repeat["replied"] is False


def test_resolve_refuses_when_the_reviewer_spoke_last_unless_told_to(inproc) -> None:
    a = inproc(feedback_world())
    carol = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--json")
    assert carol.code == 3
    assert carol.json()["error"]["code"] == "reviewer_spoke_last"
    assert _thread(a.hub, "PRRT_outdated")["resolved"] is False
    forced = a.json("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--when-reviewer-spoke-last",
                    "resolve")
    assert forced["ok"] is True and forced["last_speaker"]["author"] == "carol"


def test_resolve_errors_are_typed_and_change_nothing(inproc) -> None:
    a = inproc(feedback_world())
    locked = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_locked", "--reply", "done")
    assert locked.code == 3 and "forbidden" in locked.stderr
    assert len(_thread(a.hub, "PRRT_locked")["comments"]) == 1
    other = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_other", "--json")
    assert other.code == 3 and other.json()["error"]["code"] == "thread_not_in_pr"
    missing = a.cli("resolve", "acme/widgets#7", "--comment", "999999", "--json")
    assert missing.code == 3 and missing.json()["error"]["code"] == "comment_not_found"


def test_waiting_for_ai_reviewers_ends_when_they_cover_the_head_or_cannot(inproc) -> None:
    from tests.e2e.review_worlds import coverage_wait_world

    fast = {"GH_PR_AGENT_POLL_INTERVAL": "0.05"}

    a = inproc(coverage_wait_world(done_at_poll=3))
    out = a.json("comments", "acme/widgets#14", "--wait", **fast)
    assert out["wait_info"]["ended"] == "covered"
    assert [(c["reviewer"], c["status"]) for c in out["ai_review_coverage"]] == [("coderabbitai", "reviewed_head")]
    limited = a.json("comments", "acme/widgets#15", "--wait", **fast)  # waiting never clears a rate limit
    assert limited["wait_info"]["ended"] == "blocked" and limited["wait_info"]["polls"] == 1
    ready = a.json("ready", "acme/widgets#15")
    [warning] = [w for w in ready["warnings"] if w["code"] == "ai_review_not_current"]
    assert warning["command"] == "gh pr-agent comments 'acme/widgets#15'" and "Re-trigger" in warning["action_required"]


def test_a_lost_answer_after_a_posted_reply_says_calling_again_is_safe(inproc) -> None:
    from tests.fakehub import Fault

    a = inproc(feedback_world())
    a.hub.add_fault(Fault(match="graphql:ResolveThread", status=502, times=1))
    lost = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--reply", "Fixed in abc123", "--json")
    assert lost.code == 3 and "WAS posted" in lost.stderr  # a write is never retried blindly
    details = lost.json()["error"]["details"]
    assert details["maybe_applied"] is True and details["reply_posted"] is True
    again = a.json("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--reply", "Fixed in abc123")
    assert again["replied"] is False and "not posted again" in again["message"]
    assert [c["body"] for c in _thread(a.hub, "PRRT_outdated")["comments"]].count("Fixed in abc123") == 1


def test_a_pending_review_blocks_a_reply_and_says_how_to_submit_or_discard_it(inproc) -> None:
    world = feedback_world()
    world["repositories"][0]["pull_requests"][0]["viewer_pending_review"] = True
    a = inproc(world)
    ran = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_human", "--reply", "x", "--json")
    assert ran.code == 3
    error = ran.json()["error"]
    assert error["code"] == "pending_review_blocks_reply"
    assert error["details"]["submit_command"].startswith("gh api graphql")
    assert _thread(a.hub, "PRRT_human")["resolved"] is False and len(_thread(a.hub, "PRRT_human")["comments"]) == 3


def test_a_comment_deep_in_a_long_thread_finds_its_thread(inproc) -> None:
    a = inproc(big_world(n_threads=8, long_thread=105, resolved_every=100))
    long_thread = _thread(a.hub, "PRRT_big0003")
    deep = long_thread["comments"][102]
    out = a.json("resolve", "acme/widgets#9", "--comment", str(deep["id"]), "--when-reviewer-spoke-last", "resolve")
    assert out["thread_id"] == "PRRT_big0003" and out["last_speaker"]["author"] == long_thread["comments"][-1]["author"]
    by_node = a.json("resolve", "acme/widgets#9", "--comment", long_thread["comments"][104]["node_id"])
    assert by_node["thread_id"] == "PRRT_big0003" and by_node["alreadyResolved"] is True


def test_ai_review_bodies_become_findings_once_and_reposts_are_merged(inproc) -> None:
    from tests.e2e.test_review_bodies import bodies_world

    a = inproc(bodies_world())
    out = a.json("comments", "acme/widgets#11", "--detail", "full")
    findings = [c for c in out["comments"] if c.get("fingerprint") and c.get("source") == "review_body"]
    assert len({c["fingerprint"] for c in findings}) == len(findings) > 0
    assert [(c["author"], c["review_state"]) for c in out["comments"] if c["type"] == "review" and not c["is_bot"]] \
        == [("alice", "CHANGES_REQUESTED")]  # a human review stays whole
    assert out["summary"]["findings_already_in_threads"] == 1  # said once, by the inline thread
    assert out["summary"]["reposted_findings_merged"] > 0
    assert {c["seen_count"] for c in findings if c.get("first_seen_at") != c["created_at"]} == {2}
    whole = a.json("comments", "acme/widgets#11", "--no-parse-review-bodies")
    assert len([c for c in whole["comments"] if c["type"] == "review"]) == 6
