"""``analyze_check`` parses a job log within the call's limits: it stops on cancellation (the ``cancelled``
error reaches the caller: the MCP client that gave up, Ctrl-C on the CLI) and after ``GH_PR_AGENT_TIMEOUT``
seconds (the analysis says so and reports no test from that log); and it reads a UTF-16 log as well as a
UTF-8 one (``github.text_lines`` uses the shared decoder)."""

from __future__ import annotations

import io
import threading

import pytest

from pr_agent.ci.analyze import analyze_check
from pr_agent.ci.fanout import FanOut, _done
from pr_agent.ci.rollup import Check
from pr_agent.errors import PrAgentError

LOG = "".join(f"2026-11-30T10:00:{i % 60:02d}.0000000Z tests/test_m.py::test_{i} PASSED\n" for i in range(30000))
LOG += ("2026-11-30T10:01:00.0000000Z FAILED tests/test_m.py::test_bad - assert 1 == 2\n"
        "2026-11-30T10:01:00.0000000Z ========= 1 failed, 30000 passed in 9.10s =========\n"
        "2026-11-30T10:01:00.0000000Z ##[error]Process completed with exit code 1.\n")


def _check() -> Check:
    return Check(name="test", kind="check_run", state="FAILURE", bucket="failed", app="github-actions",
                 check_run_id=7, run_id=3)


def test_a_log_parses_within_generous_limits() -> None:
    a = analyze_check(_check(), io.BytesIO(LOG.encode()), None, timeout=600, cancel=threading.Event())
    assert [f["test_name"] for f in a.failures] == ["tests/test_m.py::test_bad"]
    assert "GH_PR_AGENT_TIMEOUT" not in (a.note or "")


def test_utf16_job_log_is_decoded() -> None:
    a = analyze_check(_check(), io.BytesIO(LOG.replace("\n", "\r\n").encode("utf-16")), None)
    assert [f["test_name"] for f in a.failures] == ["tests/test_m.py::test_bad"]


def test_cancellation_stops_the_parse_and_reaches_the_caller() -> None:
    cancel = threading.Event()
    cancel.set()
    raw = io.BytesIO(LOG.encode())
    with pytest.raises(PrAgentError) as err:
        analyze_check(_check(), raw, None, timeout=600, cancel=cancel)
    assert err.value.code == "cancelled"
    assert raw.closed


def test_timeout_is_reported_as_a_note_not_as_failures() -> None:
    a = analyze_check(_check(), io.BytesIO(LOG.encode()), None, timeout=0.0)
    assert a.failures == []
    assert "GH_PR_AGENT_TIMEOUT" in (a.note or "") and "0s" in (a.note or "")
    assert a.non_test is not None  # the job still gets its generic explanation


def test_fanout_passes_the_call_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[float | None, threading.Event | None]] = []

    def spy(check, raw, details, *, timeout=None, cancel=None):  # type: ignore[no-untyped-def]
        seen.append((timeout, cancel))
        return analyze_check(check, None, details)

    monkeypatch.setattr("pr_agent.ci.fanout.analyze_check", spy)
    monkeypatch.setattr("pr_agent.ci.fanout.fetch_log", lambda ctx, ref, check: None)

    class Gh:
        timeout = 12.5

        @staticmethod
        def pool(n: int):  # type: ignore[no-untyped-def]
            from concurrent.futures import ThreadPoolExecutor
            return ThreadPoolExecutor(n)

    class Ctx:
        gh = Gh()
        cancel = threading.Event()

    fan = FanOut(Ctx(), None, lambda key: False)  # type: ignore[arg-type]
    fan._details_of = lambda check: _done(None)  # type: ignore[method-assign]
    fan.start(_check())
    fan.results()
    fan.shutdown()
    assert seen == [(12.5, Ctx.cancel)]

