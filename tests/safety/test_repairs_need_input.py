"""Repairs with a placeholder are not callable (issue 18 item 3): a repair that needs the agent's own text names it in
``needs_input`` and carries no placeholder value; executing any repair verbatim — the MCP tool call with its
arguments, the CLI command pasted — never writes to GitHub with text the user did not write."""

from __future__ import annotations

import re
import shlex
from typing import Any

import orjson

from tests.e2e.test_mcp_robustness import HANDSHAKE, rpc, run_raw
from tests.e2e.worlds import feedback_world

PLACEHOLDER = re.compile(r"<[^>]*>|YOUR_|TODO|FIXME|\.\.\.|…|your (answer|reply)", re.I)
THREAD = ("acme/widgets#7", "PRRT_outdated")  # carol spoke last: resolving is refused without a reply


def values(obj: Any) -> list[str]:
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in values(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in values(v)]
    return [obj] if isinstance(obj, str) else []


def writes(hub: Any) -> list[Any]:
    return [r for r in hub.requests if r.operation in ("ReplyToThread", "ResolveThread") or (r.method != "GET"
            and "graphql" not in r.path)]


def test_the_mcp_repair_names_needs_input_and_is_harmless_verbatim(agent) -> None:
    a = agent(feedback_world())
    args = {"pr": THREAD[0], "thread_id": THREAD[1]}
    messages, _ = run_raw(a, HANDSHAKE + rpc(1, "tools/call", {"name": "resolve_review_thread", "arguments": args}))
    err = next(m for m in messages if m.get("id") == 1)["result"]["structuredContent"]["error"]
    assert err["code"] == "reviewer_spoke_last"
    repair = err["repair"]
    assert repair["tool"] == "resolve_review_thread" and repair["needs_input"] == ["reply"]
    assert "reply" not in repair["arguments"] and not [v for v in values(repair["arguments"]) if PLACEHOLDER.search(v)]
    messages, _ = run_raw(a, HANDSHAKE + rpc(2, "tools/call", {"name": repair["tool"],
                                                              "arguments": repair["arguments"]}))
    again = next(m for m in messages if m.get("id") == 2)["result"]
    assert again["isError"] is True  # verbatim, it refuses again: it never posts or resolves for the agent
    assert writes(a.hub) == []


def test_the_cli_repair_names_needs_input_and_is_harmless_verbatim(agent) -> None:
    a = agent(feedback_world())
    proc = a.cli("resolve", THREAD[0], "--thread", THREAD[1], "--json")
    repair = orjson.loads(proc.stdout)["error"]["repair"]
    assert repair["needs_input"] == ["--reply"] and not PLACEHOLDER.search(repair["command"])
    argv = shlex.split(repair["command"])
    assert argv[:2] == ["gh", "pr-agent"] and "--reply" not in argv
    again = a.cli(*argv[2:], "--json")  # pasted verbatim (gh pr-agent = this CLI)
    assert again.returncode == 3 and writes(a.hub) == []


def posted(hub: Any) -> list[str]:
    """Every comment body the world holds: threads (drafts included), conversation, reviews."""
    out = []
    for repo in hub.world["repositories"]:
        for pr in repo["pull_requests"]:
            out += [c["body"] for t in pr["threads"] for c in t["comments"]]
            out += [c["body"] for c in pr.get("issue_comments", [])] + [r.get("body") or "" for r in pr["reviews"]]
    return out


def test_every_reply_command_run_verbatim_posts_nothing(agent) -> None:
    """Each reply_command find_unresolved_comments emits (REST thread reply, the pending-review GraphQL reply,
    conversation and review-body replies; concise and full), pasted as is with nothing on stdin: GitHub refuses
    the empty body (fakehub as GitHub: 422 missing_field, "Body can't be blank") and nothing is posted. With the
    agent's text on stdin the same command posts exactly that text."""
    from tests.e2e.review_worlds import hidden_world

    for scenario, ref in ((feedback_world(), "acme/widgets#7"), (hidden_world(pending=True), "acme/widgets#11")):
        a = agent(scenario)
        before = posted(a.hub)
        pages = [a.json("comments", ref), a.json("comments", ref, "--detail", "full")]
        items = [it for page in pages for it in page["comments"]]
        commands = {it["action_commands"]["reply_command"] for it in items}
        kinds = {it["type"] for it in items}
        assert len(commands) >= 2 and kinds >= {"review_comment", "issue_comment"}
        for page in pages:  # concise items leave needs_input to the page's actions (the same for every item)
            assert page["actions"]["needs_input"] == ["stdin"]
            for it in page["comments"]:
                ac = it["action_commands"]
                assert ac.get("needs_input", page["actions"]["needs_input"]) == ["stdin"]
                assert not PLACEHOLDER.search(ac["reply_command"])
        for cmd in sorted(commands):
            proc = a.shell(cmd)  # stdin: /dev/null, as an agent's shell tool gives it
            assert proc.returncode != 0 and ("422" in proc.stderr or "blank" in proc.stderr), (cmd, proc.stderr)
        assert posted(a.hub) == before
        one = sorted(commands)[0]
        assert a.shell(one, stdin="Thanks — fixed in 1a2b3c.").returncode == 0
        assert posted(a.hub).count("Thanks — fixed in 1a2b3c.") == 1
