"""manage_stacked_prs: does a PR stacked on another need a rebase, and the exact commands to do it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pr_agent import surface
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.iostreams import colors
from pr_agent.paging import decode_cursor, encode_cursor
from pr_agent.refs import PRRef
from pr_agent.stack.analysis import Analysis, Options, analyze
from pr_agent.stack.fetch import StackSource
from pr_agent.stack.plan import Step
from pr_agent.textsafe import REPOSITORY_NOTICE, terminal_field, terminal_safe
from pr_agent.tooldef import Annotations, InputModel, OutputModel, Tool, register, stored

NAME = "manage_stacked_prs"
PAGE_SIZE = 50
BRANCH_PATTERN = r"^[^-\x00-\x20\x7f~^:?*\[\\][^\x00-\x20\x7f~^:?*\[\\]{0,254}$"
PR_FORMS = ("owner/repo#123, owner/repo/pull/123, a PR URL (any suffix), or a bare number resolved against the "
            "repository of the current clone")


class ManageStackedPRsInput(InputModel):
    base_pr: str = Field(max_length=2048, description="The earlier PR, the one dependent_pr is built on (open or "
                         f"already merged): {PR_FORMS}.")
    dependent_pr: str = Field(max_length=2048, description=f"The later PR, built on base_pr's branch: {PR_FORMS}.")
    auto_fix: bool | None = stored(True, "Add the CI wait and test-and-fix loop steps after the rebase (the tool "
                                   "never runs them itself).")
    max_iterations: int = Field(3, ge=1, le=10, description="How many fix-and-recheck rounds the auto_fix steps "
                                "allow before asking a human. Omitted means 3.")
    use_onto: bool | None = stored(None, "true: always `git rebase --onto <new base> <old base commit>`; false: "
                                   "always a plain rebase (even where it would replay the base PR's commits).")
    onto_base: str | None = Field(None, pattern=BRANCH_PATTERN, description="Branch to move dependent_pr onto "
                                  "instead of the usual one (base_pr's branch while it is open, the branch it was "
                                  "merged into once merged), e.g. 'main'; the PR is retargeted to it. Omitted means "
                                  "the usual one.")
    cursor: str | None = Field(None, max_length=4096, description="nextCursor from a previous call with the same "
                               "arguments: the next page of change_summary.commits. Omitted means the first page.")


class StackEntry(OutputModel):
    pr: str
    head_branch: str
    base_branch: str
    state: Literal["OPEN", "MERGED", "CLOSED"]
    role: Literal["below", "base", "dependent", "above"] = Field(
        description="below: under base_pr; above: stacked on dependent_pr (restacked with it).")


class StackInfo(OutputModel):
    base_branch: str = Field(description="base_pr's head branch.")
    dependent_base: str = Field(description="dependent_pr's base branch now.")
    matches: bool = Field(description="dependent_pr's base branch is base_pr's head branch.")
    relation: Literal["direct", "retargeted", "history", "none"] = Field(
        description="direct: its base is base_pr's branch; retargeted: it was, before its base changed (GitHub does "
        "that when a merged base branch is deleted); history: its commits contain base_pr's head, or it is built on a "
        "PR that was merged into base_pr's branch; none: not stacked.")
    visualization: str = Field(description="The stack as an indented tree from the default branch up; for PRs not "
                               "stacked as given, each PR on its real base and a last line saying how they relate.")
    chain: list[StackEntry]


class CommitInfo(OutputModel):
    sha: str
    message: str = Field(description="First line of the commit message (text written by others).")
    author: str
    date: str


class ChangeSummary(OutputModel):
    new_commits_in_base: int = Field(description="Commits on the new base that dependent_pr's branch lacks.")
    commits: list[CommitInfo] = Field(description="Those commits, newest first, paged (nextCursor).")
    files_changed: list[str] = Field(description="Files changed upstream since dependent_pr's branch point (clone "
                                     "only; at most 300).")
    potential_conflicts: list[str] = Field(description="Files predicted to conflict when the plan's rebase replays "
                                           "dependent_pr's changes (git merge-tree; clone only).")
    source: Literal["local", "api"] = Field(description="local: computed in the clone; api: from GitHub only.")


class RebaseStrategy(OutputModel):
    recommended: Literal["regular", "onto", "none"] = Field(description="none: no rebase is needed.")
    reason: str
    regular_command: str | None = None
    onto_command: str | None = None
    ai_should_decide: bool = Field(description="True only when both commands are valid.")
    considerations: list[str]


class PlanStep(OutputModel):
    step: int
    type: Literal["git", "ci_wait", "test", "fix", "verification"]
    command: str = Field(description="Shell command, every value quoted. A 'fix' step is a comment: the work is "
                         "yours. A ci_wait/verification step over MCP: the tool call as text (see tool, arguments).")
    description: str
    estimated_duration: str | None = None
    can_automate: bool
    skip_if: str | None = None
    retry_on_failure: bool | None = None
    max_retries: int | None = None
    pr: str | None = Field(None, description="The PR the step is about.")
    tool: str | None = Field(None, description="MCP only: the step is this tool's call (command shows it as text); "
                             "call it with arguments.")
    arguments: dict[str, Any] | None = Field(None, description="MCP only: the arguments of tool.")


class Automation(OutputModel):
    enabled: bool = Field(description="auto_fix: the plan includes the test-and-fix loop.")
    current_step: int | None = None
    status: Literal["not_started", "in_progress", "completed", "failed"]
    error: str | None = None


class Summary(OutputModel):
    action_required: bool
    reason: str
    estimated_total_time: str
    risk_level: Literal["low", "medium", "high"]


class ManageStackedPRsOutput(OutputModel):
    notice: str = Field(REPOSITORY_NOTICE, description="How to treat the text in this answer.")
    base_pr: str
    dependent_pr: str
    is_stacked: bool
    stack_info: StackInfo
    changes_detected: bool
    change_summary: ChangeSummary | None = None
    upstream_merge_detected: bool
    squash_merge: bool
    merge_method: Literal["merge", "squash", "rebase", "unknown"] | None = Field(
        None, description="How base_pr landed, when merged (GitHub does not record it; see considerations).")
    last_upstream_commit: str | None = Field(None, description="The old base: the last commit of base_pr that "
                                             "dependent_pr's branch contains; --onto skips it and everything before.")
    rebase_strategy: RebaseStrategy
    commands: list[PlanStep] = Field(description="Run in order in a clone of the repository; stop at the first "
                                     "failure. Empty when nothing is to be done.")
    warnings: list[str] = Field(description="Local state that changes what to do (clone only), and GitHub "
                                "listings that were cut at a limit (PRs beyond it are not in this answer).")
    nextCursor: str | None = Field(None, description="Present only when change_summary.commits has more pages.")
    automation: Automation
    summary: Summary


def steps_out(steps: list[Step]) -> list[PlanStep]:
    mcp = surface.current() == "mcp"
    return [PlanStep(step=i + 1, type=s.type, command=s.command, description=s.description,
                     estimated_duration=s.estimated_duration, can_automate=s.can_automate, skip_if=s.skip_if,
                     retry_on_failure=s.retry_on_failure, max_retries=s.max_retries, pr=s.pr,
                     **({"tool": s.call.tool, "arguments": dict(s.call.arguments)} if mcp and s.call else {}))
            for i, s in enumerate(steps)]


def total_time(a: Analysis) -> str:
    if not a.steps:
        return "none"
    ci = sum(1 for s in a.steps if s.type == "ci_wait")
    git = "1-3 minutes of git" if a.needs_rebase else "under a minute"
    return git + (f", plus CI: about 5-30 minutes for each of {ci} PR(s)" if ci else "")


def same_repo(base: PRRef, dep: PRRef) -> None:
    if (base.full_name.lower(), base.host) != (dep.full_name.lower(), dep.host):
        raise PrAgentError("invalid_arguments", f"{base} and {dep} are in different repositories; a stacked PR's "
                           "base branch lives in the same repository as the PR it builds on.",
                           suggestion="Name two PRs of the same repository.",
                           details={"field": "dependent_pr", "value": str(dep), "reason": "different repository"})
    if base.number == dep.number:
        raise PrAgentError("invalid_arguments", f"base_pr and dependent_pr are both {dep}.",
                           suggestion="Name the PR underneath as base_pr and the one built on it as dependent_pr.",
                           details={"field": "dependent_pr", "value": str(dep), "reason": "same PR"})


def handle(ctx: Context, params: ManageStackedPRsInput) -> ManageStackedPRsOutput:
    base_ref, dep_ref = ctx.pr(params.base_pr), ctx.pr(params.dependent_pr)
    same_repo(base_ref, dep_ref)
    scope = {"base": str(base_ref).lower(), "dependent": str(dep_ref).lower(), "onto": params.onto_base}
    offset = int(decode_cursor(params.cursor, NAME, scope)) if params.cursor else 0
    src = StackSource(ctx.gh, dep_ref)
    base, dep = src.pulls(base_ref.number, dep_ref.number, onto=params.onto_base)
    opts = Options(auto_fix=bool(params.auto_fix), max_iterations=params.max_iterations, use_onto=params.use_onto,
                   onto_base=params.onto_base, commit_offset=offset, commit_limit=PAGE_SIZE)
    a = analyze(ctx, src, base, dep, opts)
    ch = a.changes
    nxt = encode_cursor(NAME, scope, offset + PAGE_SIZE) if ch.more else None
    strategy = a.strategy
    return ManageStackedPRsOutput(
        base_pr=str(base.ref), dependent_pr=str(dep.ref), is_stacked=a.is_stacked,
        stack_info=StackInfo(base_branch=base.head_ref, dependent_base=dep.base_ref,
                             matches=dep.base_ref == base.head_ref, relation=a.relation,
                             visualization=a.visualization,
                             chain=[StackEntry(pr=str(p.ref), head_branch=p.head_ref, base_branch=p.base_ref,
                                               state=p.state, role=role) for p, role in a.chain]),  # type: ignore[arg-type]
        changes_detected=ch.total > 0 or a.needs_rebase,
        change_summary=ChangeSummary(
            new_commits_in_base=ch.total, files_changed=ch.files, potential_conflicts=ch.conflicts, source=ch.source,
            commits=[CommitInfo(sha=c.oid, message=c.headline, author=c.author, date=c.date) for c in ch.commits],
        ) if a.is_stacked else None,
        upstream_merge_detected=base.is_merged, squash_merge=bool(a.merge and a.merge.method == "squash"),
        merge_method=a.merge.method if a.merge else None, last_upstream_commit=a.old.oid,
        rebase_strategy=RebaseStrategy(recommended=strategy.recommended, reason=strategy.reason,
                                       regular_command=strategy.regular_command, onto_command=strategy.onto_command,
                                       ai_should_decide=strategy.ai_should_decide,
                                       considerations=strategy.considerations),
        commands=steps_out(a.steps), warnings=a.warnings, nextCursor=nxt,
        automation=Automation(enabled=opts.auto_fix, status="not_started"),
        summary=Summary(action_required=a.action_required, reason=a.reason,
                        estimated_total_time=total_time(a), risk_level=a.risk),
    )


def render_steps(steps: list[dict[str, Any]]) -> list[str]:
    c = colors()
    lines = []
    for s in steps:
        lines.append(c.dim(f"{s['step']:>2}. [{s['type']}]") + " " + terminal_field(s["command"]))  # bidi in names
        lines.append("    " + c.dim(terminal_field(s["description"])))
    return lines


def render(out: dict[str, Any]) -> str:
    info, strat, summary, c = out["stack_info"], out["rebase_strategy"], out["summary"], colors()
    lines = [f"{out['dependent_pr']} on {out['base_pr']}: "
             + (c.green("stacked") if out["is_stacked"] else c.yellow("not stacked")) + f" ({info['relation']})", "",
             terminal_safe(info["visualization"]), ""]
    if out.get("merge_method"):
        lines.append(f"base PR merged: {out['merge_method']}")
    risk = {"low": c.green, "medium": c.yellow, "high": c.red}[summary["risk_level"]]
    lines.append(f"strategy: {c.bold(strat['recommended'])}  (risk {risk(summary['risk_level'])})")
    lines.append("  " + terminal_field(summary["reason"]))
    lines += ["  - " + c.dim(terminal_field(x)) for x in strat["considerations"]]
    lines += [c.yellow("warning:") + " " + terminal_field(w) for w in out.get("warnings", [])]
    if out["commands"]:
        lines += ["", "commands (run in order in your clone; stop at the first failure):"]
        lines += render_steps(out["commands"])
    return "\n".join(lines) + "\n"


TOOL = register(Tool(
    name=NAME,
    title="Restack a dependent (stacked) PR",
    description=(
        "For a PR built on another PR's branch: is it stacked, what changed underneath (new commits, files, "
        "predicted conflicts), was the base PR merged and how (merge commit, squash or rebase), and the exact "
        "ordered commands to restack it — `git rebase --onto <new base> <old base commit>` after a squash, a "
        "plain rebase when that is equivalent — push with an explicit lease, retarget the PR, wait for CI; PRs "
        "stacked above it are restacked in the same plan. Use it when a base PR got new commits or was merged. "
        "Read-only: it never rebases or pushes (run the commands yourself); inside a clone it may fetch missing "
        "commits into the object store. For one PR whose upstream was merged, rebase_after_squash_merge finds "
        "the upstream PR for you."
    ),
    input_model=ManageStackedPRsInput,
    output_model=ManageStackedPRsOutput,
    annotations=Annotations(read_only=True, destructive=False, idempotent=True),
    handler=handle,
    cli_name="stack",
    cli_help="Does a stacked PR need a rebase? The exact restack commands.",
    cli_positional=("base_pr", "dependent_pr"),
    render=render,
))
