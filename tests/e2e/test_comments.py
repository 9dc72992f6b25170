"""find_unresolved_comments end to end: our CLI → real gh → fakehub (GraphQL on GitHub's schema)."""

from __future__ import annotations

from typing import Any

from tests.e2e.worlds import HOSTILE_BODY, HOSTILE_PATH, big_world, feedback_world


def by_node(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["node_id"]: c for c in out["comments"]}


def test_feedback_is_told_apart(agent) -> None:
    a = agent(feedback_world())
    out = a.json("comments", "acme/widgets#7", "--detail", "full")
    types = {c.get("thread_id") or c["id"]: c["type"] for c in out["comments"]}
    assert sorted(t for t in types if isinstance(t, str)) == [
        "PRRT_copilot", "PRRT_hostile", "PRRT_human", "PRRT_locked", "PRRT_outdated", "PRRT_rabbit"]
    assert {k: v for k, v in types.items() if not isinstance(k, str)} == {
        2001: "review", 3001: "issue_comment", 3003: "issue_comment"}
    assert out["total_unresolved"] == 9 and out["summary"]["resolved_threads_skipped"] == 1
    assert "nextCursor" not in out

    human = next(c for c in out["comments"] if c.get("thread_id") == "PRRT_human")
    assert human["id"] == 1001 and human["author"] == "alice" and not human["is_bot"]
    assert [(r["id"], r["author"]) for r in human["replies"]] == [(1002, "bob"), (1003, "octocat")]
    assert human["file_path"] == "src/app.py" and human["line_number"] == 12
    assert human["diff_hunk"].startswith("@@") and human["reactions"]["total_count"] == 0
    assert human["action_commands"]["mcp_action"] == {
        "tool": "resolve_review_thread", "args": {"pr": "acme/widgets#7", "thread_id": "PRRT_human"}}

    outdated = next(c for c in out["comments"] if c.get("thread_id") == "PRRT_outdated")
    assert outdated["is_outdated"] is True and outdated["line_number"] == 3
    assert [c["thread_id"] for c in out["comments"] if c.get("is_outdated")] == ["PRRT_outdated"]

    bots = sorted(c["author"] for c in out["comments"] if c["is_bot"])
    assert bots == ["coderabbitai", "copilot-pull-request-reviewer", "github-actions"]
    assert out["summary"]["bot_comments"] == 3 and out["summary"]["human_comments"] == 6
    assert out["summary"]["by_type"] == {"issue_comment": 2, "review": 1, "review_comment": 6}

    locked = next(c for c in out["comments"] if c.get("thread_id") == "PRRT_locked")
    assert locked["can_resolve"] is False
    hostile = next(c for c in out["comments"] if c.get("thread_id") == "PRRT_hostile")
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
        seen.extend(c["thread_id"] for c in out["comments"])
        cursor = out.get("nextCursor")
        if not cursor:
            break
    expected = [f"PRRT_big{i:04d}" for i in range(150) if i % 10 != 9]
    assert len(seen) == len(set(seen)) == len(expected) == 135
    assert sorted(seen) == sorted(expected)
    assert pages == 3 and out["total_unresolved"] == 135
    long_thread = a.json("comments", "acme/widgets#9", "--detail", "full")["comments"]
    item = next(c for c in long_thread if c["thread_id"] == "PRRT_big0003")
    assert len(item["replies"]) == 129
    assert [r["body"] for r in item["replies"]][-1] == "thread 3 comment 129"
    concise = a.json("comments", "acme/widgets#9")  # the chain summarised: count, the last replies, how to get all
    item = next(c for c in concise["comments"] if c["thread_id"] == "PRRT_big0003")
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
