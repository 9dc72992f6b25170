"""Test reports (JUnit XML, xUnit.net v2 XML, TRX, CTRF JSON) as found in workflow artifacts: pure parsing.

A report names every failed test exactly, so its failures are reported with ``confidence: "high"`` and
``source: "artifact"``. What a file is comes from its content (the root element, or CTRF's ``results.tests``),
the file name only picks which files are worth opening (:func:`looks_like_report`).

**Untrusted XML.** A report is written by the PR's own code. It is parsed with expat directly (streamed
events, no tree) and refused outright (:class:`UnsafeReport`) when it has a ``<!DOCTYPE``: no DTD means
no entity can be declared, so no entity expansion ("billion laughs", quadratic blow-up) and no external
entity or DTD is ever fetched. Test reporters never write a DOCTYPE. Python's own expat (2.4.1+) also
limits amplification, but a refusal does not depend on the expat a user's Python was built with. Further
bounds: :data:`MAX_REPORT_BYTES` per file, :data:`MAX_DEPTH` nesting, :data:`MAX_TEXT` characters kept per
element, :data:`MAX_FAILURES` failures per file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

import orjson

from pr_agent.ci.parsers.base import rel_path, trim_message
from pr_agent.ci.parsers.models import RUNNERS

MAX_REPORT_BYTES = 16 << 20
MAX_DEPTH = 64
MAX_TEXT = 16_384
MAX_FAILURES = 2000
_NAME_HINT = re.compile(r"junit|xunit|nunit|surefire|failsafe|test|report|result|ctrf|\.trx$", re.I)
_PY_LOC = re.compile(r"([\w./\\-]+\.py):(\d+)")


class UnsafeReport(ValueError):
    """A report we refuse to parse (a DOCTYPE or entity declaration, too deep, too big)."""


class NotAReport(ValueError):
    """Well-formed, but not a test report we know."""


@dataclass
class Report:
    kind: str  # junit, xunit, trx, ctrf
    failures: list[dict[str, Any]] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)  # failed, then passed on a rerun of the same run
    passed: int = 0
    tool: str | None = None


def looks_like_report(path: str) -> bool:
    """A file of an artifact worth opening: ``.xml``, ``.trx`` or ``.json`` whose path names tests or reports
    (``junit.xml``, ``TEST-com.acme.FooTest.xml``, ``test-results/…``, ``ctrf-report.json``)."""
    low = path.lower()
    return low.endswith((".xml", ".trx", ".json")) and bool(_NAME_HINT.search(low))


def _failure(name: str, message: str | None, details: str | None, *, runner: str | None, suite: str | None = None,
             file_path: str | None = None, line: int | None = None) -> dict[str, Any]:
    lines = [ln for ln in (details or "").splitlines() if ln.strip()]
    text = message.strip() if message and message.strip() else "\n".join(lines[:8])
    if file_path is None:  # the test's own frame from a Python traceback (`tests/test_x.py:14: AssertionError`)
        locs = _PY_LOC.findall(details or "")
        tests = [loc for loc in locs if "test" in loc[0].rsplit("/", 1)[-1]]
        if tests:
            file_path, line = rel_path(tests[-1][0]), int(tests[-1][1])
    return {"test_name": name[:300], "error_message": trim_message(text or "failed (no message in the report)"),
            "file_path": rel_path(file_path) if file_path else None, "line_number": line, "runner": runner,
            "suite": suite, "confidence": "high", "source": "artifact"}


def _int(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


# ------------------------------------------------------------------ XML, hardened
def _refuse(what: str) -> Callable[..., None]:
    def handler(*_: Any) -> None:
        raise UnsafeReport(f"the report has a {what}: refused (no DTDs or entities are processed)")
    return handler


class _Xml:
    """Streamed expat events with the text of the current element (bounded)."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.size = 0

    def run(self, data: bytes) -> None:
        if len(data) > MAX_REPORT_BYTES:
            raise UnsafeReport(f"the report is over {MAX_REPORT_BYTES >> 20} MB")
        p = expat.ParserCreate()
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        p.StartDoctypeDeclHandler = _refuse("DOCTYPE")
        p.EntityDeclHandler = _refuse("entity declaration")
        p.ExternalEntityRefHandler = _refuse("external entity")
        p.StartElementHandler = self._start
        p.EndElementHandler = self._end
        p.CharacterDataHandler = self._chars
        p.buffer_text = True
        try:
            p.Parse(data, True)
        except expat.ExpatError as exc:
            raise NotAReport(f"not well-formed XML ({exc})") from None

    def _start(self, tag: str, attrs: dict[str, str]) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise UnsafeReport(f"the report nests deeper than {MAX_DEPTH} elements")
        self.stack.append((tag, attrs))
        self.text, self.size = [], 0
        self.start(tag, attrs)

    def _chars(self, data: str) -> None:
        if self.size < MAX_TEXT:
            self.text.append(data[: MAX_TEXT - self.size])
            self.size += len(data)

    def _end(self, tag: str) -> None:
        text = "".join(self.text)
        self.text, self.size = [], 0
        _, attrs = self.stack.pop()
        self.end(tag, attrs, text)

    def parent(self, n: int = 1) -> tuple[str, dict[str, str]]:
        return self.stack[-n] if len(self.stack) >= n else ("", {})

    def start(self, tag: str, attrs: dict[str, str]) -> None:  # overridden
        pass

    def end(self, tag: str, attrs: dict[str, str], text: str) -> None:  # overridden
        pass


class _Reader(_Xml):
    """JUnit (``testsuites``/``testsuite``/``testcase``), xUnit.net v2 (``assemblies``/``test``) and TRX
    (``TestRun``/``UnitTestResult``) in one pass; the root element says which."""

    def __init__(self) -> None:
        super().__init__()
        self.report: Report | None = None
        self.case: dict[str, str] | None = None
        self.case_failed = False
        self.case_flaky = False
        self.pending: dict[str, Any] | None = None  # the open <failure>/<error> (JUnit) or ErrorInfo (TRX, xUnit)
        self.pytest = False

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if self.report is None:
            kind = {"testsuites": "junit", "testsuite": "junit", "assemblies": "xunit", "assembly": "xunit",
                    "TestRun": "trx"}.get(tag)
            if kind is None:
                raise NotAReport(f"root element <{tag[:40]}> is not a test report")
            self.report = Report(kind)
        if tag == "testsuite" and attrs.get("name") == "pytest":
            self.pytest = True
        if tag in ("testcase", "test", "UnitTestResult"):
            self.case, self.case_failed, self.case_flaky = attrs, False, False
            self.pending = None
        elif self.case is not None and tag in ("failure", "error", "ErrorInfo"):
            self.pending = {"message": attrs.get("message"), "type": attrs.get("type") or attrs.get("exception-type")}
            self.case_failed = True
        elif self.case is not None and tag in ("flakyFailure", "flakyError", "rerunFailure", "rerunError"):
            self.case_flaky = True

    def end(self, tag: str, attrs: dict[str, str], text: str) -> None:
        r = self.report
        assert r is not None
        if self.pending is not None and tag in ("Message", "message"):
            self.pending["message"] = text
        elif self.pending is not None and (tag in ("StackTrace", "stack-trace")
                                           or (tag in ("failure", "error") and r.kind == "junit")):
            self.pending["details"] = text
        elif tag in ("testcase", "test", "UnitTestResult") and self.case is not None:
            self._case_done(r)

    def _case_done(self, r: Report) -> None:
        case, self.case = self.case or {}, None
        if r.kind == "junit":
            cls, name = case.get("classname", ""), case.get("name", "").removesuffix("()")
            full = f"{cls}.{name}" if cls and name else (name or cls or "?")
            runner, suite, file = "junit", cls or None, case.get("file")
            if self.pytest:  # pytest's --junitxml: the node id is what pytest reruns
                path = file or (cls.replace(".", "/") + ".py" if cls else "")
                full, runner = (f"{path}::{name}" if path else name), "pytest"
                suite = None
        elif r.kind == "xunit":
            full, runner, suite, file = case.get("name", "?"), "dotnet", case.get("type"), None
            failed = case.get("result") == "Fail"
            self.case_failed = self.case_failed and failed
        else:
            full, runner, suite, file = case.get("testName", "?"), "dotnet", None, None
            self.case_failed = case.get("outcome") in ("Failed", "Error", "Timeout", "Aborted")
            if self.case_failed and self.pending is None:
                self.pending = {"message": case.get("outcome")}
        if self.case_failed and self.pending is not None:
            if len(r.failures) < MAX_FAILURES:
                p = self.pending
                r.failures.append(_failure(full, p.get("message") or p.get("type"), p.get("details"), runner=runner,
                                           suite=suite, file_path=file, line=_int(case.get("line"))))
        elif self.case_flaky:
            r.flaky.append(full[:300])
        else:
            r.passed += 1
        self.pending = None


def _ctrf(data: bytes) -> Report:
    if len(data) > MAX_REPORT_BYTES:
        raise UnsafeReport(f"the report is over {MAX_REPORT_BYTES >> 20} MB")
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise NotAReport("not JSON") from None
    results = doc.get("results") if isinstance(doc, dict) else None
    tests = results.get("tests") if isinstance(results, dict) else None
    if not isinstance(tests, list):
        raise NotAReport("not a CTRF report (no results.tests)")
    tool = str(((results.get("tool") or {}) if isinstance(results.get("tool"), dict) else {}).get("name") or "")
    runner = tool.lower() if tool.lower() in RUNNERS else None
    r = Report("ctrf", tool=tool or None)
    for t in tests:
        if not isinstance(t, dict):
            continue
        name, status = str(t.get("name") or "?"), t.get("status")
        if status == "failed" and len(r.failures) < MAX_FAILURES:
            line = t.get("line") if isinstance(t.get("line"), int) else None
            file = t.get("filePath") if isinstance(t.get("filePath"), str) else None
            suite = t.get("suite") if isinstance(t.get("suite"), str) else None
            r.failures.append(_failure(name, str(t.get("message") or ""), str(t.get("trace") or ""), runner=runner,
                                       suite=suite, file_path=file, line=line))
        elif status == "passed" and (t.get("flaky") or t.get("flake")):
            r.flaky.append(name[:300])
        elif status == "passed":
            r.passed += 1
    return r


def parse_report(path: str, data: bytes) -> Report:
    """The failures of one report file. Raises :class:`NotAReport` (not a report we know) or
    :class:`UnsafeReport` (refused: a DOCTYPE, too big, too deep)."""
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"{"):
        return _ctrf(data)
    if not head.startswith(b"<"):
        raise NotAReport("neither XML nor JSON")
    reader = _Reader()
    reader.run(data)
    if reader.report is None:
        raise NotAReport("empty document")
    return reader.report
