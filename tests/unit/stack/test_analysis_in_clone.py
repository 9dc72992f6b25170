"""The stack analysis inside the user's clone (issue 19 mutation survivors of stack/analysis.py): the conflicts
the rebase will stop on are predicted, said in the answer and make the plan high-risk; the new base's commits come
from the clone. A real git repository whose origin is the PR's repository; GitHub's side is the PRs below."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pr_agent.context import Context
from pr_agent.git import Git
from pr_agent.refs import PRRef
from pr_agent.stack.analysis import Options, analyze
from pr_agent.stack.model import Commit, Event, Pull
from tests.unit.stack.test_analysis import Src

LINES = "one\ntwo\nthree\n"


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "A",
           "GIT_COMMITTER_EMAIL": "a@example.com", "GIT_CONFIG_NOSYSTEM": "1"}
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def commit(cwd: Path, text: str, message: str) -> str:
    (cwd / "f.txt").write_text(text)
    git(cwd, "commit", "-q", "-am", message)
    return git(cwd, "rev-parse", "HEAD")


class Tips(Src):
    def __init__(self, prs: list[Pull], tips: dict[str, str]) -> None:
        super().__init__(prs, {})
        self.real_tips = tips

    def branch_tip(self, name: str) -> str | None:
        return self.real_tips.get(name)


def test_a_predicted_conflict_is_named_and_makes_the_plan_high_risk(tmp_path: Path) -> None:
    """#11 (b1: line one) was squash-merged as sq; main then changed line three (m1), which #12's d1 changes too."""
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    (tmp_path / "f.txt").write_text(LINES)
    git(tmp_path, "add", "f.txt")
    git(tmp_path, "commit", "-q", "-m", "m0")
    m0 = git(tmp_path, "rev-parse", "HEAD")
    git(tmp_path, "checkout", "-q", "-b", "feature-b")
    b1 = commit(tmp_path, "ONE\ntwo\nthree\n", "b1")
    git(tmp_path, "checkout", "-q", "-b", "feature-d")
    d1 = commit(tmp_path, "ONE\ntwo\nthree (feature-d)\n", "d1")
    git(tmp_path, "checkout", "-q", "main")
    sq = commit(tmp_path, "ONE\ntwo\nthree\n", "PR 11 (#11)")
    m1 = commit(tmp_path, "ONE\ntwo\nthree (main)\n", "m1")

    base = Pull(PRRef("acme", "widgets", 11), "PR 11", "", "MERGED", "feature-b", "main", b1, m0,
                commits=[Commit(b1, "b1", parents=(m0,))], commit_count=1, merge_commit=sq,
                merge_commit_parent_count=1, merge_commit_headline="PR 11 (#11)", events=[])
    dep = Pull(PRRef("acme", "widgets", 12), "PR 12", "", "OPEN", "feature-d", "main", d1, m0,
               commits=[Commit(b1, "b1", parents=(m0,)), Commit(d1, "d1", parents=(b1,))], commit_count=2,
               events=[Event("base_ref_changed", previous_ref="feature-b", current_ref="main")])
    a = analyze(Context(git=Git(tmp_path), env={}), Tips([base, dep], {"main": m1}), base, dep, Options())
    assert a.in_clone and (a.old.oid, a.old.how) == (b1, "head") and a.strategy.recommended == "onto"
    assert a.changes.conflicts == ["f.txt"] and a.risk == "high"
    rebase = next(s for s in a.steps if s.command.startswith("git rebase"))
    assert rebase.command == f"git rebase --onto refs/remotes/origin/main {b1} feature-d"
    assert not rebase.can_automate and "Expected conflicts in: f.txt." in rebase.description
    assert (a.changes.source, a.changes.total, [x.oid for x in a.changes.commits]) == ("local", 2, [m1, sq])
    assert a.changes.files == ["f.txt"]


def test_update_branch_after_a_squash_still_drops_the_bases_original_commits(tmp_path: Path) -> None:
    """#12 merged main (with #11's squash sq) in via "Update branch": sq is in it, yet #11's original b1 is too,
    and a rebase must leave b1 out."""
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    (tmp_path / "f.txt").write_text(LINES)
    git(tmp_path, "add", "f.txt")
    git(tmp_path, "commit", "-q", "-m", "m0")
    m0 = git(tmp_path, "rev-parse", "HEAD")
    git(tmp_path, "checkout", "-q", "-b", "feature-b")
    b1 = commit(tmp_path, "ONE\ntwo\nthree\n", "b1")
    git(tmp_path, "checkout", "-q", "-b", "feature-d")
    (tmp_path / "d.txt").write_text("d\n")
    git(tmp_path, "add", "d.txt")
    git(tmp_path, "commit", "-q", "-m", "d1")
    d1 = git(tmp_path, "rev-parse", "HEAD")
    git(tmp_path, "checkout", "-q", "main")
    sq = commit(tmp_path, "ONE\ntwo\nthree\n", "PR 11 (#11)")
    git(tmp_path, "checkout", "-q", "feature-d")
    git(tmp_path, "merge", "-q", "-m", "Merge main into feature-d", "main")
    updated = git(tmp_path, "rev-parse", "HEAD")
    git(tmp_path, "checkout", "-q", "main")

    base = Pull(PRRef("acme", "widgets", 11), "PR 11", "", "MERGED", "feature-b", "main", b1, m0,
                commits=[Commit(b1, "b1", parents=(m0,))], commit_count=1, merge_commit=sq,
                merge_commit_parent_count=1, merge_commit_headline="PR 11 (#11)", events=[])
    dep = Pull(PRRef("acme", "widgets", 12), "PR 12", "", "OPEN", "feature-d", "main", updated, m0,
               commits=[Commit(b1, "b1", parents=(m0,)), Commit(d1, "d1", parents=(b1,)),
                        Commit(updated, "Merge main into feature-d", parents=(d1, sq))], commit_count=3,
               events=[Event("base_ref_changed", previous_ref="feature-b", current_ref="main")])
    a = analyze(Context(git=Git(tmp_path), env={}), Tips([base, dep], {"main": sq}), base, dep, Options())
    assert a.merge is not None and (a.merge.method, a.merge.checked_locally) == ("squash", True)
    assert a.needs_rebase and (a.old.oid, a.old.how) == (b1, "head") and a.strategy.recommended == "onto"
    assert f"git rebase --onto refs/remotes/origin/main {b1} feature-d" in [s.command for s in a.steps]
