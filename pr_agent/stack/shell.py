"""The exact commands of a restack plan, safe to paste whatever the branch names are.

Every argument goes through :func:`shlex.quote`. A branch or remote name that starts with ``-`` would
be read by git as an option (``git rebase`` has no ``--`` for its branch argument), so it is refused
with a typed error instead of being emitted. Pushes always carry an explicit lease
(``--force-with-lease=<branch>:<expected sha>``), never a plain ``--force``.
"""

from __future__ import annotations

import shlex

from pr_agent.errors import PrAgentError
from pr_agent.refs import PRRef


def check_name(name: str, what: str) -> str:
    """Refuse names a command line could misread; return the name unchanged."""
    bad = None
    if not name:
        bad = "it is empty"
    elif name.startswith("-"):
        bad = "it starts with '-', so git would read it as an option"
    elif any(ord(c) < 32 or ord(c) == 127 for c in name):
        bad = "it contains control characters"
    if bad:
        raise PrAgentError(
            "unsafe_branch_name", f"The {what} {name[:100]!r} cannot be used in a command: {bad}.",
            suggestion="Rename the branch on GitHub (Branches page) or locally (`git branch -m`), then call again; "
            "no command was generated.",
            details={"name": name[:200], "what": what, "reason": bad})
    return name


def join(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


def remote_ref(remote: str, branch: str) -> str:
    """The remote-tracking ref, fully qualified so a local branch of the same name cannot shadow it."""
    return f"refs/remotes/{remote}/{branch}"


def fetch(remote: str, branches: list[str]) -> str:
    specs = [f"+refs/heads/{b}:{remote_ref(remote, b)}" for b in dict.fromkeys(branches)]
    return join(["git", "fetch", remote, *specs])


def create_branch(remote: str, branch: str) -> str:
    return join(["git", "branch", "--track", branch, remote_ref(remote, branch)])


def create_branch_if_missing(remote: str, branch: str) -> str:
    check = join(["git", "show-ref", "--verify", "--quiet", f"refs/heads/{branch}"])
    return f"{check} || {create_branch(remote, branch)}"


def fast_forward(remote: str, branch: str, checked_out_here: bool) -> str:
    if checked_out_here:
        merge = join(["git", "merge", "--ff-only", remote_ref(remote, branch)])
        return join(["git", "switch", branch]) + " && " + merge
    return join(["git", "branch", "--force", branch, remote_ref(remote, branch)])


def contains(ancestor: str, branch: str) -> str:
    return join(["git", "merge-base", "--is-ancestor", ancestor, f"refs/heads/{branch}"])


def rebase_onto(new_base: str, old_base: str, branch: str) -> str:
    return join(["git", "rebase", "--onto", new_base, old_base, branch])


def rebase(new_base: str, branch: str) -> str:
    return join(["git", "rebase", new_base, branch])


def push(remote: str, leases: list[tuple[str, str]]) -> str:
    argv = ["git", "push"]
    if len(leases) > 1:
        argv.append("--atomic")
    argv += [f"--force-with-lease={branch}:{sha}" for branch, sha in leases]
    return join([*argv, remote, *(branch for branch, _ in leases)])


def plain_push(remote: str, branch: str) -> str:
    return join(["git", "push", remote, branch])


def _gh_api(ref: PRRef) -> list[str]:
    argv = ["gh", "api"]
    if ref.host and ref.host != "github.com":
        argv += ["--hostname", ref.host]
    return argv


def repo_arg(ref: PRRef) -> str:
    return f"{ref.host}/{ref.full_name}" if ref.host and ref.host != "github.com" else ref.full_name


def retarget(ref: PRRef, base: str) -> str:
    """Change a PR's base branch through REST (works with every gh, unlike `gh pr edit` on old gh)."""
    return join([*_gh_api(ref), "--method", "PATCH", f"repos/{ref.owner}/{ref.repo}/pulls/{ref.number}",
                 "-f", f"base={base}", "--silent"])


def checks(ref: PRRef) -> str:
    """Wait for CI on the PR and list failing tests, as the current face speaks it."""
    from pr_agent import surface

    return surface.show(surface.call("get_failing_tests", {"pr": ref.qualified, "wait": True}))
