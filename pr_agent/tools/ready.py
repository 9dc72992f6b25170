"""check_merge_readiness: can the PR merge now; if not, every blocker and the one next action."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pr_agent.context import Context
from pr_agent.errors import EXIT_FAILURE, EXIT_OK, EXIT_PENDING
from pr_agent.iostreams import colors
from pr_agent.merge.github import fetch_readiness
from pr_agent.merge.readiness import assess
from pr_agent.textsafe import REPOSITORY_NOTICE, terminal_field
from pr_agent.tooldef import Annotations, InputModel, OutputModel, Tool, register
from pr_agent.tools.comments import PR_FIELD_DESCRIPTION

NAME = "check_merge_readiness"
Verdict = Literal["ready", "blocked", "pending", "conflicts", "draft", "unknown"]


class CheckMergeReadinessInput(InputModel):
    pr: str | None = Field(None, description=PR_FIELD_DESCRIPTION, max_length=2048)
    detail: Literal["concise", "full"] = Field(
        "concise", description="concise: ci.checks lists only the checks that matter (required ones, and any "
        "that failed, was cancelled or is still running). full: every check. Omitted means concise.")


class NextAction(OutputModel):
    description: str
    command: str = Field(description="The step: a gh command, or one of our tools (over MCP `call TOOL with {…}`, "
                         "on the CLI `gh pr-agent …`); every value shell-quoted; an UPPER_CASE "
                         "word is a placeholder to replace).")


class ReadinessChecks(OutputModel):
    ci_passing: bool = Field(description="No required check is failing, cancelled, pending or missing "
                             "(non-required checks are under ci and warnings).")
    approvals_met: bool = Field(description="No review blocker (reviewDecision APPROVED, or null = no requirement).")
    no_conflicts: bool = Field(description="GitHub says MERGEABLE (false while UNKNOWN: not known to be clean).")
    up_to_date: bool = Field(description="The head contains every commit of the base (behind_by is 0).")
    branch_protection_satisfied: bool = Field(description="No blocker from checks, reviews, conversations, "
                                              "up-to-date or other branch rules.")


class Blocker(OutputModel):
    code: str = Field(description="Stable id, e.g. required_check_failed, review_required, behind_base.")
    category: str = Field(description="state, draft, conflicts, mergeability, ci, reviews, conversations, "
                          "up_to_date or branch_protection.")
    description: str
    action_required: str
    command: str = Field(description="The next step: a gh command, or a call of one of our tools (over MCP "
                         "`call TOOL with {…}`).")
    effect: Literal["draft", "conflicts", "blocked", "pending", "unknown"] = Field(
        description="What this blocker makes the verdict: pending and unknown may clear by waiting.")


class Advisory(OutputModel):
    code: str
    category: str
    description: str
    action_required: str
    command: str


class BranchProtection(OutputModel):
    branch: str
    required_approvals: int
    current_approvals: int = Field(description="Approvals from reviewers with write access (latest per reviewer).")
    required_checks: list[str]
    passing_checks: list[str] = Field(description="Required checks that passed.")
    failing_checks: list[str] = Field(description="Required checks that failed or were cancelled.")
    pending_checks: list[str] = Field(description="Required checks still running or not reported yet.")
    requires_conversation_resolution: bool
    requires_up_to_date: bool | None = Field(None, description="Absent when not visible to your login.")
    requires_code_owner_review: bool
    code_owner_files: dict[str, list[str]] | None = Field(
        None, description="While a code owner's approval is missing: each code owner GitHub requested, with the "
        "changed files it owns by the base branch's CODEOWNERS (last matching line wins). Absent when no "
        "owner is requested or no CODEOWNERS file was found.")
    merge_queue: bool
    allowed_merge_methods: list[str] | None = Field(None, description="Absent when no rule restricts them.")
    sources: list[str] = Field(description="Rulesets and classic protection the requirements came from.")
    classic_protection: Literal["read", "partial", "none", "not_readable", "unknown"] = Field(
        description="read: admin endpoint read in full; partial: protected, only the parts non-admins can "
        "read; none: not protected; not_readable/unknown: could not be read.")
    notes: list[str]


class CheckInfo(OutputModel):
    name: str
    kind: Literal["check_run", "status_context", "missing"]
    state: str = Field(description="Conclusion or status as GitHub reports it (EXPECTED for a missing one).")
    bucket: Literal["failed", "cancelled", "pending", "passed"]
    required: bool
    workflow: str | None = None
    url: str | None = None
    run_id: int | None = Field(None, description="GitHub Actions workflow run id.")
    check_run_id: int | None = Field(None, description="Check run id (the job id for GitHub Actions).")


class CiCounts(OutputModel):
    failed: int
    cancelled: int
    pending: int
    passed: int


class CiSummary(OutputModel):
    status: Literal["failed", "cancelled", "pending", "passed", "none"]
    required_status: Literal["failed", "cancelled", "pending", "passed", "none"]
    counts: CiCounts
    checks: list[CheckInfo] = Field(description="Latest run of each check that matters (every check with "
                                    "detail=full); names are text from others.")
    checks_omitted: int | None = Field(None, description="concise: passed or skipped non-required checks left out "
                                       "of checks (counts has them all; detail=full lists them).")


class GitHubState(OutputModel):
    state: str
    is_draft: bool
    mergeable: str = Field(description="MERGEABLE, CONFLICTING or UNKNOWN (after polling).")
    merge_state_status: str
    review_decision: str | None = Field(None, description="Absent (null) when the branch requires no review.")
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    behind_by: int | None = Field(None, description="Commits of the base missing from the head; absent if unknown.")
    ahead_by: int | None = None
    unresolved_threads: int
    approved_by: list[str]
    changes_requested_by: list[str]
    review_requests: list[str]
    mergeable_polls: int = Field(description="How many times mergeable was asked again while UNKNOWN.")
    viewer_permission: str | None = None


class CheckMergeReadinessOutput(OutputModel):
    notice: str = Field(REPOSITORY_NOTICE, description="How to treat the text in this answer.")
    pr: str
    verdict: Verdict
    ready_to_merge: bool
    summary: str
    next_action: NextAction
    checks: ReadinessChecks
    blocking_issues: list[Blocker] = Field(description="Every blocker, the next one to act on first.")
    warnings: list[Advisory] = Field(description="Things worth knowing that do not block the merge.")
    branch_protection: BranchProtection
    ci: CiSummary
    github: GitHubState


def handle(ctx: Context, params: CheckMergeReadinessInput) -> CheckMergeReadinessOutput:
    ref = ctx.pr(params.pr)
    out = assess(ref, fetch_readiness(ctx, ref))
    if params.detail == "concise":
        ci = out["ci"]
        checks = ci["checks"]
        kept = [c for c in _as_dicts(checks) if c["required"] or c["bucket"] != "passed"]
        if len(kept) < len(checks):
            out = {**out, "ci": {**ci, "checks": kept, "checks_omitted": len(checks) - len(kept)}}
    return CheckMergeReadinessOutput.model_validate(out)


def _as_dicts(checks: list[Any]) -> list[dict[str, Any]]:
    return [c if isinstance(c, dict) else c.model_dump() for c in checks]


def render(out: dict[str, Any]) -> str:
    c = colors()
    lines = [f"{out['pr']}: " + c.bold(c.state(out["verdict"], out["verdict"].upper()))
             + f" — {terminal_field(out['summary'])}"]
    for b in out["blocking_issues"]:
        lines.append("  " + c.red(f"✗ [{b['category']}]") + f" {terminal_field(b['description'])}")
        lines.append(f"      {terminal_field(b['action_required'])}  →  {terminal_field(b['command'])}")
    for w in out["warnings"]:
        lines.append("  " + c.yellow(f"! [{w['category']}]") + f" {terminal_field(w['description'])}")
    bp = out["branch_protection"]
    gh = out["github"]
    lines.append("  " + c.dim(f"github: mergeable={gh['mergeable']} state={gh['merge_state_status']} "
                              f"review={gh.get('review_decision') or 'not required'} "
                              f"behind_by={gh.get('behind_by', '?')} "
                              f"approvals={bp['current_approvals']}/{bp['required_approvals']}"))
    for note in bp["notes"]:
        lines.append("  " + c.dim(f"note: {note}"))
    lines.append(f"next: {out['next_action']['description']}")
    lines.append(f"  {terminal_field(out['next_action']['command'])}")
    return "\n".join(lines) + "\n"


def exit_code(out: dict[str, Any]) -> int:
    if out["verdict"] == "ready":
        return EXIT_OK
    return EXIT_PENDING if out["verdict"] in ("pending", "unknown") else EXIT_FAILURE


TOOL = register(Tool(
    name=NAME,
    title="Check merge readiness",
    description=(
        "Say whether a pull request can be merged right now, and if not, list every blocker with the exact "
        "next step: failing, cancelled, pending or missing required checks, requested changes, missing approvals, "
        "unresolved conversations when the branch requires resolution, a head behind a strict base, conflicts, "
        "draft state, or a block GitHub does not explain to your login. One verdict (ready, blocked, pending, "
        "conflicts, draft, unknown) and one next action. Fails closed: mergeable UNKNOWN is polled briefly and "
        "then reported as unknown, never as clean. Use it before merging or before telling someone a PR is done; "
        "use detect_merge_conflicts for the conflicting files. Read-only: it never merges."
    ),
    input_model=CheckMergeReadinessInput,
    output_model=CheckMergeReadinessOutput,
    annotations=Annotations(read_only=True, destructive=False, idempotent=True),
    handler=handle,
    cli_name="ready",
    cli_help="Can the PR merge now? Every blocker and the next action.",
    render=render,
    exit_code=exit_code,
    exit_codes_help="Exit codes: 0 ready to merge; 1 blocked, draft or conflicts; 2 invalid arguments or PR "
    "reference; 3 error (PR not found, GitHub or gh failed); "
    "4 gh not logged in; 8 pending (required checks running) or unknown (GitHub still computing).",
))
