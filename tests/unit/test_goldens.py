"""Goldens (``fixtures/**/<case>.expected.json``) are what a reviewer agreed the parsers must answer. They are
rewritten only by the regeneration scripts (which print the diff to review), and only because something that
produces them changed: a golden changed in a commit (or in the work tree) where neither its own input
(``<case>.log`` / ``<case>.md``) nor a parser, nor the regeneration code, changed is an accepted regression
or a hand edit, and fails here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# what produces a golden: the parsers and what they use, and the code that renders goldens
PRODUCERS = ("pr_agent/ci/", "pr_agent/review/", "pr_agent/textsafe.py", "tests/unit/ci/regen_expected.py",
             "tests/unit/review/regen_expected.py", "tests/unit/review/fixture_cases.py")
INPUT_SUFFIXES = (".log", ".md", ".txt", ".json.gz")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def _is_golden(path: str) -> bool:
    return path.startswith("fixtures/") and path.endswith(".expected.json")


def _justified(golden: str, changed: set[str]) -> bool:
    stem = golden[: -len(".expected.json")]
    return any(p.startswith(PRODUCERS) for p in changed) or any(stem + s in changed for s in INPUT_SUFFIXES) or any(
        p.startswith(stem + ".") and not _is_golden(p) for p in changed)


def unjustified(commits: list[tuple[str, set[str]]]) -> dict[str, str]:
    """{golden: commit} for each golden whose last change (the first commit listing it, newest first) touched
    neither its input nor a producer."""
    seen: set[str] = set()
    bad: dict[str, str] = {}
    for sha, files in commits:
        for golden in sorted(f for f in files if _is_golden(f) and f not in seen):
            seen.add(golden)
            if not _justified(golden, files):
                bad[golden] = sha
    return bad


def _history() -> list[tuple[str, set[str]]]:
    out = _git("log", "--no-merges", "--no-renames", "--format=@@%h", "--name-only", "--", "fixtures", "pr_agent",
               "tests/unit/ci/regen_expected.py", "tests/unit/review")
    commits = []
    for block in out.split("@@")[1:]:
        sha, *files = block.split()
        commits.append((sha, set(files)))
    return commits


def _work_tree() -> set[str]:
    out = _git("status", "--porcelain", "--no-renames", "--untracked-files=all")
    return {line[3:] for line in out.splitlines() if line[3:]}


@pytest.fixture(scope="module")
def repo() -> None:
    # the suite runs from a clone (README, .ci/run); without one this rule cannot be checked, and says so
    assert shutil.which("git") and (ROOT / ".git").exists(), "run the tests from a git clone: the goldens' " \
        "history is what this check reads"


def test_every_golden_changed_with_its_input_or_a_parser(repo: None) -> None:
    bad = unjustified(_history())
    assert not bad, ("goldens changed in a commit that changed neither their input nor a parser (review them, "
                     f"then regenerate with the scripts): {bad}")


def test_no_golden_is_edited_in_the_work_tree_alone(repo: None) -> None:
    changed = _work_tree()
    bad = sorted(g for g in changed if _is_golden(g) and not _justified(g, changed))
    assert not bad, f"goldens edited without their input or a parser changing: {bad}"


def test_the_rule_itself() -> None:
    g = "fixtures/logs/go/x.expected.json"
    assert unjustified([("c2", {g}), ("c1", {g, "fixtures/logs/go/x.log"})]) == {g: "c2"}  # newest change counts
    assert unjustified([("c2", {g, "fixtures/logs/go/x.log"}), ("c1", {g})]) == {}
    assert unjustified([("c1", {g, "pr_agent/ci/parsers/go.py"})]) == {}
    assert unjustified([("c1", {g, "fixtures/logs/go/y.log"})]) == {g: "c1"}  # another case's input is no reason
    assert unjustified([("c1", {g, "README.md"})]) == {g: "c1"}
