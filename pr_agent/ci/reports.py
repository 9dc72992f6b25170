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
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_JS_LOC = re.compile(r"\bat (?:[^\n(]*\()?((?![a-zA-Z]:|/)[\w.@/-]+\.(?:[cm]?[jt]sx?)):(\d+):\d+")
_E_LINE = re.compile(r"^\s*E\s+(\S.*)$")
_FRAME = re.compile(r"^\s+at\s|^\s*at [\w$.<]")


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
    skipped: int = 0
    tool: str | None = None


def looks_like_report(path: str) -> bool:
    """A file of an artifact worth opening: ``.xml``, ``.trx`` or ``.json`` whose path names tests or reports
    (``junit.xml``, ``TEST-com.acme.FooTest.xml``, ``test-results/…``, ``ctrf-report.json``)."""
    low = path.lower()
    return low.endswith((".xml", ".trx", ".json")) and bool(_NAME_HINT.search(low))


def _failure(name: str, message: str | None, details: str | None, *, runner: str | None, suite: str | None = None,
             file_path: str | None = None, line: int | None = None) -> dict[str, Any]:
    message, details = _ANSI.sub("", message or ""), _ANSI.sub("", details or "")
    if message.strip().lower() in ("failed", "failure", "error") and details.strip():
        message = ""  # go-junit-report's message="Failed": the output says what failed
    text = _pytest_errors(f"{details}\n{message}") or (
        _summary(message) if message and message.strip() else _summary(details or ""))
    if file_path is None:  # the test's own frame from a Python traceback (`tests/test_x.py:14: AssertionError`)
        locs = _PY_LOC.findall(details)
        tests = [loc for loc in locs if "test" in loc[0].rsplit("/", 1)[-1]]
        if tests:
            file_path, line = rel_path(tests[-1][0]), int(tests[-1][1])
    if file_path is None:  # a JS stack frame in the repository (`at tests/auth.spec.ts:45:10`)
        js = next((m for m in _JS_LOC.finditer(details) if "node_modules" not in m.group(1)), None)
        if js:
            file_path, line = js.group(1), int(js.group(2))
    elif line is None:  # the test file's own frame in the stack (`…\__tests__\main.test.js:10:21`)
        base = re.escape(rel_path(file_path).rsplit("/", 1)[-1])
        at = re.search(rf"(?:^|[\\/(\s]){base}:(\d+)", details)
        line = int(at.group(1)) if at else None
    return {"test_name": name[:300], "error_message": trim_message(text or "failed (no message in the report)"),
            "file_path": rel_path(file_path) if file_path else None, "line_number": line, "runner": runner,
            "suite": suite, "confidence": "high", "source": "artifact"}


def _pytest_errors(text: str) -> str:
    """pytest's ``E`` lines of a traceback (what failed; older pytest put the whole traceback in the message
    attribute too, where XML turns its newlines into spaces)."""
    return "\n".join([m.group(1) for ln in text.splitlines() if (m := _E_LINE.match(ln))][:8])


def _summary(text: str) -> str:
    """A report's message or failure text up to its first stack frame (``at …`` of JS, Java and .NET), at
    most 8 lines."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    head: list[str] = []
    for ln in lines:
        if _FRAME.match(ln) and head:
            break
        head.append(ln)
    return "\n".join(head[:8]).strip()


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


_JS_FILE = re.compile(r"\.(?:[cm]?[jt]sx?)$")
_GO_TEST = re.compile(r"(?:Test|Example|Benchmark|Fuzz)\S*")
_GO_PKG = re.compile(r"[\w.-]+\.[a-z]{2,}/\S+|[\w.-]+/[\w./-]+")
_PARAMS = re.compile(r"\((?:[^()]|\([^()]*\))*\)$")
_TRX_FAILED = ("Failed", "Error", "Timeout", "Aborted")
_TRX_SKIPPED = ("NotExecuted", "NotRunnable", "Inconclusive", "Pending", "Disconnected")
_FLAKY_TAGS = ("flakyFailure", "flakyError")  # surefire: failed, then passed on a rerun
_RERUN_TAGS = ("rerunFailure", "rerunError")  # surefire: a rerun that failed too (the <failure> says so)


def _pytest_id(cls: str, name: str, file: str | None, trace_file: str | None) -> str:
    """The node id pytest reruns (``tests/test_x.py::TestClass::test_y[param]``) from JUnit's dotted
    ``classname``: the module's segments are the path (known from ``file`` or the traceback, else up to the
    first capitalised segment), the rest are classes."""
    parts = [p for p in cls.split(".") if p]
    path = rel_path(file) if file else trace_file
    if path and path.endswith(".py"):
        module = path[:-3].split("/")
        for k in range(len(parts), 0, -1):  # the longest tail of the path that classname starts with
            if parts[:k] == module[-k:]:
                return "::".join([path, *parts[k:], name])
        return "::".join([path, *(p for p in parts if p[:1].isupper()), name])
    k = next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts))
    if not k:
        return name
    return "::".join(["/".join(parts[:k]) + ".py", *parts[k:], name])


class _Reader(_Xml):
    """JUnit (``testsuites``/``testsuite``/``testcase``), xUnit.net v2 (``assemblies``/``test``) and TRX
    (``TestRun``/``UnitTestResult``) in one pass; the root element says which. JUnit's dialect (pytest,
    jest-junit, PHPUnit, go-junit-report/gotestsum, nextest, Surefire/Gradle) comes from the content and the
    file's path, and decides the test's id: the one its runner takes to rerun it."""

    def __init__(self, path: str = "") -> None:
        super().__init__()
        low = path.replace("\\", "/").lower()
        self.build = ("maven" if re.search(r"(^|/)(surefire|failsafe)-reports/", low) else
                      "gradle" if re.search(r"(^|/)build/test-results/", low) else None)
        self.report: Report | None = None
        self.root: dict[str, str] = {}
        self.suites: list[dict[str, str]] = []
        self.case: dict[str, str] | None = None
        self.state = ""  # "", failed, skipped
        self.case_flaky = False
        self.pending: dict[str, Any] | None = None  # the first <failure>/<error> (JUnit) or ErrorInfo (TRX, xUnit)
        self.pytest = False
        self.seen: dict[str, str] = {}  # test id -> "failed"/"passed" (a test listed once per attempt)
        self.trx: list[tuple[dict[str, str], dict[str, Any] | None]] = []
        self.trx_methods: dict[str, tuple[str, str]] = {}  # TRX test id -> (className, name)
        self.trx_test: str | None = None

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if self.report is None:
            kind = {"testsuites": "junit", "testsuite": "junit", "assemblies": "xunit", "assembly": "xunit",
                    "TestRun": "trx"}.get(tag)
            if kind is None:
                raise NotAReport(f"root element <{tag[:40]}> is not a test report")
            self.report, self.root = Report(kind), attrs
            if "surefire" in attrs.get("xsi:noNamespaceSchemaLocation", "") and self.build is None:
                self.build = "maven"
        if tag == "testsuite":
            self.suites.append(attrs)
            if attrs.get("name") == "pytest":
                self.pytest = True
        elif tag in ("testcase", "test", "UnitTestResult"):
            self.case, self.state, self.case_flaky, self.pending = attrs, "", False, None
        elif tag == "UnitTest":
            self.trx_test = attrs.get("id")
        elif tag == "TestMethod" and self.trx_test:
            self.trx_methods[self.trx_test] = (attrs.get("className", ""), attrs.get("name", ""))
        elif self.case is None:
            return
        elif tag in ("failure", "error", "ErrorInfo"):
            if self.pending is None:  # a second <failure> of the same test adds nothing to what to fix first
                self.pending = {"message": attrs.get("message"),
                                "type": attrs.get("type") or attrs.get("exception-type")}
            self.state = "failed"
        elif tag == "skipped" and self.state != "failed":
            self.state = "skipped"
        elif tag in _FLAKY_TAGS:
            self.case_flaky = True

    def end(self, tag: str, attrs: dict[str, str], text: str) -> None:
        r = self.report
        assert r is not None
        if self.pending is not None and self.pending.get("open", True) and tag in ("Message", "message"):
            self.pending["message"] = text
        elif self.pending is not None and "details" not in self.pending and (
                tag in ("StackTrace", "stack-trace") or (tag in ("failure", "error") and r.kind == "junit")):
            self.pending["details"] = text
        elif tag in ("testcase", "test", "UnitTestResult") and self.case is not None:
            self._case_done(r)
        elif tag == "testsuite" and self.suites:
            self.suites.pop()
        elif tag == "UnitTest":
            self.trx_test = None
        elif tag == "TestRun":
            self._trx_done(r)
        if tag in ("failure", "error", "ErrorInfo") and self.pending is not None:
            self.pending["open"] = False

    # ------------------------------------------------------------------ one test
    def _junit_id(self, case: dict[str, str], trace_file: str | None) -> tuple[str, str, str | None, str | None]:
        """(test id, runner, suite, file) of a JUnit testcase, in its runner's own terms."""
        cls, name = case.get("classname", "").strip(), case.get("name", "").strip()
        file = case.get("file")
        suite_name = (self.suites[-1] if self.suites else {}).get("name", "")
        root = self.root.get("name", "")
        if self.pytest:
            return _pytest_id(cls, name, file, trace_file) if cls else name, "pytest", None, file or trace_file
        if root.lower().startswith("jest"):  # jest-junit: ancestors in classname, the title in name
            full = name if not cls or cls == name or name.startswith(cls + " ") else f"{cls} › {name}"
            where = file or (suite_name if _JS_FILE.search(suite_name) else None)
            return full, "jest", None, where
        if case.get("class"):  # PHPUnit writes class, classname, file and line
            return f"{case['class']}::{name}", "phpunit", case["class"], file
        if root == "nextest-run":
            return name, "nextest", cls or None, file
        if _GO_TEST.fullmatch(name.split("/", 1)[0]) and _GO_PKG.fullmatch(cls or suite_name):
            return name, "go", cls or suite_name, file
        name = name.removesuffix("()")
        full = f"{cls}.{name}" if cls and name else (name or cls or "?")
        return full, self.build or "junit", cls or None, file

    def _case_done(self, r: Report) -> None:
        case, self.case = self.case or {}, None
        if r.kind == "trx":
            self.trx.append((case, self.pending))
            self.pending = None
            return
        if r.kind == "junit":
            probe = _failure("?", None, (self.pending or {}).get("details"), runner=None)
            full, runner, suite, file = self._junit_id(case, probe["file_path"])
            line = _int(case.get("line"))
            if self.pytest:  # the test's frame in the traceback, else the def (pytest's line is 0-based)
                same = probe["file_path"] is not None and probe["file_path"] == (rel_path(file) if file else None)
                file, line = ((probe["file_path"], probe["line_number"]) if same or not file else
                              (file, line + 1 if line is not None else None))
        else:  # xUnit.net v2: result says it, a <failure> says why
            full, runner, suite, file, line = case.get("name", "?"), "dotnet", case.get("type"), None, None
            result = case.get("result")
            self.state = "failed" if result == "Fail" else "skipped" if result == "Skip" else ""
            if self.state == "failed" and self.pending is None:
                self.pending = {"message": "failed (no message in the report)"}
        self._record(r, full, runner, suite, file, line)

    def _record(self, r: Report, full: str, runner: str | None, suite: str | None, file: str | None,
                line: int | None) -> None:
        """Count one test. A test listed again after it failed and passing then is a retry that passed
        (Gradle's test-retry plugin writes every attempt): flaky. Not with Surefire, whose reruns are
        ``flakyFailure``/``rerunFailure`` elements and whose repeated names are TestNG data-provider rows; and
        a failure after a pass stays a failure (a later row or attempt failed)."""
        full = full[:300]
        before = self.seen.get(full)
        if self.state == "failed":
            p = self.pending or {}
            if before != "failed" and len(r.failures) < MAX_FAILURES:
                r.failures.append(_failure(full, p.get("message"), p.get("details") or p.get("type"), runner=runner,
                                           suite=suite, file_path=file, line=line))
                if full in r.flaky:
                    r.flaky.remove(full)
            self.seen[full] = "failed"
        elif self.state == "skipped":
            r.skipped += 1
        elif self.case_flaky:
            r.flaky.append(full)
        elif before == "failed" and runner != "maven":
            r.failures = [f for f in r.failures if f["test_name"] != full]
            r.flaky.append(full)
            self.seen[full] = "flaky"
        else:
            r.passed += 1
            self.seen.setdefault(full, "passed")
        self.pending, self.state = None, ""

    def _trx_done(self, r: Report) -> None:
        """TRX lists its results before the test definitions that give each its class and method: the names
        are settled once the whole run was read (``dotnet test --filter FullyQualifiedName=`` takes
        ``Namespace.Class.Method``, while ``testName`` may be a display name)."""
        for case, pending in self.trx:
            shown = case.get("testName", "?")
            cls, method = self.trx_methods.get(case.get("testId", ""), ("", ""))
            if cls and method and not shown.startswith(cls + "."):
                full = method if method.startswith(cls + ".") else f"{cls}.{method}"
                params = _PARAMS.search(shown)
                full += params.group(0) if params and not full.endswith(")") else ""
            else:
                full = shown
            outcome = case.get("outcome", "")
            self.state = ("failed" if outcome in _TRX_FAILED else "skipped" if outcome in _TRX_SKIPPED else "")
            self.pending = pending if pending is not None or not self.state else {"message": outcome}
            if self.state == "failed" and self.pending is not None and not self.pending.get("message"):
                self.pending["message"] = outcome
            self.case_flaky = False
            self._record(r, full, "dotnet", cls or None, None, None)
        self.trx = []


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
    failed: set[str] = set()
    for t in tests:
        if not isinstance(t, dict):
            continue
        name, status = str(t.get("name") or "?")[:300], t.get("status")
        if status == "failed" and name not in failed and len(r.failures) < MAX_FAILURES:
            failed.add(name)
            line = t.get("line") if isinstance(t.get("line"), int) else None
            file = t.get("filePath") if isinstance(t.get("filePath"), str) else None
            suite = t.get("suite") if isinstance(t.get("suite"), str) else None
            r.failures.append(_failure(name, str(t.get("message") or ""), str(t.get("trace") or ""), runner=runner,
                                       suite=suite, file_path=file, line=line))
        elif status == "passed" and (t.get("flaky") or t.get("flake")):
            r.flaky.append(name)
        elif status == "passed":
            r.passed += 1
        elif status in ("skipped", "pending", "other"):
            r.skipped += 1
    return r


def parse_report(path: str, data: bytes) -> Report:
    """The failures of one report file. Raises :class:`NotAReport` (not a report we know) or
    :class:`UnsafeReport` (refused: a DOCTYPE, too big, too deep)."""
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"{"):
        return _ctrf(data)
    if not head.startswith(b"<"):
        raise NotAReport("neither XML nor JSON")
    reader = _Reader(path)
    reader.run(data)
    if reader.report is None:
        raise NotAReport("empty document")
    return reader.report
