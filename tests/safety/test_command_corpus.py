"""One command builder (issue 18 item 2): every shell command the tools emit — found by walking every answer of the
safety corpus, whichever module built it — splits (``shlex``) into words whose canonical quoting
(:func:`shlex.quote`) is exactly what was emitted, joined only by ``&&`` / ``||`` and optionally followed by a
``#`` comment. An f-string that pastes a hostile value unquoted (``$(…)``, a backtick, ``;``, a glob, a space)
fails here, and so does any operator other than the two chain operators.

This oracle does not use the product's builder; the pasting tests (test_hostile_*.py) run the same commands in
bash against recording stubs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from pr_agent.ci.repro import reproduce_command
from tests.safety.hostile import PATHS, TEST_NAMES
from tests.safety.test_properties import RUNNERS
from tests.safety.worlds import TOOL_CASES, agent_for, baseline, run_json

PROGRAMS = ("gh", "git", "pytest", "go", "npx", "cargo", "bundle", "python", "python3", "npm", "yarn", "pnpm",
            "mvn", "gradle", "./gradlew", "dotnet", "rspec", "jest", "vitest", "tox", "make", "bun", "deno")
COMMAND_KEY = re.compile(r"command|steps|next_action|repair|plan")


def emitted(value: Any, key: str = "", inside: bool = False) -> list[tuple[str, str]]:
    """(where, text) of every string that is a command: under a command-ish key, or starting with a program."""
    out: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += emitted(v, f"{key}.{k}", inside or bool(COMMAND_KEY.search(k)))
    elif isinstance(value, list):
        for v in value:
            out += emitted(v, f"{key}[]", inside)
    elif isinstance(value, str):
        first = value.split(" ", 1)[0]
        if first in PROGRAMS or (inside and value.startswith("# ")):
            out.append((key, value))
    return out


# what a shell reads as one literal word: single-quoted runs, shlex.quote's '"'"' and the characters it leaves bare
_TOKEN = re.compile(r"(?P<space> +)|(?P<op>&&|\|\|)|(?P<comment>#[^\n\r]*\Z)|"
                    r"(?P<word>(?:'[^']*'|\"'\"|[\w@%+=:,./-])+)", re.ASCII)


def check_command(text: str) -> list[list[str]]:
    """The argvs of a command line, asserting it is literal words (every special character quoted), joined by
    ``&&`` / ``||`` only, optionally ending in a one-line ``#`` comment."""
    argvs: list[list[str]] = [[]]
    pos, last = 0, "space"
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m and m.lastgroup, f"unquoted shell syntax at {text[pos:pos + 20]!r} in {text!r}"
        kind = m.lastgroup
        assert kind == "space" or last == "space", f"no space before {m[0]!r} in {text!r}"
        if kind == "op":
            assert argvs[-1], f"an operator without a command in {text!r}"
            argvs.append([])
        elif kind == "word":
            words = shlex.split(m[0])
            assert len(words) == 1, (m[0], text)
            argvs[-1] += words
        pos, last = m.end(), kind
    assert argvs[-1] or len(argvs) == 1, f"a dangling operator in {text!r}"
    return [a for a in argvs if a]


def test_the_oracle_catches_hand_built_commands() -> None:
    for bad in ("git fetch origin $(id)", "gh auth login --hostname a.b;id>x", "git add -- `id`.py",
                "git add -- *.py", "git checkout it's", "gh pr view 7 | sh", "git log a b\nid"):
        with pytest.raises(AssertionError):
            check_command(bad)
    assert check_command("git fetch --end-of-options origin 'refs/heads/$(id)' && git merge FETCH_HEAD") == [
        ["git", "fetch", "--end-of-options", "origin", "refs/heads/$(id)"], ["git", "merge", "FETCH_HEAD"]]
    assert check_command("gh pr checkout 7 --repo acme/widgets   # commit or stash first") == [
        ["gh", "pr", "checkout", "7", "--repo", "acme/widgets"]]


def test_every_emitted_command_in_the_corpus_is_built_by_quoting_words(make_hub, tmp_path: Path) -> None:
    seen: dict[str, int] = {}
    answers = [(case.tool, baseline(make_hub, case, tmp_path / case.tool)) for case in TOOL_CASES]
    a = agent_for(make_hub, "feedback", tmp_path / "errors")
    answers += [("error", run_json(a, args)[1]) for args in (("comments", "acme/widgets#404"),
                                                               ("resolve", "acme/widgets#7", "--thread", "PRRT_x"))]
    for tool, data in answers:
        for where, text in emitted(data, tool):
            check_command(text)
            seen[where] = seen.get(where, 0) + 1
    # the walk found the commands of every tool that emits some (a walker finding nothing proves nothing)
    for tool in ("find_unresolved_comments", "get_failing_tests", "check_merge_readiness", "manage_stacked_prs",
                 "rebase_after_squash_merge"):
        assert any(w.startswith(tool) for w in seen), (tool, sorted(seen))
    assert any(".repair" in w for w in seen), sorted(seen)


# a plain failure for each runner (name, suite, file), so that every runner with reproduction commands is seen
# making one; hostile names and paths then replace each part in turn
_PLAIN: dict[str, tuple[str, str | None, str | None]] = {
    "pytest": ("tests/test_a.py::test_b", None, "tests/test_a.py"), "unittest": ("pkg.T.test_b", None, None),
    "go": ("TestB", "example.com/m", None), "jest": ("a › b", "src/a.test.js", None),
    "vitest": ("a > b", "src/a.test.ts", None), "mocha": ("a b", None, "test/a.js"),
    "cargo": ("m::t", "src/lib.rs", None), "nextest": ("m::t", None, None),
    "rspec": ("A b", None, "spec/a_spec.rb"), "phpunit": ("T::test_b", None, None), "dotnet": ("N.C.M", None, None),
    "gradle": ("com.a.T.m", "com.a.T", None), "maven": ("com.a.T.m", "com.a.T", None),
    "junit": ("com.a.T.m", "com.a.T", "src/T.java"), "playwright": ("[chromium] › a.spec.ts:3:5 › b", None, None),
    "exunit": ("test b", None, "test/a_test.exs"), "tap": ("b", "node:test", "test/a.test.js"),
    "swift-testing": ("loadsConfig()", None, None), "dart": ("b", "test/a_test.dart", None),
    "minitest": ("ATest#test_b", None, "test/a_test.rb"), "stestr": ("pkg.tests.T.test_b", None, None),
    "ctest": ("unit.vector", None, None), "sbt": ("A Cart should add an item", "shop.CartSpec", None),
    "kotest": ("io.a.CartSpec > adds an item", "io.a.CartSpec", None),
    "ava": ("a › b", None, "test/a.js"), "bun": ("a > b", "test/a.test.ts", None),
    "deno": ("a ... b", None, "a_test.ts"),
}
NO_COMMAND = {"googletest", "xctest", "catch2", "cypress", "karma", "unknown"}  # no exact rerun command for these (yet)


@pytest.mark.parametrize("runner", [r for r in RUNNERS if r])
def test_reproduction_commands_of_every_runner_are_built_by_quoting_words(runner: str) -> None:
    """The corpus worlds' CI logs hold a few runners; every runner's reproduction commands (hostile test names,
    suites and paths included) pass the same oracle."""
    if runner in NO_COMMAND:
        assert runner not in _PLAIN and reproduce_command(runner, "t", suite="s", file_path="f") is None
        return
    name, suite, path = _PLAIN[runner]
    text = reproduce_command(runner, name, suite=suite, file_path=path)
    assert text is not None, runner
    variants = [(n, suite, path) for n in TEST_NAMES] + [(name, suite and p, path and p) for p in PATHS]
    for n, su, fp in [(name, suite, path), *variants]:
        text = reproduce_command(runner, n, suite=su, file_path=fp)
        if text is not None:
            argvs = check_command(text)
            assert len(argvs) == 1 and argvs[0] == shlex.split(text), text
