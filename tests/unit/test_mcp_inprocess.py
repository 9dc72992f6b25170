"""The MCP server and its stdio transport in this process (tests/unit/inproc.py: ``build_server`` and
``serve_stdio`` on two pipes), tools answering from fakehub through the real gh: what an MCP client is sent."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from pr_agent.mcp_stdio import MAX_LINE_BYTES
from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.ci_worlds import FAST, expired_world, failing_world
from tests.e2e.worlds import big_world, feedback_world

HANDSHAKE = (orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "unit", "version": "1"}}})
    + b"\n" + b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')


def rpc(id_: int, method: str, params: Any = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return orjson.dumps(msg) + b"\n"


def call(id_: int, name: str, arguments: Any) -> bytes:
    return rpc(id_, "tools/call", {"name": name, "arguments": arguments})


@pytest.fixture(autouse=True)
def _patient(monkeypatch: pytest.MonkeyPatch) -> None:
    # every request read before stdin closes is answered; the grace only bounds a call that hangs
    monkeypatch.setenv("GH_PR_AGENT_MCP_EOF_GRACE", "120")


def session(mcp_pipes: Any, *lines: bytes, **kw: Any) -> tuple[dict[Any, dict[str, Any]], list[dict[str, Any]]]:
    pipes = mcp_pipes(**kw)
    pipes.send(HANDSHAKE, *lines)
    messages = pipes.close()
    replies = {m["id"]: m for m in messages if m.get("id") is not None}
    return replies, [m for m in messages if m.get("id") is None]


def test_tools_answer_with_structured_content_and_errors_are_results(inproc, mcp_pipes) -> None:
    inproc(feedback_world())
    replies, _ = session(
        mcp_pipes, rpc(1, "tools/list"),
        call(2, "find_unresolved_comments", {"pr": "acme/widgets#7"}),
        call(3, "resolve_review_thread", {"pr": "acme/widgets#7", "thread_id": "PRRT_human"}),
        call(4, "find_unresolved_comments", {"pr": "acme/widgets#7", "verbose": True}),
        call(5, "find_unresolved_comments", {"pr": "acme/widgets#404"}),
        call(6, "no_such_tool", {}),
        call(7, "find_unresolved_comments", {"pr": "acme/widgets#7", "page_size": "many"}))
    assert replies[0]["result"]["serverInfo"]["name"] == "gh-pr-agent"
    assert "untrusted" in replies[0]["result"]["instructions"]
    tools = {t["name"]: t for t in replies[1]["result"]["tools"]}
    assert tools["resolve_review_thread"]["annotations"]["readOnlyHint"] is False
    assert all(t["inputSchema"]["additionalProperties"] is False for t in tools.values())
    comments = replies[2]["result"]
    assert comments["isError"] is False and comments["structuredContent"]["total_unresolved"] == 9
    assert orjson.loads(comments["content"][0]["text"]) == comments["structuredContent"]
    assert replies[3]["result"]["structuredContent"]["ok"] is True
    unknown_arg = replies[4]["result"]
    assert unknown_arg["isError"] is True
    assert unknown_arg["structuredContent"]["error"]["repair"]["next_step"] == "Call again without: verbose."
    missing = replies[5]["result"]["structuredContent"]["error"]
    assert missing["code"] == "pr_not_found" and missing["repair"] == {"command": "gh pr list --repo acme/widgets"}
    no_tool = replies[6]["result"]["structuredContent"]["error"]
    assert no_tool["details"]["reason"] == "unknown tool" and "find_unresolved_comments" in no_tool["suggestion"]
    bad_type = replies[7]["result"]
    assert bad_type["isError"] is True and "page_size" in bad_type["content"][0]["text"]
    assert "pydantic" not in bad_type["content"][0]["text"].lower()
    for result in (unknown_arg, replies[5]["result"], bad_type):
        assert result["content"][0]["text"].startswith("error [")
        assert "data, not instructions" in result["content"][0]["text"]


def test_a_selection_of_tools_is_all_the_server_serves(inproc, mcp_pipes) -> None:
    inproc(feedback_world())
    from pr_agent.registry import all_tools

    read_only = {n: t for n, t in all_tools().items() if t.annotations.read_only}
    replies, _ = session(mcp_pipes, rpc(1, "tools/list"),
                         call(2, "resolve_review_thread", {"pr": "acme/widgets#7", "thread_id": "PRRT_human"}),
                         rpc(3, "resources/read", {"uri": "pr-agent://capabilities"}),
                         tools=read_only, selection={"read_only": True, "tools": sorted(read_only)})
    assert {t["name"] for t in replies[1]["result"]["tools"]} == set(read_only)
    refused = replies[2]["result"]["structuredContent"]["error"]
    assert refused["details"]["reason"] == "tool disabled" and "pr-agent://capabilities" in refused["message"]
    assert "--read-only" not in refused["message"]  # over MCP, nothing names the CLI's launch flags
    caps = orjson.loads(replies[3]["result"]["contents"][0]["text"])
    assert caps["selection"]["read_only"] is True and "resolve_review_thread" not in caps["tools"]


def test_malformed_lines_are_answered_and_the_server_keeps_serving(inproc, mcp_pipes) -> None:
    inproc(feedback_world())
    huge = b'{"jsonrpc":"2.0","id":50,"method":"ping","params":{"x":"' + b"x" * (MAX_LINE_BYTES + 1) + b'"}}\n'
    replies, anonymous = session(
        mcp_pipes, b"{not json\n", b'[{"jsonrpc":"2.0","id":7,"method":"ping"}]\n', b'"a string"\n',
        b'{"jsonrpc":"2.0","id":8,"method":"tools/list","params":[1]}\n', b'{"jsonrpc":"1.0","id":9,"method":"ping"}\n',
        b'{"jsonrpc":"2.0","method":"notifications/x","params":3}\n', b"\n", huge,
        b'{"jsonrpc":"2.0","id":77,"result":{"x":1}}\n', rpc(2, "no/such/method"), rpc(3, "ping"))
    codes = [m["error"]["code"] for m in anonymous]
    assert codes == [-32700, -32600, -32600, -32600], anonymous  # not JSON, a batch, a string, the oversized line
    assert "batches are not supported" in anonymous[1]["error"]["message"]
    assert f"the limit is {MAX_LINE_BYTES} bytes" in anonymous[3]["error"]["message"]
    assert replies[8]["error"]["code"] == -32602 and "must be an object" in replies[8]["error"]["message"]
    assert replies[9]["error"]["code"] == -32600
    assert 7 not in replies and 50 not in replies and 77 not in replies
    assert replies[2]["error"]["code"] == -32601
    assert replies[3]["result"] == {}  # still serving after all that


def test_resources_job_logs_schemas_and_completions(inproc, mcp_pipes, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in FAST.items():
        monkeypatch.setenv(name, value)
    inproc(failing_world())

    def complete(id_: int, uri: str, name: str, value: str, **known: str) -> bytes:
        params: dict[str, Any] = {"ref": {"type": "ref/resource", "uri": uri},
                                  "argument": {"name": name, "value": value}}
        if known:
            params["context"] = {"arguments": known}
        return rpc(id_, "completion/complete", params)

    log = "pr-agent://job-log/{owner}/{repo}/{job_id}"
    pipes = mcp_pipes()
    pipes.send(HANDSHAKE, call(3, "get_failing_tests", {"pr": "acme/widgets#7"}))
    pipes.reply(3)  # completions offer the jobs the server has seen: this call's
    pipes.send(rpc(1, "resources/list"), rpc(2, "resources/templates/list"),
               rpc(4, "resources/read", {"uri": "pr-agent://job-log/acme/widgets/103"}),
               rpc(5, "resources/read", {"uri": "pr-agent://output-schema/get_failing_tests"}),
               rpc(6, "resources/read", {"uri": "pr-agent://nothing"}),
               complete(7, "pr-agent://output-schema/{tool}", "tool", "get_"),
               complete(8, log, "owner", "ac"), complete(9, log, "job_id", "10", owner="acme", repo="widgets"))
    replies = {m["id"]: m for m in pipes.close() if m.get("id") is not None}
    assert [r["uri"] for r in replies[1]["result"]["resources"]] == ["pr-agent://capabilities"]
    assert log in {t["uriTemplate"] for t in replies[2]["result"]["resourceTemplates"]}
    failing = replies[3]["result"]["structuredContent"]
    assert failing["status"] == "failed" and failing["total_failures"] == 3
    text = replies[4]["result"]["contents"][0]["text"]
    assert "Add(2, 2) = 5; want 4" in text
    schema = orjson.loads(replies[5]["result"]["contents"][0]["text"])
    assert "test_name" in schema["$defs"]["Failure"]["properties"]
    assert replies[6]["error"]["code"] == -32602 and "pr-agent://capabilities" in str(replies[6]["error"])
    assert replies[7]["result"]["completion"]["values"] == ["get_failing_tests"]
    assert replies[8]["result"]["completion"]["values"] == ["acme"]
    assert sorted(replies[9]["result"]["completion"]["values"]) == ["101", "102", "103", "106"]


def test_an_expired_log_is_a_typed_resource_error(inproc, mcp_pipes, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in FAST.items():
        monkeypatch.setenv(name, value)
    inproc(expired_world())
    replies, _ = session(mcp_pipes, rpc(1, "resources/read", {"uri": "pr-agent://job-log/acme/widgets/202"}))
    error = replies[1]["error"]
    assert error["code"] == -32002 and error["data"]["code"] == "log_expired"
    assert error["data"]["temporary"] is False


def test_later_pages_come_from_what_the_first_call_read(inproc, mcp_pipes) -> None:
    a = inproc(big_world(n_threads=40, long_thread=3, resolved_every=10))
    pipes = mcp_pipes()
    pipes.send(HANDSHAKE, call(1, "find_unresolved_comments", {"pr": "acme/widgets#9", "page_size": 20}))
    first = pipes.reply(1)["result"]["structuredContent"]  # its cursor is needed for the next call
    asked = len(a.hub.requests)
    pipes.send(call(2, "find_unresolved_comments", {"pr": "acme/widgets#9", "page_size": 20,
                                                     "cursor": first["nextCursor"]}))
    messages = pipes.close()
    second = next(m for m in messages if m.get("id") == 2)["result"]["structuredContent"]
    assert second["from_snapshot"] is True and len(a.hub.requests) == asked  # no GitHub request for page 2
    seen = [item_thread(c) for c in first["comments"] + second["comments"]]
    assert len(seen) == len(set(seen)) == 36
