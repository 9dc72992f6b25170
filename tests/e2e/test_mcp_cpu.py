"""A CPU-heavy step never blocks the MCP server: while get_failing_tests parses a 40 MB job log (real gh,
fakehub, raw JSON-RPC on stdio), ``ping`` and ``tools/list`` keep answering (a median of milliseconds, never
a wait for the parse), and the parse still finds the one failure at the end of the log.

One gh binary (the newest): this measures the server, not gh."""

from __future__ import annotations

import time
from pathlib import Path

from tests.e2e.ci_worlds import FAST, job, world
from tests.e2e.mcp_raw import RawSession, call, rpc

PR = "acme/widgets#7"
FAILED_ID = "tests/test_zz_last.py::test_the_one_that_fails"


def big_pytest_log(path: Path, target_mb: int = 40) -> int:
    """A raw Actions log of one pytest step: ``target_mb`` MB of passing tests, then one failure."""
    stamp = "2026-11-30T10:00:01.0000000Z "
    passing = "".join(f"{stamp}tests/test_mod_{i % 997:03d}.py::test_case_{i:07d} PASSED{' ' * 20}[ 50%]\n"
                      for i in range(2000)).encode()
    with path.open("wb") as out:
        out.write(f"{stamp}##[group]Run pytest -v\n{stamp}##[endgroup]\n".encode())
        out.write(f"{stamp}============================= test session starts ==============================\n"
                  .encode())
        written = 0
        while written < target_mb << 20:
            out.write(passing)
            written += len(passing)
        out.write("".join(f"{stamp}{line}\n" for line in [
            f"{FAILED_ID} FAILED                                   [100%]",
            "=================================== FAILURES ===================================",
            "__________________________ test_the_one_that_fails ___________________________",
            "    def test_the_one_that_fails():",
            ">       assert 1 == 2",
            "E       assert 1 == 2",
            "tests/test_zz_last.py:3: AssertionError",
            "=========================== short test summary info ============================",
            f"FAILED {FAILED_ID} - assert 1 == 2",
            "##[error]Process completed with exit code 1.",
        ]).encode())
    return path.stat().st_size


def test_pings_answer_while_a_forty_megabyte_log_is_parsed(one_agent, tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    size = big_pytest_log(log)
    a = one_agent(world([job("pytest", 601)], {"runs": [{"check": "pytest", "log": str(log)}]}))
    s = RawSession(a.env(**FAST))
    try:
        s.handshake()
        s.send(call("big", "get_failing_tests", {"pr": PR}))
        # the log is being downloaded or parsed once fakehub has served it
        end = time.monotonic() + 120
        while not a.hub.find_requests("GET", "/repos/acme/widgets/actions/jobs/601/logs"):
            assert time.monotonic() < end, "the job log was never requested"
            time.sleep(0.02)
        started = time.monotonic()
        latencies: list[float] = []
        answered_during_parse = 0
        n = 0
        while True:
            n += 1
            method = "ping" if n % 2 else "tools/list"
            took, reply = s.timed(rpc(f"p{n}", method), f"p{n}")
            assert "result" in reply, reply
            latencies.append(took)
            done = [m for m in s.seen if m.get("id") == "big"]
            if done:
                break
            answered_during_parse += 1
            assert time.monotonic() < end + 120, "get_failing_tests never answered"
            time.sleep(0.05)
        result = s.reply("big")["result"]
        busy_s = time.monotonic() - started  # download and parse, while the pings were answered
        # the server answered while the parse was running (the test is not vacuous) …
        assert answered_during_parse >= 3, (answered_during_parse, latencies)
        # … and never made a request wait behind it: a loop blocked by the parse would keep one ping waiting
        # for most of ``busy_s`` (seconds here); the GIL the parsing thread shares costs a few milliseconds
        # each (a generous bound: the machine running the suite is busy too)
        assert sorted(latencies)[len(latencies) // 2] < 0.2, latencies
        assert max(latencies) < min(2.0, busy_s / 2), (size, busy_s, latencies)
        assert result["isError"] is False, result
        failures = result["structuredContent"]["failures"]
        assert [f["test_name"] for f in failures] == [FAILED_ID], failures
    finally:
        s.stop()
