"""fakehub: GraphQL ``Ref.rules`` — the rules of the active rulesets that apply to a branch, from the same
``branch_rules.<branch>.rulesets`` scenario data that ``GET /repos/{o}/{r}/rules/branches/{branch}`` serves
(ext_merge_rest.get_branch_rules), in the same order (ruleset by ruleset, rule by rule).

Types are REST's in upper case (``pull_request`` → ``PULL_REQUEST``). Parameters are REST's in camelCase,
typed as the ``RuleParameters`` member GitHub uses for that rule type; a rule type without a parameters type
in the schema (``merge_queue``, ``creation``, …) has ``parameters: null``, as on GitHub. REST parameters the
GraphQL type lacks (``allowed_merge_methods`` on ``pull_request``) are not served here, because the pinned
schema has no field for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .spec import node_id

PARAMETER_TYPES: dict[str, str] = {
    "update": "UpdateParameters",
    "pull_request": "PullRequestParameters",
    "required_status_checks": "RequiredStatusChecksParameters",
    "required_deployments": "RequiredDeploymentsParameters",
    "workflows": "WorkflowsParameters",
    "code_scanning": "CodeScanningParameters",
    "branch_name_pattern": "BranchNamePatternParameters",
    "tag_name_pattern": "TagNamePatternParameters",
    "commit_message_pattern": "CommitMessagePatternParameters",
    "commit_author_email_pattern": "CommitAuthorEmailPatternParameters",
    "committer_email_pattern": "CommitterEmailPatternParameters",
    "file_path_restriction": "FilePathRestrictionParameters",
    "file_extension_restriction": "FileExtensionRestrictionParameters",
    "max_file_path_length": "MaxFilePathLengthParameters",
    "max_file_size": "MaxFileSizeParameters",
}
# non-null fields GitHub always fills (REST may leave them out of a scenario)
DEFAULTS: dict[str, dict[str, Any]] = {
    "PullRequestParameters": {"dismissStaleReviewsOnPush": False, "requireCodeOwnerReview": False,
                              "requireLastPushApproval": False, "requiredApprovingReviewCount": 0,
                              "requiredReviewThreadResolution": False},
    "RequiredStatusChecksParameters": {"requiredStatusChecks": [], "strictRequiredStatusChecksPolicy": False},
    "UpdateParameters": {"updateAllowsFetchAndMerge": False},
}
REST_ONLY = {"allowed_merge_methods"}  # not in the pinned GraphQL schema (PullRequestParameters)


def camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _camel_value(value: Any) -> Any:
    if isinstance(value, dict):
        return {camel(k): _camel_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel_value(v) for v in value]
    return value


def parameters_view(kind: str, params: dict[str, Any]) -> dict[str, Any] | None:
    typename = PARAMETER_TYPES.get(kind)
    if typename is None:
        return None
    body = {camel(k): _camel_value(v) for k, v in params.items() if k not in REST_ONLY}
    if typename == "RequiredStatusChecksParameters":
        body["requiredStatusChecks"] = [{"integrationId": None, **c} for c in body.get("requiredStatusChecks") or []]
    return {**DEFAULTS.get(typename, {}), **body, "__typename": typename}


def _source_view(repo: dict[str, Any], rs: dict[str, Any]) -> dict[str, Any]:
    if rs["source_type"] == "Organization":
        return {"__typename": "Organization", "id": node_id("O", rs["source"]), "login": rs["source"],
                "name": rs["source"]}
    name = rs["source"].partition("/")[2]
    return {"__typename": "Repository", "id": repo["node_id"] if rs["source"] == f"{repo['owner']}/{repo['name']}"
            else node_id("R", rs["source"]), "name": name or rs["source"], "nameWithOwner": rs["source"]}


def _ruleset_view(repo: dict[str, Any], branch: str, rs: dict[str, Any]) -> dict[str, Any]:
    full = f"{repo['owner']}/{repo['name']}"
    return {"__typename": "RepositoryRuleset", "id": node_id("RRS", full, rs["id"]), "databaseId": rs["id"],
            "name": rs["name"], "enforcement": "ACTIVE", "target": "BRANCH", "source": _source_view(repo, rs),
            "conditions": {"refName": {"include": [f"refs/heads/{branch}"], "exclude": []}, "repositoryId": None,
                           "repositoryName": None, "repositoryProperty": None},
            "createdAt": repo["created_at"], "updatedAt": repo["created_at"]}


def branch_rules(repo: dict[str, Any], branch: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(ruleset, rule) for every rule of every ruleset of `branch` (the same list REST serves)."""
    sets = ((repo.get("branch_rules") or {}).get(branch) or {}).get("rulesets") or []
    return [(rs, r) for rs in sets for r in rs["rules"]]


def ref_rules(repo: dict[str, Any], branch: str) -> Callable[..., dict[str, Any]]:
    """The resolver of ``Ref.rules(first, after, …)`` for `branch` of `repo`."""
    from .gql_views import connection

    full = f"{repo['owner']}/{repo['name']}"

    def view(item: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
        rs, r = item
        index = rs["rules"].index(r)
        return {"__typename": "RepositoryRule", "id": node_id("RRULE", full, rs["id"], index),
                "type": r["type"].upper(), "parameters": parameters_view(r["type"], r["parameters"]),
                "repositoryRuleset": _ruleset_view(repo, branch, rs)}

    return lambda info, orderBy=None, **a: connection(branch_rules(repo, branch), view, **a)
