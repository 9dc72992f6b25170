"""CTest (``ctest``, ``make test``, ``cmake --build . --target test``): its own status lines and summary.

CTest runs each test as a process and prints one status line per test::

     2/27 Test  #2: qa_signal_generator_cw_c ............***Failed    0.19 sec
     5/9  Test  #5: parser_fuzz ...........................***Exception: SegFault  0.01 sec
     1/1  Test  #1: slow_io ...............................***Timeout 1500.02 sec

then, with ``--output-on-failure``, the failed test's output, and at the end::

    96% tests passed, 1 tests failed out of 26
    The following tests FAILED:
     16 - qa_tracking_singletarget (Failed)
    Errors while running CTest

The id is the test's name as CTest prints it (what ``ctest -R`` selects); the message is the status
(``Failed``, ``Exception: SegFault``, ``Timeout``, ``Not Run``) and the last lines of the output CTest
printed for it. ``The following tests did not run:`` lists disabled or skipped tests: never failures.
CTest is a wrapper: where a test's output is GoogleTest's or Catch2's, those parsers find the failing test
cases themselves, and ``parse_log`` keeps their view (``engine._drop_ctest_wrapper``).
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, MAX_MESSAGE_LINES, BaseParser, trim_message

_SUMMARY_RE = re.compile(r"(?<!\d)(\d+)% tests passed, (\d+) tests? failed out of (\d+)")
# "  16 - name (Failed)", and CTest 3.x's labels after it: "1333 - name (Failed)      pr-fast"
_LISTED_RE = re.compile(r"(\d+) - (\S.*) \(([^()]*)\)(?:\s+[^()\s][^()]*)?$")
_STATUS_OK = ("Passed", "Skipped", "Not Run (Disabled)")


def status_line(s: str) -> tuple[str, str] | None:
    """``(name, status)`` of a CTest status line ``N/M Test #K: name ....***Failed  0.1 sec``, else None."""
    head, sep, rest = s.partition(" Test ")
    if not sep or "/" not in head or not head.replace("/", "").strip().isdigit():
        return None
    rest = rest.lstrip()
    if not rest.startswith("#"):
        return None
    num, sep, rest = rest[1:].partition(": ")
    if not sep or not num.isdigit():
        return None
    if rest.endswith(" sec"):  # the duration
        rest = rest[:-4].rstrip().rpartition(" ")[0]
    cut = rest.find(" ...")  # the dots between the name and the status (at least three)
    if cut < 0:
        cut = rest.find("...")
    if cut <= 0:
        return None
    name = rest[:cut].strip()
    status = rest[cut:].lstrip(" .").strip()
    return (name, status) if name and status else None


class CTestParser(BaseParser):
    runner = "ctest"
    words = ("***", "tests passed, ", "tests FAILED:")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.output: tuple[str, list[str]] | None = None  # the failed test whose output is being read
        self.listing: str | None = None  # "failed" | "not-run": inside a summary list

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.listing is not None:
            m = _LISTED_RE.match(s)
            if m is not None:
                if self.listing == "failed":
                    status = m.group(3)
                    self.add(m.group(2), m.group(2), message=f"ctest: {status}" if status else None)
                return
            self.listing = None  # the list ends at its first other line
            self.release()
        found = status_line(s) if " Test " in s else None
        if found is None and s.startswith("Start ") and ": " in s and self.output is not None:
            found = ("", "Passed")  # the next test starts: the output block ends
        if self.output is not None and (found is not None or _ends_output(s)):
            self._close()
        elif self.output is not None:
            body = self.output[1]
            body.append(line)
            if len(body) > MAX_BLOCK_LINES:
                del body[: len(body) - MAX_BLOCK_LINES]
            return
        if found is not None:
            name, status = found
            if not name:
                return
            self.detect()
            status = status.lstrip("*").strip()
            if status.startswith(_STATUS_OK):
                return
            self.add(name, name, message=f"ctest: {status}")
            self.output = (name, [])
            self.capture()
            return
        if "tests passed, " in s:
            m = _SUMMARY_RE.search(s)
            if m is not None:
                failed, total = int(m.group(2)), int(m.group(3))
                self.add_counts(passed=total - failed, failed=failed)
            return
        if s.startswith("The following tests FAILED:"):
            self.detect()
            self.listing = "failed"
            self.capture()
        elif s.startswith("The following tests did not run:"):
            self.listing = "not-run"
            self.capture()

    def _close(self) -> None:
        if self.output is None:
            return
        name, body = self.output
        self.output = None
        d = self.end_block(name)
        text = trim_message(body[-MAX_MESSAGE_LINES:])
        if d is not None and text:
            d.message = f"{d.message}\n{text}" if d.message else text

    def finish(self):  # type: ignore[no-untyped-def]
        self._close()
        self.release()
        return super().finish()


def _ends_output(s: str) -> bool:
    """A CTest line that ends a failed test's output block (its summary, or the end of the run)."""
    return ("tests passed, " in s and "% tests" in s) or s.startswith(
        ("Total Test time", "The following tests", "Errors while running CTest"))
