"""gh's colour rule (cli/cli pkg/iostreams, `gh help environment`): NO_COLOR set to any non-empty value or
CLICOLOR=0 turn colour off on a terminal; CLICOLOR_FORCE other than "0" turns it on anywhere and wins over
NO_COLOR; GH_FORCE_TTY makes a pipe count as a terminal."""

from __future__ import annotations

import io

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
    ({"NO_COLOR": "1"}, True, (False, True)),  # gh: --json compact without colour; --jq results still indented
    ({"GH_FORCE_TTY": "1", "NO_COLOR": "1"}, False, (False, True)),
    ({"CLICOLOR_FORCE": "1"}, False, (True, False)),  # gh colours (so indents) --json in a pipe; --jq compact
])
def test_json_layout_is_ghs(env: dict[str, str], tty: bool, expected: tuple[bool, bool]) -> None:
    """(indent --json, --jq results for a terminal), as cli/cli pkg/cmdutil/json_flags.go decides them."""
    assert iostreams.json_layout(env, _Out(tty)) == expected
