"""stestr / subunit-trace (OpenStack's runner, often under tox): ``{0} pkg.tests.test_x.T.test_y [0.12s] ... FAILED``.

After the run, ``Failed N tests - output below:`` lists each failed test (its id, with tags such as
``[id-…]``), a rule, and ``Captured traceback:``; the totals are `` - Passed: N`` / `` - Failed: N``. A
module that cannot be imported is reported as the test ``unittest.loader._FailedTest.<module>`` whose
traceback is ``ImportError: Failed to import test module: <module>``: it is a failure of that module, and
its message says so (with the exception that broke the import). The id is the runner's own, as the
progress line prints it; the location is the first traceback frame in a test file.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, rel_path, trim_message

_PROGRESS_RE = re.compile(r"\{\d+\} (\S+(?: \([\w.]+\))?) \[[\d.]+s\] \.\.\. (FAILED|ok|SKIPPED.*)$")
_TOTAL_RE = re.compile(r"- (Passed|Failed): (\d+)$")
_FRAME_RE = re.compile(r'File "([^"]+)", line (\d+)')
_EXC_RE = re.compile(r"[A-Za-z_][\w.]{0,200}(?:: |$)")  # "pkg.mod.SomeError: message" (or a bare name)


def _base(test_id: str) -> str:
    """``a.b.T.test_x[id-1,smoke]`` → ``a.b.T.test_x``."""
    return test_id.split("[", 1)[0]


class StestrParser(BaseParser):
    runner = "stestr"
    first_chars = "{-F"
    words = ("output below:",)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.in_section = False
        self.current: str | None = None
        self.body: list[str] = []
        self.expect_id = False

    def feed(self, line: str) -> None:
        s = line.strip()
        if (s.startswith("{") and s.endswith(("FAILED", "ok"))) or (s.startswith("{") and "... SKIPPED" in s):
            m = _PROGRESS_RE.match(s)
            if m is not None:
                self.detect()
                if m.group(2) == "FAILED":
                    self.add(_base(m.group(1)), m.group(1))
                return
        if s.startswith("Failed ") and s.endswith("tests - output below:"):
            self.detect()
            self.in_section, self.expect_id = True, True
            self.capture()
            return
        if s.startswith("- ") and ("Passed:" in s or "Failed:" in s):
            m2 = _TOTAL_RE.match(s)
            if m2 is not None:
                self._close()
                self.in_section = False
                self.release()
                self.add_counts(**{m2.group(1).lower(): int(m2.group(2))})  # type: ignore[arg-type]
                return
        if not self.in_section:
            return
        if s.startswith(("=====", "Totals")) and self.current is not None and s != "=" * len(s):
            return
        if s.startswith("=") and s == "=" * len(s):
            if self.current is not None and self.body and self.body[-1].strip() == "Totals":
                self.body.pop()
            return
        if s == "Totals" or s.startswith("Ran: "):
            self._close()
            return
        if self.expect_id and s and not s.startswith(("-", "~", "Captured ")) and (
                " " not in _base(s) or s.startswith(("setUpClass (", "tearDownClass ("))):
            self._close()
            self.current, self.body, self.expect_id = s, [], False
            return
        if s.startswith("Captured ") and s.endswith(":"):
            self.expect_id = False  # another section of the same test (pythonlogging, stdout, traceback)
        if self.current is not None and not self.body and s and not s.strip("-"):
            return  # the rule under the id
        if not s and self.current is not None and self.body and self.body[-1] == "":
            self.expect_id = True  # two blank lines: the next id may follow
        if self.current is not None and len(self.body) < MAX_BLOCK_LINES:
            self.body.append(s if not s else line)

    def _close(self) -> None:
        test_id, body = self.current, self.body
        self.current, self.body = None, []
        self.expect_id = True
        if test_id is None:
            return
        lines = [t for t in body if t.strip() and not t.strip().startswith(("Captured ", "~~~"))]
        frames = [m for m in (_FRAME_RE.search(t) for t in lines) if m is not None]
        own = next((m for m in frames if "test" in m.group(1).rsplit("/", 1)[-1]), None)
        tail = [t.strip() for t in lines if not t.strip().startswith(("File ", "Traceback ")) and t.strip() != "..."]
        excs = [i for i, t in enumerate(tail) if _EXC_RE.match(t) and not t.startswith("Details:")]
        message: list[str] = []
        imported = next((t for t in tail if t.startswith("ImportError: Failed to import test module:")), None)
        if imported is not None:  # the module did not import: say so, and why
            message = [imported, *[tail[i] for i in excs[-1:] if tail[i] != imported]]
        elif excs:
            i = excs[-1]
            message = [tail[i], *[t for t in tail[i + 1 : i + 2] if t.startswith("Details:")]]
        key = _base(test_id)
        d = self.drafts.get(key) or next((x for x in self.drafts.values() if _base(x.test_name) == key), None)
        if d is None:
            d = self.add(key, key)
        if d is None:
            return
        d.message = d.message or trim_message(message) or None
        if own is not None and d.file_path is None:
            d.file_path, d.line_number = rel_path(own.group(1)), int(own.group(2))

    def finish(self) -> list[Draft]:
        self._close()
        self.release()
        return super().finish()
