"""The CLI as a script and a person use it, run in this process (tests/unit/inproc.py): exit codes, --json
envelopes for every failure, --jq, stored preferences, the PR of the current branch, the repository flag."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.e2e.worlds import feedback_world, pr, world


def test_usage_errors_with_json_are_an_envelope_naming_the_flag(inproc) -> None:
    a = inproc(feedback_world())
    for args, field in ((("comments", "--sort", "bogus"), "--sort"), (("checks", "--log", "abc"), "--log"),
                        (("ready", "--no-such-option"), "--no-such-option")):
        ran = a.cli(*args, "--json")
        assert ran.code == 2, args
        err = ran.json()["error"]
        assert err["code"] == "invalid_arguments" and err["details"]["field"] == field
        assert "--help" in err["suggestion"]
    plain = a.cli("comments", "--sort", "bogus")
    assert plain.code == 2 and plain.stdout == "" and "bogus" in plain.stderr  # click's own words, on stderr


def test_jq_filters_the_output_like_gh(inproc) -> None:
    a = inproc(feedback_world())
    ran = a.cli("comments", "acme/widgets#7", "--jq", ".total_unresolved, .pr, (.comments | length > 0)")
    assert ran.code == 0 and ran.stdout == "9\nacme/widgets#7\ntrue\n"
    bad = a.cli("comments", "acme/widgets#7", "--jq", ".comments |")
    assert bad.code == 2 and bad.json()["error"]["details"]["field"] == "--jq"


def test_stored_preferences_apply_until_an_argument_or_unset_overrides_them(inproc) -> None:
    a = inproc(feedback_world())
    stored = a.cli("config", "set", "find_unresolved_comments.include_bots", "false")
    assert stored.code == 0 and stored.stdout == "find_unresolved_comments.include_bots = false\n"
    assert a.json("config", "get", "find_unresolved_comments.include_bots") == {
        "key": "find_unresolved_comments.include_bots", "value": False, "source": "stored", "default": True}
    listing = [line.split() for line in a.cli("config", "list").stdout.splitlines()]
    assert ["find_unresolved_comments.include_bots", "false", "(stored)"] in listing
    assert ["resolve_review_thread.when_reviewer_spoke_last", '"refuse"', "(default)"] in listing
    assert a.json("comments", "acme/widgets#7")["summary"]["bot_comments"] == 0
    assert a.json("comments", "acme/widgets#7", "--include-bots")["summary"]["bot_comments"] == 3
    assert a.cli("config", "unset", "find_unresolved_comments.include_bots").stdout.endswith(" unset\n")
    assert a.cli("config", "unset", "find_unresolved_comments.include_bots").stdout.endswith(" was not set\n")
    assert a.json("comments", "acme/widgets#7")["summary"]["bot_comments"] == 3
    wrong = a.cli("config", "set", "find_unresolved_comments.sort", "sideways")
    assert wrong.code == 2 and "sideways" in wrong.stderr
    unknown = a.cli("config", "get", "nope.nothing", "--json")
    assert unknown.code == 2 and "nope.nothing" in unknown.json()["error"]["message"]


def test_a_bad_environment_value_is_named_before_anything_runs(inproc) -> None:
    a = inproc(feedback_world())
    ran = a.cli("comments", "acme/widgets#7", "--json", GH_PR_AGENT_TIMEOUT="soon")
    assert ran.code == 2
    err = ran.json()["error"]
    assert err["code"] == "invalid_environment" and err["details"]["variable"] == "GH_PR_AGENT_TIMEOUT"
    assert a.hub.requests == []


def test_a_bare_number_needs_a_repository_from_the_flag_gh_repo_or_the_clone(inproc, tmp_path: Path) -> None:
    a = inproc(feedback_world())
    lost = a.cli("comments", "7", "--json")
    assert lost.code == 2 and lost.json()["error"]["code"] == "repository_not_determined"
    assert a.json("comments", "7", "--repo", "acme/widgets")["pr"] == "acme/widgets#7"
    assert a.json("comments", "7", GH_REPO="acme/widgets")["pr"] == "acme/widgets#7"
    clash = a.cli("comments", "acme/widgets#7", "-R", "other/repo", "--json")
    assert clash.code == 2 and clash.json()["error"]["details"]["field"] == "--repo"


def _clone(path: Path, branch: str) -> Path:
    path.mkdir()
    for args in (["init", "-q", "-b", branch], ["remote", "add", "origin", "https://github.localhost/acme/widgets.git"]):
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)
    return path


def test_without_a_pr_the_open_pr_of_the_current_branch_is_meant(inproc, tmp_path: Path) -> None:
    pulls = [pr(20, [], head_ref="reused", state="OPEN", created_at="2026-01-01T00:00:00Z"),
             pr(21, [], head_ref="reused", state="CLOSED", created_at="2026-02-01T00:00:00Z"),
             pr(30, [], head_ref="old", state="CLOSED", created_at="2026-01-01T00:00:00Z"),
             pr(31, [], head_ref="old", state="MERGED", created_at="2026-03-01T00:00:00Z")]
    a = inproc(world(*pulls))
    assert a.json("comments", cwd=_clone(tmp_path / "reused", "reused"))["pr"] == "acme/widgets#20"
    assert a.json("comments", cwd=_clone(tmp_path / "old", "old"))["pr"] == "acme/widgets#31"
    none = a.cli("comments", "--json", cwd=_clone(tmp_path / "none", "no-pr-here"))
    assert none.code == 3 and none.json()["error"]["code"] == "no_pr_for_branch"


@pytest.mark.parametrize("flags", [("--tools", "nope"), ("--read-only", "--tools", "resolve_review_thread")])
def test_mcp_refuses_a_selection_that_serves_nothing_known(inproc, flags: tuple[str, ...]) -> None:
    ran = inproc(feedback_world()).cli("mcp", *flags)
    assert ran.code == 2 and ("unknown tool" in ran.stderr or "leaves no tool" in ran.stderr)


def test_parse_review_text_names_each_finding_with_its_place_and_severity() -> None:
    from click.testing import CliRunner

    from pr_agent.cli import cli

    root = Path(__file__).resolve().parents[2]
    body = root / "fixtures/reviews/gemini/badged_findings.md"
    result = CliRunner().invoke(cli, ["parse-review", str(body), "--author", "gemini-code-assist"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "bot: gemini; 2 item(s)"
    assert lines[1].startswith("- [actionable/major] api/middleware/ratelimit.go:57: bucket.tokens is read")
    assert lines[2].startswith("- [actionable/minor] config/limits.yaml:12-14: The burst size")


class _Terminal:
    def __init__(self) -> None:
        self.written = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.written += text
        return len(text)

    def flush(self) -> None:
        pass


def test_progress_is_drawn_on_a_terminal_only_and_erased_at_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    from pr_agent.cli import TtyProgress

    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    with TtyProgress() as progress:
        assert progress.show is not None
        progress.show(1, 3, "1 of 3 checks done \x1b[31mred\x1b[0m")
    assert term.written.startswith("\r\x1b[2K1 of 3 checks done ") and term.written.endswith("\r\x1b[2K")
    assert "\x1b[31m" not in term.written  # the message's own escapes stay escaped
    monkeypatch.setattr("sys.stderr", __import__("io").StringIO())
    with TtyProgress() as piped:
        assert piped.show is None  # a pipe or a file gets no progress at all
