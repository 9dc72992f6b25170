"""Property tests for everything that turns untrusted text into commands or reads untrusted answers:
reproduction commands, restack commands, next-step commands, the inert prose steps, terminal escaping, and the
gh gateway's parsers of GitHub's answers. Only typed errors, never a crash, bounded time; every generated
command is plain data for the shell (read back by Python's shlex it gives exactly the intended argv).

(PR references, cursors, log parsers and review parsers have their own properties under tests/unit.)"""

from __future__ import annotations

import re
import shlex
import subprocess

import orjson
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pr_agent.ci.repro import reproduce_command
from pr_agent.errors import CODES, PrAgentError
from pr_agent.ghwire import Response, http_error, parse_included, raise_graphql_errors
from pr_agent.merge import commands as mcmd
from pr_agent.merge.conflicts import MergeTreeError, conflict_hunks, group_conflicts, parse_merge_tree
from pr_agent.refs import PRRef, parse_remote_url
from pr_agent.shellcmd import comment
from pr_agent.stack import shell
from pr_agent.textsafe import terminal_safe
from pr_agent.tools.checks_view import parse_job_log_uri
from tests.safety.hostile import BRANCHES, PATHS, TEST_NAMES, TEXTS, UNSAFE_ON_TERMINAL, intended_argvs


# No per-example deadline: a wall-clock limit fails on a busy machine (speed is measured in bench/).
def git_accepts_branch(name: str) -> bool:
    """Real git's verdict on a branch name. A leading '-' would be an option on any command line, and '@' (which
    `git branch` creates) means HEAD wherever git reads a revision, e.g. the branch argument of `git rebase`."""
    if "\x00" in name or not name or name.startswith("-") or name == "@":
        return False
    if "@{" in name:  # `--branch` expands @{-N} (the previous checkout); as a ref name git refuses '@{'
        return False
    return subprocess.run(["git", "check-ref-format", "--branch", name], capture_output=True,
                          check=False).returncode == 0


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
hostile = st.sampled_from([*TEXTS, *BRANCHES, *PATHS, *TEST_NAMES])
# text that reaches deep: shell metacharacters, quotes, options, controls, bidi, separators runners use
pieces = st.sampled_from(["$(", ")", "`", "'", '"', ";", "&&", "|", "\\", "-", "--", "::", " › ", "/", " > ", ".",
                          "[", "]", "(", "{", "}", "*", "?", "^", "$", "#", "!", "~", "\x1b[31m", "\u202e", "\x9b",
                          "\t", " ", "\n", "=", "test_", "Test", "a"])
untrusted = st.one_of(hostile, st.text(max_size=60), st.lists(pieces, max_size=12).map("".join))
RUNNERS = ["pytest", "unittest", "go", "jest", "vitest", "mocha", "cargo", "nextest", "rspec", "phpunit", "dotnet",
           "gradle", "maven", "junit", "googletest", "xctest", "playwright", "exunit", "tap", "swift-testing", "dart",
           "minitest", "stestr", "catch2", "cypress", "ctest", "sbt", "kotest", "karma", "ava", "bun", "deno", "",
           "unknown"]
FLAGS = {"-run", "-t", "-E", "--exact", "--", "--lib", "--bins", "--test", "--filter", "--tests", "-k", "-m",
         "--example"}
VALUE_FLAGS = ("--grep=", "--example=", "--filter=", "-Dtest=", "FullyQualifiedName=", "--project=", "--only=test:",
               "--test-name-pattern=", "--plain-name=", "--name=", "--match=")
FLAGS |= {"--test", "-Itest", "--output-on-failure", "-R"}


@SETTINGS
@given(st.sampled_from(RUNNERS), untrusted, st.one_of(st.none(), untrusted), st.one_of(st.none(), untrusted),
       st.lists(st.sampled_from(RUNNERS), max_size=2))
def test_reproduction_commands_are_plain_data(runner: str, name: str, suite: str | None, path: str | None,
                                              runners: list[str]) -> None:
    command = reproduce_command(runner, name, suite=suite, file_path=path, runners=runners)
    if command is None:
        return
    assert "\n" not in command and "\r" not in command and "\x00" not in command
    argvs = intended_argvs(command)  # no shell operator outside quotes: one simple command
    assert len(argvs) == 1, command
    argv = argvs[0]
    assert argv == shlex.split(command)
    for arg in argv[1:]:
        if arg.startswith("-") and arg not in FLAGS and not arg.startswith(VALUE_FLAGS):
            raise AssertionError(f"untrusted text became an option: {arg!r} in {command!r}")
    if runner == "pytest" and "::" in name.strip():
        assert argv[0] == "pytest" and argv[1] in (name.strip(), "./" + name.strip())
    if runner in ("jest", "vitest") and "-t" in argv:
        sep = " › " if runner == "jest" else " > "  # each runner's own separator in its ids
        full = " ".join(part.strip() for part in name.strip().split(sep))
        assert re.fullmatch(argv[argv.index("-t") + 1], full), command
    if runner == "mocha":
        assert re.fullmatch(argv[-1][len("--grep="):], name.strip()), command
    if runner == "cargo":
        assert argv[-3:] == ["--", "--exact", name.strip()]
    if runner == "ctest":  # -R: an anchored regex selecting the name
        assert argv[:3] == ["ctest", "--output-on-failure", "-R"] and re.fullmatch(argv[3], name.strip()), command
    if runner == "sbt":  # one sbt command word; a -z text is the name, inside sbt's quotes
        assert len(argv) == 2 and argv[1].startswith("testOnly "), command
        if " -- -z " in argv[1]:
            assert argv[1].endswith(f' -- -z "{name.strip()}"') and '"' not in name and "\\" not in name, command
    if runner == "bun":  # bun's -t is matched against the titles joined by spaces (ids join them by " > ")
        assert re.fullmatch(argv[-1], " ".join(p.strip() for p in name.strip().split(" > "))), command
    if runner == "deno":  # a /regex/ filter over the top-level test's name
        pattern = argv[-1][len("--filter=/"):-1]
        assert re.fullmatch(pattern, name.strip().split(" ... ", 1)[0]), command


def _parser_runners() -> set[str]:
    from pr_agent.ci.parsers.base import BaseParser

    todo, seen = [BaseParser], set()
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        seen.add(cls.runner)
    return seen - {""}


def test_every_runner_a_parser_reports_is_in_the_property_set() -> None:
    """A runner a parser adds (its failures get reproduction commands) is fuzzed above, and by the corpus oracle
    (tests/safety/test_command_corpus.py) which reads RUNNERS."""
    import pr_agent.ci.parsers  # noqa: F401  (registers every parser class)

    runners = _parser_runners()
    assert {"pytest", "jest", "go", "cargo"} <= runners  # the walk finds the parsers
    assert runners <= set(RUNNERS), runners - set(RUNNERS)


branch = st.one_of(hostile, st.text(min_size=1, max_size=40))
sha = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)


@SETTINGS
@given(branch, branch, sha, branch)
def test_restack_commands_give_exactly_the_intended_argv(new_base: str, branch_name: str, old: str,
                                                         remote: str) -> None:
    try:
        for name in (new_base, branch_name, remote):
            assert shell.check_name(name, "branch") == name
    except PrAgentError as err:
        assert err.code == "unsafe_branch_name" and err.details["reason"]
        refused = [n for n in (new_base, branch_name, remote) if not git_accepts_branch(n)]
        assert refused, err.details  # only names git itself refuses (or '-' options) are refused
        return
    assert intended_argvs(shell.rebase_onto(new_base, old, branch_name)) == [
        ["git", "rebase", "--onto", new_base, old, branch_name]]
    assert intended_argvs(shell.rebase(new_base, branch_name)) == [["git", "rebase", new_base, branch_name]]
    assert intended_argvs(shell.push(remote, [(branch_name, old)])) == [
        ["git", "push", f"--force-with-lease=refs/heads/{branch_name}:{old}", remote,
         f"refs/heads/{branch_name}:refs/heads/{branch_name}"]]
    assert intended_argvs(shell.push(remote, [(branch_name, old), (new_base, old)])) == [
        ["git", "push", "--atomic", f"--force-with-lease=refs/heads/{branch_name}:{old}",
         f"--force-with-lease=refs/heads/{new_base}:{old}", remote,
         f"refs/heads/{branch_name}:refs/heads/{branch_name}", f"refs/heads/{new_base}:refs/heads/{new_base}"]]
    assert intended_argvs(shell.fetch(remote, [branch_name])) == [
        ["git", "fetch", remote, f"+refs/heads/{branch_name}:refs/remotes/{remote}/{branch_name}"]]
    assert intended_argvs(shell.create_branch_if_missing(remote, branch_name)) == [
        ["git", "show-ref", "--verify", "--quiet", f"refs/heads/{branch_name}"]]
    assert intended_argvs(shell.contains(old, branch_name)) == [
        ["git", "merge-base", "--is-ancestor", old, f"refs/heads/{branch_name}"]]
    ref = PRRef("acme", "widgets", 12, None)
    assert intended_argvs(shell.retarget(ref, new_base)) == [
        ["gh", "api", "--method", "PATCH", "repos/acme/widgets/pulls/12", "-f", f"base={new_base}", "--silent"]]


@SETTINGS
@given(st.integers(1, 10**9), st.sampled_from(["view", "checks", "edit", "merge", "ready", "reopen", "checkout"]),
       st.lists(untrusted.filter(lambda s: "\x00" not in s), max_size=4), st.sampled_from([None, "ghe.example.com"]))
def test_next_step_commands_give_exactly_the_intended_argv(number: int, sub: str, args: list[str],
                                                           host: str | None) -> None:
    ref = PRRef("acme", "widgets", number, host)
    repo = f"{host}/acme/widgets" if host else "acme/widgets"
    assert intended_argvs(mcmd.gh_pr(ref, sub, *args)) == [["gh", "pr", sub, str(number), "--repo", repo, *args]]
    assert intended_argvs(mcmd.pr_agent("checks", ref, wait=True)) == [
        ["gh", "pr-agent", "checks", ref.qualified, "--wait"]]
    assert intended_argvs(mcmd.gh_run(ref, "rerun", number)) == [["gh", "run", "rerun", str(number), "--repo", repo]]
    api = ["gh", "api", *(["--hostname", host] if host else [])]
    assert intended_argvs(mcmd.update_branch(ref)) == [
        [*api, "--method", "PUT", f"repos/acme/widgets/pulls/{number}/update-branch"]]


@SETTINGS
@given(untrusted)
def test_prose_steps_are_inert_one_line_comments(text: str) -> None:
    step = comment(text)
    assert step.startswith("# ") and "\n" not in step and "\r" not in step
    assert intended_argvs(step) == []
    assert not UNSAFE_ON_TERMINAL.search(step)


@SETTINGS
@given(st.one_of(untrusted, st.text()))
def test_terminal_safe_removes_every_escape(text: str) -> None:
    shown = terminal_safe(text)
    assert not UNSAFE_ON_TERMINAL.search(shown)
    assert terminal_safe(shown) == shown


@SETTINGS
@given(st.text(max_size=300), st.integers(-2, 130))
def test_merge_tree_output_parses_or_is_a_typed_error(stdout: str, returncode: int) -> None:
    try:
        result = parse_merge_tree(stdout, returncode)
    except MergeTreeError:
        return
    for conflict in group_conflicts(result):
        assert conflict.conflict_type and conflict.path is not None
        conflict.deleted_in  # noqa: B018 (must not raise)


@SETTINGS
@given(st.lists(st.sampled_from(["<<<<<<< a", "=======", ">>>>>>> b", "||||||| base", "x", ""]), max_size=40))
def test_conflict_hunks_never_crash(lines: list[str]) -> None:
    hunks, total = conflict_hunks("\n".join(lines))
    assert total >= len(hunks)


@SETTINGS
@given(st.binary(max_size=400))
def test_gh_answers_parse_or_fail_typed(raw: bytes) -> None:
    parsed = parse_included(b"HTTP/1.1 200 OK\r\n" + raw)
    assert parsed is None or isinstance(parsed[0], int)
    parse_included(raw)
    for status in (200, 204, 403, 404, 429, 500):
        try:
            Response(status, {"content-type": "application/json"}, raw).json()
        except PrAgentError as err:
            assert err.code == "unexpected_response" and err.temporary
        err = http_error(status if status >= 400 else 418, {"retry-after": raw[:5].decode("latin-1")}, raw, "GET x")
        assert err.code in CODES


json_values = st.recursive(st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=4), max_leaves=20)


@SETTINGS
@given(json_values, st.dictionaries(st.sampled_from(["x-ratelimit-reset", "x-ratelimit-remaining", "retry-after"]),
                                    st.text(max_size=12)))
def test_graphql_errors_are_typed(doc: object, headers: dict[str, str]) -> None:
    body = orjson.dumps({"data": None, "errors": doc} if not isinstance(doc, dict) else doc)
    try:
        raise_graphql_errors(headers, body, "graphql X")
    except PrAgentError as err:
        assert err.code in CODES and err.message


@SETTINGS
@given(st.one_of(untrusted, st.text(max_size=200)))
@example("//[")  # found by this test: urlsplit raised on an unbalanced IPv6 bracket
@example("https://[broken/acme/widgets.git")
def test_remote_urls_and_resource_uris_never_crash(text: str) -> None:
    parse_remote_url(text)
    parse_job_log_uri(text)
    parse_job_log_uri("pr-agent://job-log/" + text)


ODD_BRANCHES = ["+main", "+refs/heads/main", "refs/heads/main", "origin/main", "@", "HEAD", "a.lock", "x.", ".x",
                "a..b", "a@{b", "@{-1}", "a:b", "x\\y", "a//b", "/a", "a/", "ünï/✓", "main^", "m~1", "q?", "s*", "[x",
                "+", "a/.b", "a.b/c.lock/d", "-", "with space", "tab\tname", "del\x7f"]


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.sampled_from(BRANCHES + ODD_BRANCHES), st.text(alphabet="ab/.-+@{}:~^ \\*?[lock\x01", max_size=8)))
def test_branch_name_rules_are_gits(name: str) -> None:
    """shell.check_name refuses exactly the names real git refuses (`git check-ref-format --branch`)."""
    assert (shell.ref_format_problem(name) is None) is git_accepts_branch(name), name
