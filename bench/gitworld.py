"""The real git history behind the benchmark's ``acme/widgets`` (for conflicts, stack and rebase-after-squash).

Built with plain git by ``tests/e2e/stack_repos.StackRepo`` (fixed author dates, so the commit ids are the
same on every run): a bare ``origin.git`` playing GitHub's repository (with ``refs/pull/N/head``), and the
fakehub scenario keys that describe the same commits (repository ``commits``/``branches``; per pull request
``head_sha``, ``base_sha``, ``commits``, ``merge_commit``, ``timeline``).

- **#4242** ``feature/streaming-parser`` → ``main``: three commits; ``main`` moved on meanwhile, so the merge
  conflicts in three files (two content conflicts, one of them with two hunks, and a modify/delete).
- **The stack** #4301 ``stack/base`` ← #4302 ``stack/middle`` ← #4303 ``stack/top``: #4301 (3 commits) was
  squash-merged into ``main`` and its branch deleted, so GitHub retargeted #4302 to ``main``; #4302 and
  #4303 still carry #4301's original commits. ``clone`` is the user's clone from before the merge (local
  ``stack/middle`` and ``stack/top``, ``stack/middle`` checked out).

``user_clone(world, dest)`` makes another clone whose ``origin`` is the GitHub URL fakehub plays
(``url.<bare>.insteadOf``), as tests/e2e/gitrepos.py does for the conflict tests.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BIG, STACK = 4242, (4301, 4302, 4303)
GITHUB_URL = "https://github.localhost/acme/widgets.git"


def _lines(prefix: str, n: int) -> str:
    return "".join(f"{prefix} line {i}\n" for i in range(1, n + 1))


def _edit(text: str, changes: dict[int, str]) -> str:
    lines = text.splitlines(keepends=True)
    for i, new in changes.items():
        lines[i - 1] = new + "\n"
    return "".join(lines)


PARSER = _lines("parser", 60)
IO = _lines("io", 40)
LEGACY = _lines("legacy", 20)


@dataclass
class GitWorld:
    root: Path
    origin: Path
    clone: Path  # the user's clone for the stack tools (made before #4301 was merged)
    repo: dict[str, Any]  # repository-level scenario keys: commits, branches
    pulls: dict[int, dict[str, Any]]  # per PR: head/base refs and shas, commits, merge state


def build(root: Path) -> GitWorld:
    from tests.e2e.stack_repos import StackRepo

    r = StackRepo(root)
    r.checkout("main")
    r.commit("Add the parser", {"src/widgets/parser.py": PARSER, "src/widgets/io.py": IO,
                                "src/widgets/legacy.py": LEGACY, "src/stack.py": _lines("stack", 10)})
    r.push("main")
    # The stack, opened while main is still here.
    r.branch_commits("stack/base", "main", 3, "src/stack_base.py", "stack-base")
    r.branch_commits("stack/middle", "stack/base", 2, "src/stack_middle.py", "stack-middle")
    r.branch_commits("stack/top", "stack/middle", 2, "src/stack_top.py", "stack-top")
    r.open_pr(STACK[0], "stack/base", "main")
    r.open_pr(STACK[1], "stack/middle", "stack/base")
    r.open_pr(STACK[2], "stack/top", "stack/middle")
    clone = r.user_clone("stack/middle", "stack/top", checkout="stack/middle")
    # The large PR's branch.
    r.checkout("feature/streaming-parser", "main")
    r.commit("Stream the parser input", {"src/widgets/parser.py": _edit(PARSER, {12: "    for chunk in stream:",
                                                                               13: "        yield parse(chunk)"})})
    r.commit("Read in chunks", {"src/widgets/io.py": _edit(IO, {7: "CHUNK = 1 << 16  # PR"})})
    r.a("rm", "-q", "src/widgets/legacy.py")
    r.commit("Drop the legacy reader; error on bad headers",
             {"src/widgets/parser.py": _edit(PARSER, {12: "    for chunk in stream:", 13: "        yield parse(chunk)",
                                                      48: "    raise HeaderError(name)  # PR"})})
    r.push("feature/streaming-parser")
    # #4301 lands (squash), its branch is deleted and GitHub retargets #4302; main then moves on.
    r.squash_merge(STACK[0], delete=True)
    r.retarget(STACK[1], "main", was="stack/base")
    r.checkout("main")
    r.commit("Parser: buffer lines", {"src/widgets/parser.py": _edit(PARSER, {12: "    buf = read_all(stream)",
                                                                            48: "    return None  # main"})})
    r.commit("IO: smaller chunks; legacy reader fix", {"src/widgets/io.py": _edit(IO, {7: "CHUNK = 4096  # main"}),
                                                       "src/widgets/legacy.py": _edit(LEGACY, {5: "fixed on main"})})
    r.commit("Docs", {"README.md": "# widgets\n\nStreaming parser coming soon.\n"})
    r.push("main")
    r.open_pr(BIG, "feature/streaming-parser", "main")
    r.refresh_pr(STACK[1])
    scen = r.scenario()["repositories"][0]
    pulls = {n: {k: v for k, v in pr.items() if k not in ("number", "title", "author")} for n, pr in r.prs.items()}
    return GitWorld(root, r.origin, clone, {"commits": scen["commits"], "branches": scen["branches"]}, pulls)


def user_clone(world: GitWorld, dest: Path) -> Path:
    """A fresh clone of the bare origin whose ``origin`` is GitHub's URL (fetches go to the bare repo)."""
    url = f"file://{world.origin}"

    def git(*args: str, cwd: Path = world.root) -> None:
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                       env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(world.root / "home")})

    git("clone", "-q", "--no-local", url, str(dest))
    git("remote", "set-url", "origin", GITHUB_URL, cwd=dest)
    git("config", f"url.{url}.insteadOf", GITHUB_URL, cwd=dest)
    return dest
