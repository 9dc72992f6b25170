"""Next-step commands, every argument shell-quoted. Only numbers, ids, logins, branch names and the
repository appear in them — never text written by others."""

from __future__ import annotations

from pr_agent.refs import PRRef
from pr_agent.shellcmd import command


def join(argv: list[str]) -> str:
    """The one command builder (:func:`pr_agent.shellcmd.command`)."""
    return command(argv)


def repo_arg(ref: PRRef) -> str:
    return f"{ref.host}/{ref.full_name}" if ref.host and ref.host != "github.com" else ref.full_name


def gh_pr(ref: PRRef, sub: str, *args: str) -> str:
    """``gh pr SUB N --repo OWNER/REPO ARGS…``"""
    return join(["gh", "pr", sub, str(ref.number), "--repo", repo_arg(ref), *args])


def pr_agent(cli_name: str, ref: PRRef, **arguments: object) -> str:
    """Our tool ``cli_name`` on the PR, as the current face speaks it (``gh pr-agent CLI OWNER/REPO#N --flag`` on
    the CLI, ``call TOOL with {…}`` over MCP)."""
    from pr_agent import cli_table, surface

    return surface.show(surface.call(cli_table.COMMANDS[cli_name][0], {"pr": ref.qualified, **arguments}))


def gh_run(ref: PRRef, sub: str, run_id: int, *args: str) -> str:
    return join(["gh", "run", sub, str(run_id), "--repo", repo_arg(ref), *args])


def update_branch(ref: PRRef) -> str:
    """Merge the base into the PR branch on GitHub (REST; works with every gh version)."""
    argv = ["gh", "api"]
    if ref.host and ref.host != "github.com":
        argv += ["--hostname", ref.host]
    return join([*argv, "--method", "PUT", f"repos/{ref.full_name}/pulls/{ref.number}/update-branch"])
