"""The surface mechanism: a next step is data, rendered as the current face speaks.

The oracle for the CLI face is click itself: a tool call rendered as a command line, split by a shell
(shlex) and parsed by the tool's real click command, must give back exactly the arguments of the call.
"""

from __future__ import annotations

import random
import shlex
from typing import Any, Literal, get_args, get_origin

import pytest

from pr_agent import surface
from pr_agent.cli import _bare, tool_command
from pr_agent.errors import PrAgentError, command_repair, tool_repair
from pr_agent.registry import all_tools

HOSTILE = ["acme/widgets#1", "it's", "$(id)", "a b", "--force", "`x`", "#1", "PRRT_a+b/c=", "ü", "-x"]


def _value(rng: random.Random, ann: Any) -> Any:
    ann = _bare(ann)
    if ann is bool:
        return rng.choice([True, False])
    if ann is int:
        return rng.randint(1, 5000)
    if get_origin(ann) is Literal:
        return rng.choice(get_args(ann))
    if get_origin(ann) is list:
        return [rng.choice(HOSTILE) for _ in range(rng.randint(1, 3))]
    return rng.choice(HOSTILE)


def _parsed(tool_name: str, argv: list[str]) -> dict[str, Any]:
    assert argv[:3] == ["gh", "pr-agent", all_tools()[tool_name].cli_name]
    cmd = tool_command(all_tools()[tool_name])
    ctx = cmd.make_context(argv[2], argv[3:])
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in ctx.params.items()
            if v is not None and v != () and k not in ("repo_override", "as_json")}


@pytest.mark.parametrize("tool_name", sorted(all_tools()))
def test_a_cli_command_parses_back_to_the_call(tool_name: str) -> None:
    fields = all_tools()[tool_name].input_model.model_fields
    rng = random.Random(tool_name)
    for _ in range(40):
        args = {n: _value(rng, f.annotation) for n, f in fields.items() if rng.random() < 0.6}
        spec = all_tools()[tool_name].cli_positional
        positional = [spec] if isinstance(spec, str) else list(spec or ())
        if any(p in args for p in positional):  # the CLI takes a later positional only with the earlier ones
            args.update({p: args.get(p, "acme/widgets#2") for p in positional[:max(
                positional.index(p) for p in positional if p in args) + 1]})
        with surface.using("cli"):
            line = surface.show(surface.call(tool_name, args))
        assert _parsed(tool_name, shlex.split(line)) == args, line


def test_mcp_face_names_tools_and_arguments_never_cli_words() -> None:
    step = surface.call("get_failing_tests", {"pr": "acme/widgets#7", "wait": True})
    with surface.using("mcp"):
        said = surface.text("Call again with ", surface.arg("get_failing_tests", "wait", True), ", or ",
                            surface.tool("get_failing_tests"), ": ", step, surface.face(cli="--repo", mcp="."))
        assert said == ('Call again with wait=true, or get_failing_tests: call get_failing_tests with '
                        '{"pr":"acme/widgets#7","wait":true}.')
    with surface.using("cli"):
        said = surface.text("Call again with ", surface.arg("get_failing_tests", "wait", True), ", or ",
                            surface.tool("get_failing_tests"), ": ", step, surface.face(cli=" --repo", mcp="."))
        assert said == ("Call again with --wait, or gh pr-agent checks: gh pr-agent checks 'acme/widgets#7' "
                        "--wait --repo")


def test_argument_names_follow_the_cli_overrides() -> None:
    with surface.using("cli"):
        assert surface.text(surface.arg("rebase_after_squash_merge", "upstream_pr")) == "--upstream"
        assert surface.text(surface.arg("resolve_review_thread", "when_reviewer_spoke_last", "resolve")) == \
            "--when-reviewer-spoke-last resolve"
        assert surface.text(surface.arg("get_failing_tests", "wait", False)) == "--no-wait"
    with surface.using("mcp"):
        assert surface.text(surface.arg("resolve_review_thread", "when_reviewer_spoke_last", "resolve")) == \
            'when_reviewer_spoke_last="resolve"'


def test_needs_input_is_never_a_value() -> None:
    step = tool_repair("resolve_review_thread", {"pr": "a/b#1", "thread_id": "PRRT_x"}, "Add your reply.",
                       needs_input=("reply",))
    err = PrAgentError("reviewer_spoke_last", "m", suggestion="s", repair=step)
    with surface.using("mcp"):
        rep = err.envelope()["error"]["repair"]
        assert rep == {"tool": "resolve_review_thread", "arguments": {"pr": "a/b#1", "thread_id": "PRRT_x"},
                       "next_step": "Add your reply.", "needs_input": ["reply"]}
        assert "reply" not in rep["arguments"]
        assert "add reply (your own text)" in err.human()
    with surface.using("cli"):
        rep = err.envelope()["error"]["repair"]
        assert rep["needs_input"] == ["--reply"]
        assert shlex.split(rep["command"]) == ["gh", "pr-agent", "resolve", "a/b#1", "--thread", "PRRT_x"]
        assert "(add --reply TEXT)" in err.human()


def test_literal_text_is_never_interpreted() -> None:
    hostile = "{arg:wait} --wait $(id)"
    for which in ("cli", "mcp"):
        with surface.using(which):  # type: ignore[arg-type]
            assert surface.text(hostile) == hostile


def test_plain_commands_are_the_same_on_both_faces() -> None:
    step = command_repair(["gh", "pr", "list", "--repo", "ghe.example/acme/a b"])
    for which in ("cli", "mcp"):
        with surface.using(which):  # type: ignore[arg-type]
            assert surface.repair(step) == {"command": "gh pr list --repo 'ghe.example/acme/a b'"}
    with pytest.raises(TypeError):
        command_repair("gh pr list")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        surface.run(["git", "a\0b"])


def test_previews_end_on_a_whole_word() -> None:
    from pr_agent.textsafe import one_line

    text = "Please handle the missing-header case before merging; see the inline comments for details."
    cut = one_line(text, 40)
    assert cut.endswith("…") and len(cut) <= 40
    assert text.startswith(cut[:-1]) and text[len(cut) - 1] == " "  # the next character starts a new word
    assert one_line("x" * 50, 10) == "x" * 9 + "…"  # one long word: cut where it must


# ------------------------------------------------------------------------------ tool descriptions on the CLI


@pytest.mark.parametrize(("tool_name", "prose", "said"), [
    ("get_failing_tests", "Use it with wait=true after pushing; not for readiness (use check_merge_readiness).",
     "Use it with --wait after pushing; not for readiness (use gh pr-agent ready)."),
    ("get_failing_tests", "wait=false answers at once; bail_on_first returns early; detail: \"full\" adds "
     "excerpts.", "--no-wait answers at once; --bail-on-first returns early; --detail full adds excerpts."),
    ("resolve_review_thread", "by thread_id (from find_unresolved_comments, its thread_id) or comment_id; "
     "when_reviewer_spoke_last='resolve' forces it",
     "by --thread (from gh pr-agent comments, its thread_id) or --comment; "
     "--when-reviewer-spoke-last resolve forces it"),
    ("manage_stacked_prs", "Move dependent_pr onto base_pr's branch; see args.dependent_pr and pass "
     "nextCursor back as cursor.",
     "Move DEPENDENT_PR onto BASE_PR's branch; see args.dependent_pr and pass nextCursor back as --cursor."),
    ("rebase_after_squash_merge", "upstream_pr=12 or target_branch=main; a cursor is not an argument here, the "
     "target branch stays a word.", "--upstream 12 or --target main; a cursor is not an argument here, the "
     "target branch stays a word."),
    ("detect_merge_conflicts", "Pass repo_path: \"a b\" for a clone; get_failing_tests_x and "
     "my-detect_merge_conflicts are other words.",
     "Pass --repo-path 'a b' for a clone; get_failing_tests_x and my-detect_merge_conflicts are other words."),
])
def test_descriptions_speak_the_cli(tool_name: str, prose: str, said: str) -> None:
    fields = list(all_tools()[tool_name].input_model.model_fields)
    assert surface.cli_prose(tool_name, prose, fields) == said


@pytest.mark.parametrize("tool_name", sorted(all_tools()))
def test_cli_help_names_no_mcp_tool_or_argument(tool_name: str) -> None:
    import re

    import click

    t = all_tools()[tool_name]
    cmd = tool_command(t)
    page = cmd.get_help(click.Context(cmd, info_name="gh pr-agent " + t.cli_name))
    body, _, epilog = page.partition(f"MCP tool: {tool_name}.")
    assert epilog, "the epilog names the MCP tool once"
    flat = " ".join(body.split())
    for other in all_tools():
        assert not re.search(rf"(?<![\w.\-]){re.escape(other)}(?![\w\-])", flat.replace("- ", "-")), other
    for name in t.input_model.model_fields:
        if "_" in name:  # a snake_case argument is never named as MCP spells it (an output's dotted path may)
            assert not re.search(rf"(?<![\w.\-])(?<!its ){re.escape(name)}(?![\w\-]|\.\w)", flat), name
        assert not re.search(rf"(?<![\w.\-]){re.escape(name)}[=:] ?\S", flat), name
