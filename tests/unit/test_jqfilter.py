"""--jq's printing (gh's rules, checked against `gh api --jq`) and its refusals, without a process."""

from __future__ import annotations

import pytest

from pr_agent.errors import PrAgentError
from pr_agent.jqfilter import apply, compile_filter

DATA = {"items": [{"id": 1, "title": "a\x1b[31mred"}, {"id": 2, "title": "plain"}], "n": None, "ok": False}


def run(expr: str, *, terminal: bool = False, color: bool = False) -> str:
    return apply(compile_filter(expr), expr, DATA, terminal=terminal, color=color).decode()


def test_results_one_per_line_as_gh_prints_them() -> None:
    assert run(".items[].id") == "1\n2\n"
    assert run(".items | length") == "2\n"
    assert run(".n, .ok, 0.125, 1e3") == "\nfalse\n0.12\n1000\n"
    assert run(".items[0] | {id}") == '{"id":1}\n'


def test_on_a_terminal_json_is_indented_and_raw_strings_cannot_drive_it() -> None:
    assert run(".items[0].title") == "a\x1b[31mred\n"  # piped: the exact text, as gh prints it
    assert run(".items[0].title", terminal=True) == "a\\x1b[31mred\n"
    assert run("{id: .items[1].id}", terminal=True) == '{\n  "id": 2\n}\n'


@pytest.mark.parametrize("expr", [".items[", "foo(", ".[] |", "}"])
def test_an_expression_jq_refuses_is_a_usage_error(expr: str) -> None:
    with pytest.raises(PrAgentError) as exc:
        compile_filter(expr)
    err = exc.value
    assert err.code == "invalid_arguments" and err.exit_code == 2 and err.details["field"] == "--jq"
    assert "jq: error" not in err.message and "compile error" not in err.message


def test_an_expression_that_fails_on_this_output_is_a_usage_error_too() -> None:
    with pytest.raises(PrAgentError) as exc:
        run(".items | keys[0] | ascii_downcase")
    assert exc.value.code == "invalid_arguments" and "must be a string" in exc.value.details["reason"]


def test_where_colour_is_on_json_results_are_coloured_and_scalars_stay_raw() -> None:
    d, k, r = "\x1b[1;37m", "\x1b[1;34m", "\x1b[m"  # gh's delimiter and key colours
    assert run("{id: .items[1].id}", terminal=True, color=True) == f'{d}{{{r}\n  {k}"id"{r}{d}:{r} 2\n{d}}}{r}\n'
    # CLICOLOR_FORCE in a pipe: coloured, compact, one result per line
    assert run(".items[] | {id}", color=True) == f'{d}{{{r}{k}"id"{r}{d}:{r}1{d}}}{r}\n' \
        f'{d}{{{r}{k}"id"{r}{d}:{r}2{d}}}{r}\n'
    assert run(".items[1].title, .items[1].id, .ok", terminal=True, color=True) == "plain\n2\nfalse\n"  # as gh
    assert run(".items[0].title", terminal=True, color=True) == "a\\x1b[31mred\n"
