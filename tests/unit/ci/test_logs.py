"""Log cleaning and cutting a job log down to its failed step."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pr_agent.ci.logs import (
    LogSlice,
    StepTiming,
    clean_line,
    clean_lines,
    pick_failed_step,
    slice_failed_step,
)

MULTISTEP = Path(__file__).resolve().parents[3] / "fixtures" / "logs" / "multistep"


def _steps(case: str) -> list[StepTiming]:
    data = json.loads((MULTISTEP / f"{case}.steps.json").read_text())
    return [StepTiming.from_api(s) for s in data["steps"]]


def _slice(case: str, steps: list[StepTiming] | None, name: str | None = None, **kw: int) -> LogSlice:
    with (MULTISTEP / f"{case}.log").open(encoding="utf-8", newline="") as fh:
        return slice_failed_step(fh, steps, name, **kw)


# -- cleaning ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("2026-11-30T10:00:00.1234567Z ##[group]Run pytest", "##[group]Run pytest"),
        ("2026-11-30T10:00:00Z plain", "plain"),
        ("2026-11-30T10:00:00.1Z", ""),
        ("\ufeff2026-11-30T10:00:00.1234567Z Current runner version: '2.321.0'", "Current runner version: '2.321.0'"),
        ("\x1b[31mFAILED\x1b[0m tests/x.py::t", "FAILED tests/x.py::t"),
        ("\x1b[1m\x1b[31mE       assert 1 == 2\x1b[0m\n", "E       assert 1 == 2"),
        ("\x1b]8;;https://example.com\x07link\x1b]8;;\x07 text", "link text"),
        ("\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"),
        ("progress 10%\rprogress 100%\r\n", "progress 100%"),
        ("windows line\r\n", "windows line"),
        ("not a timestamp 2026-11-30T10:00:00Z here", "not a timestamp 2026-11-30T10:00:00Z here"),
        ("", ""),
    ],
)
def test_clean_line(raw: str, clean: str) -> None:
    assert clean_line(raw) == clean
    assert list(clean_lines([raw])) == [clean]
    assert clean_line(clean_line(raw)) == clean_line(raw)  # idempotent


def test_clean_lines_streams_lazily() -> None:
    endless = (f"2026-11-30T10:00:00.0000000Z line {i}" for i in itertools.count())
    out = clean_lines(endless)
    assert list(itertools.islice(out, 3)) == ["line 0", "line 1", "line 2"]


def test_clean_lines_keeps_text_that_only_looks_like_a_timestamp() -> None:
    assert list(clean_lines(["2026-11-30 10:00:00 INFO start"])) == ["2026-11-30 10:00:00 INFO start"]


# -- steps ------------------------------------------------------------------------------------------


def test_step_timing_from_api() -> None:
    step = StepTiming.from_api(
        {"name": "Run tests", "number": 4, "conclusion": "failure",
         "started_at": "2026-11-30T10:00:07Z", "completed_at": "2026-11-30T10:00:08.900+00:00"}
    )
    assert step.failed
    assert step.start == datetime(2026, 11, 30, 10, 0, 7, tzinfo=timezone.utc)
    assert step.end == datetime(2026, 11, 30, 10, 0, 8, tzinfo=timezone.utc)
    odd = StepTiming.from_api({"name": None, "number": "x", "started_at": "garbage"})
    assert odd.number == 0 and odd.start is None and not odd.failed


def test_pick_failed_step() -> None:
    steps = _steps("pytest_job")
    assert pick_failed_step(steps, None).name == "Run tests"  # type: ignore[union-attr]
    assert pick_failed_step(steps, "run tests").number == 4  # type: ignore[union-attr]
    assert pick_failed_step(steps, "Install dependencies").number == 3  # type: ignore[union-attr]
    assert pick_failed_step(steps, "No such step") is None
    cancelled = [StepTiming("Build", 2, "cancelled", "2026-11-30T10:00:00Z", "2026-11-30T10:01:00Z")]
    assert pick_failed_step(cancelled, None).name == "Build"  # type: ignore[union-attr]


# -- slicing ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["pytest_job", "subsecond_steps"])
def test_slice_by_timestamps(case: str) -> None:
    sl = _slice(case, _steps(case))
    assert sl.method == "timestamps"
    assert (sl.step_name, sl.step_number) == ("Run tests", 4)
    text = list(clean_lines(sl.lines))
    assert text[0] == "##[group]Run pytest -q"
    assert text[-1] == "##[error]Process completed with exit code 1."
    joined = "\n".join(text)
    assert "FAILED tests/test_invoice.py::test_total_includes_shipping" in joined
    # nothing from the neighbouring steps: pip's ERROR line, checkout, post-job cleanup
    assert "dependency resolver" not in joined
    assert "Post job cleanup." not in joined
    assert "Syncing repository" not in joined
    assert sl.dropped_lines == 0


def test_slice_named_step_that_succeeded() -> None:
    sl = _slice("pytest_job", _steps("pytest_job"), "Install dependencies")
    text = list(clean_lines(sl.lines))
    assert sl.method == "timestamps" and sl.step_number == 3
    assert text[0] == "##[group]Run pip install -e .[test]"
    assert any("dependency resolver" in t for t in text)
    assert not any("FAILURES" in t for t in text)


def test_slice_falls_back_to_groups_without_steps() -> None:
    sl = _slice("pytest_job", None, None)
    text = list(clean_lines(sl.lines))
    assert sl.method == "groups"
    assert sl.step_name == "Run pytest -q"
    assert text[0] == "##[group]Run pytest -q"
    assert "##[error]Process completed with exit code 1." in text
    assert not any("dependency resolver" in t for t in text)


def test_slice_groups_match_step_name_to_marker() -> None:
    sl = _slice("pytest_job", None, "Run pip install -e .[test]")
    assert sl.method == "groups"
    assert any("dependency resolver" in t for t in sl.lines)


def test_slice_groups_when_step_times_do_not_match_the_log() -> None:
    far = [StepTiming("Run tests", 4, "failure", "2030-01-01T00:00:00Z", "2030-01-01T00:01:00Z")]
    sl = _slice("pytest_job", far)
    assert sl.method == "groups"
    assert sl.step_name == "Run tests"


def test_slice_groups_when_the_log_has_no_timestamps() -> None:
    log = [
        "##[group]Run npm ci",
        "added 120 packages",
        "##[endgroup]",
        "##[group]Run npm test",
        "FAIL src/a.test.ts",
        "##[error]Process completed with exit code 1.",
    ]
    steps = [StepTiming("Run npm test", 3, "failure", "2026-11-30T10:00:00Z", "2026-11-30T10:00:09Z")]
    sl = slice_failed_step(log, steps, None)
    assert sl.method == "groups"
    assert sl.lines == log[3:]


def test_slice_whole_log_fallback() -> None:
    log = ["building", "error: something broke", "exit 1"]
    sl = slice_failed_step(iter(log), None, None)
    assert sl.method == "whole_log"
    assert sl.lines == log
    assert sl.step_name is None


def test_slice_keeps_error_lines_after_the_step() -> None:
    lines = [
        "2026-11-30T10:00:00.1000000Z ##[group]Run make e2e",
        "2026-11-30T10:00:00.2000000Z running…",
        "2026-11-30T10:30:00.1000000Z still running…",
        "2026-11-30T10:30:05.0000000Z ##[error]The job running on runner X has exceeded the maximum execution "
        "time of 30 minutes.",
        "2026-11-30T10:30:05.0100000Z ##[error]The operation was canceled.",
        "2026-11-30T10:30:06.0000000Z Post job cleanup.",
    ]
    steps = [StepTiming("Run make e2e", 2, "cancelled", "2026-11-30T10:00:00Z", "2026-11-30T10:30:00Z")]
    sl = slice_failed_step(lines, steps, None)
    assert sl.method == "timestamps"
    text = list(clean_lines(sl.lines))
    assert text[:3] == ["##[group]Run make e2e", "running…", "still running…"]
    assert text[3:] == [
        "##[error]The job running on runner X has exceeded the maximum execution time of 30 minutes.",
        "##[error]The operation was canceled.",
    ]


def test_slice_is_bounded_by_max_lines() -> None:
    def log():
        yield "2026-11-30T10:00:00.0000000Z ##[group]Run big"
        for i in range(5000):
            yield f"2026-11-30T10:00:01.0000000Z line {i}"
        yield "2026-11-30T10:00:02.0000000Z ##[error]Process completed with exit code 1."

    steps = [StepTiming("Run big", 1, "failure", "2026-11-30T10:00:00Z", "2026-11-30T10:00:02Z")]
    sl = slice_failed_step(log(), steps, None, max_lines=100)
    assert len(sl.lines) == 100
    assert sl.dropped_lines == 5002 - 100
    assert sl.lines[-1].endswith("exit code 1.")


def test_slice_accepts_datetime_step_times_and_crlf() -> None:
    lines = [
        "\ufeff2026-11-30T10:00:00.5000000Z ##[group]Run a\r\n",
        "2026-11-30T10:00:01.0000000Z a output\r\n",
        "2026-11-30T10:00:03.0000000Z ##[group]Run b\r\n",
        "2026-11-30T10:00:03.5000000Z b output\r\n",
        "2026-11-30T10:00:04.0000000Z ##[error]Process completed with exit code 2.\r\n",
    ]
    utc = timezone.utc
    steps = [
        StepTiming("Run a", 1, "success", datetime(2026, 11, 30, 10, 0, 0, tzinfo=utc),
                   datetime(2026, 11, 30, 10, 0, 2, tzinfo=utc)),
        StepTiming("Run b", 2, "failure", datetime(2026, 11, 30, 10, 0, 3, tzinfo=utc),
                   datetime(2026, 11, 30, 10, 0, 4, tzinfo=utc)),
    ]
    sl = slice_failed_step(lines, steps, None)
    assert sl.method == "timestamps"
    assert list(clean_lines(sl.lines)) == ["##[group]Run b", "b output", "##[error]Process completed with exit code 2."]
