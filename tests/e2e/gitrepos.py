"""Real git repositories for the conflict tests: a bare ``origin`` with GitHub-style ``refs/pull/N/head``,
and a user clone whose checkout is deliberately busy (staged, unstaged, untracked changes and a stash).

The clone's ``origin`` URL is the GitHub URL fakehub pretends to be (``https://github.localhost/acme/widgets.git``);
``url.<bare>.insteadOf`` makes git fetch it from the local bare repository.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GITHUB_URL = "https://github.localhost/acme/widgets.git"
BASE_FILES: dict[str, bytes] = {
    "f.txt": b"alpha\nbeta\ngamma\ndelta\n",
    "old_name.txt": b"one\ntwo\nthree\nfour\nfive\n",
    "doomed.txt": b"keep me\nplease\n",
    "logo.bin": b"\x89PNG\x00\x01\x02base\x00",
    "README.md": b"# widgets\n",
}
# number -> (base branch changes, PR head changes); a value None deletes the file; ("mv", new) renames it.
CASES: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {
    21: ({"f.txt": b"alpha\nBETA from main\ngamma\ndelta\n"}, {"f.txt": b"alpha\nbeta from the PR\ngamma\ndelta\n"}),
    22: ({"old_name.txt": ("mv", "new_name.txt", b"one\ntwo\nTHREE (main)\nfour\nfive\n")},
         {"old_name.txt": b"one\ntwo\nthree (PR)\nfour\nfive\n"}),
    23: ({"doomed.txt": None}, {"doomed.txt": b"keep me\nplease, with a change\n"}),
    24: ({"logo.bin": b"\x89PNG\x00\x01\x02main\x00"}, {"logo.bin": b"\x89PNG\x00\x01\x02pr\x00\xff"}),
    25: ({"README.md": b"# widgets\n\nmain docs\n"}, {"f.txt": b"alpha\nbeta\ngamma\ndelta\nepsilon\n"}),
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1"}
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=env, check=False)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr.decode()}"
    return proc.stdout.decode().strip()


def _write(root: Path, changes: dict[str, Any]) -> None:
    for name, value in changes.items():
        path = root / name
        if value is None:
            git(root, "rm", "-q", name)
        elif isinstance(value, tuple):
            _, new, content = value
            git(root, "mv", name, new)
            (root / new).write_bytes(content)
        else:
            path.write_bytes(value)
    git(root, "add", "-A")


@dataclass
class Repos:
    origin: Path
    clone: Path
    heads: dict[int, str] = field(default_factory=dict)
    bases: dict[int, str] = field(default_factory=dict)


def build(root: Path) -> Repos:
    seed, origin, clone = root / "seed", root / "origin.git", root / "clone"
    seed.mkdir(parents=True)
    git(seed, "init", "-q", "-b", "main")
    for name, content in BASE_FILES.items():
        (seed / name).write_bytes(content)
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "base")
    repos = Repos(origin, clone)
    for n, (base_changes, head_changes) in CASES.items():
        git(seed, "checkout", "-q", "-b", f"base-{n}", "main")
        _write(seed, base_changes)
        git(seed, "commit", "-q", "-m", f"base side of {n}")
        repos.bases[n] = git(seed, "rev-parse", "HEAD")
        git(seed, "checkout", "-q", "-b", f"pr-{n}", "main")
        _write(seed, head_changes)
        git(seed, "commit", "-q", "-m", f"PR {n}")
        repos.heads[n] = git(seed, "rev-parse", "HEAD")
    git(root, "clone", "-q", "--bare", str(seed), str(origin))
    for n in CASES:
        git(origin, "update-ref", f"refs/pull/{n}/head", repos.heads[n])
    git(root, "clone", "-q", str(origin), str(clone))
    git(clone, "config", "remote.origin.url", GITHUB_URL)
    git(clone, "config", f"url.{origin}.insteadOf", GITHUB_URL)
    busy_checkout(clone)
    return repos


def busy_checkout(clone: Path) -> None:
    """A user in the middle of work: own branch, a stash, staged + unstaged + untracked changes."""
    git(clone, "checkout", "-q", "-b", "my-work")
    (clone / "f.txt").write_bytes(b"stashed edit\n")
    git(clone, "stash", "push", "-q", "-m", "wip")
    (clone / "README.md").write_bytes(b"# widgets\nstaged line\n")
    git(clone, "add", "README.md")
    (clone / "f.txt").write_bytes(b"alpha\nunstaged edit\n")
    (clone / "notes.tmp").write_bytes(b"untracked\n")


def checkout_state(clone: Path) -> dict[str, Any]:
    """Everything a user would notice: branch, HEAD, index bytes, working tree bytes+modes, stash, refs."""
    files = {}
    for path in sorted(clone.rglob("*")):
        rel = path.relative_to(clone)
        if rel.parts[0] == ".git" or path.is_dir():
            continue
        files[str(rel)] = (oct(path.stat().st_mode), hashlib.sha256(path.read_bytes()).hexdigest())
    dotgit = clone / ".git"
    return {
        "branch": git(clone, "symbolic-ref", "HEAD"),
        "head": git(clone, "rev-parse", "HEAD"),
        "index": hashlib.sha256((dotgit / "index").read_bytes()).hexdigest(),
        "worktree": files,
        "status": git(clone, "status", "--porcelain=v1", "--untracked-files=all"),
        "stash": git(clone, "stash", "list", "--format=%H %gs"),
        "refs": git(clone, "for-each-ref", "--format=%(refname) %(objectname)"),
        "fetch_head": (dotgit / "FETCH_HEAD").read_bytes() if (dotgit / "FETCH_HEAD").exists() else None,
        "config": (dotgit / "config").read_bytes(),
    }


def conflicts_world(repos: Repos, mergeable: dict[int, str]) -> dict[str, Any]:
    pulls = [{"number": n, "title": f"PR {n}", "head_ref": f"pr-{n}", "base_ref": f"base-{n}",
              "head_sha": repos.heads[n], "base_sha": repos.bases[n],
              "merge_state": {"mergeable": mergeable.get(n, "CONFLICTING")}} for n in CASES]
    pulls.append({"number": 26, "title": "PR 26", "head_ref": "pr-26", "base_ref": "base-21",
                  "merge_state": {"unknown_reads": -1}})
    return {"viewer": {"login": "octocat"},
            "repositories": [{"owner": "acme", "name": "widgets", "pull_requests": pulls}]}
