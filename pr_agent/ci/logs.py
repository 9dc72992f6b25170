"""GitHub Actions job logs: clean lines and cut a job log down to its failed step.

Pure functions over iterables of lines. Inputs are consumed once; memory is bounded by
``max_lines`` (never by the size of the log).

Actions log lines look like ``2026-11-30T10:00:00.1234567Z <text>`` (the file starts with a BOM).
Steps are not marked in the log; each ``run:``/``uses:`` step starts with ``##[group]Run …``, but groups
also nest inside steps. The jobs API gives each step's ``started_at``/``completed_at`` with whole-second
precision, so the slicer uses the step's time window first and the ``##[group]Run`` markers only to
decide the ambiguous boundary seconds (see ``github-api-facts.md`` §2.3-2.5).
"""

from __future__ import annotations

import codecs
import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Literal

__all__ = [
    "FAILED_CONCLUSIONS",
    "LogSlice",
    "SliceMethod",
    "StepTiming",
    "clean_line",
    "clean_lines",
    "decode_pieces",
    "decoded_lines",
    "slice_failed_step",
]

_TS_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?")
# CSI sequences, OSC sequences (terminated by BEL or ST, or unterminated), and two-byte escapes.
_ANSI_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
# ANSI escapes shown in caret notation (``cat -v``, some log viewers): ``^[[31m``.
_CARET_ANSI_RE = re.compile(r"\^\[\[[0-?]*[ -/]*[@-~]")
# ``gh run view --log[-failed]`` puts ``<job>\t<step>\t`` before each line's timestamp.
_GH_PREFIX_RE = re.compile(r"[^\t]*\t[^\t]*\t(?=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)")
_BOM = "\ufeff"
_RUN_MARKER = "##[group]Run "
_ERROR_MARKER = "##[error]"

FAILED_CONCLUSIONS = frozenset({"failure", "timed_out", "startup_failure", "action_required"})
SliceMethod = Literal["timestamps", "groups", "whole_log"]
DEFAULT_MAX_LINES = 100_000
_MAX_EXTRA_ERRORS = 20


def clean_line(line: str) -> str:
    """One line without BOM, ``gh run view --log`` prefix, Actions timestamp, ANSI escapes (also in caret
    notation), trailing newline or ``\\r``.

    A ``\\r`` inside the line is treated like a terminal would: only the text after the last one is kept.
    """
    s = line
    if s[:1] == _BOM:
        s = s[1:]
    if "\t" in s and s[10:11] != "T":
        m = _GH_PREFIX_RE.match(s)
        if m:
            s = s[m.end() :]
    if s[10:11] == "T" and s[4:5] == "-":
        m = _TS_RE.match(s)
        if m:
            s = s[m.end() :]
    if "\x1b" in s:
        s = _ANSI_RE.sub("", s)
    if "^" in s and "^[[" in s:
        s = _CARET_ANSI_RE.sub("", s)
    s = s.rstrip("\r\n")
    if "\r" in s:
        tail = s[s.rfind("\r") + 1 :]
        s = tail if tail.strip() else s.replace("\r", "")
    return s


def clean_lines(lines: Iterable[str]) -> Iterator[str]:
    """Stream :func:`clean_line` over ``lines`` (O(1) memory). Idempotent.

    Also reads ``gh run view --log-failed`` output: the ``job<TAB>step<TAB>`` prefix goes, including on
    the untimestamped continuation lines of a multi-line ``##[error]`` annotation.
    """
    ts_match = _TS_RE.match
    ansi_sub = _ANSI_RE.sub
    gh = ""
    for s in lines:
        if s[27:29] == "Z " and s[19:20] == "." and s[10:11] == "T" and s[4:5] == "-":
            s = s[29:]
        elif s[10:11] == "T" and s[4:5] == "-":
            m = ts_match(s)
            if m:
                s = s[m.end() :]
        elif s[:1] == _BOM:
            s = clean_line(s)
        elif "\t" in s:
            s, gh = strip_gh_prefix(s, gh)
        if "\x1b" in s:
            s = ansi_sub("", s)
        if "^" in s and "^[[" in s:
            s = _CARET_ANSI_RE.sub("", s)
        s = s.rstrip("\r\n")
        if "\r" in s:
            tail = s[s.rfind("\r") + 1 :]
            s = tail if tail.strip() else s.replace("\r", "")
        yield s


def strip_gh_prefix(s: str, gh: str) -> tuple[str, str]:
    """(line without the ``gh run view --log`` prefix and timestamp, the prefix now in force)."""
    m = _GH_PREFIX_RE.match(s)
    if m is not None:
        gh = m.group()
        s = s[m.end() :]
        t = _TS_RE.match(s)
        return (s[t.end() :] if t else s), gh
    if gh and s.startswith(gh):
        return s[len(gh) :], gh
    return s, gh


# --------------------------------------------------------------------------------------------------
# Encodings

_UTF16_BOMS = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_SNIFF = 400  # bytes of the first piece read to tell UTF-16 without a BOM


def sniff_encoding(head: bytes) -> tuple[str, int]:
    """(encoding, BOM length) of a log that starts with ``head``: UTF-16 LE/BE when it has their BOM (and
    a NUL in the text after it), or when it has none but ASCII text with a NUL beside every character; else
    UTF-8 (its BOM is kept: the
    line cleaning removes it)."""
    for bom, enc in _UTF16_BOMS:
        # A BOM, then text with ASCII in it (spaces, newlines: a NUL beside each); b"\xff\xfe" before
        # text without any NUL is invalid UTF-8, not UTF-16.
        if head.startswith(bom) and (len(head) == 2 or b"\x00" in head[2:_SNIFF]):
            return enc, len(bom)
    h = head[:_SNIFF] if len(head) >= 4 else b""
    if h and h[1::2].count(0) >= 0.9 * len(h[1::2]) and not h[0::2].count(0):
        return "utf-16-le", 0
    if h and h[0::2].count(0) >= 0.9 * len(h[0::2]) and not h[1::2].count(0):
        return "utf-16-be", 0
    return "utf-8", 0


def decode_pieces(items: Iterable[str | bytes]) -> Iterator[str | bytes]:
    """The log as UTF-8 pieces (or str lines), whatever it was encoded in.

    Raw ``bytes`` pieces in UTF-16 (with a BOM, as PowerShell's ``>`` writes them, or sniffed) are
    transcoded to UTF-8, streamed; UTF-8 passes through untouched (invalid bytes are replaced later, line by
    line). ``str`` lines that are UTF-16 bytes misread as UTF-8 (a NUL beside every character) lose their NULs
    and the misread BOM. Lines that hold a NUL beside most characters are the only ones touched.
    """
    it = iter(items)
    first = next(it, None)
    if first is None:
        return
    if isinstance(first, bytes):
        head = first
        while len(head) < 4 and (more := next(it, None)) is not None:  # a BOM split over tiny pieces
            if not isinstance(more, bytes):
                yield head
                yield more
                yield from it
                return
            head += more
        enc, skip = sniff_encoding(head)
        if enc == "utf-8":
            yield head
            yield from it
            return
        dec = codecs.getincrementaldecoder(enc)("replace")
        yield dec.decode(head[skip:]).encode("utf-8", "surrogatepass")
        for piece in it:
            if isinstance(piece, bytes):
                yield dec.decode(piece).encode("utf-8", "surrogatepass")
            else:
                yield piece
        yield dec.decode(b"", final=True).encode("utf-8", "surrogatepass")
        return
    if first.count("\x00") * 3 < len(first) or not first.strip("\x00\r\n\ufffd\ufeff"):
        yield first
        yield from it
        return
    yield first.replace("\x00", "").lstrip("\ufffd\ufeff")
    for s in it:
        yield s.replace("\x00", "") if isinstance(s, str) else s


def decoded_lines(raw: Iterable[bytes]) -> Iterator[str]:
    """The lines of a binary log (an open file, or its pieces), decoded whatever the encoding (UTF-8 with
    or without BOM, UTF-16 LE/BE; invalid bytes become U+FFFD), streamed; each line keeps its ``\\n``."""
    pending: list[bytes] = []  # bytes after the last "\n" (a list: a long line is joined once)
    for piece in decode_pieces(raw):
        data = piece if isinstance(piece, bytes) else piece.encode("utf-8", "surrogatepass")
        cut = data.rfind(b"\n") + 1
        if cut:
            head = b"".join((*pending, data[:cut])) if pending else data[:cut]
            pending = []
            for line in head.decode("utf-8", "replace").split("\n")[:-1]:
                yield line + "\n"
        if cut < len(data):
            pending.append(data[cut:])
    if pending:
        yield b"".join(pending).decode("utf-8", "replace")


# --------------------------------------------------------------------------------------------------
# Steps


def _to_utc_second(value: datetime | str | None) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            value = datetime.fromisoformat(text)
        except ValueError:
            return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).replace(microsecond=0)


@dataclass(frozen=True)
class StepTiming:
    """One step of a job, as ``GET /repos/{o}/{r}/actions/jobs/{id}`` reports it in ``steps[]``."""

    name: str
    number: int
    conclusion: str | None = None
    started_at: datetime | str | None = None
    completed_at: datetime | str | None = None

    @classmethod
    def from_api(cls, step: Mapping[str, object]) -> StepTiming:
        number = step.get("number")
        conclusion = step.get("conclusion")
        started = step.get("started_at")
        completed = step.get("completed_at")
        return cls(
            name=str(step.get("name") or ""),
            number=number if isinstance(number, int) else 0,
            conclusion=conclusion if isinstance(conclusion, str) else None,
            started_at=started if isinstance(started, (str, datetime)) else None,
            completed_at=completed if isinstance(completed, (str, datetime)) else None,
        )

    @property
    def start(self) -> datetime | None:
        return _to_utc_second(self.started_at)

    @property
    def end(self) -> datetime | None:
        return _to_utc_second(self.completed_at)

    @property
    def failed(self) -> bool:
        return (self.conclusion or "").lower() in FAILED_CONCLUSIONS


@dataclass
class LogSlice:
    """The part of a job log that belongs to the failed step.

    ``lines`` are the raw lines (timestamps kept; run them through :func:`clean_lines` for display; the
    parsers clean by themselves). ``dropped_lines`` counts lines dropped from the head of the slice to
    stay within ``max_lines``; ``##[error]`` lines logged after the step are appended at the end.
    """

    lines: list[str]
    step_name: str | None
    step_number: int | None
    method: SliceMethod
    dropped_lines: int = 0


def pick_failed_step(steps: Sequence[StepTiming], failed_step_name: str | None) -> StepTiming | None:
    """The step to cut to: the named one (a failed one if several share the name), else the first failed."""
    if failed_step_name:
        wanted = failed_step_name.strip()
        named = [s for s in steps if s.name == wanted] or [
            s for s in steps if s.name.strip().casefold() == wanted.casefold()
        ]
        if named:
            return next((s for s in named if s.failed), named[0])
        return None
    return next((s for s in steps if s.failed), None) or next(
        (s for s in steps if (s.conclusion or "").lower() == "cancelled"), None
    )


def _fmt(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S")


def _split_ts(raw: str) -> tuple[str | None, str]:
    """(``YYYY-MM-DDTHH:MM:SS`` or None, text after the timestamp)."""
    if raw[10:11] == "T" and raw[4:5] == "-":
        m = _TS_RE.match(raw)
        if m:
            return raw[:19], raw[m.end() :]
    return None, raw


class _Tail:
    """A bounded list that keeps the last ``cap`` items and counts what it dropped."""

    __slots__ = ("add", "items", "total")

    def __init__(self, cap: int) -> None:
        self.items: deque[str] = deque(maxlen=cap)
        self.add = self.items.append
        self.total = 0  # maintained by callers that care about ``dropped``

    @property
    def dropped(self) -> int:
        return max(0, self.total - len(self.items))


class _TimeWindow:
    """Collects the lines whose timestamps fall in the target step's window."""

    def __init__(self, target: StepTiming, steps: Sequence[StepTiming], cap: int) -> None:
        start, end = target.start, target.end
        assert start is not None
        lo = start - timedelta(seconds=1)
        self.lo_s, self.start_s = _fmt(lo), _fmt(start)
        self.end_s = _fmt(end) if end is not None else "9999"
        self.name = target.name
        earlier = [s for s in steps if s.number < target.number and s is not target]
        # Steps whose own lines may share our first second: only then do markers decide the entry.
        self.overlap = any((s.end or s.start or lo) >= lo for s in earlier if s.start or s.end)
        # How many "##[group]Run" markers of earlier steps may precede ours in that zone.
        self.skip = sum(
            1 for s in earlier if s.start is not None and s.start >= lo and s.name != "Set up job"
        )
        later = sorted(
            (s for s in steps if s.number > target.number and s.start is not None), key=lambda s: s.number
        )
        nxt = later[0].start if later else None
        self.exit_zone_s = _fmt(nxt - timedelta(seconds=1)) if nxt is not None else None
        self.state = 0  # 0 before, 1 inside, 2 after
        self.markers_seen = 0
        self.saw_exit = False
        self.out = _Tail(cap)
        self.errors_after: list[str] = []
        self.any_ts = False

    def feed(self, raw: str, ts: str | None, body: str) -> None:
        if self.state == 0:
            if ts is None or ts < self.lo_s:
                return
            if ts > self.start_s or not self.overlap:
                self.state = 1
            elif body.startswith(_RUN_MARKER):
                if body[9:].strip() == self.name or self.markers_seen == self.skip:
                    self.state = 1
                else:
                    self.markers_seen += 1
            if self.state == 0:
                return
            self.out.add(raw)
            self.out.total += 1
            return
        if self.state == 1:
            leaving = ts is not None and ts > self.end_s
            if self.saw_exit and not body.startswith(("##[error]", "##[warning]")):
                leaving = True  # the exit-code line is the last line a failed step logs
            elif not leaving and body.startswith(_RUN_MARKER) and self.out.items:
                leaving = self.saw_exit or (
                    self.exit_zone_s is not None and ts is not None and ts >= self.exit_zone_s
                )
            if not leaving:
                self.out.add(raw)
                self.out.total += 1
                if body.startswith("##[error]Process completed with exit code"):
                    self.saw_exit = True
                return
            self.state = 2
        if body.startswith(_ERROR_MARKER) and len(self.errors_after) < _MAX_EXTRA_ERRORS:
            self.errors_after.append(raw)


class _Groups:
    """Splits the log at ``##[group]Run`` markers and keeps the failed step's section."""

    def __init__(self, name: str | None, cap: int) -> None:
        self.name = name.strip() if name else None
        self.cap = cap
        self.cur = _Tail(cap)
        self.cur_title: str | None = None
        self.cur_error = False
        self.index = 0
        self.named: tuple[_Tail, str | None, int] | None = None
        self.errored: tuple[_Tail, str | None, int] | None = None
        self.errors: list[tuple[int, str]] = []

    def _close(self) -> None:
        if self.named is None and self.name and self.cur_title is not None:
            t = self.cur_title
            if t == self.name or t == f"Run {self.name}" or t.startswith(self.name):
                self.named = (self.cur, t, self.index)
                return
        if self.errored is None and self.cur_error and self.cur.items:
            self.errored = (self.cur, self.cur_title, self.index)

    def marker(self, raw: str, body: str) -> None:
        """A line starting with ``##[``; plain lines go straight to ``self.cur.add``."""
        if body.startswith(_RUN_MARKER):
            self._close()
            self.index += 1
            keep = self.named is None and (self.name is not None or self.errored is None)
            self.cur = _Tail(self.cap if keep else 1)
            self.cur_title = body[9:].strip()
            self.cur_error = False
        elif body.startswith(_ERROR_MARKER):
            self.cur_error = True
            if len(self.errors) < 4 * _MAX_EXTRA_ERRORS:
                self.errors.append((self.index, raw))
        self.cur.add(raw)
        self.cur.total += 1

    def result(self) -> tuple[_Tail, str | None, list[str]] | None:
        self._close()
        chosen = self.named or self.errored
        if chosen is None:
            return None
        tail, title, idx = chosen
        later = [raw for i, raw in self.errors if i > idx][:_MAX_EXTRA_ERRORS]
        return tail, title, later


def slice_failed_step(
    lines: Iterable[str],
    steps: Sequence[StepTiming] | None,
    failed_step_name: str | None,
    *,
    max_lines: int = DEFAULT_MAX_LINES,
) -> LogSlice:
    """Cut a raw job log down to the failed step, in one pass and bounded memory.

    1. ``timestamps``: the step (named ``failed_step_name``, else the first failed one in ``steps``) has
       start/end times and log lines fall in that window; ``##[group]Run`` markers settle the boundary
       seconds shared with neighbouring steps.
    2. ``groups``: no usable times; the section between ``##[group]Run`` markers whose title matches the
       step name, else the first section that logged an ``##[error]``.
    3. ``whole_log``: neither worked; the whole log (its last ``max_lines`` lines).

    ``##[error]`` lines logged after the chosen part (timeouts, cancellations) are appended.
    """
    steps = list(steps or [])
    target = pick_failed_step(steps, failed_step_name) if steps else None
    step_name = target.name if target else failed_step_name
    step_number = target.number if target else None
    window = _TimeWindow(target, steps, max_lines) if target is not None and target.start else None
    groups = _Groups(step_name, max_lines)
    whole = _Tail(max_lines)
    whole_add = whole.add
    window_feed = window.feed if window is not None else None
    any_ts = False
    cur = groups.cur
    count = 0
    for raw in lines:
        if count == 0 and raw[:1] == _BOM:
            raw = raw[1:]
        count += 1
        raw = raw.rstrip("\r\n")
        if raw[27:29] == "Z " and raw[19:20] == "." and raw[10:11] == "T" and raw[4:5] == "-":
            ts: str | None = raw[:19]
            body = raw[29:]
        else:
            ts, body = _split_ts(raw)
        if window_feed is not None:
            if ts is not None:
                any_ts = True
            window_feed(raw, ts, body)
        if body[:3] == "##[":
            groups.marker(raw, body)
            cur = groups.cur
        else:
            cur.add(raw)
            cur.total += 1
        whole_add(raw)
    whole.total = count
    if window is not None:
        window.any_ts = any_ts

    if window is not None and window.any_ts and window.out.items:
        out = list(window.out.items) + window.errors_after
        return LogSlice(out, step_name, step_number, "timestamps", window.out.dropped)
    chosen = groups.result()
    if chosen is not None:
        tail, title, later = chosen
        out = list(tail.items) + later
        return LogSlice(out, step_name or title, step_number, "groups", tail.dropped)
    return LogSlice(list(whole.items), step_name, step_number, "whole_log", whole.dropped)
