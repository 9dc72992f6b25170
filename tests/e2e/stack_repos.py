"""Real git repositories for the stacked-PR tests, and the fakehub world that describes the same commits.

- ``origin.git``: the bare repository playing GitHub's (with ``refs/pull/N/head`` as GitHub keeps them);
- ``author``: where "other people" commit, and where GitHub's merges (merge commit, squash, rebase) are
  simulated with plain git before being pushed;
- ``clone``: the user's clone, made before the merge, whose ``origin`` is the GitHub URL fakehub plays
  (``https://github.localhost/acme/widgets.git``; ``url.<bare>.insteadOf`` makes git use the bare repo).

Commits get increasing fixed dates, so histories and the scenario built from them are deterministic.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GITHUB_URL = "https://github.localhost/acme/widgets.git"
FORK_URL = "https://github.localhost/contrib/widgets.git"
_FMT = "%H%x00%P%x00%an%x00%ae%x00%aI%x00%cI%x00%B%x1e"


@dataclass
class StackRepo:
    root: Path
    clock: int = 1_790_000_000
    prs: dict[int, dict[str, Any]] = field(default_factory=dict)
    forks: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.origin, self.author, self.clone = self.root / "origin.git", self.root / "author", self.root / "clone"
        self.root.mkdir(parents=True, exist_ok=True)
        self.git(self.root, "init", "-q", "--bare", "-b", "main", str(self.origin))
        self.git(self.root, "init", "-q", "-b", "main", str(self.author))
        self.git(self.author, "remote", "add", "origin", str(self.origin))
        self.write({"README.md": "# widgets\n", "shared.txt": "".join(f"line {i}\n" for i in range(1, 21))})
        self.commit("Initial commit")
        self.push("main")

    # ---------------------------------------------------------------- plumbing
    def env(self, **extra: str) -> dict[str, str]:
        self.clock += 60
        stamp = f"@{self.clock} +0000"
        home = self.root / "home"
        home.mkdir(exist_ok=True)
        return {**os.environ, "GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com",
                "GIT_COMMITTER_NAME": "Alice", "GIT_COMMITTER_EMAIL": "alice@example.com",
                "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp, "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": str(home), "XDG_CONFIG_HOME": str(home), **extra}

    def git(self, cwd: Path, *args: str, **env: str) -> str:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=self.env(**env),
                              check=False)
        assert proc.returncode == 0, f"git {' '.join(args)} in {cwd}: {proc.stderr}"
        return proc.stdout.strip()

    def a(self, *args: str, **env: str) -> str:
        return self.git(self.author, *args, **env)

    def write(self, files: dict[str, str]) -> None:
        for name, text in files.items():
            path = self.author / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        self.a("add", "-A")

    def commit(self, message: str, files: dict[str, str] | None = None) -> str:
        if files:
            self.write(files)
        self.a("commit", "-q", "--allow-empty", "-m", message)
        return self.a("rev-parse", "HEAD")

    def checkout(self, branch: str, start: str | None = None) -> None:
        self.a("checkout", "-q", *(["-b", branch, start] if start else [branch]))

    def push(self, *branches: str) -> None:
        # full refspecs: a branch named `+main` is pushed as `refs/heads/+main`, never read as "force-push main"
        self.a("push", "-q", "--force", "origin", *(f"refs/heads/{b}:refs/heads/{b}" for b in branches))

    def delete_remote(self, branch: str) -> None:
        self.a("push", "-q", "origin", f":refs/heads/{branch}")

    @staticmethod
    def _is_oid(text: str) -> bool:
        return len(text) == 40 and all(c in "0123456789abcdef" for c in text)

    def tip(self, branch: str, where: Path | None = None) -> str:
        return self.git(where or self.origin, "rev-parse", f"refs/heads/{branch}")

    def log_range(self, rng: str, where: Path | None = None) -> list[str]:
        out = self.git(where or self.origin, "rev-list", "--reverse", rng)
        return out.split() if out else []

    def subjects(self, rng: str, where: Path | None = None) -> list[str]:
        out = self.git(where or self.origin, "log", "--reverse", "--format=%s", rng)
        return out.splitlines() if out else []

    # ---------------------------------------------------------------- building stacks
    def branch_commits(self, branch: str, start: str, n: int, path: str, prefix: str) -> list[str]:
        """`n` commits on a new branch, each rewriting the same file (so replaying them onto a squash of
        them conflicts, as it does for real)."""
        self.checkout(branch, start if self._is_oid(start) else f"refs/heads/{start}")
        oids = []
        for i in range(1, n + 1):
            text = "".join(f"{prefix} {j}\n" for j in range(1, i + 1))
            oids.append(self.commit(f"{prefix}: step {i}", {path: text}))
        self.push(branch)
        return oids

    def open_pr(self, number: int, head: str, base: str, **extra: Any) -> None:
        """Record PR `number` as GitHub would list it now (its commits are base..head)."""
        self.git(self.origin, "update-ref", f"refs/pull/{number}/head", self.tip(head))
        self.prs[number] = {"number": number, "title": f"PR {number}", "author": "octocat", "head_ref": head,
                            "base_ref": base, "head_sha": self.tip(head), "base_sha": self.tip(base),
                            "commits": self.log_range(f"refs/heads/{base}..refs/heads/{head}"), **extra}

    def refresh_pr(self, number: int) -> None:
        pr = self.prs[number]
        head, base = pr["head_ref"], pr["base_ref"]
        self.git(self.origin, "update-ref", f"refs/pull/{number}/head", self.tip(head))
        pr.update(head_sha=self.tip(head), base_sha=self.tip(base),
                  commits=self.log_range(f"refs/heads/{base}..refs/heads/{head}"))

    def force_push(self, number: int, keep: list[str], onto: str | None = None) -> tuple[str, str]:
        """The author rewrites PR `number`'s branch: it becomes `onto` (default: the PR's fork point) plus the
        commits `keep` cherry-picked in that order (dropping, reordering or rebasing the others), force-pushed.
        GitHub records a HeadRefForcePushedEvent with the before/after heads and keeps the old commits (here
        under refs/pull-history/, so the scenario still lists them)."""
        pr = self.prs[number]
        head, before = pr["head_ref"], self.tip(pr["head_ref"])
        self.git(self.origin, "update-ref", f"refs/pull-history/{number}/{before}", before)
        start = onto or self.git(self.origin, "merge-base", f"refs/heads/{pr['base_ref']}", before)
        self.a("checkout", "-q", "-B", head, start)
        for oid in keep:
            self.a("cherry-pick", "--allow-empty", "--keep-redundant-commits", oid)
        self.push(head)
        after = self.tip(head)
        pr.setdefault("timeline", []).append({"type": "head_ref_force_pushed", "before": before, "after": after})
        self.refresh_pr(number)
        return before, after

    def user_clone(self, *branches: str, checkout: str | None = None) -> Path:
        """The user's clone as of now, with local branches for `branches`."""
        url = f"file://{self.origin}"
        self.git(self.root, "clone", "-q", "--no-local", url, str(self.clone))
        c = self.clone
        self.git(c, "remote", "set-url", "origin", GITHUB_URL)
        self.git(c, "config", f"url.{url}.insteadOf", GITHUB_URL)
        self.git(c, "config", "user.name", "Me")
        self.git(c, "config", "user.email", "me@example.com")
        for b in branches:
            if b != "main":
                self.git(c, "branch", "-q", "--track", b, f"origin/{b}")
        if checkout:
            self.git(c, "checkout", "-q", checkout)
        return c

    # ---------------------------------------------------------------- a contributor's fork
    def make_fork(self) -> Path:
        """contrib/widgets: a bare copy of origin as it is now (GitHub's "Fork"); the author can push to it."""
        self.fork = self.root / "fork.git"
        self.git(self.root, "clone", "-q", "--bare", str(self.origin), str(self.fork))
        self.a("remote", "add", "fork", str(self.fork))
        self.forks.append("contrib/widgets")
        return self.fork

    def push_fork(self, *branches: str) -> None:
        self.a("push", "-q", "--force", "fork", *(f"refs/heads/{b}:refs/heads/{b}" for b in branches))

    def open_fork_pr(self, number: int, head: str, base: str, **extra: Any) -> None:
        """PR `number` from contrib:`head` into acme's `base`. GitHub keeps its head in the base repository as
        refs/pull/N/head (so the PR's commits are listed from there)."""
        tip = self.tip(head, self.fork)
        self.a("push", "-q", "--force", "origin", f"{tip}:refs/pull/{number}/head")
        self.prs[number] = {"number": number, "title": f"PR {number}", "author": "contrib", "head_ref": head,
                            "base_ref": base, "head_sha": tip, "base_sha": self.tip(base),
                            "head_repository": "contrib/widgets", "maintainer_can_modify": True,
                            "commits": self.log_range(f"refs/heads/{base}..{tip}"), **extra}

    def contributor_clone(self, *branches: str) -> Path:
        """The contributor's clone: origin = the fork, upstream = the base repository (GitHub's fork workflow)."""
        fork_url, base_url = f"file://{self.fork}", f"file://{self.origin}"
        c = self.clone
        self.git(self.root, "clone", "-q", "--no-local", fork_url, str(c))
        self.git(c, "remote", "set-url", "origin", FORK_URL)
        self.git(c, "remote", "add", "upstream", GITHUB_URL)
        self.git(c, "config", f"url.{fork_url}.insteadOf", FORK_URL)
        self.git(c, "config", f"url.{base_url}.insteadOf", GITHUB_URL)
        self.git(c, "fetch", "-q", "upstream")
        for b in branches:
            self.git(c, "branch", "-q", "--track", b, f"origin/{b}")
        return c

    # ---------------------------------------------------------------- GitHub's merge buttons
    def _land(self, into: str) -> str:
        self.push(into)
        return self.a("rev-parse", "HEAD")

    def squash_merge(self, number: int, into: str = "main", delete: bool = True) -> str:
        pr = self.prs[number]
        self.checkout(into)
        self.a("merge", "-q", "--squash", f"refs/heads/{pr['head_ref']}")
        oid = self.commit(f"{pr['title']} (#{number})")
        self._merged(number, into, oid, delete)
        return oid

    def merge_commit(self, number: int, into: str = "main", delete: bool = True) -> str:
        pr = self.prs[number]
        self.checkout(into)
        self.a("merge", "-q", "--no-ff", "-m", f"Merge pull request #{number} from acme/{pr['head_ref']}",
               f"refs/heads/{pr['head_ref']}")
        oid = self.a("rev-parse", "HEAD")
        self._merged(number, into, oid, delete)
        return oid

    def rebase_merge(self, number: int, into: str = "main", delete: bool = True) -> str:
        pr = self.prs[number]
        self.a("checkout", "-q", "-B", "landing", f"refs/heads/{pr['head_ref']}")
        self.a("rebase", "-q", "--force-rebase", into)  # new committer, same authors/dates/messages
        self.checkout(into)
        self.a("merge", "-q", "--ff-only", "landing")
        oid = self.a("rev-parse", "HEAD")
        self._merged(number, into, oid, delete)
        return oid

    def _merged(self, number: int, into: str, oid: str, delete: bool) -> None:
        self.push(into)
        pr = self.prs[number]
        pr.update(state="MERGED", merge_commit=oid, head_ref_deleted=delete)
        if delete:
            self.delete_remote(pr["head_ref"])

    def retarget(self, number: int, base: str, was: str) -> None:
        """GitHub retargets a child PR when its base branch (a merged PR's head) is deleted."""
        pr = self.prs[number]
        pr["base_ref"] = base
        pr["base_sha"] = self.tip(base)
        pr["commits"] = self.log_range(f"refs/heads/{base}..{pr['head_sha']}")
        pr.setdefault("timeline", []).append({"type": "base_ref_changed", "previous": was, "current": base})

    # ---------------------------------------------------------------- the fakehub world
    def scenario(self) -> dict[str, Any]:
        raw = self.git(self.origin, "log", "--all", f"--format={_FMT}")
        commits = []
        for record in raw.split("\x1e"):
            parts = record.strip("\n").split("\x00")
            if len(parts) == 7:
                commits.append({"oid": parts[0], "parents": parts[1].split(), "author_name": parts[2],
                                "author_email": parts[3], "authored_date": parts[4], "committed_date": parts[5],
                                "message": parts[6].strip("\n")})
        heads = self.git(self.origin, "for-each-ref", "--format=%(refname:strip=2) %(objectname)", "refs/heads")
        branches = dict(line.rsplit(" ", 1) for line in heads.splitlines())
        return {"viewer": {"login": "octocat"},
                "repositories": [{"owner": "acme", "name": "widgets", "commits": commits, "branches": branches,
                                  "pull_requests": [dict(p) for p in self.prs.values()]},
                                 *({"owner": f.split("/")[0], "name": f.split("/")[1]} for f in self.forks)]}
