"""How a merged base PR landed, checked on content in the clone (issue 19 mutation survivors of stack/merge.py):
a merge commit, a rebase merge of one or more commits, a squash, an edited squash that proves nothing, and a
landed commit the clone lacks. Real git repositories; each landing is made here with plain git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pr_agent.git import Git
from pr_agent.refs import PRRef
from pr_agent.stack.local import Clone
from pr_agent.stack.merge import MergeFacts, confirm_locally
from pr_agent.stack.model import Pull

API = MergeFacts("squash", ["GitHub says: one parent."])


class Repo:
    """main: m0 - m1; feature from m0: d1 - d2 (touching their own files, so every landing is clean)."""

    def __init__(self, root: Path) -> None:
        self.root, self.clock = root, 1_790_000_000
        self.git("init", "-q", "-b", "main")
        self.m0 = self.commit("m.txt", "m0\n", "m0")
        self.git("checkout", "-q", "-b", "feature")
        self.d1 = self.commit("d1.txt", "d1\n", "d1")
        self.d2 = self.commit("d2.txt", "d2\n", "d2")
        self.git("checkout", "-q", "main")
        self.m1 = self.commit("m.txt", "m1\n", "m1")

    def git(self, *args: str) -> str:
        self.clock += 60
        stamp = f"@{self.clock} +0000"
        env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "C",
               "GIT_COMMITTER_EMAIL": "c@example.com", "GIT_COMMITTER_DATE": stamp, "GIT_CONFIG_NOSYSTEM": "1",
               **({"GIT_AUTHOR_DATE": stamp} if args[0] == "commit" else {})}
        proc = subprocess.run(["git", *args], cwd=self.root, env=env, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()

    def commit(self, name: str, text: str, message: str) -> str:
        (self.root / name).write_text(text)
        self.git("add", name)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def check(self, landed: str, head: str | None = None, commits: int = 2) -> MergeFacts:
        pull = Pull(PRRef("acme", "widgets", 7), "t", "", "MERGED", "feature", "main", head or self.d2, self.m0,
                    merge_commit=landed, commit_count=commits)
        return confirm_locally(Clone(Git(self.root), "origin", str(self.root)), pull, API)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path)


def test_a_merge_commit_names_the_prs_head_as_its_second_parent(repo: Repo) -> None:
    repo.git("merge", "-q", "--no-ff", "-m", "Merge #7", "feature")
    facts = repo.check(repo.head())
    short = repo.head()[:12]
    assert facts == MergeFacts("merge", [f"The landed commit {short} has 2 parents (a merge commit).",
                                         f"Its second parent is #7's last head commit {repo.d2[:12]}."], True)


def test_a_merge_commit_whose_first_parent_is_the_head_does_not_claim_it_as_the_second(repo: Repo) -> None:
    repo.git("checkout", "-q", "feature")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge main into feature", "main")  # parents: d2, m1
    facts = repo.check(repo.head())
    assert facts.method == "merge" and facts.evidence == [
        f"The landed commit {repo.head()[:12]} has 2 parents (a merge commit)."]


@pytest.mark.parametrize(("picked", "what"), [(1, "one commit"), (2, "2 commits")])
def test_a_rebase_merge_replays_the_prs_commits_with_their_messages_and_dates(repo: Repo, picked: int,
                                                                              what: str) -> None:
    head = repo.d2 if picked == 2 else repo.d1
    repo.git("cherry-pick", *([repo.d1, repo.d2][:picked]))  # keeps messages and author dates, as GitHub does
    facts = repo.check(repo.head(), head, picked)
    assert facts == MergeFacts("rebase", [
        f"#7's {what} were replayed onto the base with the same messages and author dates, ending at "
        f"{repo.head()[:12]}, and the result has exactly the PR's content (a rebase merge)."], True)


def test_a_squash_applies_exactly_the_prs_changes(repo: Repo) -> None:
    repo.git("merge", "-q", "--squash", "feature")
    repo.git("commit", "-q", "-m", "Feature (#7)")
    facts = repo.check(repo.head())
    assert facts == MergeFacts("squash", [
        f"The landed commit {repo.head()[:12]} applies exactly the combined changes of #7's 2 commit(s) "
        "(tree equivalence): a squash merge."], True)


def test_an_edited_squash_proves_nothing_and_keeps_the_apis_verdict(repo: Repo) -> None:
    repo.git("merge", "-q", "--squash", "feature")
    (repo.root / "d2.txt").write_text("d2, edited while merging\n")
    repo.git("add", "d2.txt")
    repo.git("commit", "-q", "-m", "Feature (#7)")
    facts = repo.check(repo.head())
    assert facts.method == "squash" and facts.checked_locally
    assert facts.evidence == [*API.evidence, f"The content of {repo.head()[:12]} differs from #7's combined changes "
                              "(edited or conflict-resolved while merging); the method could not be proven."]


def test_a_landed_commit_the_clone_lacks_leaves_the_apis_verdict(repo: Repo) -> None:
    assert repo.check("e" * 40) is API
    assert repo.check(repo.m1, head="e" * 40) is API


def test_a_fast_forwarded_head_is_not_a_crash(repo: Repo) -> None:
    """GitHub marks a PR merged when its head is pushed to the base as is: the landed commit is the head."""
    facts = repo.check(repo.d2)
    assert facts.checked_locally and facts.method == "squash" and "(tree equivalence)" in facts.evidence[0]
