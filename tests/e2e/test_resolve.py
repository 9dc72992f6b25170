"""resolve_review_thread end to end, and the generated commands pasted into a real shell."""

from __future__ import annotations

from typing import Any

import orjson

from pr_agent.textsafe import REPOSITORY_NOTICE
from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.worlds import HOSTILE_BODY, feedback_world


def thread_of(hub: Any, thread_id: str) -> dict[str, Any]:
    for repo in hub.world["repositories"]:
        for pull in repo["pull_requests"]:
            for t in pull["threads"]:
                if t["id"] == thread_id:
                    return t
    raise KeyError(thread_id)


def test_resolve_by_thread_id_then_again_is_idempotent(agent) -> None:
    a = agent(feedback_world())
    out = a.json("resolve", "acme/widgets#7", "--thread", "PRRT_human")
    assert out == {"ok": True, "pr": "acme/widgets#7", "thread_id": "PRRT_human", "alreadyResolved": False,
                   "replied": False, "message": "Thread resolved.",
                   "last_speaker": {"author": "octocat", "is_bot": False, "is_viewer": True},
                   "notice": REPOSITORY_NOTICE}
    assert thread_of(a.hub, "PRRT_human")["resolved"] is True
    again = a.json("resolve", "acme/widgets#7", "--thread", "PRRT_human", "--reply", "Done")
    assert again["alreadyResolved"] is True and again["replied"] is False
    assert len(thread_of(a.hub, "PRRT_human")["comments"]) == 3  # no reply posted to a resolved thread
    remaining = a.json("comments", "acme/widgets#7")
    assert "PRRT_human" not in {item_thread(c) for c in remaining["comments"]}


def test_resolve_by_comment_ids_with_reply(agent) -> None:
    a = agent(feedback_world())
    out = a.json("resolve", "acme/widgets#7", "--comment", "1002", "--reply", HOSTILE_BODY)  # a reply's REST id
    assert out["thread_id"] == "PRRT_human" and out["replied"] is True
    assert out["reply_comment"]["comment_id"] > 0
    comments = thread_of(a.hub, "PRRT_human")["comments"]
    assert comments[-1]["body"] == HOSTILE_BODY and comments[-1]["author"] == "octocat"
    node_id = next(c["node_id"] for c in a.json("comments", "acme/widgets#7", "--detail", "full")["comments"]
                   if item_thread(c) == "PRRT_rabbit")
    assert a.json("resolve", "acme/widgets#7", "--comment", node_id)["thread_id"] == "PRRT_rabbit"


def test_identical_reply_is_not_posted_twice(agent) -> None:
    a = agent(feedback_world())
    a.hub.add_fault(fault_for(a.hub, "ResolveThread", status=502, times=1))
    first = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--reply", "Fixed in abc123")
    assert first.returncode == 3 and "WAS posted" in first.stderr  # the write is never retried blindly
    second = a.json("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--reply", "Fixed in abc123")
    assert second["replied"] is False and "not posted again" in second["message"]
    bodies = [c["body"] for c in thread_of(a.hub, "PRRT_outdated")["comments"]]
    assert bodies.count("Fixed in abc123") == 1
    assert thread_of(a.hub, "PRRT_outdated")["resolved"] is True


def fault_for(hub: Any, operation: str, **kw: Any) -> Any:
    from tests.fakehub import Fault

    return Fault(match=f"graphql:{operation}", **kw)


def test_refusals_are_typed_and_change_nothing(agent) -> None:
    world = feedback_world()
    world["repositories"][0]["pull_requests"][0]["viewer_pending_review"] = True
    a = agent(world)
    pending = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_human", "--reply", "x", "--json")
    assert pending.returncode == 3 and '"pending_review_blocks_reply"' in pending.stdout
    assert thread_of(a.hub, "PRRT_human")["resolved"] is False
    assert len(thread_of(a.hub, "PRRT_human")["comments"]) == 3
    details = orjson.loads(pending.stdout)["error"]["details"]
    discard = a.shell(details["discard_command"])  # the way out it offers works
    assert discard.returncode == 0, discard.stderr
    assert not any(r["state"] == "PENDING" for r in a.hub.world.pull_request("acme/widgets", 7)["reviews"])
    assert a.json("resolve", "acme/widgets#7", "--thread", "PRRT_human", "--reply", "x")["replied"] is True
    locked = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_locked", "--reply", "done")
    assert locked.returncode == 3 and "forbidden" in locked.stderr
    other = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_other", "--json")
    assert other.returncode == 3 and '"thread_not_in_pr"' in other.stdout
    missing = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_nope", "--json")
    assert missing.returncode == 3 and '"thread_not_found"' in missing.stdout
    no_id = a.cli("resolve", "acme/widgets#7")
    assert no_id.returncode == 2 and "give --thread or --comment" in no_id.stderr


def test_pasted_commands_do_exactly_their_action(agent) -> None:
    a = agent(feedback_world())
    items = a.json("comments", "acme/widgets#7")["comments"]
    hostile = next(c for c in items if item_thread(c) == "PRRT_hostile")
    reply = a.shell(hostile["action_commands"]["reply_command"], stdin="it's fixed: $(id) `x`\n")
    assert reply.returncode == 0, reply.stderr
    posted = thread_of(a.hub, "PRRT_hostile")["comments"][-1]
    assert posted["body"] == "it's fixed: $(id) `x`\n"  # stdin, byte for byte: nothing to quote
    resolve = a.shell(hostile["action_commands"]["resolve_command"])
    assert resolve.returncode == 0, resolve.stderr
    assert thread_of(a.hub, "PRRT_hostile")["resolved"] is True
    assert not any(t["resolved"] for t in a.hub.world["repositories"][0]["pull_requests"][0]["threads"]
                   if t["id"] not in ("PRRT_hostile", "PRRT_resolved"))
    convo = next(c for c in items if c["type"] == "issue_comment")
    assert a.shell(convo["action_commands"]["reply_command"], stdin="thanks $(whoami) `id`").returncode == 0
    posted_issue = a.hub.world["repositories"][0]["pull_requests"][0]["issue_comments"][-1]
    assert posted_issue["body"] == "thanks $(whoami) `id`"


def test_comment_beyond_the_first_hundred_of_a_long_thread(agent) -> None:
    from tests.e2e.worlds import big_world

    a = agent(big_world())
    # PRRT_big0003 has 130 comments; ids run 10000+ in creation order, so its 121st comment is:
    long_thread = next(t for t in a.hub.world["repositories"][0]["pull_requests"][0]["threads"]
                       if t["id"] == "PRRT_big0003")
    deep = long_thread["comments"][120]
    out = a.json("resolve", "acme/widgets#9", "--comment", str(deep["id"]), "--when-reviewer-spoke-last", "resolve")
    assert out["thread_id"] == "PRRT_big0003" and out["ok"]
    assert out["last_speaker"]["author"] == long_thread["comments"][-1]["author"]
    node_deep = long_thread["comments"][125]["node_id"]
    again = a.json("resolve", "acme/widgets#9", "--comment", node_deep)
    assert again["thread_id"] == "PRRT_big0003" and again["alreadyResolved"] is True
