"""Why one failed check failed: its job's failed step, the failing tests or the non-test cause.

For a GitHub Actions job its log (:func:`fetch_log`) and its check run's steps and annotations
(:mod:`pr_agent.ci.details`, one GraphQL query for many check runs) are fetched concurrently; the log is cut
to the failed step (:func:`slice_failed_step`) and parsed (:func:`parse_log`). Annotations that carry
per-test results (test-reporter actions put them there) are preferred to what the log parser found. A job
that failed for another reason gets a non-test failure with its decisive lines; when nothing is
recognisable the tail of the failed step is those lines. Never an "Unknown test" with an empty message.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import IO, Any

from pr_agent.ci.details import CheckDetails
from pr_agent.ci.github import download_log, text_lines
from pr_agent.ci.logs import StepTiming, clean_lines, slice_failed_step
from pr_agent.ci.parsers import ParsedLog, parse_log
from pr_agent.ci.repro import reproduce_command
from pr_agent.ci.rollup import Check
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.refs import PRRef

EXCERPT_LINES = 60
EXCERPT_CHARS = 8000
MAX_ANNOTATIONS = 50
_TESTY_PATH = re.compile(r"(?:^|/)(?:tests?|spec|specs|__tests__)/|(?:_test|_spec|\.test|\.spec)\.\w+$|"
                         r"(?:^|/)test_[^/]*\.py$|Tests?\.(?:java|kt|cs|scala|php)$")
_TESTY_TITLE = re.compile(r"test|spec|should|›|::| > ", re.I)
_TITLE_PREFIX = re.compile(r"^(?:\d+ out of \d+ runs? (?:failed|with error):\s*|(?:failed test|test failed|"
                           r"failed|fail|failure|error|❌|✖|✗)\s*[:\-]?\s+)", re.I)


@dataclass
class Analysis:
    """What we learnt about one failed (or cancelled) check."""

    check: Check
    failures: list[dict[str, Any]] = field(default_factory=list)
    non_test: dict[str, Any] | None = None
    job_url: str | None = None
    step: StepTiming | None = None
    slice_method: str | None = None
    excerpt: list[str] = field(default_factory=list)
    annotations: list[dict[str, Any]] = field(default_factory=list)
    runners: list[str] = field(default_factory=list)
    note: str | None = None
    log_available: bool = False
    log_status: str | None = None  # Actions jobs: read, not_yet_available, log_expired, refused, unreadable
    final: bool = True  # False: worth asking again later (the log was not available yet)
    flaky_tests: list[str] = field(default_factory=list)  # failed, then passed on a rerun inside the job
    reports: list[str] = field(default_factory=list)  # artifacts whose test reports were merged in
    history: dict[str, Any] | None = None  # the check's history verdict (pr_agent.ci.history)

    @property
    def job_id(self) -> int | None:
        return self.check.check_run_id if self.is_actions else None

    @property
    def is_actions(self) -> bool:
        return self.check.kind == "check_run" and (self.check.app == "github-actions"
                                                   or self.check.run_id is not None)


def step_url(base: str | None, step: StepTiming | None) -> str:
    if not base:
        return ""
    return f"{base}#step:{step.number}:1" if step and step.number else base


def _short(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def annotation_view(a: dict[str, Any]) -> dict[str, Any]:
    return {"path": a.get("path") or None, "start_line": a.get("start_line"), "end_line": a.get("end_line"),
            "level": a.get("annotation_level") or "failure", "title": _short(str(a.get("title") or ""), 300) or None,
            "message": _short(str(a.get("message") or ""), 1000),
            "raw_details": _short(str(a.get("raw_details") or ""), 2000) or None}


def is_test_annotation(a: dict[str, Any]) -> bool:
    """A failure annotation that names one test (what test reporters write), not a compile/lint error
    from a problem matcher nor the runner's own 'Process completed with exit code' line."""
    path, title = str(a.get("path") or ""), str(a.get("title") or "").strip()
    message = str(a.get("message") or "")
    if (a.get("annotation_level") or "failure") != "failure" or not title or not message.strip():
        return False
    if path in ("", ".github") or "Process completed with exit code" in message:
        return False
    return bool(_TESTY_PATH.search(path) or _TESTY_TITLE.search(title))


def _annotation_failures(annotations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for a in annotations:
        if not is_test_annotation(a):
            continue
        name = _TITLE_PREFIX.sub("", str(a["title"]).strip()).strip() or str(a["title"]).strip()
        lines = [ln.strip() for ln in str(a["message"]).splitlines() if ln.strip()]
        line = a.get("start_line") if isinstance(a.get("start_line"), int) and a["start_line"] > 0 else None
        out.append({"test_name": _short(name, 300), "error_message": _short("\n".join(lines[:15]), 500),
                    "file_path": a.get("path"), "line_number": line, "runner": None, "suite": None,
                    "confidence": "high" if line else "medium", "source": "annotation"})
    return out


def _merge(from_annotations: list[dict[str, Any]], parsed: ParsedLog) -> list[dict[str, Any]]:
    """Annotations win; the log fills in what they lack (runner, suite, a longer message)."""
    by_name = {f.test_name: f for f in parsed.failures}
    runner = parsed.runners_detected[0] if len(parsed.runners_detected) == 1 else None
    for item in from_annotations:
        match = by_name.get(item["test_name"])
        item["runner"] = match.runner if match else runner
        if match:
            item["suite"] = match.suite
            item["file_path"] = item["file_path"] or match.file_path
            item["line_number"] = item["line_number"] or match.line_number
    return from_annotations


def _excerpt(lines: list[str]) -> list[str]:
    out: list[str] = []
    size = 0
    for line in reversed(list(clean_lines(lines[-EXCERPT_LINES:]))):
        line = _short(line, 300) if len(line) > 300 else line
        size += len(line) + 1
        if size > EXCERPT_CHARS:
            break
        out.append(line)
    return out[::-1]


def _fallback_non_test(a: Analysis, tail: list[str]) -> dict[str, Any]:
    state = a.check.state
    if state == "TIMED_OUT":
        return {"kind": "timeout", "summary": "The job hit its time limit (conclusion TIMED_OUT)",
                "decisive_lines": tail[-15:]}
    if state == "STARTUP_FAILURE":
        return {"kind": "unknown", "summary": "The workflow failed to start (startup_failure): check the "
                "workflow file", "decisive_lines": tail[-15:]}
    if not a.log_available:
        why = a.note or "its log is not available"
        detail = [a.check.description] if a.check.description else []
        if a.step is not None:
            detail.append(f"failed step {a.step.number}: {a.step.name}")
        for x in a.annotations:  # what the runner and problem matchers said is left when the log is not
            if x["level"] == "failure" and len(detail) < 15:
                where = f"{x['path']}:{x['start_line']}: " if x.get("path") and x["path"] != ".github" else ""
                detail.append(_short(f"{where}{x['title'] + ': ' if x.get('title') else ''}{x['message']}", 300))
        return {"kind": "unknown", "summary": f"The check failed ({state.lower()}); {why}",
                "decisive_lines": detail}
    lines = [ln.strip() for ln in tail if ln.strip() and not ln.startswith("##[")][-15:]
    head = lines[-1] if lines else ""
    return {"kind": "unknown", "summary": "Unrecognised failure" +
            (f": {_short(head, 200)}" if head else ""), "decisive_lines": lines}


def _window(lines: Iterator[str], step: StepTiming) -> Iterator[str]:
    """The lines whose timestamps fall in ``step``'s time window (streamed; untimed lines follow the line
    before them): the failed step of a log too big to keep in memory."""
    start, end = step.start, step.end
    lo = (start - timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%S") if start else ""
    hi = end.strftime("%Y-%m-%dT%H:%M:%S") if end else "9999"
    inside = False
    for line in lines:
        body = line[1:] if line[:1] == "\ufeff" else line
        if body[10:11] == "T" and body[4:5] == "-":
            inside = lo <= body[:19] <= hi
        if inside:
            yield line


def _parse(raw: IO[bytes], a: Analysis, steps: list[StepTiming], limits: dict[str, Any]) -> ParsedLog:
    """``limits``: ``timeout`` (seconds for all the parsing of this log) and ``cancel`` (an event) for
    ``parse_log``."""
    name = a.check.display_name
    deadline = time.monotonic() + limits["timeout"] if limits.get("timeout") is not None else None

    def left() -> dict[str, Any]:
        return {"cancel": limits.get("cancel"),
                "timeout": None if deadline is None else max(0.0, deadline - time.monotonic())}

    cut = slice_failed_step(text_lines(raw), steps, None)
    a.step = next((s for s in steps if s.number == cut.step_number), None) if cut.step_number else None
    a.slice_method = cut.method
    a.excerpt = _excerpt(cut.lines)
    if cut.dropped_lines:  # the failed step is longer than a slice keeps: parse all of it, streamed
        raw.seek(0)
        lines = text_lines(raw)
        step = a.step
        parsed = parse_log(_window(lines, step) if cut.method == "timestamps" and step else lines, check_name=name,
                           **left())
    else:
        parsed = parse_log(cut.lines, check_name=name, **left())
    unsure = not parsed.failures and (parsed.non_test_failure is None or parsed.non_test_failure.kind == "unknown")
    if unsure and cut.method != "whole_log":  # the cut may have missed: read the whole log once more
        raw.seek(0)
        whole = parse_log(text_lines(raw), check_name=name, **left())
        if whole.failures or (whole.non_test_failure and whole.non_test_failure.kind != "unknown"):
            parsed = whole
    return parsed


def quick_analysis(check: Check) -> Analysis | None:
    """The analysis of a failed check that needs nothing fetched (external status, never reported,
    cancelled); None when its log and/or check run must be read."""
    a = Analysis(check, job_url=check.url)
    if check.kind == "status_context":
        a.note = "External CI (commit status): its details are on the linked page."
    elif check.kind == "missing" or not check.check_run_id:
        a.note = "No check run to read."
    elif check.bucket == "cancelled":
        a.note = "The check was cancelled; it reported no test results."
    else:
        return None
    return a


def fetch_log(ctx: Context, ref: PRRef, check: Check) -> IO[bytes] | PrAgentError | None:
    """The raw log of a failed Actions job (a spooled file the analysis closes), the error that says why
    it is not available (not yet, expired, refused), or None for a check run of another app."""
    if not Analysis(check).is_actions or not check.check_run_id:
        return None
    try:
        return download_log(ctx, ref, check.check_run_id)
    except PrAgentError as err:
        if err.code in ("not_found", "forbidden", "validation_failed", "log_expired"):
            return err
        raise


def _unread_log(err: PrAgentError) -> tuple[str, str]:
    """(log_status, note) of a job log GitHub did not give."""
    if err.code == "not_found":
        return "not_yet_available", "its log is not available yet"
    if err.code == "log_expired":
        return "log_expired", ("its log has expired (log_expired: GitHub no longer keeps it); what is left is its "
                               "check-run annotations and step names")
    if err.code == "forbidden":
        return "refused", "GitHub refused its log (forbidden): the gh login may lack access to Actions logs"
    return "unreadable", f"its log could not be read ({err.code})"


def _add_note(a: Analysis, text: str) -> None:
    a.note = f"{a.note}; {text}" if a.note else text


def analyze_check(check: Check, raw: IO[bytes] | PrAgentError | None, details: CheckDetails | None, *,
                  timeout: float | None = None, cancel: threading.Event | None = None) -> Analysis:
    """Parse what explains one failed check run from its log (see :func:`fetch_log`) and its steps and
    annotations (None: not read). Closes ``raw``. A log that is not available yet makes the analysis
    non-final (``final`` False: asked again on the next poll while CI still runs).

    Parsing the log stops once ``cancel`` is set (the ``cancelled`` error propagates) or after ``timeout``
    seconds (``GH_PR_AGENT_TIMEOUT``): then the analysis says so and reports no test from that log."""
    a = quick_analysis(check)
    if a is not None:
        if raw is not None and not isinstance(raw, PrAgentError):
            raw.close()
        return a
    a = Analysis(check, job_url=check.url)  # an Actions check run's detailsUrl is its job's page
    if not a.is_actions:
        a.note = f"External CI ({check.app or 'a GitHub App'}): its details are on the linked page."
    details = details or CheckDetails()
    annotations = details.annotations
    a.annotations = [annotation_view(x) for x in (annotations or [])[:MAX_ANNOTATIONS]]
    steps = [StepTiming.from_api(s) for s in details.steps or [] if isinstance(s, dict)]
    parsed = ParsedLog()
    if isinstance(raw, PrAgentError):
        a.log_status, a.note = _unread_log(raw)
        a.final = raw.code != "not_found"  # only a log that is not there yet can come later
    elif raw is not None:
        try:
            a.log_available, a.log_status = True, "read"
            parsed = _parse(raw, a, steps, {"timeout": timeout, "cancel": cancel})
        except PrAgentError as err:
            if err.code != "timeout":
                raise
            _add_note(a, f"parsing its log took longer than {timeout:g}s (GH_PR_AGENT_TIMEOUT), so the failing "
                      f"tests in it are not reported (stopped after {err.details.get('lines_read', 0)} lines)")
        finally:
            raw.close()
    if a.step is None and steps:
        a.step = next((s for s in steps if s.failed), None)
    a.runners = list(parsed.runners_detected)
    a.flaky_tests = list(parsed.flaky)
    found = _annotation_failures(annotations or [])
    if found:
        failures = _merge(found, parsed)
    else:
        failures = [{"test_name": f.test_name, "error_message": f.error_message, "file_path": f.file_path,
                     "line_number": f.line_number, "runner": f.runner, "suite": f.suite,
                     "confidence": f.confidence, "source": "log"} for f in parsed.failures]
    url = step_url(a.job_url, a.step)
    for f in failures:
        f.update(check_name=check.display_name, log_url=url, job_id=a.job_id,
                 step_name=a.step.name if a.step else None,
                 reproduce_command=reproduce_command(f["runner"] or "", f["test_name"], suite=f["suite"],
                                                     file_path=f["file_path"], runners=a.runners))
    a.failures = failures
    if parsed.non_test_failure is not None:
        a.non_test = parsed.non_test_failure.model_dump(mode="json")
    elif not failures:
        a.non_test = _fallback_non_test(a, a.excerpt)
    if details.refused:
        _add_note(a, f"GitHub did not show its check run ({details.refused})")
    if a.is_actions and details.steps is None:  # never let the failed step's anchor vanish silently
        _add_note(a, "its steps could not be read, so the log link is not anchored at the failed step and the "
                  "log was cut without step times")
    if annotations is None:  # refused: never let failures a test reporter wrote there vanish silently
        _add_note(a, "its check-run annotations could not be read, so failing tests reported only there are "
                  "missing")
    for note in details.notes:
        _add_note(a, note)
    return a
