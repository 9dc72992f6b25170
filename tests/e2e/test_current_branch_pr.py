"""The PR of the current branch (no PR argument) when a branch name was used for more than one PR (issue 19).

Branch names are reused: `fix-typo` gets a PR, it is merged or closed, and later a new PR is opened from a
branch of the same name. GitHub's `pullRequests(headRefName:)` lists all of them, newest first; the one the
user means is the open one, whichever is newer. Run through gh against fakehub in a real git clone.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.e2e.worlds import pr, world


def _clone(tmp: Path, branch: str) -> Path:
    clone = tmp / "clone"
    clone.mkdir()
    for args in (["init", "-q", "-b", branch], ["remote", "add", "origin", "https://github.localhost/acme/widgets.git"]):
        subprocess.run(["git", *args], cwd=clone, check=True)
    return clone


@pytest.mark.parametrize("old_state", ["MERGED", "CLOSED"])
def test_an_old_pr_of_a_reused_branch_name_is_not_the_current_one(agent, tmp_path: Path, old_state: str) -> None:
    old = pr(3, [], head_ref="fix-typo", state=old_state, created_at="2026-10-01T10:00:00Z")
    new = pr(9, [], head_ref="fix-typo", created_at="2026-11-01T10:00:00Z")
    a = agent(world(old, new))
    assert a.json("comments", cwd=_clone(tmp_path, "fix-typo"))["pr"] == "acme/widgets#9"


def test_the_open_pr_wins_even_when_a_closed_one_of_the_same_branch_is_newer(agent, tmp_path: Path) -> None:
    """A second PR from the same branch (to another base) opened later and closed as a duplicate."""
    current = pr(4, [], head_ref="fix-typo", created_at="2026-10-01T10:00:00Z")
    duplicate = pr(11, [], head_ref="fix-typo", base_ref="release", state="CLOSED",
                   created_at="2026-11-01T10:00:00Z")
    a = agent(world(current, duplicate))
    assert a.json("comments", cwd=_clone(tmp_path, "fix-typo"))["pr"] == "acme/widgets#4"


def test_with_only_closed_prs_the_newest_is_the_answer(agent, tmp_path: Path) -> None:
    older = pr(2, [], head_ref="fix-typo", state="CLOSED", created_at="2026-09-01T10:00:00Z")
    newer = pr(6, [], head_ref="fix-typo", state="MERGED", created_at="2026-10-01T10:00:00Z")
    a = agent(world(older, newer))
    assert a.json("comments", cwd=_clone(tmp_path, "fix-typo"))["pr"] == "acme/widgets#6"
