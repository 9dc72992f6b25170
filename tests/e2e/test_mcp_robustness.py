"""The MCP server under abuse, over raw JSON-RPC on stdio: 50 concurrent calls, malformed input,
unknown methods, nothing but protocol on stdout, and no reply lost when stdin closes."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import orjson

from tests.e2e.worlds import feedback_world


def rpc(id_: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return orjson.dumps(msg) + b"\n"


HANDSHAKE = (
    rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "raw", "version": "1"}})
    + b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
)


Raw = tuple[list[dict[str, Any]], subprocess.CompletedProcess[bytes]]


def run_raw(agent: Any, payload: bytes, timeout: float = 180) -> Raw:
    proc = subprocess.run([sys.executable, "-m", "pr_agent", "mcp"], input=payload, capture_output=True,
                          env=agent.env(), timeout=timeout, check=False)
    lines = [line for line in proc.stdout.split(b"\n") if line.strip()]
    return [orjson.loads(line) for line in lines], proc  # every stdout line must be JSON


def test_fifty_concurrent_calls_and_eof_loses_nothing(agent) -> None:
    a = agent(feedback_world())
    sorts = ["chronological", "by_file", "by_author"]
    calls = b"".join(
        rpc(i, "tools/call", {"name": "find_unresolved_comments",
                              "arguments": {"pr": "acme/widgets#7", "sort": sorts[i % 3]}})
        for i in range(1, 51))
    messages, proc = run_raw(a, HANDSHAKE + rpc(99, "tools/list") + calls)  # stdin closes right after
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    replies = {m["id"]: m for m in messages if "id" in m}
    assert set(range(1, 51)) <= set(replies), sorted(set(range(1, 51)) - set(replies))
    for i in range(1, 51):
        result = replies[i]["result"]
        assert result["isError"] is False and result["structuredContent"]["total_unresolved"] == 9
        assert result["structuredContent"]["comments"][0]["id"]  # a real answer, per its own sort
    assert len(replies[99]["result"]["tools"]) >= 2
    assert all(m.get("jsonrpc") == "2.0" for m in messages)


def test_malformed_input_and_unknown_methods_keep_the_server_serving(agent) -> None:
    a = agent(feedback_world())
    payload = (HANDSHAKE + b"{this is not json\n" + b"[1, 2, 3]\n" + rpc(2, "no/such/method")
               + rpc(3, "tools/call", {"name": "find_unresolved_comments", "arguments": "not-an-object"})
               + rpc(4, "tools/call", {"name": "find_unresolved_comments", "arguments": {"pr": "acme/widgets#7"}}))
    messages, proc = run_raw(a, payload)
    assert proc.returncode == 0
    replies = {m.get("id"): m for m in messages}
    assert replies[2]["error"]["code"] == -32601
    bad_args = replies[3]
    assert "error" in bad_args or bad_args["result"]["isError"] is True
    assert replies[4]["result"]["isError"] is False  # still serving after all that
    assert b"Traceback" not in proc.stdout
