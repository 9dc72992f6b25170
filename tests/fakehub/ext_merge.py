"""fakehub: merge state, status checks and branch rules (scenario keys ``checks``, ``merge_state`` on a pull
request and ``branch_rules`` on a repository; documented in fixtures/scenarios/README.md).

Like GitHub, fakehub *computes* what a scenario leaves out: which checks are required (from the base
branch's rules), ``reviewDecision`` (from the review rules and the latest opinionated reviews) and
``mergeStateStatus`` (DIRTY, BLOCKED, BEHIND, UNSTABLE or CLEAN). ``merge_state.unknown_reads: N``
answers ``mergeable``/``mergeStateStatus`` UNKNOWN to the first N queries that read them (-1: always);
``merge_state.reads`` counts the queries that read them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ext_codeowners
from . import spec as spec_mod
from .ext_ci import check_run_fields
from .ext_merge_rules import ref_rules
from .ext_stack import branch_gone, ref_target
from .spec import ScenarioError, check, node_id, one_of

CHECK_STATUSES = ("QUEUED", "IN_PROGRESS", "COMPLETED", "PENDING", "WAITING", "REQUESTED")
CONCLUSIONS = ("SUCCESS", "FAILURE", "NEUTRAL", "CANCELLED", "SKIPPED", "TIMED_OUT", "ACTION_REQUIRED",
               "STARTUP_FAILURE", "STALE")
STATUS_STATES = ("SUCCESS", "FAILURE", "ERROR", "PENDING", "EXPECTED")
MERGE_STATES = ("BEHIND", "BLOCKED", "CLEAN", "DIRTY", "DRAFT", "HAS_HOOKS", "UNKNOWN", "UNSTABLE")
DECISIONS = ("APPROVED", "CHANGES_REQUESTED", "REVIEW_REQUIRED")
WRITER_ASSOCIATIONS = ("OWNER", "MEMBER", "COLLABORATOR")
CHECK_ID_BASE, RUN_ID_BASE = 7_000_001, 8_000_001

SPEC: dict[str, dict[str, Any]] = {
    "check": {"name": str, "kind": str, "status": str, "conclusion": str, "state": str, "required": bool,
              "workflow": str, "event": str, "app": str, "id": int, "run_id": int, "started_at": str,
              "completed_at": str, "title": str, "description": str, "url": str},
    "merge_state": {"mergeable": str, "merge_state_status": str, "review_decision": str, "unknown_reads": int,
                    "reads": int, "behind_by": int, "ahead_by": int, "review_requests": list, "merge_queue": bool},
    "branch": {"rulesets": list, "classic": dict},
    "ruleset": {"id": int, "name": str, "source_type": str, "source": str, "rules": list},
    "rule": {"type": str, "parameters": dict},
    "classic": {"required_checks": list, "strict": bool, "required_approvals": int, "conversation_resolution": bool,
                "code_owner_reviews": bool, "enforce_admins": bool},
}


spec_mod.SPEC.update({f"merge.{kind}": keys for kind, keys in SPEC.items()})  # so spec.check() knows them


def _check(obj: Any, kind: str, where: str) -> dict[str, Any]:
    return check(obj, f"merge.{kind}", where)


# ------------------------------------------------------------------ scenario normalization
def normalize_branch_rules(value: dict[str, Any] | None, repo: dict[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    next_id = 1
    for branch, rules in (value or {}).items():
        w = f"{where}.branch_rules.{branch}"
        b = _check(rules or {}, "branch", w)
        sets = []
        for i, rs in enumerate(b.get("rulesets") or []):
            rw = f"{w}.rulesets[{i}]"
            rs = _check(rs, "ruleset", rw)
            rs["id"] = rs.get("id") or next_id
            next_id = rs["id"] + 1
            rs["name"] = rs.get("name") or f"ruleset {rs['id']}"
            rs["source_type"] = one_of(rs.get("source_type") or "Repository", ("Repository", "Organization"),
                                       f"{rw}.source_type")
            rs["source"] = rs.get("source") or (f"{repo['owner']}/{repo['name']}" if rs["source_type"] ==
                                                "Repository" else repo["owner"])
            rs["rules"] = [_check(r, "rule", f"{rw}.rules[{j}]") for j, r in enumerate(rs.get("rules") or [])]
            for j, r in enumerate(rs["rules"]):
                if not r.get("type"):
                    raise ScenarioError(f"{rw}.rules[{j}]: 'type' is required")
                r["parameters"] = r.get("parameters") or {}
            sets.append(rs)
        classic = None
        if b.get("classic") is not None:
            c = _check(b["classic"], "classic", f"{w}.classic")
            classic = {"required_checks": list(c.get("required_checks") or []), "strict": bool(c.get("strict")),
                       "required_approvals": c.get("required_approvals") or 0,
                       "conversation_resolution": bool(c.get("conversation_resolution")),
                       "code_owner_reviews": bool(c.get("code_owner_reviews")),
                       "enforce_admins": bool(c.get("enforce_admins"))}
        out[branch] = {"rulesets": sets, "classic": classic}
    return out


def normalize_pull(pr: dict[str, Any], where: str, fill_user: Callable[[str], str]) -> None:
    checks = []
    for i, c in enumerate(pr.get("checks") or []):
        w = f"{where}.checks[{i}]"
        c = _check(c, "check", w)
        if not c.get("name"):
            raise ScenarioError(f"{w}: 'name' is required")
        c["kind"] = one_of(c.get("kind") or "check_run", ("check_run", "status"), f"{w}.kind")
        if c["kind"] == "check_run":
            c["status"] = one_of(c.get("status") or "COMPLETED", CHECK_STATUSES, f"{w}.status")
            default = "SUCCESS" if c["status"] == "COMPLETED" else None
            c["conclusion"] = one_of(c.get("conclusion") or default, (*CONCLUSIONS, None), f"{w}.conclusion")
            c["app"] = c.get("app") or "github-actions"
            c["workflow"] = c.get("workflow") or ("CI" if c["app"] == "github-actions" else None)
            c["event"] = c.get("event") or ("pull_request" if c["workflow"] else None)
            c["id"] = c.get("id") or CHECK_ID_BASE + pr["number"] * 100 + i
            c["run_id"] = c.get("run_id") or (RUN_ID_BASE + pr["number"] * 100 if c["workflow"] else None)
        else:
            c["state"] = one_of(c.get("state") or "SUCCESS", STATUS_STATES, f"{w}.state")
        c["required"] = c.get("required")
        c["started_at"] = c.get("started_at") or pr["created_at"]
        finished = c["kind"] == "status" or c.get("status") == "COMPLETED"
        c["completed_at"] = c.get("completed_at") or (c["started_at"] if finished else None)
        for key in ("title", "description", "url"):
            c[key] = c.get(key)
        checks.append(c)
    pr["checks"] = checks
    ms = _check(pr.get("merge_state") or {}, "merge_state", f"{where}.merge_state")
    ms["mergeable"] = one_of(ms.get("mergeable") or "MERGEABLE", ("MERGEABLE", "CONFLICTING"),
                             f"{where}.merge_state.mergeable")
    ms["merge_state_status"] = one_of(ms.get("merge_state_status"), (*MERGE_STATES, None),
                                      f"{where}.merge_state.merge_state_status")
    ms["review_decision"] = one_of(ms.get("review_decision"), (*DECISIONS, None), f"{where}.merge_state")
    for key, default in (("unknown_reads", 0), ("reads", 0), ("behind_by", 0), ("ahead_by", 1)):
        ms[key] = default if ms.get(key) is None else ms[key]
    ms["review_requests"] = [r if "/" in r else fill_user(r) for r in ms.get("review_requests") or []]
    ms["merge_queue"] = bool(ms.get("merge_queue"))
    pr["merge_state"] = ms


# ------------------------------------------------------------------ what GitHub computes
def branch_requirements(repo: dict[str, Any], branch: str) -> dict[str, Any]:
    """The union of the rulesets and the classic protection of `branch`."""
    rules = (repo.get("branch_rules") or {}).get(branch) or {"rulesets": [], "classic": None}
    req = {"approvals": 0, "checks": [], "strict": False, "conversation": False, "code_owner": False}
    for rs in rules["rulesets"]:
        for r in rs["rules"]:
            p = r["parameters"]
            if r["type"] == "pull_request":
                req["approvals"] = max(req["approvals"], p.get("required_approving_review_count") or 0)
                req["conversation"] |= bool(p.get("required_review_thread_resolution"))
                req["code_owner"] |= bool(p.get("require_code_owner_review"))
            elif r["type"] == "required_status_checks":
                req["checks"] += [c["context"] for c in p.get("required_status_checks") or []]
                req["strict"] |= bool(p.get("strict_required_status_checks_policy"))
    classic = rules["classic"]
    if classic:
        req["approvals"] = max(req["approvals"], classic["required_approvals"])
        req["checks"] += classic["required_checks"]
        req["strict"] |= classic["strict"]
        req["conversation"] |= classic["conversation_resolution"]
        req["code_owner"] |= classic["code_owner_reviews"]
    return req


def is_required(repo: dict[str, Any], pr: dict[str, Any], c: dict[str, Any]) -> bool:
    if c["required"] is not None:
        return bool(c["required"])
    return c["name"] in branch_requirements(repo, pr["base_ref"])["checks"]


def check_state(c: dict[str, Any]) -> str:
    if c["kind"] == "status":
        return c["state"]
    return (c["conclusion"] or "PENDING") if c["status"] == "COMPLETED" else c["status"]


def bucket(state: str) -> str:
    if state in ("SUCCESS", "NEUTRAL", "SKIPPED"):
        return "pass"
    if state in ("FAILURE", "ERROR", "TIMED_OUT", "ACTION_REQUIRED", "STARTUP_FAILURE", "CANCELLED", "STALE"):
        return "fail"
    return "pending"


def latest_opinionated(world: Any, pr: dict[str, Any], writers_only: bool = False) -> list[dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    for r in world.visible_reviews(pr):
        if r["state"] in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
            latest[r["author"]] = r
    return [r for r in latest.values() if r["state"] != "DISMISSED"
            and (not writers_only or r["author_association"] in WRITER_ASSOCIATIONS)]


def latest_reviews(world: Any, pr: dict[str, Any]) -> list[dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    for r in world.visible_reviews(pr):
        if r["state"] != "PENDING":
            latest[r["author"]] = r
    return list(latest.values())


def review_decision(world: Any, repo: dict[str, Any], pr: dict[str, Any]) -> str | None:
    if pr["merge_state"]["review_decision"] is not None:
        return pr["merge_state"]["review_decision"]
    req = branch_requirements(repo, pr["base_ref"])
    if not req["approvals"] and not req["code_owner"]:
        return None
    opinions = latest_opinionated(world, pr, writers_only=True)
    if any(r["state"] == "CHANGES_REQUESTED" for r in opinions):
        return "CHANGES_REQUESTED"
    approvals = sum(1 for r in opinions if r["state"] == "APPROVED")
    if req["code_owner"] and ext_codeowners.unmet(repo, pr, [r["author"] for r in opinions
                                                             if r["state"] == "APPROVED"]):
        return "REVIEW_REQUIRED"
    return "APPROVED" if approvals >= max(req["approvals"], 1) else "REVIEW_REQUIRED"


def code_owner_requests(world: Any, repo: dict[str, Any], pr: dict[str, Any]) -> list[str]:
    if not branch_requirements(repo, pr["base_ref"])["code_owner"]:
        return []
    approvers = [r["author"] for r in latest_opinionated(world, pr, writers_only=True) if r["state"] == "APPROVED"]
    return ext_codeowners.requested_owners(repo, pr, approvers)


def merge_state_status(world: Any, repo: dict[str, Any], pr: dict[str, Any]) -> str:
    ms = pr["merge_state"]
    if ms["merge_state_status"] is not None:
        return ms["merge_state_status"]
    if pr["draft"]:
        return "DRAFT"
    if ms["mergeable"] == "CONFLICTING":
        return "DIRTY"
    req = branch_requirements(repo, pr["base_ref"])
    reported = {c["name"] for c in pr["checks"]}
    required_ok = all(bucket(check_state(c)) == "pass" for c in pr["checks"] if is_required(repo, pr, c)) \
        and all(name in reported for name in req["checks"])
    unresolved = any(not th["resolved"] for th in world.visible_threads(pr))
    if not required_ok or review_decision(world, repo, pr) in ("REVIEW_REQUIRED", "CHANGES_REQUESTED") \
            or (req["conversation"] and unresolved):
        return "BLOCKED"
    if req["strict"] and ms["behind_by"] > 0:
        return "BEHIND"
    if any(bucket(check_state(c)) != "pass" for c in pr["checks"]):
        return "UNSTABLE"
    return "CLEAN"


# ------------------------------------------------------------------ GraphQL views
def repo_fields(repo: dict[str, Any]) -> dict[str, Any]:
    return {"mergeCommitAllowed": True, "squashMergeAllowed": True, "rebaseMergeAllowed": True,
            "deleteBranchOnMerge": False}


def _ref_view(repo: dict[str, Any], branch: str) -> dict[str, Any]:
    full = f"{repo['owner']}/{repo['name']}"
    classic = ((repo.get("branch_rules") or {}).get(branch) or {}).get("classic")
    rule = None
    if classic:
        rule = {"pattern": branch, "requiredApprovingReviewCount": classic["required_approvals"] or None,
                "requiredStatusCheckContexts": classic["required_checks"],
                "requiresConversationResolution": classic["conversation_resolution"],
                "requiresCodeOwnerReviews": classic["code_owner_reviews"], "requiresLinearHistory": False,
                "requiresSignatures": False, "allowsForcePushes": False, "allowsDeletions": False,
                "blocksCreations": False, "viewerAllowedToDismissReviews": False,
                "viewerCanPush": repo["viewer_permission"] in ("ADMIN", "MAINTAIN", "WRITE")}
    return {"__typename": "Ref", "id": node_id("REF", full, branch), "name": branch, "prefix": "refs/heads/",
            "refUpdateRule": rule, "rules": ref_rules(repo, branch)}


def _check_view(views: Any, repo: dict[str, Any], pr: dict[str, Any], c: dict[str, Any]) -> dict[str, Any]:
    required = is_required(repo, pr, c)
    common = {"isRequired": lambda info, pullRequestId=None, pullRequestNumber=None: required}
    full = f"{repo['owner']}/{repo['name']}"
    if c["kind"] == "status":
        return {**common, "__typename": "StatusContext", "id": node_id("SC", full, pr["number"], c["name"]),
                "context": c["name"], "state": c["state"], "description": c["description"],
                "targetUrl": c["url"], "createdAt": c["started_at"], "avatarUrl": None, "creator": None}
    url = c["url"] or views.world.web(full, "actions", "runs", c["run_id"] or 0, "job", c["id"])
    run = None
    if c["workflow"]:
        run = {"__typename": "WorkflowRun", "id": node_id("WFR", c["run_id"]), "databaseId": c["run_id"],
               "runNumber": 1, "event": c["event"], "url": views.world.web(full, "actions", "runs", c["run_id"]),
               "workflow": {"__typename": "Workflow", "id": node_id("W", full, c["workflow"]), "name": c["workflow"]}}
    suite = {"__typename": "CheckSuite", "id": node_id("CS", c["id"]), "databaseId": c["id"],
             "app": {"__typename": "App", "id": node_id("A", c["app"]), "slug": c["app"], "name": c["app"]},
             "workflowRun": run, "status": c["status"], "conclusion": c["conclusion"]}
    return {**common, "__typename": "CheckRun", "id": node_id("CR", c["id"]), "databaseId": c["id"],
            "name": c["name"], "status": c["status"], "conclusion": c["conclusion"], "title": c["title"],
            "summary": None, "text": None, "startedAt": c["started_at"], "completedAt": c["completed_at"],
            "detailsUrl": url, "url": url, "permalink": url, "externalId": None, "checkSuite": suite,
            **check_run_fields(views, repo, pr, c)}


def _rollup_state(states: list[str]) -> str:
    buckets = {bucket(s) for s in states}
    return "FAILURE" if "fail" in buckets else "PENDING" if "pending" in buckets else "SUCCESS"


def rollup_view(views: Any, repo: dict[str, Any], pr: dict[str, Any]) -> dict[str, Any] | None:
    """The status check rollup of the PR's head commit (``PullRequest.statusCheckRollup``)."""
    from .gql_views import connection

    if not pr["checks"]:
        return None
    return {"__typename": "StatusCheckRollup", "id": node_id("SCR", pr["head_sha"]),
            "state": _rollup_state([check_state(c) for c in pr["checks"]]),
            "contexts": lambda info, **a: connection(pr["checks"], lambda c: _check_view(views, repo, pr, c), **a)}


def commit_rollup(views: Any, repo: dict[str, Any], oid: str) -> dict[str, Any] | None:
    """``Commit.statusCheckRollup``: GitHub keeps checks per commit, a scenario per pull request, so a commit's
    checks are those of the pull request whose head it is (null when there is none)."""
    pr = next((p for p in repo["pull_requests"] if p["head_sha"] == oid and p["checks"]), None)
    return rollup_view(views, repo, pr) if pr is not None else None


def pr_fields(views: Any, repo: dict[str, Any], pr: dict[str, Any]) -> dict[str, Any]:
    """Extra GraphQL fields of a PullRequest view (merged in by gql_views.Views.pr)."""
    from .gql_views import connection

    world, ms = views.world, pr["merge_state"]
    settled: dict[str, bool] = {}

    def unknown() -> bool:  # one read per query, however many of the two fields it selects
        if "v" not in settled:
            with world.lock:
                ms["reads"] += 1
                settled["v"] = ms["unknown_reads"] < 0 or ms["reads"] <= ms["unknown_reads"]
        return settled["v"]

    def requested(entry: str | tuple[str, bool]) -> dict[str, Any]:
        r, as_owner = entry if isinstance(entry, tuple) else (entry, False)
        if "/" in r:
            slug = r.split("/", 1)[1]
            who: Any = {"__typename": "Team", "id": node_id("T", r), "slug": slug, "name": slug, "combinedSlug": r}
        else:
            who = views.actor(r)
        return {"__typename": "ReviewRequest", "id": node_id("RR", pr["number"], r), "asCodeOwner": as_owner,
                "requestedReviewer": who}

    def all_requests() -> list[str | tuple[str, bool]]:
        owners = code_owner_requests(world, repo, pr)
        return [*((o, True) for o in owners), *(r for r in ms["review_requests"] if r not in owners)]

    review_view = lambda r: views.review(repo, pr, r)  # noqa: E731
    return {
        "mergeable": lambda info: "UNKNOWN" if unknown() else ms["mergeable"],
        "mergeStateStatus": lambda info: "UNKNOWN" if unknown() else merge_state_status(world, repo, pr),
        "reviewDecision": lambda info: review_decision(world, repo, pr),
        "latestReviews": lambda info, **a: connection(latest_reviews(world, pr), review_view, **a),
        "latestOpinionatedReviews": lambda info, writersOnly=False, **a: connection(
            latest_opinionated(world, pr, writersOnly), review_view, **a),
        "reviewRequests": lambda info, **a: connection(all_requests(), requested, **a),
        "statusCheckRollup": lambda info: rollup_view(views, repo, pr),
        "isMergeQueueEnabled": ms["merge_queue"], "isInMergeQueue": False,
        "viewerCanMergeAsAdmin": repo["viewer_permission"] == "ADMIN",
        "viewerCanUpdateBranch": ms["behind_by"] > 0, "canBeRebased": ms["mergeable"] == "MERGEABLE",
        # a branch that no longer exists (e.g. the head deleted after merging) is null, as on GitHub
        "baseRef": lambda info: None if branch_gone(repo, pr, "base") else {
            **_ref_view(repo, pr["base_ref"]), **ref_target(views, repo, pr["base_ref"])},
        "headRef": lambda info: None if branch_gone(repo, pr, "head") else {
            **_ref_view(repo, pr["head_ref"]), **ref_target(views, repo, pr["head_ref"])},
    }
