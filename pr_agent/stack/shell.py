"""The exact commands of a restack plan, safe to paste whatever the branch names are.

Every command is built by :func:`pr_agent.shellcmd.command` (each word quoted). Every ref is
unambiguous: pushes use full refspecs (``refs/heads/B:refs/heads/B``) and leases on full refs
(``--force-with-lease=refs/heads/B:SHA``), fetches name full source and destination refs, rebases take
full ref names for their bases. A branch named ``+main`` is therefore pushed as the branch ``+main``,
never read as "force-push main". A name that git itself refuses (``git check-ref-format --branch``
rules), one that starts with ``-`` (``git rebase`` has no ``--`` for its branch argument) or holds
control characters is refused with ``unsafe_branch_name``; no command is emitted for it.
Pushes always carry an explicit lease, never a plain ``--force``.
"""

from __future__ import annotations

from typing import Any

from pr_agent.errors import PrAgentError
from pr_agent.refs import PRRef
from pr_agent.shellcmd import chain, command

_BAD_CHARS = set(" ~^:?*[\\")


def ref_format_problem(name: str) -> str | None:
    """Why git would refuse `name` as a branch name (the rules of `git check-ref-format --branch`), or None."""
    if not name:
        return "it is empty"
    if name.startswith("-"):
        return "it starts with '-', so git would read it as an option"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "it contains control characters"
    if name in ("@", "HEAD"):
        return f"{name!r} is not a branch name git accepts"
    bad = sorted({c for c in name if c in _BAD_CHARS})
    if bad:
        return "git refuses branch names containing " + " ".join(repr(c) for c in bad)
    if name.startswith("/") or name.endswith("/") or "//" in name:
        return "git refuses empty path components ('/' at either end or '//')"
    if ".." in name or "@{" in name:
        return "git refuses '..' and '@{' in branch names"
    if name.endswith("."):
        return "git refuses branch names ending with '.'"
    if any(part.startswith(".") or part.endswith(".lock") for part in name.split("/")):
        return "git refuses path components starting with '.' or ending with '.lock'"
    return None


def check_name(name: str, what: str) -> str:
    """Refuse names a command line could misread or git would refuse; return the name unchanged."""
    bad = ref_format_problem(name)
    if bad:
        raise PrAgentError(
            "unsafe_branch_name", f"The {what} {name[:100]!r} cannot be used in a command: {bad}.",
            suggestion="Rename the branch on GitHub (Branches page) or locally (`git branch -m`), then call again; "
            "no command was generated.",
            details={"name": name[:200], "what": what, "reason": bad})
    return name


def join(argv: list[str]) -> str:
    return command(argv)


def head_ref(branch: str) -> str:
    return f"refs/heads/{branch}"


def remote_ref(remote: str, branch: str) -> str:
    """The remote-tracking ref, fully qualified so a local branch of the same name cannot shadow it."""
    return f"refs/remotes/{remote}/{branch}"


def fetch(remote: str, branches: list[str]) -> str:
    specs = [f"+{head_ref(b)}:{remote_ref(remote, b)}" for b in dict.fromkeys(branches)]
    return command(["git", "fetch", remote, *specs])


def pull_track(remote: str, number: int) -> str:
    """Where a PR's ``refs/pull/N/head`` is fetched to (GitHub's own convention: ``origin/pr/N``)."""
    return f"refs/remotes/{remote}/pr/{number}"


def fetch_ref(remote: str, source: str, dest: str) -> str:
    """Fetch one full ref into one full local ref (e.g. a fork PR's ``refs/pull/N/head``)."""
    return command(["git", "fetch", remote, f"+{source}:{dest}"])


def fetch_pull(remote: str, number: int) -> str:
    """A fork PR's head through the base repository's ``refs/pull/N/head`` (GitHub keeps it for every PR)."""
    return fetch_ref(remote, f"refs/pull/{number}/head", pull_track(remote, number))


def create_branch(remote: str, branch: str, source: str | None = None) -> str:
    """The local branch from its remote-tracking ref (tracked), or from `source`, a full ref that is not one."""
    if source:
        return command(["git", "branch", branch, source])
    return command(["git", "branch", "--track", branch, remote_ref(remote, branch)])


def create_branch_if_missing(remote: str, branch: str, source: str | None = None) -> str:
    check = command(["git", "show-ref", "--verify", "--quiet", head_ref(branch)])
    return chain(check, create_branch(remote, branch, source), op="||")


def fast_forward(remote: str, branch: str, checked_out_here: bool, source: str | None = None) -> str:
    src = source or remote_ref(remote, branch)
    if checked_out_here:
        merge = command(["git", "merge", "--ff-only", src])
        return chain(command(["git", "switch", branch]), merge)
    return command(["git", "branch", "--force", branch, src])


def contains(ancestor: str, branch: str) -> str:
    return command(["git", "merge-base", "--is-ancestor", ancestor, head_ref(branch)])


def rebase_onto(new_base: str, old_base: str, branch: str) -> str:
    return command(["git", "rebase", "--onto", new_base, old_base, branch])


def rebase(new_base: str, branch: str) -> str:
    return command(["git", "rebase", new_base, branch])


def push(remote: str, leases: list[tuple[str, str]]) -> str:
    """One leased push: ``--force-with-lease=refs/heads/B:SHA`` and the full refspec ``refs/heads/B:refs/heads/B``
    for each branch, so no name can turn into a force flag or another destination."""
    argv = ["git", "push"]
    if len(leases) > 1:
        argv.append("--atomic")
    argv += [f"--force-with-lease={head_ref(branch)}:{sha}" for branch, sha in leases]
    return command([*argv, remote, *(f"{head_ref(b)}:{head_ref(b)}" for b, _ in leases)])


def plain_push(remote: str, branch: str) -> str:
    """A fast-forward push of one branch (no force: the refspec has no '+')."""
    return command(["git", "push", remote, f"{head_ref(branch)}:{head_ref(branch)}"])


def _gh_api(ref: PRRef) -> list[str]:
    argv = ["gh", "api"]
    if ref.host and ref.host != "github.com":
        argv += ["--hostname", ref.host]
    return argv


def repo_arg(ref: PRRef) -> str:
    return f"{ref.host}/{ref.full_name}" if ref.host and ref.host != "github.com" else ref.full_name


def retarget(ref: PRRef, base: str) -> str:
    """Change a PR's base branch through REST (works with every gh, unlike `gh pr edit` on old gh)."""
    return command([*_gh_api(ref), "--method", "PATCH", f"repos/{ref.owner}/{ref.repo}/pulls/{ref.number}",
                    "-f", f"base={base}", "--silent"])


def checks_call(ref: PRRef) -> Any:
    """Wait for CI on the PR and list failing tests: a call of get_failing_tests (a surface step)."""
    from pr_agent import surface

    return surface.call("get_failing_tests", {"pr": ref.qualified, "wait": True},
                        why="Wait for CI on the PR and list failing tests.")


def checks(ref: PRRef) -> str:
    """:func:`checks_call` as the current face speaks it: ``gh pr-agent checks PR --wait`` on the CLI, the tool
    call over MCP (where the plan step also carries it as ``tool`` + ``arguments``)."""
    from pr_agent import surface

    return surface.show(checks_call(ref))
