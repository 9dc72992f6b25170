"""find_unresolved_comments end to end: our CLI → real gh → fakehub (GraphQL on GitHub's schema)."""

from __future__ import annotations

from typing import Any

from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.worlds import HOSTILE_BODY, HOSTILE_PATH, big_world, feedback_world


def by_node(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["node_id"]: c for c in out["comments"]}


def test_feedback_is_told_apart(agent) -> None:
    a = agent(feedback_world())
    out = a.json("comments", "acme/widgets#7", "--detail", "full")
    types = {item_thread(c) or c["id"]: c["type"] for c in out["comments"]}
    assert sorted(t for t in types if isinstance(t, str)) == [
        "PRRT_copilot", "PRRT_hostile", "PRRT_human", "PRRT_locked", "PRRT_outdated", "PRRT_rabbit"]
    assert {k: v for k, v in types.items() if not isinstance(k, str)} == {
        2001: "review", 3001: "issue_comment", 3002: "issue_comment", 3003: "issue_comment"}
    assert [c["id"] for c in out["comments"] if c.get("is_minimized")] == [3002]  # hidden: listed with full only
    assert out["total_unresolved"] == 10 and out["summary"]["resolved_threads_skipped"] == 1
    assert "nextCursor" not in out

    human = next(c for c in out["comments"] if item_thread(c) == "PRRT_human")
    assert human["id"] == 1001 and human["author"] == "alice" and not human["is_bot"]
    assert [(r["id"], r["author"]) for r in human["replies"]] == [(1002, "bob"), (1003, "octocat")]
    assert human["file_path"] == "src/app.py" and human["line_number"] == 12
    assert human["diff_hunk"].startswith("@@") and human["reactions"]["total_count"] == 0
    assert human["action_commands"]["mcp_action"] == {
        "tool": "resolve_review_thread", "args": {"pr": "acme/widgets#7", "thread_id": "PRRT_human"}}

    outdated = next(c for c in out["comments"] if item_thread(c) == "PRRT_outdated")
    assert outdated["is_outdated"] is True and outdated["line_number"] == 3
    assert [item_thread(c) for c in out["comments"] if c.get("is_outdated")] == ["PRRT_outdated"]
    assert outdated["changed_since_comment"] == "true" and human["changed_since_comment"] == "false"

    bots = sorted(c["author"] for c in out["comments"] if c["is_bot"])
    assert bots == ["coderabbitai", "copilot-pull-request-reviewer", "github-actions"]
    assert out["summary"]["bot_comments"] == 3 and out["summary"]["human_comments"] == 7
    assert out["summary"]["by_type"] == {"issue_comment": 3, "review": 1, "review_comment": 6}

    rabbit = next(c for c in out["comments"] if item_thread(c) == "PRRT_rabbit")  # an inline AI finding
    assert (rabbit["title"], rabbit["severity_level"], rabbit["category"]) == (
        "SQL injection risk.", "major", "actionable")
    assert not any(k in human for k in ("title", "severity", "category", "fingerprint"))  # humans stay plain
    assert out["summary"]["inline_findings"] == 2 and out["summary"]["review_body_findings"] == 0
    locked = next(c for c in out["comments"] if item_thread(c) == "PRRT_locked")
    assert locked["can_resolve"] is False
    hostile = next(c for c in out["comments"] if item_thread(c) == "PRRT_hostile")
    assert hostile["body"] == HOSTILE_BODY and hostile["file_path"] == HOSTILE_PATH


def test_filters_and_sorting(agent) -> None:
    a = agent(feedback_world())
    no_bots = a.json("comments", "acme/widgets#7", "--no-include-bots")
    assert no_bots["total_unresolved"] == 6 and not any(c["is_bot"] for c in no_bots["comments"])
    excluded = a.json("comments", "acme/widgets#7", "--exclude-authors", "CodeRabbitAI[bot]",
                      "--exclude-authors", "carol")
    assert {c["author"] for c in excluded["comments"]}.isdisjoint({"coderabbitai", "carol"})
    assert excluded["total_unresolved"] == 6
    fresh = a.json("comments", "acme/widgets#7", "--no-include-outdated")
    assert not any(c.get("is_outdated") for c in fresh["comments"]) and fresh["total_unresolved"] == 8
    by_file = a.json("comments", "acme/widgets#7", "--sort", "by_file")
    paths = [c.get("file_path") for c in by_file["comments"]]
    with_path = [p for p in paths if p]
    assert with_path == sorted(with_path) and paths[len(with_path):] == [None] * (len(paths) - len(with_path))
    by_author = a.json("comments", "acme/widgets#7", "--sort", "by_author")
    authors = [c["author"].lower() for c in by_author["comments"]]
    assert authors == sorted(authors)
    concise = a.json("comments", "acme/widgets#7")
    assert all("diff_hunk" not in c and "reactions" not in c for c in concise["comments"])


def test_stored_preferences_apply(agent) -> None:
    a = agent(feedback_world())
    assert a.cli("config", "set", "find_unresolved_comments.include_bots", "false").returncode == 0
    assert a.json("comments", "acme/widgets#7")["summary"]["bot_comments"] == 0
    assert a.json("comments", "acme/widgets#7", "--include-bots")["summary"]["bot_comments"] == 3
    bad = a.cli("config", "set", "find_unresolved_comments.sort", "sideways")
    assert bad.returncode == 2 and "invalid_preference" in bad.stderr


def test_big_pr_is_complete_and_pages_exactly_once(agent) -> None:
    a = agent(big_world())
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        args = ["comments", "acme/widgets#9"] + (["--cursor", cursor] if cursor else [])
        out = a.json(*args)
        pages += 1
        seen.extend(item_thread(c) for c in out["comments"])
        cursor = out.get("nextCursor")
        if not cursor:
            break
    expected = [f"PRRT_big{i:04d}" for i in range(150) if i % 10 != 9]
    assert len(seen) == len(set(seen)) == len(expected) == 135
    assert sorted(seen) == sorted(expected)
    assert pages == 3 and out["total_unresolved"] == 135
    long_thread = a.json("comments", "acme/widgets#9", "--detail", "full")["comments"]
    item = next(c for c in long_thread if item_thread(c) == "PRRT_big0003")
    assert len(item["replies"]) == 129
    assert [r["body"] for r in item["replies"]][-1] == "thread 3 comment 129"
    concise = a.json("comments", "acme/widgets#9")  # the chain summarised: count, the last replies, how to get all
    item = next(c for c in concise["comments"] if item_thread(c) == "PRRT_big0003")
    assert (item["reply_count"], item["replies_omitted"], len(item["replies"])) == (129, 127, 2)
    assert [r["body"] for r in item["replies"]] == ["thread 3 comment 128", "thread 3 comment 129"]
    assert concise["truncated"]["replies_omitted"] >= 127 and "--detail full" in concise["truncated"]["how_to_get_all"]


def test_cursor_from_other_arguments_is_refused(agent) -> None:
    a = agent(big_world())
    cursor = a.json("comments", "acme/widgets#9")["nextCursor"]
    proc = a.cli("comments", "acme/widgets#9", "--sort", "by_file", "--cursor", cursor, "--json")
    assert proc.returncode == 2
    assert '"cursor_mismatch"' in proc.stdout and "cursor_mismatch" in proc.stderr
    tampered = a.cli("comments", "acme/widgets#9", "--cursor", cursor[:-3] + "AAA")
    assert tampered.returncode == 2 and "invalid_cursor" in tampered.stderr


def test_human_output_is_readable_and_escaped(agent) -> None:
    a = agent(feedback_world())
    proc = a.cli("comments", "acme/widgets#7")
    assert proc.returncode == 0
    assert "acme/widgets#7: 9 unresolved" in proc.stdout
    assert "\x1b" not in proc.stdout
    assert "↳ bob: Agreed." in proc.stdout


def test_hidden_comments_are_flagged_and_never_the_last_word(agent) -> None:
    from tests.e2e.review_worlds import SPAM, hidden_world

    a = agent(hidden_world())
    listed = a.json("comments", "acme/widgets#11")["comments"]
    concise = {item_thread(c): c for c in listed if item_thread(c)}
    spam = concise["PRRT_spam"]
    assert [r["author"] for r in spam["replies"]] == ["octocat"] and spam["hidden_replies"] == 1
    assert spam["last_author"] == "octocat" and spam["viewer_replied"] is True
    assert "PRRT_allhidden" not in concise  # nothing visible in it: only detail=full lists it
    assert SPAM not in [c["body"] for c in listed] + [r["body"] for c in listed for r in c["replies"]]
    assert {c["id"] for c in listed if c["type"] != "review_comment"} == {3101}  # hidden review/comment left out

    full_out = a.json("comments", "acme/widgets#11", "--detail", "full")
    full = by_thread(full_out)
    hidden = full["PRRT_spam"]["replies"][-1]
    assert hidden["is_minimized"] is True and hidden["minimized_reason"] == "spam" and hidden["body"] == SPAM
    assert full["PRRT_spam"]["last_author"] == "octocat"  # still the last VISIBLE word
    assert full["PRRT_allhidden"]["is_minimized"] is True and "last_author" not in full["PRRT_allhidden"]
    others = {c["id"]: c for c in full_out["comments"] if c["type"] != "review_comment"}
    assert others[3102]["is_minimized"] is True and others[3102]["minimized_reason"] == "spam"
    assert others[2101]["is_minimized"] is True and others[3101]["is_minimized"] is False

    # resolve agrees: the viewer's "Fixed in …" is the last word, not the hidden spam
    out = a.json("resolve", "acme/widgets#11", "--thread", "PRRT_spam")
    assert out["ok"] is True and out["last_speaker"] == {"author": "octocat", "is_bot": False, "is_viewer": True}


def by_thread(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item_thread(c): c for c in out["comments"] if item_thread(c)}


def test_bot_filter_keeps_the_human_part_of_a_bot_thread(agent) -> None:
    from tests.e2e.review_worlds import hidden_world

    a = agent(hidden_world())
    out = a.json("comments", "acme/widgets#11", "--no-include-bots")
    threads = by_thread(out)
    assert "PRRT_botonly" not in threads
    chat = threads["PRRT_botchat"]
    assert chat["root_filtered"] is True and chat["filtered_replies"] == 1
    assert [(r["author"], r["body"]) for r in chat["replies"]] == [
        ("bob", "Agreed — please fix this before merging.")]
    assert not any(r.get("is_bot") for c in out["comments"] for r in c["replies"])
    assert out["summary"]["bot_comments"] == 0
    excluded = by_thread(a.json("comments", "acme/widgets#11", "--exclude-authors", "BOB"))
    assert [r["author"] for r in excluded["PRRT_botchat"]["replies"]] == ["coderabbitai"]


def test_unresolvable_thread_offers_no_resolve(agent) -> None:
    from tests.e2e.review_worlds import hidden_world

    a = agent(hidden_world())
    locked = by_thread(a.json("comments", "acme/widgets#11"))["PRRT_locked"]
    ac = locked["action_commands"]
    assert locked["can_resolve"] is False and "resolve_command" not in ac and "mcp_action" not in ac
    assert "cannot resolve" in ac["resolve_condition"]
    reply = a.shell(ac["reply_command"], stdin="Addressed in abc123.")  # what IS offered works
    assert reply.returncode == 0, reply.stderr
    assert a.hub.world.thread("PRRT_locked")["comments"][-1]["body"] == "Addressed in abc123."
    text = a.cli("comments", "acme/widgets#11").stdout
    assert "resolve: " not in text.split("thread PRRT_locked")[1].split("●")[0]


def test_pending_review_is_a_warning_and_every_command_works(agent) -> None:
    from tests.e2e.review_worlds import hidden_world

    a = agent(hidden_world(pending=True))
    out = a.json("comments", "acme/widgets#11")
    [warning] = out["warnings"]
    assert warning["code"] == "pending_review" and "422" in warning["message"]
    pr = a.hub.world.pull_request("acme/widgets", 11)
    pending = next(r for r in pr["reviews"] if r["state"] == "PENDING")
    assert warning["review_id"] == pending["node_id"]
    spam = by_thread(out)["PRRT_spam"]
    ac = spam["action_commands"]
    assert ac["reply_into_pending_review"] is True and "/replies" not in ac["reply_command"]
    posted = a.shell(ac["reply_command"], stdin="See $(id) `x` \"q\"")
    assert posted.returncode == 0, posted.stderr
    draft = a.hub.world.thread("PRRT_spam")["comments"][-1]
    assert draft["body"] == "See $(id) `x` \"q\"" and draft["state"] == "PENDING"
    assert draft["review"] == pending["id"]
    assert "WARNING:" in a.cli("comments", "acme/widgets#11").stdout

    submit = a.shell(warning["submit_command"])
    assert submit.returncode == 0, submit.stderr
    assert draft["state"] == "SUBMITTED" and pending["state"] == "COMMENTED"
    after = a.json("comments", "acme/widgets#11")
    assert after["warnings"] == []
    rest = by_thread(after)["PRRT_spam"]["action_commands"]
    assert "reply_into_pending_review" not in rest and "/replies" in rest["reply_command"]
    assert a.shell(rest["reply_command"], stdin="thanks").returncode == 0  # the REST reply works again


def test_same_finding_from_two_bots_is_one_item(agent) -> None:
    from tests.e2e.review_worlds import two_bots_world

    out = agent(two_bots_world()).json("comments", "acme/widgets#12")
    [only] = out["comments"]
    assert item_thread(only) == "PRRT_sql" and only["severity_level"] == "critical"
    assert [(r["author"], r["severity"], r["severity_level"]) for r in only["also_reported_by"]] == [
        ("gemini-code-assist", "high", "major")]
    assert out["summary"]["cross_bot_duplicates_merged"] == 1 and out["total_unresolved"] == 1


def test_ai_review_coverage_of_the_head(agent) -> None:
    from tests.e2e.review_worlds import HEAD, OLD, coverage_world

    out = agent(coverage_world()).json("comments", "acme/widgets#13")
    got = {c["reviewer"]: (c["status"], c["covers_head"], c.get("reviewed_commit")) for c in out["ai_review_coverage"]}
    assert got == {
        "coderabbitai": ("rate_limited", False, OLD),
        "gemini-code-assist": ("reviewed_head", True, HEAD),
        "copilot-pull-request-reviewer": ("errored", False, None),  # an error review is not a review
        "greptile-apps": ("in_progress", False, OLD),
        "cursor": ("behind", False, OLD),  # has not reviewed the new head
        "cubic · AI code reviewer": ("in_progress", False, None),  # its status check on the head is running
    }
    [warning] = [w for w in out["warnings"] if w["code"] == "ai_review_not_current"]
    assert "coderabbitai (rate limited)" in warning["message"] and "gemini" not in warning["message"]
    assert "cursor (behind)" in warning["message"] and "wait=true" in warning["suggestion"]


HEAD_SHA = "b" * 40  # review_worlds.HEAD


def test_wait_until_the_ai_reviewers_cover_the_head(one_agent) -> None:
    from tests.e2e.ci_worlds import FAST
    from tests.e2e.review_worlds import coverage_wait_world

    a = one_agent(coverage_wait_world())
    before = a.json("comments", "acme/widgets#14")  # one read (poll 1): CodeRabbit's check still runs
    assert [c["status"] for c in before["ai_review_coverage"]] == ["in_progress"] and "wait_info" not in before
    out = a.json("comments", "acme/widgets#14", "--wait", env=a.env(**FAST))  # polls 2, 3: the check completes at 3
    assert out["wait_info"]["ended"] == "covered" and out["wait_info"]["polls"] == 2
    assert out["ai_review_coverage"] == [{"reviewer": "coderabbitai", "bot": "coderabbit", "reviewed_commit": HEAD_SHA,
                                          "covers_head": True, "status": "reviewed_head"}]
    assert not [w for w in out["warnings"] if w["code"] == "ai_review_not_current"]
    limited = a.json("comments", "acme/widgets#15", "--wait", env=a.env(**FAST))  # no wait clears a rate limit
    assert limited["wait_info"] == {"waited_seconds": limited["wait_info"]["waited_seconds"], "polls": 1,
                                    "ended": "blocked"}
    assert [c["status"] for c in limited["ai_review_coverage"]] == ["rate_limited"]


def test_wait_for_ai_reviewers_times_out_with_the_last_state(one_agent) -> None:
    from tests.e2e.ci_worlds import FAST
    from tests.e2e.review_worlds import coverage_wait_world

    a = one_agent(coverage_wait_world(done_at_poll=None))
    out = a.json("comments", "acme/widgets#14", "--wait", "--timeout-seconds", "1", env=a.env(**FAST))
    assert out["wait_info"]["ended"] == "timeout" and out["wait_info"]["polls"] >= 1
    assert [c["status"] for c in out["ai_review_coverage"]] == ["in_progress"]


def test_readiness_warns_when_ai_reviewers_have_not_covered_the_head(one_agent) -> None:
    import shlex

    from tests.e2e.ci_worlds import FAST
    from tests.e2e.review_worlds import coverage_wait_world, coverage_world

    out = one_agent(coverage_world()).json("ready", "acme/widgets#13")
    [warning] = [w for w in out["warnings"] if w["code"] == "ai_review_not_current"]
    for who in ("coderabbitai (rate limited)", "cursor (behind)", "cubic · AI code reviewer (in progress)",
                "copilot-pull-request-reviewer (errored)", "greptile-apps (in progress)"):
        assert who in warning["description"]
    assert "gemini" not in warning["description"] and warning["category"] == "reviews"
    assert warning["command"] == "gh pr-agent comments 'acme/widgets#13' --wait"  # someone is still reviewing
    a = one_agent(coverage_wait_world(done_at_poll=6))
    limited = a.json("ready", "acme/widgets#15")
    [only] = [w for w in limited["warnings"] if w["code"] == "ai_review_not_current"]
    assert only["command"] == "gh pr-agent comments 'acme/widgets#15'" and "Re-trigger" in only["action_required"]
    [running] = [w for w in a.json("ready", "acme/widgets#14")["warnings"] if w["code"] == "ai_review_not_current"]
    assert "coderabbitai (in progress)" in running["description"]  # its check on the head is still running
    # the offered steps run (what `gh pr-agent` runs): the wait ends when CodeRabbit's check completes
    for command, ended in ((running["command"], "covered"), (only["command"], None)):
        argv = shlex.split(command)
        assert argv[:2] == ["gh", "pr-agent"]
        out = a.json(*argv[2:], env=a.env(**FAST))
        assert (out.get("wait_info") or {}).get("ended") == ended


def test_wait_over_mcp_sends_progress_until_covered(one_agent) -> None:
    from tests.e2e.ci_worlds import FAST
    from tests.e2e.review_worlds import coverage_wait_world
    from tests.e2e.test_mcp import mcp_session

    a = one_agent(coverage_wait_world(done_at_poll=4))
    messages: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        messages.append((done, total, message))

    async def body(c: Any) -> Any:
        return await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#14", "wait": True},
                                 progress_callback=progress)

    result = mcp_session(a, body, env=a.env(**FAST))
    assert result.is_error is False
    assert result.structured_content["wait_info"]["ended"] == "covered"
    assert len(messages) >= 2 and all(total == 1 for _, total, _ in messages)
    assert all("waiting for coderabbitai (in progress)" in (m or "") for _, _, m in messages)
