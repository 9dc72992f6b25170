"""unittest (and Django's runner): ``FAIL: test_x (pkg.mod.Class.test_x)`` blocks with tracebacks."""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, is_vendor, rel_path, trim_message

_HEAD_RE = re.compile(r"(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \(([^)\s]*)\)(.*)$")
_FRAME_RE = re.compile(r'\s*File "([^"]+)", line (\d+)')
_RAN_RE = re.compile(r"Ran (\d+) tests? in ")
_RESULT_RE = re.compile(r"(failures|errors|skipped|expected failures|unexpected successes)=(\d+)")


class UnittestParser(BaseParser):
    runner = "unittest"
    first_chars = "FEUR"

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.block: list[str] | None = None
        self.name: str | None = None
        self.dashes = 0
        self.ran: int | None = None

    def feed(self, line: str) -> None:
        s = line
        if self.block is not None:
            if s.startswith("=" * 20) and not s.strip("="):
                self._close()
                return
            if s.startswith("-" * 20) and not s.strip("-"):
                self.dashes += 1
                if self.dashes >= 2:
                    self._close()
                return
            if s.startswith(("FAIL: ", "ERROR: ")) or len(self.block) >= MAX_BLOCK_LINES:
                self._close()
            else:
                self.block.append(s)
                return
        c = s[:1]
        if c == "F" or c == "E" or c == "U":
            m = _HEAD_RE.match(s)
            if m:
                method, where, extra = m.group(2), m.group(3), m.group(4).strip()
                name = where if where.endswith("." + method) else f"{where}.{method}"
                self.name = f"{name} {extra}" if extra else name
                self.block = []
                self.dashes = 0
                self.detect()
                self.capture()
                return
            if s.startswith("FAILED (") and self.ran is not None:
                counts = {k: int(v) for k, v in _RESULT_RE.findall(s)}
                failed = counts.get("failures", 0) + counts.get("errors", 0)
                failed += counts.get("unexpected successes", 0)
                skipped = counts.get("skipped", 0) + counts.get("expected failures", 0)
                self.add_counts(max(0, self.ran - failed - skipped), failed)
                self.ran = None
            return
        if c == "R":
            m = _RAN_RE.match(s)
            if m:
                self.detect()
                if self.ran is not None:
                    self.add_counts(self.ran, 0)
                self.ran = int(m.group(1))

    def _close(self) -> None:
        block, name = self.block, self.name
        self.block = None
        self.name = None
        self.release()
        if block is None or name is None:
            return
        frames: list[tuple[str, int]] = []
        exc: list[str] = []
        in_exc = False
        for s in block:
            if s.startswith("Traceback (most recent call last)"):
                in_exc = False
                continue
            if s.startswith(("During handling of the above", "The above exception was")):
                in_exc = False
                continue
            m = _FRAME_RE.match(s)
            if m and s.startswith(" "):
                frames.append((m.group(1), int(m.group(2))))
                in_exc = False
                continue
            if not in_exc and s.strip() and not s.startswith(" "):
                in_exc = True
                exc = []
            if in_exc:
                exc.append(s)
        own = [f for f in frames if not is_vendor(f[0]) and "/unittest/" not in f[0]]
        tests = [f for f in own if "test" in f[0].rsplit("/", 1)[-1].lower()]
        pick = (tests or own or frames or [None])[-1]
        file_path = rel_path(pick[0]) if pick else None
        message = trim_message(exc) or None
        self.add(name, name, message=message, file_path=file_path, line=pick[1] if pick else None)

    def finish(self):  # type: ignore[no-untyped-def]
        self._close()
        if self.ran is not None:
            self.add_counts(self.ran, 0)
            self.ran = None
        return super().finish()
