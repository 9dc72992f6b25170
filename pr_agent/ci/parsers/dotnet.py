"""dotnet test (vstest console logger): ``Failed Ns.Class.Method [12 ms]`` + Error Message / Stack Trace."""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, rel_path, trim_message

_XUNIT_FAIL_RE = re.compile(r"\s*\[xUnit\.net [\d:.]+\]\s+(\S.*?) \[FAIL\]$")
_TOTALS_RE = re.compile(r"(Failed|Passed)!\s+-\s+Failed:\s+(\d+),\s+Passed:\s+(\d+)")
_OLD_TOTAL_RE = re.compile(r"(Passed|Failed): (\d+)$")
_OTHER_HEADS = ("Standard Output Messages:", "Standard Error Messages:", "Debug Trace:", "Additional Info")


class DotnetParser(BaseParser):
    runner = "dotnet"
    first_chars = "FPT["

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.name: str | None = None
        self.part = ""
        self.msg: list[str] = []
        self.trace: list[str] = []
        self.other = 0
        self.xunit: dict[str, None] = {}
        self.in_totals = False

    def feed(self, line: str) -> None:
        s = line.strip()
        if s.startswith(("Failed ", "Passed ", "Skipped ", "Failed!", "Passed!", "Total tests:", "Test Run ")):
            self._close()
        if s.startswith("Failed ") and s.endswith("]") and " [" in s:
            name = s[len("Failed ") : s.rfind(" [")].strip()
            if name:
                self.name = name
                self.part = ""
                self.detect()
                self.capture()
                return
        if self.name is not None:
            if s == "Error Message:":
                self.part = "msg"
            elif s == "Stack Trace:":
                self.part = "trace"
            elif s.startswith(_OTHER_HEADS):
                self.part = "other"
            elif self.part == "msg" and len(self.msg) < MAX_BLOCK_LINES:
                self.msg.append(line)
            elif self.part == "trace" and len(self.trace) < 60:
                self.trace.append(s)
            else:
                self.other += 1
                if self.other > MAX_BLOCK_LINES:
                    self._close()
            return
        if s.startswith(("Failed!", "Passed!")):
            m = _TOTALS_RE.match(s)
            if m:
                self.add_counts(int(m.group(3)), int(m.group(2)))
            return
        if s.startswith("Total tests:"):
            self.in_totals = True
            self.capture()
            return
        if self.in_totals:
            m2 = _OLD_TOTAL_RE.match(s)
            if m2:
                if m2.group(1) == "Passed":
                    self.add_counts(passed=int(m2.group(2)))
                else:
                    self.add_counts(failed=int(m2.group(2)))
            elif s and not s.startswith(("Skipped", "Total time")):
                self.in_totals = False
                self.release()
            return
        if s.startswith("[xUnit.net") and s.endswith("[FAIL]"):
            m3 = _XUNIT_FAIL_RE.match(s)
            if m3 and len(self.xunit) < 500:
                self.xunit[m3.group(1)] = None

    def _close(self) -> None:
        name = self.name
        if name is None:
            return
        msg, trace = self.msg, self.trace
        self.name, self.part, self.msg, self.trace, self.other = None, "", [], [], 0
        self.release()
        path = line_no = None
        method = name.split("(", 1)[0]
        frames = []
        for t in trace:
            k = t.rfind(":line ")
            i = t.rfind(" in ", 0, k) if k > 0 else -1
            num = t[k + 6 :].strip() if i >= 0 else ""
            if num.isdigit() and not t[i + 4 : k].replace("\\", "/").startswith("/_/"):
                frames.append((t, rel_path(t[i + 4 : k]), int(num)))
        short = method.rsplit(".", 1)[-1]
        pick = next((f for f in frames if short in f[0]), None) or next(
            (f for f in frames if "test" in f[1].lower()), frames[0] if frames else None
        )
        if pick is not None:
            path, line_no = pick[1], pick[2]
        self.add(name, name, message=trim_message(msg) or None, file_path=path, line=line_no)

    def finish(self) -> list[Draft]:
        self._close()
        self.release()
        for name in self.xunit:
            base = name.split("(", 1)[0]
            if not any(d.test_name.split("(", 1)[0] == base for d in self.drafts.values()):
                self.add(name, name, confidence="low")
        return super().finish()
