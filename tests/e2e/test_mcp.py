"""The MCP face: the SDK's own client over stdio against `python -m pr_agent mcp`, real gh, fakehub."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import jsonschema
from mcp import Client, StdioServerParameters

from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.worlds import big_world, feedback_world


def mcp_session(agent: Any, body: Any, env: dict[str, str] | None = None) -> Any:
    params = StdioServerParameters(command=sys.executable, args=["-m", "pr_agent", "mcp"], env=env or agent.env())

    async def main() -> Any:
        async with Client(params, mode="legacy") as client:
            return await body(client)

    return anyio.run(main)


def test_tools_calls_and_errors_over_stdio(agent) -> None:
    a = agent(feedback_world())

    async def body(c: Any) -> dict[str, Any]:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        out: dict[str, Any] = {"tools": tools, "instructions": c.instructions}
        out["comments"] = await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#7"})
        out["resolve"] = await c.call_tool("resolve_review_thread", {"pr": "acme/widgets#7",
                                                                      "thread_id": "PRRT_human"})
        out["unknown_arg"] = await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#7", "verbose": True})
        out["bad_ref"] = await c.call_tool("find_unresolved_comments", {"pr": "widgets seven"})
        out["missing"] = await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#404"})
        out["resource"] = await c.read_resource("pr-agent://capabilities")
        return out

    got = mcp_session(a, body)
    tools = got["tools"]
    assert {"find_unresolved_comments", "resolve_review_thread"} <= set(tools)
    for tool in tools.values():
        assert tool.input_schema["additionalProperties"] is False
        assert tool.output_schema and tool.title and tool.annotations
    assert tools["find_unresolved_comments"].annotations.read_only_hint is True
    assert tools["resolve_review_thread"].annotations.read_only_hint is False
    assert "untrusted" in got["instructions"]
    for name, tool_name in (("comments", "find_unresolved_comments"), ("resolve", "resolve_review_thread")):
        result = got[name]
        assert result.is_error is False
        jsonschema.validate(result.structured_content, tools[tool_name].output_schema)
    assert got["comments"].structured_content["total_unresolved"] == 9
    assert got["resolve"].structured_content["ok"] is True

    unknown = got["unknown_arg"]
    assert unknown.is_error and unknown.structured_content["error"]["code"] == "invalid_arguments"
    assert unknown.structured_content["error"]["repair"] == {
        "tool": "find_unresolved_comments", "arguments": {"pr": "acme/widgets#7"},
        "next_step": "Call again without: verbose."}
    bad = got["bad_ref"].structured_content["error"]
    assert got["bad_ref"].is_error and bad["code"] == "invalid_pr_reference" and bad["repair"]["command"]
    missing = got["missing"].structured_content["error"]
    assert missing["code"] == "pr_not_found" and missing["category"] == "api"
    assert missing["repair"] == {"command": "gh pr list --repo acme/widgets"}
    for key in ("unknown_arg", "bad_ref", "missing"):
        assert got[key].content[0].text.startswith("error [")
    assert '"does_not"' in got["resource"].contents[0].text


def test_mcp_pagination_returns_every_item_once(agent) -> None:
    a = agent(big_world())

    async def body(c: Any) -> list[str]:
        seen: list[str] = []
        args: dict[str, Any] = {"pr": "acme/widgets#9", "sort": "by_file"}
        while True:
            result = await c.call_tool("find_unresolved_comments", args)
            assert not result.is_error, result.content
            seen.extend(item_thread(x) for x in result.structured_content["comments"])
            cursor = result.structured_content.get("nextCursor")
            if not cursor:
                return seen
            args = {**args, "cursor": cursor}

    seen = mcp_session(a, body)
    assert len(seen) == len(set(seen)) == 135


def test_least_privilege_selection(agent) -> None:
    a = agent(feedback_world())

    def session(*flags: str) -> dict[str, Any]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "pr_agent", "mcp", *flags], env=a.env())

        async def main() -> dict[str, Any]:
            async with Client(params, mode="legacy") as c:
                listed = (await c.list_tools()).tools
                call = await c.call_tool("resolve_review_thread", {"pr": "acme/widgets#7", "thread_id": "PRRT_human"})
                caps = await c.read_resource("pr-agent://capabilities")
                return {"names": sorted(t.name for t in listed), "call": call, "caps": caps.contents[0].text,
                        "listed": json.dumps([t.model_dump(mode="json") for t in listed])}

        return anyio.run(main)

    ro = session("--read-only")
    assert "resolve_review_thread" not in ro["names"] and "find_unresolved_comments" in ro["names"]
    assert ro["call"].is_error
    error = ro["call"].structured_content["error"]
    assert error["code"] == "invalid_arguments" and error["details"]["reason"] == "tool disabled"
    assert "disabled" in error["message"] and "pr-agent://capabilities" in error["message"]
    assert "find_unresolved_comments" in error["suggestion"] and "resolve_review_thread" not in error["suggestion"]
    assert '"read_only":true' in ro["caps"]
    # over MCP nothing names the CLI: no launch flag, no `gh pr-agent …` command, no environment variable
    for said in (error["message"], error["suggestion"], ro["call"].content[0].text, ro["caps"], ro["listed"]):
        assert "--read-only" not in said and "--tools" not in said and "gh pr-agent" not in said, said
        assert "GH_" not in said, said
    assert "stored preference" in json.loads(ro["caps"])["preferences"]
    only = session("--tools", "find_unresolved_comments")
    assert only["names"] == ["find_unresolved_comments"]
    bad = a.cli("mcp", "--tools", "nope")
    assert bad.returncode == 2 and "unknown tool" in bad.stderr


def test_comment_pages_fit_a_context(agent) -> None:
    a = agent(feedback_world())

    async def body(c: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"all": (await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#7"}))}
        out["no_conv"] = await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#7",
                                                                         "include_conversation": False})
        pages, args = [], {"pr": "acme/widgets#7", "page_size": 2}
        while True:
            page = (await c.call_tool("find_unresolved_comments", args)).structured_content
            pages.append(page)
            if not page.get("nextCursor"):
                break
            args = {**args, "cursor": page["nextCursor"]}
        out["pages"] = pages
        out["bad_size"] = await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#7", "page_size": 0})
        return out

    got = mcp_session(a, body)
    everything = got["all"].structured_content["comments"]
    conversation = [it for it in everything if it["type"] == "issue_comment"]
    assert conversation, "the world must have conversation comments"
    no_conv = got["no_conv"].structured_content
    assert no_conv["total_unresolved"] == len(everything) - len(conversation)
    assert all(it["type"] != "issue_comment" for it in no_conv["comments"])
    pages = got["pages"]
    assert all(len(p["comments"]) <= 2 for p in pages) and len(pages) == -(-len(everything) // 2)
    walked = [(it["type"], it["id"]) for p in pages for it in p["comments"]]
    assert walked == [(it["type"], it["id"]) for it in everything]
    assert got["bad_size"].is_error and got["bad_size"].structured_content["error"]["code"] == "invalid_arguments"
    for it in everything:  # over MCP: resolving is the tool call, its shell twin is not sent
        assert "resolve_command" not in it["action_commands"] or "mcp_action" not in it["action_commands"]
    actions = [it["action_commands"]["mcp_action"] for it in everything if it["action_commands"].get("mcp_action")]
    assert actions and all(a["tool"] == "resolve_review_thread" for a in actions)
