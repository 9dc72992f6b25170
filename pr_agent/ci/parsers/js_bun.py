"""bun test: a ``path/a.test.ts:`` header per file, then per test its console output, code frame and error
*before* its result line, ``(fail) Suite > name [1.20ms]`` (bun >= 1.1; ``✗ Suite > name [1.20ms]`` before),
then `` N pass`` / `` N fail`` and ``Ran N tests across M files.``

The id is the name as printed (ancestors joined by `` > ``), without the duration. The error block is read
back from the ring at the result line (from the previous result line on); the file is the nearest header
still in the ring, else the test-file frame of the error's stack; the line is that file's frame, else the
code frame's last line. A result line counts only in a log with bun's own totals.
"""

from __future__ import annotations

import re

from .base import BaseParser, Draft, js_frame, rel_path, trim_message

_CODE_FRAME_RE = re.compile(r"\s*(\d+) \|")
_ERROR_RE = re.compile(r"\s*[A-Z]\w*(?:Error|Exception)\b")
_DURATION_RE = re.compile(r"\d+(?:\.\d+)?m?s")
_RESULTS = ("(pass) ", "(fail) ", "(skip) ", "(todo) ", "✓ ", "✗ ")
_EXTS = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")


def _result_name(s: str) -> str:
    """The name of a result line, without the trailing `` [1.20ms]``."""
    name = s.split(" ", 1)[1].strip() if " " in s else ""
    if name.endswith("]") and " [" in name:
        cut = name.rfind(" [")
        if _DURATION_RE.fullmatch(name[cut + 2 : -1]):
            name = name[:cut].rstrip()
    return name


def _is_result(s: str) -> bool:
    return s.startswith(_RESULTS)


def _header(line: str) -> str | None:
    """``test/a.test.ts:`` (unindented): the file bun is about to report."""
    if line[:1] in (" ", "\t") or not line.endswith(":"):
        return None
    path = line[:-1]
    return path if path.endswith(_EXTS) and " " not in path else None


class BunParser(BaseParser):
    runner = "bun"
    first_chars = "0(✗R"  # "119 pass", "(fail) …", "✗ …", "Ran 121 tests across 8 files."

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.evidence = False
        self.recap = False  # inside bun's closing "N tests failed:" list (the failures again, without errors)

    def feed(self, line: str) -> None:
        s = line.strip()
        if s.startswith(("(fail) ", "✗ ")) and line[:1] not in (" ", "\t"):
            name = _result_name(s)
            if name and self.recap:
                if not any(d.test_name == name for d in self.drafts.values()):
                    self.add(f"recap::{name}", name)
            elif name:
                self._fail(name)
            return
        if s.endswith((" test failed:", " tests failed:")) and s.split(" ", 1)[0].isdigit():
            self.recap = True
            return
        self.recap = self.recap and not s
        if s.startswith("Ran ") and " across " in s and s.split(" ", 2)[1].isdigit():
            self.evidence = True
            return
        num, sep, word = s.partition(" ")
        if sep and num.isdigit() and word in ("pass", "fail") and line[:1] == " ":
            self.evidence = True
            self.add_counts(**{"passed" if word == "pass" else "failed": int(num)})

    def _fail(self, name: str) -> None:
        ring = list(self.ctx.ring)[:-1]  # the lines before this result line
        file = next((h for h in map(_header, (r.rstrip() for r in reversed(ring))) if h is not None), None)
        self._add(name, self._own_block(ring), file)

    def _own_block(self, ring: list[str]) -> list[str]:
        """The lines after the previous result line or file header."""
        out: list[str] = []
        for raw in reversed(ring):
            t = raw.strip()
            if _is_result(t) or _header(raw.rstrip()) is not None:
                break
            out.append(raw)
        return out[::-1]

    def _add(self, name: str, block: list[str], file: str | None) -> None:
        frames = [f for f in map(js_frame, block) if f is not None]
        line = None
        if file is None:
            own = [p for p, _ in frames if p.endswith(_EXTS) and (".test." in p or ".spec." in p)]
            file = rel_path(own[0]) if own else None
        if file is not None:
            line = next((n for p, n in frames if rel_path(p) == file or p.endswith("/" + file)), None)
            if line is None and not frames:
                nums = [m.group(1) for m in map(_CODE_FRAME_RE.match, block) if m]
                line = int(nums[-1]) if nums else None
        start = next((i for i, b in enumerate(block) if b.strip().startswith("error:") or _ERROR_RE.match(b)), 0)
        message = [b for b in block[start:] if not _CODE_FRAME_RE.match(b) and b.strip() != "^"
                   and js_frame(b) is None]
        self.add(f"{file}::{name}", name, message=trim_message(message) or None, file_path=file, line=line, suite=file)

    def finish(self) -> list[Draft]:
        if not self.evidence:  # "(fail) " in output that is not bun's
            self.first_seen = None
            self.passed = self.failed = None
            return []
        return super().finish()
