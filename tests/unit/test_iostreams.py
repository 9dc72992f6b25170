"""gh's colour rule (cli/cli pkg/iostreams, `gh help environment`): NO_COLOR set to any non-empty value or
CLICOLOR=0 turn colour off on a terminal; CLICOLOR_FORCE other than "0" turns it on anywhere and wins over
NO_COLOR; GH_FORCE_TTY makes a pipe count as a terminal."""

from __future__ import annotations

import io
import re
import time

import orjson
import pytest

from pr_agent import iostreams


@pytest.mark.parametrize(("env", "tty", "expected"), [
    ({}, True, True),
    ({}, False, False),
    ({"NO_COLOR": "1"}, True, False),
    ({"NO_COLOR": "0"}, True, False),  # any non-empty value
    ({"NO_COLOR": ""}, True, True),  # empty: as if unset
    ({"CLICOLOR": "0"}, True, False),
    ({"CLICOLOR": "1"}, False, False),  # CLICOLOR only ever turns colour off
    ({"CLICOLOR_FORCE": "1"}, False, True),
    ({"CLICOLOR_FORCE": "yes"}, False, True),
    ({"CLICOLOR_FORCE": "0"}, False, False),
    ({"CLICOLOR_FORCE": ""}, False, False),
    ({"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, False, True),
    ({"CLICOLOR_FORCE": "1", "CLICOLOR": "0"}, False, True),
    ({"GH_FORCE_TTY": "1"}, False, True),
    ({"GH_FORCE_TTY": "100%"}, False, True),
    ({"GH_FORCE_TTY": "1", "NO_COLOR": "1"}, False, False),
    ({"GH_FORCE_TTY": ""}, False, False),
])
def test_colour_rule(env: dict[str, str], tty: bool, expected: bool) -> None:
    assert iostreams.color_enabled(env, tty) is expected


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_setup_decides_once_for_the_process_and_mcp_turns_it_off() -> None:
    try:
        c = iostreams.setup({}, FakeTerminal())
        assert iostreams.colors() is c
        assert c.red("x") == "\x1b[31mx\x1b[0m" and c.dim("x") == "\x1b[2mx\x1b[0m"
        assert c.state("failed", "a") == c.red("a") and c.state("pending", "a") == c.yellow("a")
        assert c.state("passed", "a") == c.green("a") and c.red("") == ""
        assert not iostreams.setup({}, io.StringIO()).enabled  # a pipe
        iostreams.setup({"CLICOLOR_FORCE": "1"}, io.StringIO())
        iostreams.plain()
        assert iostreams.colors().red("x") == "x"
    finally:
        iostreams.plain()


class _Out(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(("env", "tty", "expected"), [
    ({}, False, (False, False)),
    ({}, True, (True, True)),
    ({"GH_FORCE_TTY": "1"}, False, (True, True)),
    ({"NO_COLOR": "1"}, True, (False, True)),  # gh: --json plain and compact; --jq results still indented
    ({"GH_FORCE_TTY": "1", "NO_COLOR": "1"}, False, (False, True)),
    ({"CLICOLOR_FORCE": "1"}, False, (True, False)),  # gh colours (so indents) --json in a pipe; --jq compact
])
def test_json_layout_is_ghs(env: dict[str, str], tty: bool, expected: tuple[bool, bool]) -> None:
    """(colour --json and --jq's JSON, indent --jq results for a terminal), as cli/cli pkg/cmdutil/json_flags.go
    decides them."""
    assert iostreams.json_layout(env, _Out(tty)) == expected


# gh's JSON colours (cli/cli pkg/jsoncolor), spelled out here rather than read from the module under test
D, K, S, B, N, R = "\x1b[1;37m", "\x1b[1;34m", "\x1b[32m", "\x1b[33m", "\x1b[36m", "\x1b[m"
SGR = re.compile(r"\x1b\[[0-9;]*m")


def test_json_is_coloured_token_by_token_in_ghs_layout() -> None:
    got = iostreams.color_json({"hash": {"a": 1, "b": None}, "array": [True, "x"], "empty": {}, "none": []}).decode()
    assert got == (
        f"{D}{{{R}\n"
        f'  {K}"hash"{R}{D}:{R} {D}{{{R}\n'
        f'    {K}"a"{R}{D}:{R} 1{D},{R}\n'
        f'    {K}"b"{R}{D}:{R} {N}null{R}\n'
        f"  {D}}}{R}{D},{R}\n"
        f'  {K}"array"{R}{D}:{R} {D}[{R}\n'
        f"    {B}true{R}{D},{R}\n"
        f'    {S}"x"{R}\n'
        f"  {D}]{R}{D},{R}\n"
        f'  {K}"empty"{R}{D}:{R} {D}{{{R}{D}}}{R}{D},{R}\n'
        f'  {K}"none"{R}{D}:{R} {D}[{R}{D}]{R}\n'
        f"{D}}}{R}\n")
    assert iostreams.color_json("foo").decode() == f'{S}"foo"{R}\n'  # gh's jsoncolor test cases
    assert iostreams.color_json({}).decode() == f"{D}{{{R}{D}}}{R}\n"
    compact = f'{D}{{{R}{K}"a"{R}{D}:{R}{D}[{R}1{D}]{R}{D}}}{R}\n'
    assert iostreams.color_json({"a": [1]}, indent=False).decode() == compact


@pytest.mark.parametrize("value", [
    'a "quoted": key, {not} [a] true null, value',  # JSON syntax inside a string is the string's
    "back\\slash\\", 'ends with a quote"', "\\\"", "line\nbreak\ttab\x00nul\x1b[31mred",
    "ünïcødé ✓ 日本語 🎉", "-12.5e3", "",
])
def test_strings_stay_one_token_and_the_document_the_same(value: str) -> None:
    data = {value: value, "list": [value, {value: [value, 1.5, False]}]}
    got = iostreams.color_json(data).decode()
    assert orjson.loads(SGR.sub("", got)) == data
    assert got.count(K) == 3 and got.count(S) == 3  # three keys, three string values: nothing more
    assert "\x1b[31m" not in got and "\x00" not in got  # JSON escapes: text cannot drive the terminal


def test_characters_that_could_drive_or_hide_on_a_terminal_are_json_escapes() -> None:
    hostile = "csi\u009b31m del\x7f bidi\u202eevil zw\u200b tag\U000e0041"
    got = iostreams.color_json({"t": hostile}).decode()
    assert "\\u009b31m" in got and "\\u007f" in got and "\\u202e" in got and "\\u200b" in got
    assert "\\udb40\\udc41" in got  # outside the BMP: its UTF-16 pair, as JSON spells it
    assert not any(ch in got for ch in "\u009b\x7f\u202e\u200b\U000e0041")
    assert orjson.loads(SGR.sub("", got)) == {"t": hostile}  # the same value


def test_a_large_document_is_coloured_in_linear_time() -> None:
    def doc(n: int) -> dict[str, object]:
        return {"items": [{"id": i, "body": "word " * 20, "ok": i % 2 == 0, "none": None} for i in range(n)]}

    def seconds(n: int) -> float:
        data = doc(n)
        start = time.perf_counter()
        iostreams.color_json(data)
        return time.perf_counter() - start

    seconds(1_000)  # warm up
    small, large = min(seconds(5_000) for _ in range(3)), min(seconds(50_000) for _ in range(3))
    assert large < small * 10 * 3, (small, large)  # 10× the input: about 10× the time, never quadratic
