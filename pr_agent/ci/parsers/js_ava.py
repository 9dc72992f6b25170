"""AVA (default reporter): live ``✘ [fail]: file › title message`` lines, then, between two ``─`` lines, one
detail block per failure (the title alone, ``file.js:29``, the code frame, the assertion, ``› path:29:4``
frames), then ``N tests failed``.

The id is the title as AVA prints it, the file prefix included when AVA adds one (``test › fails``, several
files); the detail block's title line is the exact id (a live line may end with the error's message, which
can be any text), and without a detail block the known AVA messages are cut off. ``✘ [unexpected pass]:``
(a ``test.failing`` that passed) is a failure, ``✔ [expected fail]:`` is not. A file that crashed
(``✘ a.js exited with a non-zero exit code: 1``, after an ``Uncaught exception in a.js`` block) is a failure
named by the file, like jest's suite that failed to run. The location is the detail block's ``file:line`` (the
failing assertion in the test), its path completed from the stack frame of the same file.
"""

from __future__ import annotations

from .base import MAX_BLOCK_LINES, BaseParser, Draft, rel_path, split_location, trim_message

_FAIL = "✘ [fail]: "
_UNEXPECTED = "✘ [unexpected pass]: "
_EXITED = " exited with a non-zero exit code"
_RULE = "─"
_MESSAGES = (  # AVA's own messages that end a live line (an assertion's own message can be anything)
    "Test failed via `t.fail()`", "Error thrown in test", "Rejected promise returned by test",
    "Promise returned by test never resolved", "Test finished without running any assertions",
    "Test was expected to fail, but succeeded, you should stop marking the test as failing",
)
_EXTS = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx")
_IDLE_LINES = 50_000  # lines after a live failure and still no detail section: stop capturing


def _location(s: str) -> tuple[str, int] | None:
    """``test/a.js:29`` (a detail block's location line)."""
    path, sep, num = s.strip().rpartition(":")
    if sep and num.isdigit() and path.endswith(_EXTS) and " " not in path:
        return path, int(num)
    return None


def _frame(s: str) -> tuple[str, int] | None:
    """``› fn (file:///p/a.js:8:24)`` / ``› p/a.js:29:4``."""
    t = s.strip()
    if not t.startswith("› "):
        return None
    t = t[2:]
    if t.endswith(")") and "(" in t:
        t = t[t.rfind("(") + 1 : -1]
    found = split_location(t)
    return (rel_path(found[0]), found[1]) if found is not None and found[2] is not None else None


def _code_frame(s: str) -> bool:
    num, sep, _ = s.strip().partition(":")
    return bool(sep) and num.isdigit()


def _strip_message(rest: str) -> tuple[str, str | None]:
    """A live line's title and the AVA message that ends it, if one of AVA's own."""
    for m in _MESSAGES:
        if rest.endswith(" " + m):
            return rest[: -len(m) - 1].rstrip(), m
    return rest, None


class _Entry:
    __slots__ = ("lines", "title")

    def __init__(self, title: str) -> None:
        self.title = title
        self.lines: list[str] = []


class AvaParser(BaseParser):
    runner = "ava"
    first_chars = "0✘"  # "✘ [fail]: …", "✘ a.js exited with a non-zero exit code: 1", "2 tests failed"

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.live: list[str] = []  # what follows "✘ [fail]: " (title, maybe a message)
        self.crashed: dict[str, tuple[str | None, str]] = {}  # file -> its "Uncaught exception" error, its path
        self.entries: list[_Entry] = []
        self.entry: _Entry | None = None
        self.rule = 0  # "─" lines seen since the live failures
        self.idle = 0
        self.prev = ""

    def feed(self, line: str) -> None:
        s = line.strip()
        if s.startswith(("✘ [fail]:", "✘ [unexpected pass]:")):
            rest = s.partition("]: ")[2].strip()
            if rest and len(self.live) < 2 * MAX_BLOCK_LINES:
                self.live.append(rest)
                self.detect()
                self.idle, self.rule, self.entry = 0, 0, None
                self.capture()
            return
        if s.startswith("✘ ") and _EXITED in s:
            name = s[2 : s.find(_EXITED)].strip()
            if name:
                self.crashed.setdefault(name, self._crash_error(name))
                self.detect()
            return
        counted = s.split(" ", 1)
        if len(counted) == 2 and counted[0].isdigit() and counted[1] in (
                "test failed", "tests failed", "test passed", "tests passed"):
            self.detect()
            if counted[1].endswith("failed"):
                self.add_counts(failed=int(counted[0]))
            else:
                self.add_counts(passed=int(counted[0]))
            self._end()
            return
        if self not in self.ctx.capturing:
            return
        if s == _RULE:
            self.rule += 1
            self.entry = None
            if self.rule >= 2:
                self._end()
            return
        if self.rule == 0:
            self.idle += 1
            if self.idle > _IDLE_LINES:
                self.release()
            return
        self._detail(line, s)

    def _detail(self, line: str, s: str) -> None:
        if not s:
            return
        titles = [t for t in self.live if t == s or t.startswith(s + " ")]
        if titles and (self.entry is None or self.entry.lines):
            self.entry = _Entry(s)
            self.entries.append(self.entry)
        elif _location(s) is not None and (self.entry is None or self.entry.lines) and self.prev and (
                self.entry is None or self.prev != self.entry.title):
            if self.entry is not None and self.entry.lines and self.entry.lines[-1].strip() == self.prev:
                self.entry.lines.pop()
            self.entry = _Entry(self.prev)  # an unmatched title: the line before its location line
            self.entries.append(self.entry)
            self.entry.lines.append(line.rstrip())
        elif self.entry is not None and len(self.entry.lines) < MAX_BLOCK_LINES:
            self.entry.lines.append(line.rstrip())
        self.prev = s

    def _crash_error(self, name: str) -> tuple[str | None, str]:
        """The first error line of the ``Uncaught exception in <file>`` block the ring still holds, and the
        file's path from that block's stack frames (else the name as printed)."""
        ring = list(self.ctx.ring)
        heads = ("Uncaught exception in " + name, "Unhandled rejection in " + name)
        error, path = None, name
        for i, raw in enumerate(ring):
            if raw.strip() not in heads:
                continue
            for after in ring[i + 1 :]:
                t = after.strip()
                if t.startswith(("Uncaught exception in ", "Unhandled rejection in ", "✘ ")):
                    break
                frame = _frame(t)
                if frame is not None and (frame[0] == name or frame[0].endswith("/" + name)):
                    path = frame[0]
                elif t and error is None and _location(t) is None and not _code_frame(t) and frame is None:
                    error = t
            break
        return error, path

    def _end(self) -> None:
        self.entry = None
        self.rule = 0
        self.release()

    def finish(self) -> list[Draft]:
        self._end()
        used: set[int] = set()
        pending: list[str] = []
        for rest in self.live:
            found = next((i for i, e in enumerate(self.entries)
                          if i not in used and (rest == e.title or rest.startswith(e.title + " "))), None)
            if found is None:
                pending.append(rest)
                continue
            used.add(found)
            self._add(self.entries[found].title, self.entries[found])
        unmatched = [e for i, e in enumerate(self.entries) if i not in used]
        for rest in pending:
            # one live failure and one detail block that name the test differently: the same failure
            title, said = _strip_message(rest)
            self._add(title, unmatched[0] if len(pending) == len(unmatched) == 1 else None, said)
        for name, (error, path) in self.crashed.items():
            self.add(f"file::{name}", name, message=f"{name} exited with a non-zero exit code"
                     + (f": {error}" if error else ""), file_path=path, confidence="medium")
        return super().finish()

    def _add(self, name: str, entry: _Entry | None, said: str | None = None) -> None:
        path = ln = None
        message: list[str] = []
        frames: list[tuple[str, int]] = []
        for s in entry.lines if entry is not None else ():
            loc, frame = _location(s), _frame(s)
            if loc is not None and path is None:
                path, ln = loc
            elif frame is not None:
                frames.append(frame)
            elif not _code_frame(s):
                message.append(s)
        if path is not None:
            base = path.rsplit("/", 1)[-1]
            full = next((p for p, n in frames if p == path or (p.endswith("/" + path) and n == ln)), None)
            full = full or next((p for p, n in frames if p.rsplit("/", 1)[-1] == base and n == ln), None)
            path = rel_path(full or path)
        elif frames:
            path, ln = frames[-1]
        self.add(name if name not in self.drafts else f"{self.ctx.lineno}:{name}", name,
                 message=trim_message(message) or said, file_path=path, line=ln)
