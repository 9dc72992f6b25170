"""The block scan of ``parse_log`` (``pr_agent/ci/parsers/scan.py``): it finds every line the prefilter passes,
and parsing with it gives exactly what cleaning and checking every line gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pr_agent.ci.parsers import ParsedLog, engine, parse_log
from pr_agent.ci.parsers.scan import blocks, clean, prefiltered, raw_line, scan_block

from .regen_expected import cases
from .test_properties import FRAGMENTS

CASES = cases()
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# What can hide a word from a scan of the raw text: codes inside words and prefixes, caret notation that
# removing codes forms, "\r", BOMs, OSC sequences, timestamps of every shape (and garbage in their place).
CODES = ["\x1b[31m", "\x1b[0m", "\x1b[1;32m", "\x1bM", "\x1b[", "\x1b]8;;u\x07", "\x1b]0;t", "\x1b\\", "^[[31m",
         "^[\x1b[0m[", "\x1b\x1b[0m", "\r", "\ufeff", "\t", "Z", "Z "]
STAMPS = ["", "", "2026-11-30T10:00:00.1234567Z ", "2026-11-30T10:00:00Z ", "2026-11-30T10:00:00.12Z",
          "2026-11-30T10:00:00.123456789Z ", "ab\x1b]d-efghiTjk\x1b[mnopqr.stuvwxyZ ", "٢٠٢٦-١١-٣٠T١٠:٠٠:٠٠Z ",
          "\ufeff2026-11-30T10:00:00.1234567Z "]
WORDS = [*FRAGMENTS, "ok  \tpkg\t0.1s", "     Running unittests", "   Doc-tests x", "Total tests: 1", "OK (1 test)",
         "Ran 1 test in 0s", "panic: x", "timed out", "Killed", "✖ 2 problems", "<testcase name='x'>"]


@st.composite
def raw_lines(draw: st.DrawFn) -> str:
    body = "".join(draw(st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=8)), min_size=1, max_size=3)))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(body)))
        body = body[:at] + draw(st.sampled_from(CODES)) + body[at:]
    return (draw(st.sampled_from(STAMPS)) + body).replace("\n", " ")


def exact(data: bytes | list[str], **kw: str | None) -> ParsedLog:
    """``parse_log`` as it was before the scan and the dispatch: every line cleaned and checked, and every
    prefiltered line fed to every parser (a parser whose ``busy_when`` attribute is never None gets them all)."""
    original = engine.scan_block
    engine.scan_block = lambda block: None  # type: ignore[assignment]
    saved = {cls: cls.busy_when for cls in engine.PARSER_CLASSES}
    for cls in engine.PARSER_CLASSES:
        cls.busy_when = ("ctx",)
    try:
        return parse_log([data] if isinstance(data, bytes) else data, **kw)  # type: ignore[arg-type]
    finally:
        engine.scan_block = original
        for cls, busy in saved.items():
            cls.busy_when = busy


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


# -- blocks ------------------------------------------------------------------------------------------


def test_blocks_cut_raw_pieces_at_line_ends() -> None:
    data = b"one\r\ntwo\n\nthree \xe2\x97\x8f\nlast"
    for size in (1, 2, 3, 5, 64):
        got = list(blocks(pieces(data, size)))
        assert all(isinstance(b, bytes) and b.endswith(b"\n") for b in got)
        assert b"".join(got) == data + b"\n"  # the last line gets its end
    assert list(blocks([b""])) == []
    assert list(blocks([b"x", "line", b"y\n"])) == [b"x\n", b"line\n", b"y\n"]  # a str line ends a raw line


def test_blocks_keep_lines_that_are_not_plain_lines() -> None:
    assert list(blocks(["a\n", "b\r\n"])) == [b"a\nb\r\n"]
    assert list(blocks(["a", "b\r"])) == [b"a\nb\r\n"]
    assert list(blocks(["a\nb", "c"])) == [["a\nb", "c"]]  # a "\n" inside a line: cleaned line by line
    assert list(blocks(["a\n", "b"])) == [["a\n", "b"]]
    assert list(blocks(["\ud800"])) == [["\ud800"]]  # a lone surrogate cannot round-trip through bytes


# -- the scan finds every line the prefilter passes --------------------------------------------------


@SETTINGS
@given(st.lists(raw_lines(), min_size=1, max_size=30))
def test_scan_finds_every_prefiltered_line(lines: list[str]) -> None:
    block = ("\n".join(lines) + "\n").encode()
    scanned = scan_block(block)
    if scanned is None:  # a `gh run view` prefix: the engine cleans every line of the block
        assert "\t" in "".join(lines)
        return
    raw, found = scanned
    assert [raw_line(s) for s in raw] == lines
    for i, line in enumerate(lines):
        s = clean(line, "")[0]
        if prefiltered(s) or s[:2] == '{"':
            assert i in found, (line, s)


# -- the fast path changes no result -----------------------------------------------------------------


@pytest.mark.parametrize("log", CASES, ids=lambda p: p.parent.name + "/" + p.name)
def test_fixture_logs_parse_alike_fast_and_exact(log: Path) -> None:
    data = log.read_bytes()
    want = exact(data)
    for size in (7, 1 << 20):
        assert parse_log(pieces(data, size)) == want
    assert parse_log(data.decode("utf-8", "replace").splitlines()) == want


@SETTINGS
@given(st.lists(raw_lines(), max_size=60), st.sampled_from([1, 5, 64, 1 << 20]),
       st.sampled_from([None, "pytest", "go", "jest", "nextest", "maven", "junit"]))
def test_random_logs_parse_alike_fast_and_exact(lines: list[str], size: int, hint: str | None) -> None:
    data = "\n".join(lines).encode()
    assert parse_log(pieces(data, size), hint=hint) == exact(data, hint=hint)
    assert parse_log(lines, hint=hint) == exact(lines, hint=hint)


@pytest.mark.parametrize(
    "lines",
    [
        # removing codes forms caret notation, whose removal forms the word
        ["2026-11-30T10:00:00.12345678901Z === F^[\x1b[1;32m[31mAIL: pkg TestY (0.00s)"],
        ["--- FA\x1b[0mIL: TestX (0.00s)", "    x_test.go:3: boom", "FAIL"],  # a code inside a word
        ["\x1b[1m##\x1b[0m[group]Run make", "\x1b[0m##[error]Process completed with exit code 2."],
        ["\x1b[1m\x1b[32m     Running\x1b[0m unittests src/lib.rs", "test a::b ... FAILED"],  # cargo, coloured
        ["2026-11-30T10:00:00Z##[error]Process completed with exit code 1."],  # a timestamp without its space
        # nextest: after its summary, a "--- STDOUT" header makes it read prefiltered lines again
        ["        FAIL [   0.003s] crate tests::test_fail", "     Summary [   0.1s] 2 tests run: 1 passed, 1 failed",
         "--- STDOUT:              crate tests::test_fail ---", "thread 'tests::test_fail' panicked at src/lib.rs:7:5:",
         "assertion failed: left == right (a failure)", "error: test run failed"],
        ["job\tstep\t2026-11-30T10:00:00.1234567Z ##[error]boom", "job\tstep\tcontinued FAIL line"],  # gh prefix
        ["\ufeff2026-11-30T10:00:00.1234567Z FAIL: test_x (a.B.test_x)", "progress 10%\rFAILED (failures=1)"],
        ["2026-11-30T10:00:00.1234567Z FA\rIL: test_x (a.B.test_x)\r ", "AssertionError: 1 != 2"],  # "\r"s dropped
        ["2026-11-30T10:00:00.1234567Z 50%\rok  \tgithub.com/a/b\t0.1s"],  # the text after the last "\r"
    ],
)
def test_lines_that_hide_from_a_raw_scan(lines: list[str]) -> None:
    data = ("\n".join(lines) + "\n").encode()
    want = exact(data)
    assert parse_log(pieces(data, 3)) == want
    assert parse_log([data]) == want


@pytest.mark.parametrize(
    "line",
    [
        "ti\x1b[[m\x1b[0med out after 5s",  # "ESC[[" is a CSI sequence: the "m" after it is text
        "ti\x1b[0mm\x1b[0med out after 5s",  # a text "m" right after a sequence
        "FA\x1b[0m\x1b[1;31mIL: test_x (a.B.test_x)",  # a run of two sequences inside a word
        "--- FAI\x1b[1;2mL: TestX (0.00s)",  # a letter that no word starts with, before a code
        "a\x1b[0m" * 30 + " FAI\x1b[0mL: TestX",  # after a long line of colour codes
    ],
)
def test_a_word_split_by_codes_is_found_whatever_precedes_the_codes(line: str) -> None:
    scanned = scan_block((line + "\n").encode())
    assert scanned is not None and scanned[1] == [0]
    assert prefiltered(clean(line, "")[0])


def test_a_gh_prefix_is_found_however_many_tabs_come_before_it() -> None:
    tabs = "\t" * 10_000 + "\n"
    for prefix in ("job\tstep\t2026-11-30T10:00:00.1234567Z ", "j\t\ts\t٢٠٢٦-١١-٣٠T١٠:٠٠:٠٠Z "):
        assert scan_block((tabs * 3 + prefix + "FAIL x\n").encode()) is None
    # a tab and a timestamp-like text without a tab before it on its line, or with five-digit years
    for line in ("\t2026-11-30T10:00:00Z x", "a\tb\t20260-11-30T10:00:00Z x", "a\tb\n\t2026-11-30T10:00:00Z"):
        assert scan_block((tabs + line + "\n").encode()) is not None
