"""Every message speaks its surface: the same refusal on the CLI (flags, a command line) and over MCP (a
tool call with argument names), and each repair executed verbatim does nothing the user did not write."""

from __future__ import annotations

import json
import shlex
from typing import Any

from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.test_mcp import mcp_session
from tests.e2e.test_resolve import thread_of
from tests.e2e.worlds import feedback_world

MCP_WORDS = ("reply=", "when_reviewer_spoke_last", "thread_id")
CLI_WORDS = ("gh pr-agent", "--reply", "--when-reviewer-spoke-last", "--thread", "GH_REPO", "GH_PR_AGENT")


def test_cli_refusal_names_flags_and_its_repair_runs_harmlessly(agent) -> None:
    a = agent(feedback_world())
    refused = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_outdated", "--json")
    assert refused.returncode == 3, refused.stderr
    err = json.loads(refused.stdout)["error"]
    assert err["code"] == "reviewer_spoke_last"
    assert "--reply" in err["suggestion"] and "--when-reviewer-spoke-last resolve" in err["suggestion"]
    assert not any(w in err["suggestion"] + refused.stderr for w in MCP_WORDS), refused.stderr
    repair = err["repair"]
    assert repair["needs_input"] == ["--reply"] and "tool" not in repair
    argv = shlex.split(repair["command"])
    assert argv[:3] == ["gh", "pr-agent", "resolve"] and "--reply" not in argv
    again = a.cli(*argv[2:], "--json")  # the repair, verbatim: refused again, nothing posted or resolved
    assert again.returncode == 3 and json.loads(again.stdout)["error"]["code"] == "reviewer_spoke_last"
    assert thread_of(a.hub, "PRRT_outdated")["resolved"] is False
    answered = a.json(*argv[2:], "--reply", "Fixed in abc123")  # filling needs_input completes it
    assert answered["replied"] is True and thread_of(a.hub, "PRRT_outdated")["resolved"] is True


def test_mcp_refusal_is_a_tool_call_without_placeholder(agent) -> None:
    a = agent(feedback_world())
    before = len(thread_of(a.hub, "PRRT_outdated")["comments"])

    async def body(c: Any) -> dict[str, Any]:
        out = {"refused": await c.call_tool("resolve_review_thread", {"pr": "acme/widgets#7",
                                                                       "thread_id": "PRRT_outdated"})}
        rep = out["refused"].structured_content["error"]["repair"]
        out["again"] = await c.call_tool(rep["tool"], rep["arguments"])
        out["no_id"] = await c.call_tool("resolve_review_thread", {"pr": "acme/widgets#7"})
        out["bad_sort"] = await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#7", "sort": "bogus"})
        return out

    got = mcp_session(a, body)
    err = got["refused"].structured_content["error"]
    assert err["code"] == "reviewer_spoke_last"
    assert err["repair"] == {"tool": "resolve_review_thread", "needs_input": ["reply"],
                             "arguments": {"pr": "acme/widgets#7", "thread_id": "PRRT_outdated"},
                             "next_step": "Add your own reply to their last comment."}
    text = got["refused"].content[0].text
    assert 'when_reviewer_spoke_last="resolve"' in err["suggestion"] and "reply" in err["suggestion"]
    assert not any(w in err["suggestion"] + text for w in CLI_WORDS), text
    again = got["again"].structured_content["error"]
    assert again["code"] == "reviewer_spoke_last"  # the repair as given: refused again, nothing written
    assert len(thread_of(a.hub, "PRRT_outdated")["comments"]) == before
    assert thread_of(a.hub, "PRRT_outdated")["resolved"] is False
    no_id = got["no_id"].structured_content["error"]
    assert no_id["message"] == "Invalid arguments for resolve_review_thread: give thread_id or comment_id."
    bad = got["bad_sort"].structured_content["error"]
    assert bad["message"] == ("Invalid arguments for find_unresolved_comments: sort must be one of: "
                              "chronological, by_file, by_author.")
    for e in (no_id, bad):
        assert not any(w in json.dumps(e) for w in ("Value error", "Input should", "Field required", "--"))


def test_detail_full_text_shows_its_extras(agent) -> None:
    a = agent(feedback_world())
    concise = a.cli("comments", "acme/widgets#7")
    full = a.cli("comments", "acme/widgets#7", "--detail", "full")
    assert concise.returncode == full.returncode and full.stdout != concise.stdout
    data = a.json("comments", "acme/widgets#7", "--detail", "full")
    human = next(c for c in data["comments"] if item_thread(c) == "PRRT_human")
    assert f"  link: {human['html_url']}" in full.stdout
    hunk_line = "  │ " + human["diff_hunk"].splitlines()[-1][:160]
    assert hunk_line in full.stdout and hunk_line not in concise.stdout
