"""get_failing_tests over MCP: the SDK client over stdio (schema-valid results, the job-log resource,
progress while waiting) and raw JSON-RPC for cancellation of a waiting call (prompt, no gh left behind)."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest

from tests.e2e.ci_worlds import FAST, failing_world, pending_world, waiting_world
from tests.e2e.mcp_raw import gh_children
from tests.e2e.test_mcp import mcp_session
from tests.e2e.test_mcp_robustness import HANDSHAKE, rpc
from tests.fakehub import Fault


def test_result_validates_and_job_log_resource(agent) -> None:
    a = agent(failing_world())

    async def body(c: Any) -> dict[str, Any]:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        out: dict[str, Any] = {"tool": tools["get_failing_tests"]}
        out["result"] = await c.call_tool("get_failing_tests", {"pr": "acme/widgets#7"})
        out["full"] = await c.call_tool("get_failing_tests", {"pr": "acme/widgets#7", "detail": "full"})
        out["templates"] = (await c.list_resource_templates()).resource_templates
        out["log"] = await c.read_resource("pr-agent://job-log/acme/widgets/106")
        try:
            await c.read_resource("pr-agent://job-log/acme/widgets/99999")
        except Exception as exc:  # the SDK raises the JSON-RPC error
            out["missing"] = exc
        return out

    got = mcp_session(a, body, env=a.env(**FAST))
    tool = got["tool"]
    assert tool.annotations.read_only_hint is True and tool.input_schema["additionalProperties"] is False
    for key in ("result", "full"):
        result = got[key]
        assert result.is_error is False, result.content
        jsonschema.validate(result.structured_content, tool.output_schema)
    sc = got["result"].structured_content
    assert sc["status"] == "failed" and sc["total_failures"] == 3
    assert orjson.loads(got["result"].content[0].text) == sc
    assert [t.uri_template for t in got["templates"]] == ["pr-agent://job-log/{owner}/{repo}/{job_id}",
                                                          "pr-agent://output-schema/{tool}"]
    text = got["log"].contents[0].text
    assert "error TS2322" in text and "\x1b" not in text and not text.startswith("2026-")
    assert "missing" in got and "does not exist" in str(got["missing"])


def test_wait_sends_progress_notifications(agent) -> None:
    a = agent(waiting_world(fail_at=4, finish_at=6))
    messages: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        messages.append((done, total, message))

    async def body(c: Any) -> Any:
        return await c.call_tool("get_failing_tests", {"pr": "acme/widgets#7", "wait": True},
                                 progress_callback=progress)

    result = mcp_session(a, body, env=a.env(**FAST))
    assert result.is_error is False
    assert result.structured_content["wait_info"]["ended"] == "first_failure"
    assert len(messages) >= 2
    assert any("still running" in (m or "") for _, _, m in messages)
    assert all(total == 3 for _, total, _ in messages)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_cancelling_a_waiting_call_is_prompt_and_leaves_no_gh(agent) -> None:
    a = agent(pending_world())
    proc = subprocess.Popen([sys.executable, "-m", "pr_agent", "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=a.env(**FAST))
    assert proc.stdin is not None and proc.stdout is not None
    inbox: queue.Queue[dict[str, Any]] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            if line.strip():
                inbox.put(orjson.loads(line))

    threading.Thread(target=read, daemon=True).start()

    def send(data: bytes) -> None:
        proc.stdin.write(data)  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def wait_for(pred: Any, timeout: float) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                msg = inbox.get(timeout=0.1)
            except queue.Empty:
                continue
            if pred(msg):
                return msg
        raise AssertionError("timed out waiting for a message")

    try:
        send(HANDSHAKE)
        wait_for(lambda m: m.get("id") == 0, 60)
        send(rpc(1, "tools/call", {"name": "get_failing_tests", "arguments": {"pr": "acme/widgets#7", "wait": True},
                                   "_meta": {"progressToken": "tok"}}))
        wait_for(lambda m: m.get("method") == "notifications/progress", 60)
        # the next poll hangs inside gh: cancel while gh is running
        a.hub.add_fault(Fault(match="graphql:PrChecks", kind="hang", delay_s=60, times=None))
        def hanging() -> bool:
            return any(r.fault == "hang" for r in a.hub.find_requests("POST", "/graphql", "PrChecks"))

        end = time.monotonic() + 30
        while not hanging() and time.monotonic() < end:  # the poll reached fakehub and hangs there
            time.sleep(0.05)
        assert hanging() and gh_children(proc.pid), "expected a gh child in flight"
        polls = len(a.hub.find_requests("POST", "/graphql", "PrChecks"))
        started = time.monotonic()
        send(orjson.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 1, "reason": "user pressed stop"}}) + b"\n")
        while gh_children(proc.pid) and time.monotonic() - started < 10:
            time.sleep(0.05)
        assert gh_children(proc.pid) == [] and time.monotonic() - started < 3
        send(rpc(2, "ping"))
        assert wait_for(lambda m: m.get("id") == 2, 10)["result"] == {}
        time.sleep(1.0)  # the waiting call stopped: no further polls
        assert len(a.hub.find_requests("POST", "/graphql", "PrChecks")) == polls
    finally:
        a.hub.clear_faults()
        proc.stdin.close()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, 9)
            proc.wait()
