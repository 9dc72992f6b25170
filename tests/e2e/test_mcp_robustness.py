"""The MCP server under abuse, over raw JSON-RPC on stdio: 50 concurrent calls, malformed input (each answered
with its JSON-RPC error), an oversized line, unknown methods, nothing but protocol on stdout, and a reply
still sent for a call that arrived just before stdin closed. Load and shutdown: test_mcp_load.py."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import orjson

from pr_agent.mcp_stdio import MAX_LINE_BYTES
from tests.e2e.mcp_raw import PATIENT_EOF, RawSession, call
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


def run_raw(agent: Any, payload: bytes, timeout: float = 300, **env: str) -> Raw:
    """Write ``payload`` and close stdin at once (as a client that is done would); every message the server
    wrote before it exited. Every request it read is answered however loaded the machine (PATIENT_EOF);
    ``timeout`` is the hang guard."""
    proc = subprocess.run([sys.executable, "-m", "pr_agent", "mcp"], input=payload, capture_output=True,
                          env=agent.env(**{**PATIENT_EOF, **env}), timeout=timeout, check=False)
    lines = [line for line in proc.stdout.split(b"\n") if line.strip()]
    return [orjson.loads(line) for line in lines], proc  # every stdout line must be JSON


def test_fifty_concurrent_calls_then_eof(agent) -> None:
    a = agent(feedback_world())
    sorts = ["chronological", "by_file", "by_author"]
    s = RawSession(a.env(**PATIENT_EOF))  # a grace of 150 s: the server must not wait it out for nothing
    try:
        s.handshake()
        s.send(rpc(99, "tools/list") + b"".join(
            call(i, "find_unresolved_comments", {"pr": "acme/widgets#7", "sort": sorts[i % 3]}) for i in range(1, 51)))
        replies = {i: s.reply(i, 120) for i in range(1, 51)}
        for i in range(1, 51):
            result = replies[i]["result"]
            assert result["isError"] is False and result["structuredContent"]["total_unresolved"] == 9
            assert result["structuredContent"]["comments"][0]["id"]  # a real answer, per its own sort
        assert len(s.reply(99)["result"]["tools"]) >= 2
        started = time.monotonic()
        s.close_stdin()  # nothing in flight: the server exits at once, not after its grace
        s.proc.wait(timeout=120)  # the hang guard, below the grace
        assert s.proc.returncode == 0 and time.monotonic() - started < 120  # did not wait the 150 s
        assert b"Traceback" not in s.stderr
    finally:
        s.stop()


def test_a_quick_call_sent_just_before_eof_still_answers(agent) -> None:
    a = agent(feedback_world())
    messages, proc = run_raw(a, HANDSHAKE + rpc(1, "tools/call", {"name": "find_unresolved_comments",
                                                                   "arguments": {"pr": "acme/widgets#7"}}))
    assert proc.returncode == 0
    reply = next(m for m in messages if m.get("id") == 1)
    assert reply["result"]["isError"] is False and reply["result"]["structuredContent"]["total_unresolved"] == 9


def test_malformed_json_rpc_is_answered_and_the_server_keeps_serving(agent) -> None:
    a = agent(feedback_world())
    huge = b'{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"x","arguments":{"pr":"' \
        + b"x" * (MAX_LINE_BYTES + 10) + b'"}}}\n'
    payload = (HANDSHAKE + b"{this is not json\n" + b"[1, 2, 3]\n" + b'[{"jsonrpc":"2.0","id":7,"method":"ping"}]\n'
               + b'"just a string"\n' + b'{"jsonrpc":"2.0","id":8,"method":"tools/list","params":[1,2]}\n'
               + b'{"jsonrpc":"1.0","id":9,"method":"ping"}\n' + b'{"id":{"x":1},"method":"ping"}\n'
               + b"\xff\xfe not utf-8\n" + huge
               + rpc(2, "no/such/method")
               + rpc(3, "tools/call", {"name": "find_unresolved_comments", "arguments": "not-an-object"})
               + rpc(4, "tools/call", {"name": "find_unresolved_comments", "arguments": {"pr": "acme/widgets#7"}}))
    messages, proc = run_raw(a, payload)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    errors = [m["error"] for m in messages if m.get("id") is None and "error" in m]
    codes = [e["code"] for e in errors]
    # not JSON, batch, batch of a request, a string, an object id, not UTF-8, the oversized line
    assert codes == [-32700, -32600, -32600, -32600, -32600, -32700, -32600], errors
    assert "batches are not supported" in errors[1]["message"]
    assert f"the limit is {MAX_LINE_BYTES} bytes" in errors[-1]["message"]
    replies = {m.get("id"): m for m in messages if m.get("id") is not None}
    assert replies[9]["error"]["code"] == -32600  # JSON-RPC 1.0: refused, answered by its id
    assert replies[8]["error"]["code"] == -32602 and "must be an object" in replies[8]["error"]["message"]
    assert 7 not in replies and 50 not in replies  # inside a refused batch / line: never served
    assert replies[2]["error"]["code"] == -32601
    bad_args = replies[3]
    assert "error" in bad_args or bad_args["result"]["isError"] is True
    assert replies[4]["result"]["isError"] is False  # still serving after all that


def test_every_request_read_before_eof_is_answered(agent) -> None:
    """A client writes its requests and closes stdin at once: each one read before EOF gets its own answer —
    resource reads that need gh (a log, an expired log's typed error), the capabilities, a completion — not
    "Connection closed". (Before, only tool calls were waited for: with none in flight, the reads got no answer.)
    Tool calls sent just before EOF: test_a_quick_call_sent_just_before_eof_still_answers."""
    from tests.e2e.ci_worlds import FAST, expired_world

    a = agent(expired_world())
    payload = HANDSHAKE + b"".join([
        rpc(1, "resources/read", {"uri": "pr-agent://job-log/acme/widgets/203"}),
        rpc(2, "resources/read", {"uri": "pr-agent://job-log/acme/widgets/202"}),
        rpc(3, "resources/read", {"uri": "pr-agent://capabilities"}),
        rpc(4, "completion/complete", {"ref": {"type": "ref/resource", "uri": "pr-agent://output-schema/{tool}"},
                                       "argument": {"name": "tool", "value": "get_"}}),
    ])
    messages, proc = run_raw(a, payload, **FAST)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    replies = {m["id"]: m for m in messages if "id" in m}
    assert set(replies) == {0, 1, 2, 3, 4}, replies
    assert "result" in replies[1] and replies[1]["result"]["contents"][0]["text"].strip()  # the readable log
    expired = replies[2]["error"]  # GitHub answers 410: gone, so "resource not found", typed in data
    assert expired["code"] == -32002 and expired["data"]["code"] == "log_expired"
    assert expired["data"]["category"] == "api" and expired["data"]["temporary"] is False
    assert "gh-pr-agent" in replies[3]["result"]["contents"][0]["text"]
    assert replies[4]["result"]["completion"]["values"] == ["get_failing_tests"]
