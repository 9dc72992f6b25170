"""What the local clone can tell: ancestry, the dependent branch's local state, worktrees, upstream
changes and predicted conflicts. Everything here reads; the only writes are objects (fetched commits
and unreferenced probe commits), never a ref, the index, the working tree or HEAD."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from pr_agent.git import Git, LogEntry
from pr_agent.refs import PRRef, parse_remote_url

BranchState = Literal["missing", "same", "behind", "ahead", "diverged"]
_REMOTE_ORDER = {"origin": 0, "upstream": 1, "github": 2}


@dataclass(frozen=True)
class LocalBranch:
    name: str
    state: BranchState
    oid: str | None = None
    unpushed: int = 0   # local commits GitHub does not have
    missing: int = 0    # GitHub commits the local branch lacks
    worktree: str | None = None  # another worktree that has it checked out
    checked_out_here: bool = False


class Clone:
    """A clone of the PR's repository (the current directory), reached through `remote`."""

    def __init__(self, git: Git, remote: str, toplevel: str) -> None:
        self.git = git
        self.remote = remote
        self.toplevel = toplevel
        self.fetch_failed = False
        self._present: set[str] = set()  # commits known to be here (objects never go away during one analysis)

    @classmethod
    def detect(cls, git: Git, repo: PRRef, env: Mapping[str, str]) -> Clone | None:
        """The clone we run in, if one of its remotes is `repo` on the same host; else None."""
        if not git.is_repo():
            return None
        host = (repo.host or env.get("GH_HOST") or "github.com").lower()
        matches = []
        for name, url in git.remotes():
            spec = parse_remote_url(url)
            if (spec and spec.owner.lower() == repo.owner.lower() and spec.repo.lower() == repo.repo.lower()
                    and (spec.host or "github.com") == host):
                matches.append(name)
        top = git.toplevel()
        if not matches or not top:
            return None
        matches.sort(key=lambda n: (_REMOTE_ORDER.get(n, 9), n))
        return cls(git, matches[0], top)

    def ensure(self, oids: Iterable[str | None]) -> list[str]:
        """Fetch the commits the clone lacks (by id, objects only); return the ones still missing."""
        missing = sorted({o for o in oids if o and not self.has(o)})
        if missing and not self.git.fetch_objects(self.remote, missing):
            self.fetch_failed = True
        return [o for o in missing if not self.has(o)]

    def has(self, oid: str | None) -> bool:
        """Whether the clone has commit `oid` (a yes is remembered; a no is asked again: a fetch may bring it)."""
        if not oid:
            return False
        if oid not in self._present and self.git.has_commit(oid):
            self._present.add(oid)
        return oid in self._present

    def is_ancestor(self, ancestor: str, descendant: str) -> bool | None:
        return self.git.is_ancestor(ancestor, descendant)

    def merge_base(self, a: str, b: str) -> str | None:
        return self.git.merge_base(a, b)

    def branch(self, name: str, github_oid: str) -> LocalBranch:
        """The local branch `name` compared with GitHub's head commit."""
        worktree, here = None, False
        me = os.path.realpath(self.toplevel)
        for path, ref in self.git.worktrees():
            if ref == f"refs/heads/{name}":
                if os.path.realpath(path) == me:
                    here = True
                else:
                    worktree = path
        local = self.git.rev_parse_commit(f"refs/heads/{name}")
        if not local:
            return LocalBranch(name, "missing", worktree=worktree)
        if local == github_oid:
            return LocalBranch(name, "same", local, worktree=worktree, checked_out_here=here)
        unpushed = self.git.count(local, f"^{github_oid}") or 0
        lacking = self.git.count(github_oid, f"^{local}") or 0
        state: BranchState = "ahead" if lacking == 0 else "behind" if unpushed == 0 else "diverged"
        return LocalBranch(name, state, local, unpushed, lacking, worktree, here)

    def new_commits(self, new_tip: str, dependent_head: str, limit: int) -> tuple[int, list[LogEntry]]:
        """Commits on the new base that the dependent branch does not have (newest first)."""
        total = self.git.count(new_tip, f"^{dependent_head}") or 0
        return total, self.git.log(new_tip, f"^{dependent_head}", max_count=limit)

    def files_changed(self, new_tip: str, dependent_head: str) -> list[str]:
        base = self.merge_base(new_tip, dependent_head)
        return self.git.changed_files(base, new_tip) if base else []

    def predicted_conflicts(self, new_tip: str, old_base: str, dependent_head: str) -> list[str] | None:
        """Paths that conflict when old_base..dependent_head is replayed onto new_tip, as one 3-way merge
        with old_base as the merge base (the cumulative effect of the rebase). None when it cannot tell."""
        ours_tree, theirs_tree = self.git.tree(new_tip), self.git.tree(dependent_head)
        if not ours_tree or not theirs_tree:
            return None
        ours = self.git.probe_commit(ours_tree, old_base)
        theirs = self.git.probe_commit(theirs_tree, old_base)
        if not ours or not theirs:
            return None
        _tree, names, clean = self.git.merge_tree_names(ours, theirs)
        return None if clean is None else names

    def contains_content(self, tip: str, head: str) -> bool | None:
        """Whether merging `head` into `tip` changes nothing: head's changes are already in tip."""
        tree, _names, clean = self.git.merge_tree_names(tip, head)
        return None if clean is None else bool(clean and tree == self.git.tree(tip))
