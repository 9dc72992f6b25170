"""The MCP server under load and at shutdown, over raw JSON-RPC on stdio (real gh, fakehub): 60 long calls
in flight leave ping and a quick call answering within a second, cancelling them stops every gh child
within a second, stdin EOF cancels what is in flight and the server exits in a few seconds, a wait without
a progress token answers within the client-safe bound, and progress strictly increases.

These run with one gh binary (the newest): they measure the server, not gh."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pr_agent.mcp_stdio import EOF_GRACE_S, SHUTDOWN_S
from tests.e2e.ci_worlds import FAST, pending_world, waiting_world
from tests.e2e.mcp_raw import RawSession, call, cancel, gh_children, rpc
from tests.fakehub import Fault

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
PR = "acme/widgets#7"


def _wait_until(pred: Callable[[], bool], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def test_sixty_long_calls_leave_ping_and_a_quick_call_answering(one_agent) -> None:
    a = one_agent(pending_world())
    a.hub.add_fault(Fault(match="graphql:PrChecks", kind="hang", delay_s=60, times=None))
    s = RawSession(a.env(**FAST))
    try:
        s.handshake()
        n = 60
        s.send(b"".join(call(i, "get_failing_tests", {"pr": PR, "wait": True}, token=f"t{i}")
                        for i in range(1, n + 1)))
        # every call is inside gh, waiting on a GitHub that does not answer (each request reached fakehub)
        def hanging() -> int:
            return sum(r.fault == "hang" for r in a.hub.find_requests("POST", "/graphql", "PrChecks"))

        assert _wait_until(lambda: hanging() >= n, 90), hanging()
        assert len(gh_children(s.proc.pid)) >= n
        time.sleep(0.5)  # let the last gh processes settle into waiting
        ping_s, pong = s.timed(rpc("p", "ping"), "p")
        list_s, listed = s.timed(rpc("l", "tools/list"), "l")
        quick_s, quick = s.timed(call("q", "find_unresolved_comments", {"pr": PR}), "q")  # a real GitHub call
        assert pong["result"] == {} and len(listed["result"]["tools"]) == 7
        assert quick["result"]["isError"] is False and quick["result"]["structuredContent"]["total_unresolved"] == 0
        assert max(ping_s, list_s, quick_s) < 1.0, (ping_s, list_s, quick_s)
        started = time.monotonic()
        s.send(b"".join(cancel(i) for i in range(1, n + 1)))
        assert _wait_until(lambda: not gh_children(s.proc.pid), 10)
        stopped_s = time.monotonic() - started
        assert stopped_s < 1.0, stopped_s
        ping2_s, _ = s.timed(rpc("p2", "ping"), "p2")
        assert ping2_s < 1.0
        time.sleep(0.3)
        assert not any(m.get("id") in range(1, n + 1) for m in s.drain())  # a cancelled request gets no reply
        s.close_stdin()
        s.proc.wait(timeout=10)
        assert s.proc.returncode == 0 and b"Traceback" not in s.stderr, s.stderr[-2000:]
    finally:
        a.hub.clear_faults()
        s.stop()


def test_stdin_eof_cancels_waits_and_the_server_exits(one_agent) -> None:
    a = one_agent(pending_world())
    s = RawSession(a.env(**FAST))
    try:
        s.handshake()
        s.send(b"".join(call(i, "get_failing_tests", {"pr": PR, "wait": True}, token=f"t{i}") for i in range(1, 6)))
        s.wait_for(lambda m: m.get("method") == "notifications/progress", 60)  # the waits are polling
        a.hub.add_fault(Fault(match="graphql:PrChecks", kind="hang", delay_s=60, times=None))
        assert _wait_until(lambda: bool(gh_children(s.proc.pid)), 30)
        started = time.monotonic()
        s.close_stdin()
        s.proc.wait(timeout=60)  # the hang guard
        exited_s = time.monotonic() - started
        # the default EOF grace, then the cancelled calls' replies (each gh child killed within 0.1 s), with room
        # for a loaded machine; a call that was not cancelled would still be inside its 60 s hang
        assert exited_s < EOF_GRACE_S + SHUTDOWN_S + 10, exited_s
        assert s.proc.returncode == 0 and b"Traceback" not in s.stderr, s.stderr[-2000:]
        assert not gh_children(s.proc.pid)
        time.sleep(0.2)
        replies = {m["id"]: m for m in s.drain() if "id" in m}
        for i in range(1, 6):  # nothing lost: every call answers, as cancelled by the shutdown
            err = replies[i]["result"]["structuredContent"]["error"]
            assert replies[i]["result"]["isError"] and err["code"] == "cancelled", replies[i]
            assert "stdin EOF" in err["message"] and err["details"]["reason"] == "shutdown"
    finally:
        a.hub.clear_faults()
        s.stop()


def test_a_wait_without_progress_token_answers_within_the_bound(one_agent) -> None:
    a = one_agent(pending_world())
    s = RawSession(a.env(**FAST, GH_PR_AGENT_MCP_WAIT_LIMIT="2"))
    try:
        s.handshake()
        took, reply = s.timed(call(1, "get_failing_tests", {"pr": PR, "wait": True}), 1, timeout=60)
        sc = reply["result"]["structuredContent"]
        assert reply["result"]["isError"] is False, sc
        assert 2 <= took < 10, took
        assert sc["status"] in ("pending", "running") and sc["wait_info"]["ended"] == "wait_limit"
        assert sc["wait_info"]["polls"] >= 1 and sc["wait_info"]["waited_seconds"] >= 2
        assert "call again with wait=true" in sc["poll_info"]["message"]
        assert "progressToken" in sc["poll_info"]["message"]
    finally:
        s.stop()


def test_progress_strictly_increases_and_a_token_waits_past_the_bound(one_agent) -> None:
    a = one_agent(waiting_world(fail_at=12, finish_at=14))  # polls 1-11 all look alike: 3 checks not done
    s = RawSession(a.env(**FAST, GH_PR_AGENT_MCP_WAIT_LIMIT="0.5"))
    try:
        s.handshake()
        reply = s.reply(1, 60) if not s.send(call(1, "get_failing_tests", {"pr": PR, "wait": True},
                                                   token="tok")) else None
        assert reply is not None and reply["result"]["isError"] is False
        assert reply["result"]["structuredContent"]["wait_info"]["ended"] == "first_failure"  # not wait_limit
        progress = [m["params"] for m in s.drain() if m.get("method") == "notifications/progress"]
        values = [p["progress"] for p in progress]
        assert len(values) >= 8 and all(b > a_ for a_, b in itertools.pairwise(values)), values
        assert all(p["progressToken"] == "tok" for p in progress)
        assert all("total" not in p or p["total"] >= p["progress"] for p in progress)
    finally:
        s.stop()


def test_every_tool_at_once_on_fresh_servers(one_agent, tmp_path: Path) -> None:
    """The first calls of a fresh server race on shared state (query fragments, snapshots, preferences, gh
    discovery): fire every tool at once, twice each, on fresh servers."""
    from tests.e2e.test_mcp_ts_client import CALLS, _world

    a = one_agent(_world(tmp_path))
    successes = [(n, args) for n, args, code in CALLS if code is None and n != "resolve_review_thread"]
    for _ in range(2):
        s = RawSession(a.env())
        try:
            s.handshake()
            batch = [*successes, *successes]
            s.send(b"".join(call(i, n, args) for i, (n, args) in enumerate(batch)))
            for i, (name, _args) in enumerate(batch):
                result = s.reply(i, 120)["result"]
                assert result["isError"] is False, (name, result["content"][0]["text"][:300])
        finally:
            s.stop()


def test_error_catalogue_output_schemas_and_completions(one_agent) -> None:
    from tests.e2e.ci_worlds import failing_world

    a = one_agent(failing_world())
    s = RawSession(a.env(**FAST))
    try:
        s.handshake()
        s.send(rpc(1, "tools/list"))
        tools = {t["name"]: t for t in s.reply(1)["result"]["tools"]}
        meta = tools["get_failing_tests"]["_meta"]
        assert {"code": "wait_timeout", "temporary": True} in meta["io.github.gh-pr-agent/errors"]
        s.send(rpc(2, "resources/read", {"uri": "pr-agent://capabilities"}))
        import orjson

        caps = orjson.loads(s.reply(2)["result"]["contents"][0]["text"])
        assert "wait_timeout" in caps["error_codes"]["by_tool"]["get_failing_tests"]
        assert caps["error_codes"]["codes"]["pr_not_found"]["category"] == "api"
        s.send(rpc(3, "resources/read", {"uri": "pr-agent://output-schema/get_failing_tests"}))
        full = orjson.loads(s.reply(3)["result"]["contents"][0]["text"])
        assert "Failure" in full["$defs"] and full["$defs"]["Failure"]["properties"]["test_name"]["description"]
        assert "$defs" not in tools["get_failing_tests"]["outputSchema"]["anyOf"][0]  # tools/list: top level only

        def complete(id_: int, uri: str, name: str, value: str, **known: str) -> list[str]:
            params: dict[str, Any] = {"ref": {"type": "ref/resource", "uri": uri},
                                      "argument": {"name": name, "value": value}}
            if known:
                params["context"] = {"arguments": known}
            s.send(rpc(id_, "completion/complete", params))
            return s.reply(id_)["result"]["completion"]["values"]

        assert complete(4, "pr-agent://output-schema/{tool}", "tool", "get_") == ["get_failing_tests"]
        log = "pr-agent://job-log/{owner}/{repo}/{job_id}"
        assert complete(5, log, "job_id", "", owner="acme", repo="widgets") == []  # nothing seen yet
        s.send(call(6, "get_failing_tests", {"pr": PR}))
        jobs = [str(c["job_id"]) for c in s.reply(6)["result"]["structuredContent"]["failed_checks"] if c.get("job_id")]
        assert jobs
        assert complete(7, log, "owner", "ac") == ["acme"]
        assert complete(8, log, "repo", "", owner="acme") == ["widgets"]
        assert sorted(complete(9, log, "job_id", "", owner="acme", repo="widgets")) == sorted(set(jobs))
        assert complete(10, log, "job_id", jobs[0][:3], owner="other") == []
    finally:
        s.stop()
