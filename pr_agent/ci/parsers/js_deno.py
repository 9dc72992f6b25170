"""deno test (pretty reporter): ``name ... FAILED (3ms)`` result lines (steps indented), then the `` ERRORS ``
section (``name => ./a_test.ts:3:6``, ``error: …``, the stack), the `` FAILURES `` list and
``FAILED | 2 passed | 1 failed (20ms)``.

The id is the name before `` => `` in the ERRORS section, as Deno prints it: a step is ``parent ... step``.
The location after `` => `` is the ``Deno.test()`` / ``t.step()`` call itself (the test's own file:line);
when it is inside a dependency (``https://jsr.io/…``, BDD's ``it``) the first frame of the project is used.
Without an ERRORS section (a cut log) the unindented ``... FAILED`` result lines are read, when Deno's own
summary line is there.
"""

from __future__ import annotations

from .base import MAX_BLOCK_LINES, BaseParser, Draft, is_vendor, js_frame, rel_path, split_location, trim_message

_ARROW = " => "
_UNCAUGHT = " (uncaught error)"  # an error thrown outside any test: the module is the failure
_SUMMARY = ("FAILED | ", "ok | ")


def _entry(s: str) -> tuple[str, str] | None:
    """``name => ./a_test.ts:3:6`` → (name, location); ``./a_test.ts (uncaught error)`` → (itself, the file)."""
    if s.endswith(_UNCAUGHT) and " " not in s[: -len(_UNCAUGHT)]:
        return s, s[: -len(_UNCAUGHT)] + ":1:1"
    name, sep, where = s.rpartition(_ARROW)
    if not sep or not name.strip():
        return None
    found = split_location(where)
    return (name.strip(), where) if found is not None and found[2] is not None else None


def _strip_code_frames(lines: list[str]) -> list[str]:
    """The message lines: up to the first stack frame, without a source line and its ``^`` marker."""
    out: list[str] = []
    for raw in lines:
        t = raw.strip()
        if t.startswith("at ") and js_frame(t) is not None:
            break
        if t and set(t) == {"^"}:
            if out:
                out.pop()
            continue
        out.append(raw)
    return out


class DenoParser(BaseParser):
    runner = "deno"
    first_chars = "EFo"  # "ERRORS", "FAILURES", "FAILED | …", "ok | …"
    words = ("... FAILED",)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.section: str | None = None  # "errors", "failures"
        self.name: str | None = None
        self.where = ""
        self.body: list[str] = []
        self.listed: list[str] = []  # FAILURES entries
        self.live: list[str] = []  # unindented "name ... FAILED (…)" lines
        self.summary = False
        self.errors_seen = False
        self.idle = 0  # lines of the section before its first entry

    def feed(self, line: str) -> None:
        s = line.strip()
        if s in ("ERRORS", "FAILURES"):
            self._close()
            self.section = s.lower()
            self.errors_seen = self.errors_seen or s == "ERRORS"
            self.idle = 0
            self.capture()
            return
        if s.startswith(_SUMMARY) and (" passed" in s or " failed" in s):
            self._close()
            self._end()
            self._count(s)
            return
        if self.section is not None and self.name is None and not self.listed:
            self.idle += 1
            if self.idle > 40 and _entry(s) is None:  # "ERRORS" alone in output that is not Deno's
                self._end()
                return
        if self.section == "errors":
            found = _entry(s)
            if found is not None:
                self._close()
                self.name, self.where = found
            elif self.name is not None and len(self.body) < MAX_BLOCK_LINES:
                self.body.append(line)
            return
        if self.section == "failures":
            found = _entry(s)
            if found is not None and len(self.listed) < MAX_BLOCK_LINES:
                self.listed.append(found[0])
            return
        if " ... FAILED" in s and line[:1] not in (" ", "\t") and len(self.live) < MAX_BLOCK_LINES:
            name, _, rest = s.partition(" ... FAILED")
            if name and (not rest or rest.startswith(" (")) and "due to" not in rest:
                self.live.append(name)

    def _count(self, s: str) -> None:
        counts: dict[str, int] = {}
        for part in s.split(" | ")[1:]:
            num, _, word = part.partition(" ")
            if num.isdigit() and word.startswith(("passed", "failed")):
                counts[word[:6]] = int(num)
        if counts:
            self.summary = True
            self.add_counts(counts.get("passed"), counts.get("failed"))

    def _close(self) -> None:
        name, where, body = self.name, self.where, self.body
        self.name, self.where, self.body = None, "", []
        if name is None:
            return
        path = ln = None
        loc = split_location(where)
        if loc is not None and not where.startswith(("http://", "https://")) and not is_vendor(loc[0]):
            path, ln = rel_path(loc[0]), (None if name.endswith(_UNCAUGHT) else loc[1])
        else:
            for raw in body:
                frame = js_frame(raw)
                if frame is not None and not frame[0].startswith(("http://", "https://")) and not is_vendor(frame[0]):
                    path, ln = rel_path(frame[0]), frame[1]
                    break
        message = trim_message(_strip_code_frames(body)) or None
        self.add(name, name, message=message, file_path=path, line=ln)

    def _end(self) -> None:
        self.section = None
        self.release()

    def finish(self) -> list[Draft]:
        self._close()
        self._end()
        for name in self.listed:  # listed under FAILURES without an ERRORS entry
            if name not in self.drafts:
                self.add(name, name, confidence="low")
        if not self.errors_seen and self.summary:
            for name in self.live:
                self.add(name, name, confidence="low")
        if not self.drafts and not self.summary:
            self.first_seen = None
        return super().finish()
