"""THE gateway to `git`. No other module spawns git.

Arguments are always an argv list (never a shell string), so branch names and paths from other
people stay data. Output is captured; a missing git or a directory outside a repository is a typed
error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pr_agent.errors import PrAgentError


@dataclass(frozen=True)
class GitResult:
    returncode: int
    stdout: str
    stderr: str


class Git:
    def __init__(self, cwd: str | os.PathLike[str] | None = None, *, timeout: float = 120.0) -> None:
        self.cwd = Path(cwd) if cwd is not None else Path.cwd()
        self.timeout = timeout

    def _git(self) -> str:
        path = shutil.which("git")
        if not path:
            raise PrAgentError("git_not_found", "git was not found on PATH.",
                               suggestion="Install git (https://git-scm.com/downloads).")
        return path

    def call(self, *args: str) -> GitResult:
        """Run git; never raises for a non-zero exit (the caller decides)."""
        env = dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C", GIT_PAGER="cat")
        try:
            proc = subprocess.run([self._git(), *args], cwd=self.cwd, capture_output=True, text=True,
                                  encoding="utf-8", errors="replace", timeout=self.timeout, env=env,
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

    def not_a_repo(self) -> PrAgentError:
        return PrAgentError(
            "not_a_git_repository", f"{self.cwd} is not inside a git repository.",
            suggestion="Run inside a clone, or name the PR fully (owner/repo#123) or pass --repo OWNER/REPO.",
            details={"path": str(self.cwd)})

    def is_repo(self) -> bool:
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
