"""THE gateway to `git`. No other module spawns git.

Arguments are always an argv list (never a shell string), so branch names and paths from other
people stay data. Output is captured; a missing git or a directory outside a repository is a typed
error.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pr_agent import surface
from pr_agent.errors import PrAgentError, command_repair
from pr_agent.executables import which
from pr_agent.gitsafe import (
    ALWAYS,
    HEX,
    PROGRAM_KEYS,
    SAFE_ENV,
    UPLOAD_PACK,
    invalid_revision,
    overrides,
    revision,
)

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+")

@dataclass(frozen=True)
class GitResult:
    returncode: int
    stdout: str
    stderr: str


class Git:
    def __init__(self, cwd: str | os.PathLike[str] | None = None, *, timeout: float = 120.0) -> None:
        self.cwd = Path(cwd) if cwd is not None else Path.cwd()
        self.timeout = timeout
        self._overrides: list[str] | None = None
        self._good_refs: set[str] = set()

    def _git(self) -> str:
        path = which("git")
        if not path:
            raise PrAgentError("git_not_found", "git was not found on PATH.",
                               suggestion="Install git (https://git-scm.com/downloads).")
        return path

    def require(self) -> None:
        """Raise git_not_found unless git is installed (for callers that cannot work without it)."""
        self._git()

    def call(self, *args: str) -> GitResult:
        """Run git with the repository's programs disabled (pr_agent/gitsafe.py); never raises for a non-zero
        exit (the caller decides)."""
        if self._overrides is None:
            self._overrides = []  # the lookup itself runs with the fixed safeguards only
            found = self._raw("config", "--show-scope", "--get-regexp", PROGRAM_KEYS)
            self._overrides = overrides(found.stdout) if found.returncode == 0 else []
        return self._raw(*self._overrides, *args)

    def _raw(self, *args: str, guarded: bool = True) -> GitResult:
        env = dict(os.environ, **SAFE_ENV)
        try:
            proc = subprocess.run([self._git(), *(ALWAYS if guarded else ()), *args], cwd=self.cwd,
                                  capture_output=True, text=True, encoding="utf-8", errors="replace",
                                  timeout=self.timeout, env=env,
                                  check=False, stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise PrAgentError("not_a_git_repository", f"The directory {self.cwd} does not exist.",
                               suggestion="Run the command inside a clone of the repository.",
                               details={"path": str(self.cwd)}) from None
        return GitResult(proc.returncode, proc.stdout, proc.stderr)

    def run(self, *args: str) -> str:
        """Run git and return stdout; a non-zero exit raises a typed error."""
        res = self.call(*args)
        if res.returncode != 0:
            if "not a git repository" in res.stderr:
                raise self.not_a_repo()
            raise PrAgentError("internal_error", f"git {args[0]} failed: {res.stderr.strip()[:300]}",
                               suggestion="Run the same git command yourself to see what is wrong.",
                               details={"argv": ["git", *args], "exit_code": res.returncode})
        return res.stdout

    def revs(self, *values: str, exclude: bool = False) -> list[str]:
        """Validated revisions (full hex ids, or refs/… names ``git check-ref-format`` accepts); raises
        ``invalid_arguments`` for anything else — a value from GitHub never becomes an option."""
        out = []
        for value in values:
            checked, ref = revision(value, exclude=exclude)
            if ref is not None and ref not in self._good_refs:
                if self._raw("check-ref-format", ref).returncode != 0:
                    raise invalid_revision(value, "git check-ref-format refuses it")
                self._good_refs.add(ref)
            out.append(checked)
        return out

    def not_a_repo(self) -> PrAgentError:
        return PrAgentError(
            "not_a_git_repository", f"{self.cwd} is not inside a git repository.",
            suggestion=surface.text("Run inside a clone, or name the PR fully (owner/repo#123)",
                                    surface.face(cli=" or pass --repo OWNER/REPO.", mcp=".")),
            details={"path": str(self.cwd)})

    def is_repo(self) -> bool:
        """Inside a repository? False when git is not installed: then nothing can use a clone, and the tools
        that only use one when they are in it answer from GitHub alone."""
        if which("git") is None:
            return False
        return self.call("rev-parse", "--git-dir").returncode == 0

    def current_branch(self) -> str | None:
        res = self.call("symbolic-ref", "--quiet", "--short", "HEAD")
        if res.returncode != 0:
            return None
        return res.stdout.strip() or None

    def config_get(self, key: str) -> str | None:
        res = self.call("config", "--get", key)
        return res.stdout.strip() if res.returncode == 0 else None

    def config_regexp(self, pattern: str) -> list[tuple[str, str]]:
        res = self.call("config", "--get-regexp", pattern)
        out = []
        for line in res.stdout.splitlines() if res.returncode == 0 else []:
            key, _, value = line.partition(" ")
            out.append((key, value))
        return out

    def remotes(self) -> list[tuple[str, str]]:
        """(name, fetch url) of every remote."""
        pairs = self.config_regexp(r"^remote\..*\.url$")
        return [(key[len("remote.") : -len(".url")], url) for key, url in pairs]

    # -- read-only plumbing for merge analysis (never touches the working tree, index, HEAD or stash) --
    def version(self) -> tuple[int, int, int]:
        out = self._raw("--version", guarded=False).stdout  # reads no repository
        m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
        if not m:
            return (0, 0, 0)
        return (int(m[1]), int(m[2]), int(m[3] or 0))

    def require_version(self, minimum: tuple[int, int, int], feature: str) -> tuple[int, int, int]:
        have = self.version()
        if have < minimum:
            need = ".".join(map(str, minimum))
            raise PrAgentError(
                "git_too_old", f"git {'.'.join(map(str, have))} is too old for {feature}; it needs git {need}+.",
                suggestion=f"Upgrade git to {need} or newer (https://git-scm.com/downloads), then run the same "
                "command again.",
                details={"git_version": ".".join(map(str, have)), "minimum": need, "feature": feature},
                repair=command_repair(["git", "--version"]))
        return have

    def rev_parse_commit(self, rev: str) -> str | None:
        """The commit a revision names, or None when it does not exist."""
        res = self.call("rev-parse", "--verify", "--quiet", "--end-of-options", f"{self.revs(rev)[0]}^{{commit}}")
        return res.stdout.strip() or None if res.returncode == 0 else None

    def fetch_into(self, remote: str, refspecs: list[str]) -> GitResult:
        """Fetch ``src:dst`` refspecs into private refs only: no FETCH_HEAD, no remote-tracking update
        (``--refmap=``), no tags, no submodules, no auto-gc. HEAD, index, worktree and stash are untouched."""
        return self.call("-c", "gc.auto=0", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--refmap=",
                         "--no-recurse-submodules", "--no-auto-maintenance", UPLOAD_PACK, "--end-of-options", remote,
                         *refspecs)


    def delete_refs(self, refs: list[str]) -> None:
        for ref in self.revs(*refs):
            self.call("update-ref", "--no-deref", "-d", "--end-of-options", ref)

    def merge_tree(self, branch1: str, branch2: str) -> GitResult:
        """``git merge-tree --write-tree -z --messages`` with the stage lines (needs git >= 2.38).

        Writes only objects; a plain conflict style keeps the markers parseable whatever the config says."""
        return self.call("-c", "merge.conflictStyle=merge", "merge-tree", "--write-tree", "-z", "--messages",
                         "--end-of-options", *self.revs(branch1, branch2))

    def merge_base(self, a: str, b: str) -> str | None:
        res = self.call("merge-base", "--end-of-options", *self.revs(a, b))
        return res.stdout.strip() or None if res.returncode == 0 else None

    def renames(self, old: str, new: str) -> list[tuple[str, str]]:
        """(old path, new path) of the renames between two commits."""
        res = self.call("diff", "--no-ext-diff", "--no-textconv", "--name-status", "-M", "-z", "--end-of-options",
                        *self.revs(old, new), "--")
        parts = res.stdout.split("\0") if res.returncode == 0 else []
        out, i = [], 0
        while i < len(parts) and parts[i]:
            status = parts[i]
            if status.startswith(("R", "C")) and i + 2 < len(parts):
                if status.startswith("R"):
                    out.append((parts[i + 1], parts[i + 2]))
                i += 3
            else:
                i += 2
        return out

    def names_in(self, commit: str, dirs: list[str]) -> set[str]:
        """Every path directly inside each of `dirs` ("" = the top) in `commit`'s tree, as full paths."""
        out: set[str] = set()
        for d in dict.fromkeys(dirs):
            res = self.call("ls-tree", "-z", "--name-only", "--full-tree", "--end-of-options", *self.revs(commit),
                            *(["--", f"{d}/"] if d else []))
            out |= {p for p in res.stdout.split("\0") if p} if res.returncode == 0 else set()
        return out

    def show(self, spec: str) -> str | None:
        """The content of a blob (``<oid>`` or ``<tree-ish>:<path>``); None if it does not exist."""
        oid, sep, path = spec.partition(":")
        if not HEX.fullmatch(oid):
            raise invalid_revision(spec, "a blob is named by a full object id (optionally :path)")
        res = self.call("cat-file", "blob", "--end-of-options", f"{oid}{sep}{path}")
        return res.stdout if res.returncode == 0 else None

    def blob_size(self, oid: str) -> int | None:
        res = self.call("cat-file", "-s", "--end-of-options", *self.revs(oid))
        return int(res.stdout.strip()) if res.returncode == 0 and res.stdout.strip().isdigit() else None

    def diff_blobs(self, old: str, new: str, context: int = 1) -> str:
        res = self.call("diff", "--no-ext-diff", "--no-textconv", "--no-color", f"-U{int(context)}", "--end-of-options",
                        *self.revs(old, new), "--")
        return res.stdout if res.returncode in (0, 1) else ""

    # -- read-only plumbing for stacked-PR analysis (writes at most unreferenced objects) --------------
    def has_commit(self, oid: str) -> bool:
        return self.call("cat-file", "-e", "--end-of-options", f"{self.revs(oid)[0]}^{{commit}}").returncode == 0

    def is_ancestor(self, ancestor: str, descendant: str) -> bool | None:
        """True/False, or None when git cannot tell (a missing object)."""
        rc = self.call("merge-base", "--is-ancestor", "--end-of-options", *self.revs(ancestor, descendant)).returncode
        return True if rc == 0 else False if rc == 1 else None

    def log(self, *revs: str, max_count: int | None = None, first_parent: bool = False) -> list[LogEntry]:
        """Commits of ``git log REVS`` (newest first): oid, parents, author, ISO date, unix date, subject."""
        argv = ["log", "--no-color", "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%at%x00%s%x1e"]
        if first_parent:
            argv.append("--first-parent")
        if max_count is not None:
            argv.append(f"--max-count={max_count}")
        res = self.call(*argv, "--end-of-options", *self.revs(*revs, exclude=True), "--")
        out = []
        for record in res.stdout.split("\x1e") if res.returncode == 0 else []:
            parts = record.strip("\n").split("\x00")
            if len(parts) == 7:
                out.append(LogEntry(parts[0], tuple(parts[1].split()), parts[2], parts[3], parts[4],
                                    int(parts[5] or 0), parts[6]))
        return out

    def same_patch(self, left: str, right: str) -> set[str] | None:
        """Commits of ``left...right`` on the right side whose patch-id equals a left-side commit
        (``git rev-list --cherry-mark --right-only``, merges left out); None when git cannot tell."""
        a, b = self.revs(left, right)
        res = self.call("rev-list", "--cherry-mark", "--right-only", "--no-merges", "--end-of-options", f"{a}...{b}",
                        "--")
        if res.returncode != 0:
            return None
        return {line[1:] for line in res.stdout.split() if line.startswith("=")}

    def count(self, *revs: str) -> int | None:
        res = self.call("rev-list", "--count", "--end-of-options", *self.revs(*revs, exclude=True), "--")
        return int(res.stdout.strip()) if res.returncode == 0 and res.stdout.strip().isdigit() else None

    def old_side_hunks(self, old: str, new: str, path: str) -> list[tuple[int, int]] | None:
        """Line ranges of ``path`` at ``old`` that changed by ``new`` (a pure insertion after line n is
        (n, n+1)); None when git cannot tell (a commit missing, not a repository)."""
        res = self.call("diff", "--no-ext-diff", "--no-color", "-U0", old, new, "--", path)
        if res.returncode != 0:
            return None
        out = []
        for line in res.stdout.split("\n"):
            m = _HUNK.match(line)
            if m:
                start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
                out.append((start, start + 1) if count == 0 else (start, start + count - 1))
        return out

    def changed_files(self, old: str, new: str) -> list[str]:
        res = self.call("diff", "--no-ext-diff", "--no-textconv", "--name-only", "-z", "--end-of-options",
                        *self.revs(old, new), "--")
        return [p for p in res.stdout.split("\0") if p] if res.returncode == 0 else []

    def tree(self, rev: str) -> str | None:
        res = self.call("rev-parse", "--verify", "--quiet", "--end-of-options", f"{self.revs(rev)[0]}^{{tree}}")
        return res.stdout.strip() or None if res.returncode == 0 else None

    def merge_tree_names(self, ours: str, theirs: str) -> tuple[str | None, list[str], bool | None]:
        """(result tree, conflicted paths, clean) of ``git merge-tree --write-tree`` (git >= 2.38);
        clean is None when git could not merge at all (old git, bad ref, unrelated histories)."""
        res = self.call("merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", "--end-of-options",
                        *self.revs(ours, theirs))
        parts = res.stdout.split("\0")
        tree = parts[0].strip() if parts and re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", parts[0].strip()) else None
        if tree is None or res.returncode not in (0, 1):
            return None, [], None
        names = [p for p in parts[1:] if p] if res.returncode == 1 else []
        return tree, sorted(dict.fromkeys(names)), res.returncode == 0

    def probe_commit(self, tree: str, parent: str) -> str | None:
        """An unreferenced commit object (tree + one parent) used to steer merge-tree's merge base."""
        res = self.call("-c", "user.name=gh-pr-agent", "-c", "user.email=gh-pr-agent@localhost", "commit-tree",
                        "--no-gpg-sign", "-m", "gh-pr-agent conflict probe", "-p", *self.revs(parent),
                        "--end-of-options", *self.revs(tree))
        return res.stdout.strip() or None if res.returncode == 0 else None

    def fetch_objects(self, remote: str, oids: list[str]) -> bool:
        """Fetch commits by id into the object store only: no ref, FETCH_HEAD or remote-tracking update."""
        batch = [] if os.environ.get("GIT_SSH_COMMAND") or self.config_get("core.sshCommand") else [
            "-c", "core.sshCommand=ssh -o BatchMode=yes"]  # never wait for a passphrase or host-key prompt
        res = self.call(*batch, "-c", "gc.auto=0", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
                        "--no-recurse-submodules", "--no-auto-maintenance", UPLOAD_PACK, "--end-of-options", remote,
                        *self.revs(*oids))
        return res.returncode == 0

    def worktrees(self) -> list[tuple[str, str | None]]:
        """(path, checked-out ref or None) of every worktree of the repository."""
        res = self.call("worktree", "list", "--porcelain")
        out: list[tuple[str, str | None]] = []
        for block in res.stdout.split("\n\n") if res.returncode == 0 else []:
            fields = dict(line.partition(" ")[::2] for line in block.splitlines() if line)
            if "worktree" in fields:
                out.append((fields["worktree"], fields.get("branch")))
        return out

    def toplevel(self) -> str | None:
        res = self.call("rev-parse", "--show-toplevel")
        return res.stdout.strip() or None if res.returncode == 0 else None

    def has_local_changes(self) -> bool:
        res = self.call("--no-optional-locks", "status", "--porcelain", "--untracked-files=no")
        return res.returncode == 0 and bool(res.stdout.strip())

    def operation_in_progress(self) -> str | None:
        """'rebase', 'merge', 'cherry-pick' or 'revert' when one is stopped half-way in this worktree."""
        for name, marker in (("rebase", "rebase-merge"), ("rebase", "rebase-apply"), ("merge", "MERGE_HEAD"),
                             ("cherry-pick", "CHERRY_PICK_HEAD"), ("revert", "REVERT_HEAD")):
            res = self.call("rev-parse", "--git-path", marker)
            path = Path(res.stdout.strip())
            if res.returncode == 0 and (path if path.is_absolute() else self.cwd / path).exists():
                return name
        return None


@dataclass(frozen=True)
class LogEntry:
    oid: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    date: str
    timestamp: int
    subject: str
