"""Logs are decoded whatever their encoding: UTF-8 with or without BOM, UTF-16 LE/BE (PowerShell's ``>``:
BOM and CRLF), UTF-16 without BOM; undecodable bytes become U+FFFD, never "nothing found". And a caller's
timeout and cancellation stop a parse between blocks."""

from __future__ import annotations

import codecs
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pr_agent.ci.logs import decode_pieces, decoded_lines, sniff_encoding
from pr_agent.ci.parsers import ParsedLog, engine, parse_log
from pr_agent.errors import PrAgentError

LOGS = Path(__file__).resolve().parents[3] / "fixtures" / "logs"
SAMPLES = ["pytest/single_failure.log", "jest/multiple_suites.log", "go/verbose_subtests.log",
           "real/vitest/01-motion5-log-failed-caret-ansi.log", "real/rspec/01-human-essentials-knapsack-node.log"]


def _text(name: str) -> str:
    return (LOGS / name).read_bytes().decode("utf-8").removeprefix("\ufeff")


def _pieces(data: bytes, size: int) -> Iterator[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


def _key(p: ParsedLog) -> tuple[object, ...]:
    return ([(f.test_name, f.error_message, f.file_path, f.line_number) for f in p.failures],
            p.non_test_failure, p.runners_detected, p.passed_count, p.failed_count, p.exit_code)


def _encodings(text: str) -> dict[str, bytes]:
    crlf = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return {
        "utf-8": text.encode(),
        "utf-8-bom": codecs.BOM_UTF8 + text.encode(),
        "utf-16-le-bom-crlf": codecs.BOM_UTF16_LE + crlf.encode("utf-16-le"),
        "utf-16-be-bom-crlf": codecs.BOM_UTF16_BE + crlf.encode("utf-16-be"),
        "utf-16-le-no-bom": text.encode("utf-16-le"),
        "utf-8-crlf": crlf.encode(),
    }


@pytest.mark.parametrize("name", SAMPLES)
def test_every_encoding_parses_like_utf8(name: str) -> None:
    text = _text(name)
    want = _key(parse_log(text.splitlines(keepends=True)))
    assert want[0] or want[1], "a sample with something to find"
    for enc, data in _encodings(text).items():
        for size in (7, 4096, 1 << 20):  # odd sizes split UTF-16 code units and the BOM across pieces
            assert _key(parse_log(_pieces(data, size))) == want, (enc, size)
        assert _key(parse_log(decoded_lines(_pieces(data, 1000)))) == want, enc


def test_utf16_misread_as_utf8_lines_still_parses() -> None:
    # What a reader that decodes each b"\n"-line as UTF-8 hands over for a UTF-16 LE file: NULs beside each
    # character and the BOM as two U+FFFD. ASCII text is recovered.
    text = "".join(line for line in _text("pytest/single_failure.log").splitlines(keepends=True) if line.isascii())
    data = codecs.BOM_UTF16_LE + text.replace("\n", "\r\n").encode("utf-16-le")
    misread = [line.decode("utf-8", "replace") for line in data.split(b"\n")]
    got = parse_log(misread)
    assert [f.test_name for f in got.failures] == ["tests/test_invoice.py::test_total_includes_shipping"]
    assert got.failures[0].line_number == 48


def test_undecodable_bytes_degrade_to_replacement_characters() -> None:
    data = (b"\xff\xfe\xfa junk\n=================================== FAILURES ===================================\n"
            b"_____________________________ test_caf\xe9 _____________________________\n"
            b"E       assert 'caf\xe9 \xc3' == 'x'\n"
            b"tests/test_a.py:3: AssertionError\n"
            b"FAILED tests/test_a.py::test_caf\xe9 - assert 'caf\xe9 \xc3' == 'x'\n"
            b"=== 1 failed in 0.1s ===\n")
    for size in (5, 1 << 20):
        got = parse_log(_pieces(data, size))
        assert [f.test_name for f in got.failures] == ["tests/test_a.py::test_caf\ufffd"]
        assert "\ufffd" in got.failures[0].error_message


def test_sniffing() -> None:
    assert sniff_encoding(codecs.BOM_UTF16_LE + "ab\n".encode("utf-16-le")) == ("utf-16-le", 2)
    assert sniff_encoding(codecs.BOM_UTF16_BE + "ab\n".encode("utf-16-be")) == ("utf-16-be", 2)
    assert sniff_encoding("plain ascii log line\n".encode("utf-16-be")) == ("utf-16-be", 0)
    assert sniff_encoding(b"\xff\xfe garbage") == ("utf-8", 0)  # no NUL after it: invalid UTF-8, not UTF-16
    assert sniff_encoding(codecs.BOM_UTF8 + b"x") == ("utf-8", 0)
    assert list(decode_pieces([])) == []


def test_cancellation_is_honoured_inside_the_parse() -> None:
    cancel = threading.Event()
    seen: list[int] = []

    def pieces() -> Iterator[bytes]:
        for i in range(50):
            seen.append(i)
            if i == 3:
                cancel.set()  # the caller gives up while the log is being read
            yield b"--- FAIL: TestX (0.00s)\n" * 1000

    with pytest.raises(PrAgentError) as err:
        parse_log(pieces(), cancel=cancel)
    assert err.value.code == "cancelled"
    assert len(seen) < 10  # stopped at the next block, not at the end of the log


def test_timeout_is_honoured_inside_the_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]

    class FakeTime:
        @staticmethod
        def monotonic() -> float:
            clock[0] += 1.0  # each look at the clock: one second later
            return clock[0]

    monkeypatch.setattr(engine, "time", FakeTime)
    with pytest.raises(PrAgentError) as err:
        parse_log((b"ok  \tpkg\t0.1s\n" * 1000 for _ in range(100)), timeout=5.0)
    assert err.value.code == "timeout" and err.value.details["timeout_s"] == 5.0
    got = parse_log([b"--- FAIL: TestX (0.00s)\n"], timeout=5.0)  # within the time: the usual answer
    assert [f.test_name for f in got.failures] == ["TestX"]
