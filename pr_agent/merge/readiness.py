"""The merge-readiness verdict (pure): every blocker with its next step, one verdict, one next action.

Fails closed: GitHub's own ``mergeStateStatus`` is never overruled towards "ready" — when GitHub says
BLOCKED and the rules we can read do not explain why, that is a blocker of its own; ``mergeable:
UNKNOWN`` after polling is "unknown", never "no conflicts". ``reviewDecision: null`` means the branch
has no review requirement. UNSTABLE (only non-required checks failing or pending) is mergeable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pr_agent.ci.rollup import Check, Rollup, build_rollup, counts
from pr_agent.merge import commands as cmd
from pr_agent.merge.github import ReadinessFacts
from pr_agent.merge.rules import MERGE_METHODS, Requirements, requirements
from pr_agent.refs import PRRef

Effect = Literal["draft", "conflicts", "blocked", "pending", "unknown"]
VERDICT_ORDER: tuple[str, ...] = ("draft", "conflicts", "blocked", "pending", "unknown")
# Which blocker is the one next action: work the agent can do first, waiting last.
ACTION_ORDER = ("pr_merged", "pr_closed", "merge_conflicts", "required_check_failed", "required_check_cancelled",
                "changes_requested", "unresolved_conversations", "behind_base", "draft", "review_required",
                "code_owner_review_required",
                "required_check_pending", "required_check_missing", "blocked_by_github", "mergeability_unknown")
MERGEABLE_STATES = ("CLEAN", "HAS_HOOKS", "UNSTABLE")


@dataclass
class Item:
    code: str
    category: str
    description: str
    action_required: str
    command: str
    effect: Effect = "blocked"

    def wire(self, *, blocker: bool) -> dict[str, Any]:
        out = {"code": self.code, "category": self.category, "description": self.description,
               "action_required": self.action_required, "command": self.command}
        if blocker:
            out["effect"] = self.effect
        return out


@dataclass
class Assessment:
    ref: PRRef
    facts: ReadinessFacts
    req: Requirements
    rollup: Rollup
    blockers: list[Item] = field(default_factory=list)
    warnings: list[Item] = field(default_factory=list)

    @property
    def pr(self) -> dict[str, Any]:
        return self.facts.pr

    def block(self, *args: Any, **kw: Any) -> None:
        self.blockers.append(Item(*args, **kw))

    def warn(self, *args: Any, **kw: Any) -> None:
        self.warnings.append(Item(*args, **kw))


def _names(checks: list[Check]) -> str:
    shown = ", ".join(repr(c.display_name) for c in checks[:5])
    return shown + (f" and {len(checks) - 5} more" if len(checks) > 5 else "")


def _state_blockers(a: Assessment) -> None:
    ref, pr = a.ref, a.pr
    if pr.get("state") == "MERGED":
        a.block("pr_merged", "state", f"{ref} is already merged.", "Nothing to merge.", cmd.gh_pr(ref, "view"))
    elif pr.get("state") == "CLOSED":
        a.block("pr_closed", "state", f"{ref} is closed.", "Reopen it if it should still be merged.",
                cmd.gh_pr(ref, "reopen"))
    if pr.get("isDraft"):
        a.block("draft", "draft", "The PR is a draft; drafts cannot be merged.",
                "Mark it ready for review once the work is done.", cmd.gh_pr(ref, "ready"), effect="draft")
    if pr.get("mergeable") == "CONFLICTING" or pr.get("mergeStateStatus") == "DIRTY":
        a.block("merge_conflicts", "conflicts",
                f"The PR conflicts with {pr.get('baseRefName')!r}; GitHub cannot create the merge commit.",
                "List the conflicting files and hunks, resolve them on the PR branch and push.",
                cmd.pr_agent("conflicts", ref), effect="conflicts")
    elif pr.get("mergeable") == "UNKNOWN" or pr.get("mergeStateStatus") == "UNKNOWN":
        polls = a.facts.polls
        a.block("mergeability_unknown", "mergeability",
                f"GitHub is still computing whether the PR can merge (asked {polls + 1} times); it is NOT known "
                "to be free of conflicts.", "Run the check again in a minute.", cmd.pr_agent("ready", ref),
                effect="unknown")


def _check_blockers(a: Assessment) -> None:
    ref, sha = a.ref, (a.pr.get("headRefOid") or "")[:7]
    for c in a.rollup.in_bucket("failed", required=True):
        a.block("required_check_failed", "ci", f"Required check {c.display_name!r} failed ({c.state}).",
                "See which tests failed and why (with local rerun commands), fix the code, push, and wait for it "
                "to pass.", cmd.pr_agent("checks", ref))
    for c in a.rollup.in_bucket("cancelled", required=True):
        command = cmd.gh_run(ref, "rerun", c.run_id) if c.run_id else cmd.gh_pr(ref, "checks")
        a.block("required_check_cancelled", "ci", f"Required check {c.display_name!r} did not finish ({c.state}).",
                "Re-run it.", command)
    for c in a.rollup.in_bucket("pending", required=True):
        if c.kind == "missing":
            a.block("required_check_missing", "ci",
                    f"Required check {c.name!r} has not reported on the head commit {sha}.",
                    "Wait for it to start; if it never does (not triggered for this change), push a commit or ask "
                    "a maintainer.", cmd.gh_pr(ref, "checks"), effect="pending")
        else:
            a.block("required_check_pending", "ci", f"Required check {c.display_name!r} is still {c.state.lower()}.",
                    "Wait for it to finish (returns early on the first failure).",
                    cmd.pr_agent("checks", ref, wait=True), effect="pending")
    bad = a.rollup.in_bucket("failed", required=False) + a.rollup.in_bucket("cancelled", required=False)
    if bad:
        a.warn("optional_checks_failing", "ci", f"Non-required check(s) not passing: {_names(bad)}; not required, "
               "so they do not block the merge.", "Look at them before merging.",
               cmd.gh_pr(ref, "checks"))
    waiting = a.rollup.in_bucket("pending", required=False)
    if waiting:
        a.warn("optional_checks_pending", "ci", f"Non-required check(s) still running: {_names(waiting)}.",
               "They do not block the merge.", cmd.gh_pr(ref, "checks"))


def _code_owner_blocker(a: Assessment, approvals: int, needed: int) -> bool:
    """REVIEW_REQUIRED under a code-owner rule: name the owners GitHub requested (ReviewRequest.asCodeOwner).

    True when that is the whole story (enough approvals, none from a code owner); else the approval count
    blocker follows, naming the owners too."""
    owners = a.facts.code_owner_requests
    who = ", ".join(owners) if owners else "a code owner (see the base branch's CODEOWNERS file)"
    owned = a.facts.owned_files or {}
    shown = [f"{o}: {', '.join(owned[o][:5])}{' …' if len(owned[o]) > 5 else ''}" for o in owners if owned.get(o)]
    if shown:
        who = f"{who} (owning {'; '.join(shown)})"
    command = (cmd.gh_pr(a.ref, "edit", *[x for o in owners[:3] for x in ("--add-reviewer", o)]) if owners
               else cmd.gh_pr(a.ref, "view", "--web"))
    if approvals < needed:
        if not owners:  # a code owner may already have approved: only the count is known to be short
            return False
        a.block("code_owner_review_required", "reviews", f"The branch requires a code owner's approval: {who} "
                "must approve the files they own.", f"Ask {who} to review.", command)
        return False
    a.block("code_owner_review_required", "reviews",
            f"Needs an approving review from a code owner: {who}. Has {approvals} approval(s), none from a code "
            "owner of the changed files they own.",
            f"Ask {who} to review; another approval from a non-owner does not count.", command)
    return True


def _review_blockers(a: Assessment) -> None:
    ref, req, decision = a.ref, a.req, a.pr.get("reviewDecision")
    approved = [r["author"]["login"] for r in a.facts.reviews if r.get("state") == "APPROVED" and r.get("author")]
    changes = [r["author"]["login"] for r in a.facts.reviews
               if r.get("state") == "CHANGES_REQUESTED" and r.get("author")]
    who = ", ".join(changes) or "a reviewer"
    if decision == "CHANGES_REQUESTED":
        a.block("changes_requested", "reviews", f"Changes requested by {who}.",
                "Address their feedback, then ask them to review again.", cmd.pr_agent("comments", ref))
    elif decision == "REVIEW_REQUIRED":
        need = f"{req.required_approvals} approving review(s)" if req.required_approvals else "an approving review"
        why = f"; required by {req.review_sources[0]}" if req.review_sources else ""
        requested = a.facts.review_requests
        if requested:
            action = f"Waiting for {', '.join(requested)}; re-requesting notifies them."
            command = cmd.gh_pr(ref, "edit", *[x for r in requested[:3] for x in ("--add-reviewer", r)])
        else:
            action = "Ask someone with write access to review (replace REVIEWER_LOGIN)."
            command = cmd.gh_pr(ref, "edit", "--add-reviewer", "REVIEWER_LOGIN")
        if ((req.code_owner_review or a.facts.code_owner_requests)
                and _code_owner_blocker(a, len(approved), max(req.required_approvals, 1))):
            return
        a.block("review_required", "reviews", f"Needs {need}, has {len(approved)}{why}.", action, command)
    elif changes:
        a.warn("changes_requested", "reviews", f"{who} requested changes; the branch does not require reviews, so "
               "this does not block the merge.", "Consider their feedback before merging.",
               cmd.pr_agent("comments", ref))
    if decision is None and req.required_approvals > len(approved):
        a.warn("review_rule_not_applied", "reviews", f"A rule asks for {req.required_approvals} approval(s) "
               f"({len(approved)} given), but GitHub reports no review requirement for this PR (reviewDecision "
               "null), e.g. because your login may bypass it.", "Nothing, unless your team expects reviews.",
               cmd.gh_pr(ref, "view"))
    unresolved = a.facts.unresolved_threads
    if unresolved and req.conversation_resolution:
        a.block("unresolved_conversations", "conversations",
                f"{unresolved} review conversation(s) unresolved and the branch requires all to be resolved.",
                "Address each thread, then resolve it.", cmd.pr_agent("comments", ref))
    elif unresolved:
        a.warn("unresolved_conversations", "conversations", f"{unresolved} review conversation(s) are unresolved "
               "(not required for merging).", "Check whether they still need an answer.",
               cmd.pr_agent("comments", ref))


def _ai_review_warning(a: Assessment) -> None:
    """An AI reviewer that has reviewed or commented on the PR but not covered the head: its findings may be
    missing or about older code (a warning: GitHub does not require bots' reviews)."""
    from pr_agent.review.coverage import WAITABLE, ai_review_coverage, describe

    coverage = ai_review_coverage(a.facts.ai_reviews, a.facts.ai_comments, a.pr.get("headRefOid"),
                                  a.facts.rollup_nodes)
    behind = [c for c in coverage if not c["covers_head"]]
    if not behind:
        return
    waitable = any(c["status"] in WAITABLE for c in behind)
    action = ("Wait for them to review the head (the command waits until they have), then read their findings."
              if waitable else "Re-trigger or resume them on the PR (no wait clears a rate limit, pause, skip or "
              "error), then read their findings.")
    a.warn("ai_review_not_current", "reviews", "Not every AI reviewer has reviewed the head commit: "
           f"{', '.join(describe(c) for c in behind)}. Their findings may be missing or about older code.",
           action, cmd.pr_agent("comments", a.ref, wait=True) if waitable else cmd.pr_agent("comments", a.ref))


def _behind_by(a: Assessment) -> int | None:
    value = (a.facts.compare or {}).get("behind_by")
    return value if isinstance(value, int) else None


def _protection_blockers(a: Assessment) -> None:
    ref, pr, mss = a.ref, a.pr, a.pr.get("mergeStateStatus")
    behind = _behind_by(a)
    if mss == "BEHIND" or (a.req.strict and behind):
        count = f" by {behind} commit(s)" if behind else ""
        a.block("behind_base", "up_to_date", f"The head branch is behind {pr.get('baseRefName')!r}{count} and the "
                "branch must be up to date before merging.", "Update the branch with the base (merges the base "
                "into it on GitHub), then wait for the checks.", cmd.update_branch(ref))
    explained = {"ci", "reviews", "conversations", "up_to_date", "draft", "conflicts", "state", "mergeability"}
    if mss == "BLOCKED" and not any(b.category in explained for b in a.blockers):
        a.block("blocked_by_github", "branch_protection",
                "GitHub blocks the merge for a reason the rules visible to your login do not show (for example "
                "code-owner review, signed commits, deployments, or classic protection only admins can read).",
                "Open the PR's merge box on GitHub to see the reason.", cmd.gh_pr(ref, "view", "--web"))


def _merge_command(a: Assessment) -> tuple[str, str]:
    repo = a.facts.repo
    allowed = [m for m in MERGE_METHODS if repo.get(f"{m}MergeAllowed" if m != "merge" else "mergeCommitAllowed",
                                                    True)]
    if a.req.allowed_merge_methods is not None:
        allowed = [m for m in allowed if m in a.req.allowed_merge_methods] or list(a.req.allowed_merge_methods)
    method = allowed[0] if allowed else "merge"
    others = f" Allowed methods: {', '.join(allowed)}." if len(allowed) > 1 else ""
    queue = " The base branch uses a merge queue: this adds the PR to it." if a.pr.get("isMergeQueueEnabled") else ""
    return f"Merge it.{others}{queue}", cmd.gh_pr(a.ref, "merge", f"--{method}")


def assess(ref: PRRef, facts: ReadinessFacts) -> dict[str, Any]:
    pr = facts.pr
    base = pr.get("baseRefName") or ""
    req = requirements(branch_name=base, rules=facts.rules, branch=facts.branch,
                       ref_update_rule=(pr.get("baseRef") or {}).get("refUpdateRule"), protection=facts.protection,
                       protection_status=facts.protection_status)  # type: ignore[arg-type]
    rollup = build_rollup(facts.rollup_nodes, req.required_checks)
    a = Assessment(ref, facts, req, rollup)
    _state_blockers(a)
    _check_blockers(a)
    _review_blockers(a)
    _protection_blockers(a)
    _ai_review_warning(a)
    a.blockers.sort(key=lambda b: ACTION_ORDER.index(b.code) if b.code in ACTION_ORDER else len(ACTION_ORDER))
    effects = {b.effect for b in a.blockers}
    verdict = next((v for v in VERDICT_ORDER if v in effects), "ready")
    if verdict == "ready" and pr.get("mergeStateStatus") not in MERGEABLE_STATES:
        verdict = "unknown"  # fail closed on a state we do not know
    return _output(a, verdict)


def _output(a: Assessment, verdict: str) -> dict[str, Any]:
    ref, pr, req, rollup, facts = a.ref, a.pr, a.req, a.rollup, a.facts
    blockers = a.blockers
    if verdict == "ready":
        description, command = _merge_command(a)
    elif blockers:
        description, command = blockers[0].action_required, blockers[0].command
    else:
        description = f"GitHub reports mergeStateStatus {pr.get('mergeStateStatus')}; look at the PR."
        command = cmd.gh_pr(ref, "view", "--web")
    cats = {b.category for b in a.blockers}
    behind = _behind_by(a)
    approved = sorted({r["author"]["login"] for r in facts.reviews if r.get("state") == "APPROVED" and r.get("author")})
    changes = sorted({r["author"]["login"] for r in facts.reviews
                      if r.get("state") == "CHANGES_REQUESTED" and r.get("author")})
    required = rollup.required
    unstable = pr.get("mergeStateStatus") == "UNSTABLE"
    return {
        "pr": str(ref),
        "verdict": verdict,
        "ready_to_merge": verdict == "ready",
        "summary": _summary(verdict, a, unstable),
        "next_action": {"description": description, "command": command},
        "checks": {
            "ci_passing": "ci" not in cats,
            "approvals_met": "reviews" not in cats,
            "no_conflicts": pr.get("mergeable") == "MERGEABLE" and pr.get("mergeStateStatus") != "DIRTY",
            "up_to_date": behind == 0 if behind is not None else pr.get("mergeStateStatus") != "BEHIND",
            "branch_protection_satisfied": not cats & {"ci", "reviews", "conversations", "up_to_date",
                                                        "branch_protection"},
        },
        "blocking_issues": [b.wire(blocker=True) for b in blockers],
        "warnings": [w.wire(blocker=False) for w in a.warnings],
        "branch_protection": {
            "branch": pr.get("baseRefName") or "",
            "required_approvals": req.required_approvals,
            "current_approvals": len(approved),
            "required_checks": list(dict.fromkeys([*req.required_checks, *(c.name for c in required)])),
            "passing_checks": [c.name for c in required if c.bucket == "passed"],
            "failing_checks": [c.name for c in required if c.bucket in ("failed", "cancelled")],
            "pending_checks": [c.name for c in required if c.bucket == "pending"],
            "requires_conversation_resolution": req.conversation_resolution,
            "requires_up_to_date": req.strict,
            "requires_code_owner_review": req.code_owner_review,
            "code_owner_files": facts.owned_files,
            "merge_queue": req.merge_queue or bool(pr.get("isMergeQueueEnabled")),
            "allowed_merge_methods": req.allowed_merge_methods,
            "sources": req.sources,
            "classic_protection": req.classic,
            "notes": req.notes + facts.notes,
        },
        "ci": {
            "status": rollup.status,
            "required_status": rollup.required_status,
            "counts": counts(rollup.checks),
            "checks": [_check_wire(c) for c in rollup.checks],
        },
        "github": {
            "state": pr.get("state"), "is_draft": bool(pr.get("isDraft")), "mergeable": pr.get("mergeable"),
            "merge_state_status": pr.get("mergeStateStatus"), "review_decision": pr.get("reviewDecision"),
            "base_ref": pr.get("baseRefName"), "base_sha": pr.get("baseRefOid"),
            "head_ref": pr.get("headRefName"), "head_sha": pr.get("headRefOid"),
            "behind_by": behind, "ahead_by": (facts.compare or {}).get("ahead_by"),
            "unresolved_threads": facts.unresolved_threads, "approved_by": approved,
            "changes_requested_by": changes, "review_requests": facts.review_requests,
            "mergeable_polls": facts.polls, "viewer_permission": facts.repo.get("viewerPermission"),
        },
    }


def _check_wire(c: Check) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name, "kind": c.kind, "state": c.state, "bucket": c.bucket,
                           "required": c.required}
    for key in ("workflow", "url", "run_id", "check_run_id"):
        value = getattr(c, key)
        if value is not None:
            out[key] = value
    return out


def _summary(verdict: str, a: Assessment, unstable: bool) -> str:
    n = len(a.blockers)
    if verdict == "ready":
        extra = " GitHub reports UNSTABLE: only non-required checks are failing or pending." if unstable else ""
        return f"Ready to merge.{extra}"
    head = {"draft": "Not ready: the PR is a draft.", "conflicts": "Not ready: merge conflicts with the base.",
            "blocked": "Blocked.", "pending": "Not ready yet: waiting for required checks.",
            "unknown": "Unknown: GitHub has not finished computing mergeability."}[verdict]
    return f"{head} {n} blocking issue(s); next: {a.blockers[0].code if a.blockers else 'look at the PR'}." \
        if n else head
