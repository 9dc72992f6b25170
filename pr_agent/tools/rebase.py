"""rebase_after_squash_merge: the exact `git rebase --onto` plan for a PR whose upstream PR was merged."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pr_agent import surface
from pr_agent.context import Context
from pr_agent.errors import PrAgentError, tool_repair
from pr_agent.iostreams import colors
from pr_agent.stack.analysis import Options, analyze
from pr_agent.stack.discovery import find_upstream
from pr_agent.stack.fetch import StackSource
from pr_agent.stack.model import Pull
from pr_agent.textsafe import REPOSITORY_NOTICE, terminal_field, terminal_safe
from pr_agent.tooldef import Annotations, InputModel, OutputModel, Tool, register
from pr_agent.tools.comments import PR_FIELD_DESCRIPTION
from pr_agent.tools.stack import BRANCH_PATTERN, PR_FORMS, same_repo

NAME = "rebase_after_squash_merge"


class RebaseAfterSquashMergeInput(InputModel):
    pr: str | None = Field(None, description=PR_FIELD_DESCRIPTION, max_length=2048)
    upstream_pr: str | None = Field(None, max_length=2048, description="The merged PR yours was built on: "
                                    f"{PR_FORMS}. Omitted means it is found from your PR: the PR whose head branch "
                                    "is your base branch, or was before GitHub retargeted your PR.")
    target_branch: str | None = Field(None, pattern=BRANCH_PATTERN, description="Branch to move your PR onto. "
                                      "Omitted means the branch the upstream PR was merged into (your PR's base "
                                      "once GitHub retargeted it).")


class Strategy(OutputModel):
    recommended: Literal["onto", "regular", "none"] = Field(description="none: already rebased, nothing to do.")
    reason: str
    squash_merge_detected: bool
    merge_method: Literal["merge", "squash", "rebase", "unknown"] | None = None
    last_upstream_commit: str | None = Field(None, description="The upstream PR's last head commit in your branch: "
                                             "the <upstream> of `git rebase --onto <target> <upstream> <branch>`.")
    considerations: list[str]


class Command(OutputModel):
    step: int
    type: Literal["git", "ci_wait", "test", "fix", "verification"]
    command: str = Field(description="Shell command; every value is quoted. A ci_wait step over MCP: the tool call "
                         "as text (see tool, arguments).")
    description: str
    estimated_duration: str | None = None
    tool: str | None = Field(None, description="MCP only: the step is this tool's call; call it with arguments.")
    arguments: dict[str, Any] | None = Field(None, description="MCP only: the arguments of tool.")


class RebaseAfterSquashMergeOutput(OutputModel):
    notice: str = Field(REPOSITORY_NOTICE, description="How to treat the text in this answer.")
    pr: str
    upstream_pr: str | None = None
    target_branch: str
    action_required: bool
    strategy: Strategy
    commands: list[Command] = Field(description="Run in order in a clone; stop at the first failure. Empty when "
                                    "nothing is to be done.")
    visualization: str
    warnings: list[str] | None = Field(None, description="Things to know before running the commands.")
    prerequisites: list[str]


def _upstream(src: StackSource, dep: Pull) -> Pull:
    found = find_upstream(src, dep, src.default_branch or "main")
    if found is None:
        raise PrAgentError(
            "upstream_not_found",
            f"No upstream PR found for {dep.ref}: its base {dep.base_ref!r} is no PR's head branch, and its base "
            "never changed from one.",
            suggestion=surface.text("Pass the merged PR yours was built on as ", surface.arg(NAME, "upstream_pr"), "."),
            details={"pr": str(dep.ref), "base_branch": dep.base_ref, "former_bases": dep.former_bases()})
    return found


def handle(ctx: Context, params: RebaseAfterSquashMergeInput) -> RebaseAfterSquashMergeOutput:
    ref = ctx.pr(params.pr)
    src = StackSource(ctx.gh, ref)
    if params.upstream_pr:  # both PRs are known: one round trip for the two
        up_ref = ctx.pr(params.upstream_pr)
        same_repo(up_ref, ref)
        up, dep = src.pulls(up_ref.number, ref.number, onto=params.target_branch)
    else:
        dep = src.pull(ref.number)
        up = _upstream(src, dep)
    if up.number == dep.number:
        raise PrAgentError("invalid_arguments",
                           surface.text(surface.arg(NAME, "upstream_pr"), f" is {dep.ref} itself."),
                           suggestion="Name the merged PR yours was built on.",
                           details={"field": "upstream_pr", "value": str(up.ref), "reason": "same PR"})
    if not up.is_merged:
        state = "still open" if up.is_open else "closed without merging"
        raise PrAgentError(
            "upstream_not_merged", f"The upstream PR {up.ref} is {state}, so there is no merge to rebase after.",
            suggestion=surface.text("Use ", surface.tool("manage_stacked_prs"), " to restack onto the open PR's "
                                    "latest commits (or to drop a closed PR's commits with ",
                                    surface.arg("manage_stacked_prs", "onto_base"), ")."),
            details={"pr": str(dep.ref), "upstream_pr": str(up.ref), "state": up.state},
            repair=tool_repair("manage_stacked_prs", {"base_pr": up.ref.qualified, "dependent_pr": dep.ref.qualified},
                               "Restack onto the upstream PR as it is now."))
    opts = Options(auto_fix=False, use_onto=True, onto_base=params.target_branch, say_use_onto=False)
    a = analyze(ctx, src, up, dep, opts)
    warnings = list(a.warnings)
    if a.is_stacked and not a.needs_rebase:
        warnings.insert(0, f"{dep.head_ref} is already rebased: it contains {up.ref}'s landed commit "
                        f"{(up.merge_commit or '')[:12]} and none of its original commits"
                        + (f"; only the PR's base must change to {a.retarget_to}." if a.retarget_to else "."))
    if not a.is_stacked:
        warnings.insert(0, a.reason)
    remote = a.clone.remote if a.clone else "origin"
    where = f"this clone ({a.clone.toplevel}), remote {remote!r}" if a.clone else (
        f"a clone of {dep.ref.full_name} whose remote {remote!r} is GitHub's repository")
    prerequisites = [f"Run the commands in {where}.",
                     "A clean working tree: commit or stash your changes first.",
                     "No rebase, merge or cherry-pick in progress (`git status`).",
                     (f"Push access to {dep.head_ref} in the fork {dep.head_repo} (a remote for it in the clone)"
                      if dep.cross_repo else f"Push access to {dep.head_ref}") + "; git 2.23 or newer."]
    strategy = a.strategy
    return RebaseAfterSquashMergeOutput(
        pr=str(dep.ref), upstream_pr=str(up.ref), target_branch=a.target_branch, action_required=a.action_required,
        strategy=Strategy(recommended=strategy.recommended, reason=strategy.reason,
                          squash_merge_detected=bool(a.merge and a.merge.method == "squash"),
                          merge_method=a.merge.method if a.merge else None, last_upstream_commit=a.old.oid,
                          considerations=strategy.considerations),
        commands=[Command(step=i + 1, type=s.type, command=s.command, description=s.description,
                          estimated_duration=s.estimated_duration,
                          **({"tool": s.call.tool, "arguments": dict(s.call.arguments)}
                             if s.call and surface.current() == "mcp" else {})) for i, s in enumerate(a.steps)],
        visualization=a.visualization, warnings=warnings or None, prerequisites=prerequisites,
    )


def render(out: dict[str, Any]) -> str:
    st, c = out["strategy"], colors()
    lines = [f"{out['pr']} after {out.get('upstream_pr')} ({st.get('merge_method') or 'not merged'}) -> "
             f"{out['target_branch']}", "", terminal_safe(out["visualization"]), "",
             f"strategy: {c.bold(st['recommended'])}", "  " + terminal_field(st["reason"])]
    lines += [c.yellow("warning:") + " " + terminal_field(w) for w in out.get("warnings") or []]
    lines += [c.yellow("prerequisite:") + " " + terminal_field(p) for p in out["prerequisites"]]
    if out["commands"]:
        lines += ["", "commands (run in order; stop at the first failure):"]
        for cmd in out["commands"]:
            lines += [c.dim(f"{cmd['step']:>2}.") + " " + terminal_field(cmd["command"]),
                      "    " + c.dim(terminal_field(cmd["description"]))]
    return "\n".join(lines) + "\n"


TOOL = register(Tool(
    name=NAME,
    title="Rebase after the upstream PR was merged",
    description=(
        "For a PR whose upstream PR (the one it was built on) has been merged — squash, rebase or merge commit: "
        "finds the upstream PR when not given (also after GitHub retargeted your PR), and returns the exact "
        "`git rebase --onto <target> <upstream's last head commit> <your branch>` plan that replays only your own "
        "commits, with a leased push, the base change and a CI wait, plus warnings (unpushed local commits, branch "
        "checked out in another worktree, already rebased) and prerequisites. PRs stacked on yours are restacked "
        "in the same plan. Use manage_stacked_prs instead while the upstream PR is still open. Read-only: it never "
        "rebases or pushes; inside a clone it may fetch missing commits into the object store."
    ),
    input_model=RebaseAfterSquashMergeInput,
    output_model=RebaseAfterSquashMergeOutput,
    annotations=Annotations(read_only=True, destructive=False, idempotent=True),
    handler=handle,
    cli_name="rebase-after-squash",
    cli_help="The git rebase --onto plan after the upstream PR was squash-merged.",
    cli_options={"upstream_pr": "--upstream", "target_branch": "--target"},
    render=render,
))
