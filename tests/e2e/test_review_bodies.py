"""AI-reviewer review bodies end to end: parsed into findings, deduplicated, merged across rounds,
LGTM notes never actionable; plus the reply-and-resolve policy about who spoke last."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.test_resolve import thread_of
from tests.e2e.worlds import _ts, comment, feedback_world, pr, thread, world

REVIEWS = Path(__file__).resolve().parents[2] / "fixtures" / "reviews"
NOT_ACTIONABLE = ("lgtm", "additional")


def body(name: str) -> str:
    return (REVIEWS / f"{name}.md").read_text(encoding="utf-8")


def expected(name: str) -> list[dict[str, Any]]:
    return [i for i in json.loads((REVIEWS / f"{name}.expected.json").read_text(encoding="utf-8"))["items"]
            if i["category"] not in NOT_ACTIONABLE]


def review(rid: int, author: str, name: str, minute: int, state: str = "COMMENTED") -> dict[str, Any]:
    return {"id": rid, "author": author, "state": state, "body": body(name), "submitted_at": _ts(minute)}


ROUND_1 = "coderabbit/nitpicks_2024_bold_title"
ROUND_2 = "coderabbit/outside_diff_caution_2025"


def bodies_world() -> dict[str, Any]:
    dup = next(i for i in expected(ROUND_2) if i["category"] == "duplicate")
    inline = thread("PRRT_rabbit_inline", dup["file_path"], dup["end_line"], [
        comment(5001, "coderabbitai", f"_⚠️ Potential issue_\n\n**{dup['title']}**\n\n{dup['body']}", 1,
                association="NONE")], start_line=dup["start_line"])
    reviews = [
        review(6001, "coderabbitai", ROUND_1, 2),
        review(6002, "coderabbitai", ROUND_2, 3),
        review(6003, "copilot-pull-request-reviewer", "copilot/overview_suppressed", 4),
        review(6004, "gemini-code-assist", "gemini/badged_findings", 5),
        review(6005, "alice", "human/plain_request", 6, state="CHANGES_REQUESTED"),
        review(6006, "coderabbitai", ROUND_1, 7),  # the same findings re-posted after a push
    ]
    w = world(pr(11, [inline], reviews=reviews))
    w["users"]["gemini-code-assist"] = {"type": "Bot"}
    return w


def test_every_actionable_body_finding_once_with_context(agent) -> None:
    a = agent(bodies_world())
    out = a.json("comments", "acme/widgets#11", "--detail", "full")
    findings = [c for c in out["comments"] if c.get("fingerprint") and c.get("source") == "review_body"]
    want: dict[tuple[str, str], dict[str, Any]] = {}
    for name in (ROUND_1, ROUND_2, "copilot/overview_suppressed", "gemini/badged_findings"):
        for item in expected(name):
            if item["category"] != "duplicate":  # carried by the inline thread instead
                want[(item["fingerprint"], name.split("/")[0])] = item
    got = {c["fingerprint"]: c for c in findings}
    assert len(findings) == len(got) == len(want), [c["title"] for c in findings]
    for (fp, _bot), item in want.items():
        f = got[fp]
        assert (f["file_path"], f["category"], f["severity_level"]) == (
            item["file_path"], item["category"], item["severity_level"])
        assert f["line_number"] == (item["end_line"] or item["start_line"])
        assert f["type"] == "review" and f["source"] == "review_body" and f["is_bot"]
    assert not any(c.get("category") in NOT_ACTIONABLE for c in out["comments"])
    assert out["summary"]["non_actionable_findings_skipped"] == 2 + 2 + 2  # two per CodeRabbit round
    assert out["summary"]["findings_already_in_threads"] == 1

    reposted = [got[i["fingerprint"]] for i in expected(ROUND_1)]
    assert {f["seen_count"] for f in reposted} == {2}
    assert out["summary"]["reposted_findings_merged"] == len(reposted)
    assert all(f["first_seen_at"] < f["created_at"] for f in reposted)

    human = [c for c in out["comments"] if c["type"] == "review" and not c["is_bot"]]
    assert [(h["author"], h["review_state"]) for h in human] == [("alice", "CHANGES_REQUESTED")]
    assert [item_thread(c) for c in out["comments"] if c["type"] == "review_comment"] == ["PRRT_rabbit_inline"]
    assert not any(c["type"] == "review" and c["is_bot"] and not c.get("fingerprint") for c in out["comments"])


def test_parse_review_bodies_off_keeps_bodies_whole(agent) -> None:
    a = agent(bodies_world())
    out = a.json("comments", "acme/widgets#11", "--no-parse-review-bodies")
    reviews = [c for c in out["comments"] if c["type"] == "review"]
    assert len(reviews) == 6 and not any(c.get("fingerprint") for c in reviews)


def test_who_spoke_last_and_the_resolve_policy(agent) -> None:
    a = agent(feedback_world())
    items = {item_thread(c): c for c in a.json("comments", "acme/widgets#7")["comments"]}

    def last_word(it: dict) -> str:  # concise: last_author only when it is not the last comment shown
        return it.get("last_author") or (it["replies"] or [it])[-1]["author"]

    assert (last_word(items["PRRT_human"]), items["PRRT_human"]["viewer_replied"]) == ("octocat", True)
    # concise leaves false flags out; full says them
    assert last_word(items["PRRT_outdated"]) == "carol" and "viewer_replied" not in items["PRRT_outdated"]
    full = {item_thread(c): c for c in a.json("comments", "acme/widgets#7", "--detail", "full")["comments"]}
    assert (full["PRRT_outdated"]["last_author"], full["PRRT_outdated"]["viewer_replied"]) == ("carol", False)

    refused = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--json")
    assert refused.returncode == 3 and '"reviewer_spoke_last"' in refused.stdout
    assert thread_of(a.hub, "PRRT_outdated")["resolved"] is False
    forced = a.json("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--when-reviewer-spoke-last", "resolve")
    assert forced["ok"] and forced["last_speaker"] == {"author": "carol", "is_bot": False, "is_viewer": False}

    bot_last = a.json("resolve", "acme/widgets#7", "--thread", "PRRT_rabbit")
    assert bot_last["ok"] and bot_last["last_speaker"]["is_bot"] is True
    a.cli("config", "set", "resolve_review_thread.when_reviewer_spoke_last", "resolve")
    assert a.json("resolve", "acme/widgets#7", "--thread", "PRRT_hostile")["ok"] is True


UNKNOWN_BOT_BODY = """**2 issues found**

<details>
<summary>src/db/pool.go:88-91 · <b>High</b> · Connection leak on early return</summary>

The early `return err` skips `conn.Release()`.

```suggestion
defer conn.Release()
```
</details>

## Walkthrough

- `src/db/pool.go`: added pooling
"""


def test_unknown_bot_body_and_inline_comment_yield_low_confidence_findings(agent) -> None:
    inline = thread("PRRT_newbot", "src/db/query.go", 12, [
        comment(5101, "fresh-reviewer", "💡 **MEDIUM**: The error string says \"conection\".", 1,
                association="NONE")])
    w = world(pr(12, [inline], reviews=[{"id": 6101, "author": "fresh-reviewer", "state": "COMMENTED",
                                         "body": UNKNOWN_BOT_BODY, "submitted_at": _ts(2)}]))
    w["users"]["fresh-reviewer"] = {"type": "Bot"}
    out = agent(w).json("comments", "acme/widgets#12", "--detail", "full")
    found = [c for c in out["comments"] if c.get("source") == "review_body" and c.get("fingerprint")]
    assert [(c["file_path"], c["line_number"], c["severity_level"]) for c in found] == [
        ("src/db/pool.go", 91, "major")]
    assert found[0]["suggestion"] == "defer conn.Release()" and "Connection leak" in found[0]["title"]
    whole = [c for c in out["comments"] if c.get("parse_notes")]
    assert whole and "low confidence" in whole[0]["parse_notes"][0]  # the body stays readable as a whole
    item = next(c for c in out["comments"] if item_thread(c) == "PRRT_newbot")
    assert item["severity_level"] == "minor" and item["title"].startswith("The error string")
