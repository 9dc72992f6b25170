"""What the base branch requires before a merge, from the sources a non-admin can read (pure).

- Rulesets: GraphQL ``baseRef.rules`` (rules of the active rulesets that apply to the branch), mapped by
  ``rules_from_graphql`` to the rule objects of ``GET /repos/{o}/{r}/rules/branches/{branch}`` (any reader; only
  active rules). That REST read is still needed for one parameter GraphQL lacks: ``pull_request`` rules'
  ``allowed_merge_methods`` (not in GitHub's published GraphQL schema as pinned in fixtures/github).
- Classic protection, required checks: ``GET /repos/{o}/{r}/branches/{branch}`` (any reader; a stub).
- Classic protection as GitHub applies it to the viewer: GraphQL ``baseRef.refUpdateRule``.
- Classic protection in full: ``GET …/branches/{branch}/protection`` — admins only; asked only when the
  viewer is an admin, and when it cannot be read the result says so.

GitHub's own ``mergeStateStatus`` / ``reviewDecision`` account for every rule, including the ones we
cannot read; these requirements explain and complete them, they never overrule them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ClassicState = Literal["read", "partial", "none", "not_readable", "unknown"]
MERGE_METHODS = ("squash", "merge", "rebase")


@dataclass
class Requirements:
    required_approvals: int = 0
    required_checks: list[str] = field(default_factory=list)
    strict: bool | None = None  # up-to-date branches required; None = we could not tell
    conversation_resolution: bool = False
    code_owner_review: bool = False
    last_push_approval: bool = False
    merge_queue: bool = False
    allowed_merge_methods: list[str] | None = None  # None = not restricted by a rule
    sources: list[str] = field(default_factory=list)
    review_sources: list[str] = field(default_factory=list)  # where the approval requirement comes from
    classic: ClassicState = "unknown"
    notes: list[str] = field(default_factory=list)

    def add_checks(self, names: list[str]) -> None:
        for name in names:
            if name and name not in self.required_checks:
                self.required_checks.append(name)


# Rule types whose REST parameters carry something GraphQL's do not (pull_request: allowed_merge_methods).
REST_ONLY_PARAMETERS = {"pull_request": ("allowed_merge_methods",)}


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def _snake_value(value: Any) -> Any:
    if isinstance(value, dict):
        return {_snake(k): _snake_value(v) for k, v in value.items() if k != "__typename"}
    if isinstance(value, list):
        return [_snake_value(v) for v in value]
    return value


def rules_from_graphql(conn: dict[str, Any] | None) -> list[dict[str, Any]]:
    """``Ref.rules`` nodes as the rule objects of ``GET …/rules/branches/{b}`` (type, parameters, ruleset_id,
    ruleset_source_type, ruleset_source); only the parameters selected in the query are present."""
    out = []
    for node in (conn or {}).get("nodes") or []:
        if not isinstance(node, dict) or not node.get("type"):
            continue
        ruleset = node.get("repositoryRuleset") or {}
        source = ruleset.get("source") or {}
        out.append({"type": str(node["type"]).lower(), "parameters": _snake_value(node.get("parameters") or {}),
                    "ruleset_id": ruleset.get("databaseId"), "ruleset_source_type": source.get("__typename"),
                    "ruleset_source": source.get("nameWithOwner") or source.get("login")})
    return out


def _apply_ruleset_rule(req: Requirements, rule: dict[str, Any]) -> None:
    kind = rule.get("type")
    params = rule.get("parameters") or {}
    if kind == "pull_request":
        req.required_approvals = max(req.required_approvals, int(params.get("required_approving_review_count") or 0))
        req.conversation_resolution |= bool(params.get("required_review_thread_resolution"))
        req.code_owner_review |= bool(params.get("require_code_owner_review"))
        req.last_push_approval |= bool(params.get("require_last_push_approval"))
        methods = params.get("allowed_merge_methods")
        if isinstance(methods, list) and methods:
            allowed = [m for m in MERGE_METHODS if m in methods]
            req.allowed_merge_methods = [m for m in (req.allowed_merge_methods or allowed) if m in allowed]
    elif kind == "required_status_checks":
        req.add_checks([str(c.get("context") or "") for c in params.get("required_status_checks") or []])
        if params.get("strict_required_status_checks_policy"):
            req.strict = True
        elif req.strict is None:
            req.strict = False
    elif kind == "merge_queue":
        req.merge_queue = True


def _ruleset_label(rule: dict[str, Any]) -> str:
    rid = rule.get("ruleset_id")
    base = f"ruleset {rid}" if rid is not None else "a ruleset"
    kind = (rule.get("ruleset_source_type") or "").lower()
    where = " ".join(x for x in (kind, rule.get("ruleset_source") or "") if x)
    return f"{base} ({where})" if where else base


def _apply_classic_stub(req: Requirements, branch: dict[str, Any]) -> bool:
    """GET /branches/{b}: returns whether the branch is protected."""
    protected = bool(branch.get("protected"))
    prot = branch.get("protection") or {}
    rsc = prot.get("required_status_checks") or {}
    if protected and rsc and rsc.get("enforcement_level", "everyone") != "off":
        req.add_checks([str(c) for c in rsc.get("contexts") or []])
        req.add_checks([str(c.get("context") or "") for c in rsc.get("checks") or []])
        if rsc.get("strict") is not None:
            req.strict = bool(rsc["strict"]) or bool(req.strict)
    count = branch.get("required_approving_review_count")
    if isinstance(count, int):
        req.required_approvals = max(req.required_approvals, count)
    return protected


def _apply_ref_update_rule(req: Requirements, rule: dict[str, Any]) -> None:
    req.required_approvals = max(req.required_approvals, int(rule.get("requiredApprovingReviewCount") or 0))
    req.add_checks([str(c) for c in rule.get("requiredStatusCheckContexts") or [] if c])
    req.conversation_resolution |= bool(rule.get("requiresConversationResolution"))
    req.code_owner_review |= bool(rule.get("requiresCodeOwnerReviews"))


def _apply_protection(req: Requirements, prot: dict[str, Any]) -> None:
    reviews = prot.get("required_pull_request_reviews") or {}
    if reviews:
        req.required_approvals = max(req.required_approvals, int(reviews.get("required_approving_review_count") or 0))
        req.code_owner_review |= bool(reviews.get("require_code_owner_reviews"))
        req.last_push_approval |= bool(reviews.get("require_last_push_approval"))
    rsc = prot.get("required_status_checks") or {}
    if rsc:
        req.add_checks([str(c) for c in rsc.get("contexts") or []])
        req.add_checks([str(c.get("context") or "") for c in rsc.get("checks") or []])
        req.strict = bool(rsc.get("strict")) or bool(req.strict)
    req.conversation_resolution |= bool((prot.get("required_conversation_resolution") or {}).get("enabled"))


def requirements(*, branch_name: str, rules: list[dict[str, Any]] | None, branch: dict[str, Any] | None,
                 ref_update_rule: dict[str, Any] | None, protection: dict[str, Any] | None,
                 protection_status: Literal["read", "absent", "not_readable", "skipped"]) -> Requirements:
    """Combine every readable source. ``protection_status``: ``read`` (the admin endpoint answered),
    ``absent`` (it said the branch is not protected), ``not_readable`` (403/404 for this login) or
    ``skipped`` (not asked: the viewer is not an admin)."""
    req = Requirements()
    labels: list[str] = []
    for rule in rules or []:
        _apply_ruleset_rule(req, rule)
        label = _ruleset_label(rule)
        if label not in labels:
            labels.append(label)
        if rule.get("type") == "pull_request" and label not in req.review_sources:
            req.review_sources.append(label)
    req.sources.extend(labels)
    if rules is None:
        req.notes.append(f"The rulesets of {branch_name!r} could not be read; GitHub's merge state still "
                         "accounts for them.")
    protected = _apply_classic_stub(req, branch) if branch is not None else None
    if ref_update_rule:
        _apply_ref_update_rule(req, ref_update_rule)
        if ref_update_rule.get("requiredApprovingReviewCount"):
            req.review_sources.append("classic branch protection")
    if protection_status == "read" and protection is not None:
        _apply_protection(req, protection)
        reviews = protection.get("required_pull_request_reviews") or {}
        if reviews.get("required_approving_review_count") and "classic branch protection" not in req.review_sources:
            req.review_sources.append("classic branch protection")
        req.classic = "read"
        req.sources.append("classic branch protection")
    elif protected is False or protection_status == "absent":
        req.classic = "none"
    elif protected:
        req.classic = "partial"
        req.sources.append("classic branch protection (partly readable)")
        req.notes.append(
            f"Classic branch protection of {branch_name!r} is readable in full by repository admins only; "
            "shown here: its required checks (GET /branches) and the rules GitHub applies to your login. "
            "GitHub's mergeStateStatus still accounts for all of it.")
    else:
        req.classic = "not_readable" if protection_status == "not_readable" else "unknown"
        if branch is None:
            req.notes.append(f"Branch {branch_name!r} could not be read, so classic protection is unknown.")
    if req.strict is None and req.classic in ("partial", "not_readable", "unknown"):
        req.notes.append("Whether the branch must be up to date before merging is not visible to your login; "
                         "GitHub reports BEHIND when it is required and the branch is behind.")
    return req
