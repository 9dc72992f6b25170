"""POST /graphql: GitHub's schema executed by graphql-core over the world.

Answers like GitHub: HTTP 200 with ``{"data": ..., "errors": [{"type"?, "path", "locations", "message"}]}``;
validation and limit errors come without ``data``. A selected field that fakehub does not serve gives
HTTP 501 ``{"message": "fakehub: no resolver for PullRequest.milestone"}`` and lands in ``hub.unhandled``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLResolveInfo,
    GraphQLSyntaxError,
    OperationDefinitionNode,
    default_field_resolver,
    execute,
    get_operation_ast,
    parse,
    validate,
)
from graphql.execution.values import get_variable_values

from . import ext_reviews
from .gql_checks import analyze, validation_errors, variable_errors
from .gql_views import GitHubError, Views, encode_cursor
from .schemas import graphql_schema
from .world import World

DOCS = "https://docs.github.com/graphql"


class Unimplemented(Exception):
    """A field of GitHub's schema that fakehub has no data for."""


@dataclass
class RateBucket:
    limit: int = 5000
    used: int = 0
    reset: int = 0

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)

    def charge(self, points: int) -> None:
        self.used += points


@dataclass
class GqlOutcome:
    status: int
    body: dict[str, Any]
    operation: str | None = None
    query: str | None = None
    variables: dict[str, Any] | None = None
    top_fields: list[str] = field(default_factory=list)
    unimplemented: list[str] = field(default_factory=list)


def field_resolver(source: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
    if isinstance(source, dict):
        name = info.field_name
        if name not in source:
            raise Unimplemented(f"{info.parent_type.name}.{name}")
        value = source[name]
        return value(info, **args) if callable(value) else value
    return default_field_resolver(source, info, **args)


def type_resolver(value: Any, info: GraphQLResolveInfo, abstract_type: Any) -> str | None:
    return value.get("__typename") if isinstance(value, dict) else None


def _format(err: GraphQLError) -> dict[str, Any]:
    out: dict[str, Any] = {}
    original = err.original_error
    if isinstance(original, GitHubError) and original.type:
        out["type"] = original.type
    if err.path:
        out["path"] = list(err.path)
    out["locations"] = [{"line": loc.line, "column": loc.column} for loc in err.locations or []]
    out["message"] = err.message
    return out


def peek(query: Any, op_name: str | None) -> tuple[str | None, list[str]]:
    """(operation name, top-level field names) of a request, without executing it."""
    if not isinstance(query, str):
        return op_name, []
    try:
        op = get_operation_ast(parse(query), op_name)
    except GraphQLError:
        return op_name, []
    if op is None:
        return op_name, []
    names = [s.name.value for s in op.selection_set.selections if hasattr(s, "name")]
    return op_name or (op.name.value if op.name else None), names


def run(world: World, raw: bytes, rate: RateBucket) -> GqlOutcome:
    try:
        payload = json.loads(raw or b"null")
    except ValueError:
        return GqlOutcome(400, {"message": "Problems parsing JSON", "documentation_url": DOCS})
    if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
        return GqlOutcome(200, {"errors": [{"message": "A query attribute must be specified and must be a string."}]})
    query, op_name = payload["query"], payload.get("operationName")
    inputs = payload.get("variables") or {}
    if isinstance(inputs, str):
        inputs = json.loads(inputs or "{}")
    out = GqlOutcome(200, {}, operation=op_name, query=query, variables=inputs)
    schema = graphql_schema()
    try:
        doc = parse(query)
    except GraphQLSyntaxError as err:
        out.body = {"errors": [{"locations": [{"line": x.line, "column": x.column} for x in err.locations or []],
                                "message": err.message}]}
        return out
    op = get_operation_ast(doc, op_name)
    if isinstance(op, OperationDefinitionNode):
        out.operation = op_name or (op.name.value if op.name else None)
        out.top_fields = [s.name.value for s in op.selection_set.selections if hasattr(s, "name")]
    invalid = validate(schema, doc)
    if invalid:
        out.body = {"errors": validation_errors(invalid, doc)}
        return out
    if op is None:
        msg = f"Unknown operation named '{op_name}'." if op_name else "An operation name is required"
        out.body = {"errors": [{"message": msg}]}
        return out
    coerced = get_variable_values(schema, op.variable_definitions or (), inputs)
    if isinstance(coerced, list):
        out.body = {"errors": variable_errors(coerced, op, inputs)}
        return out
    limit_errors, cost, node_count = analyze(schema, doc, op, coerced)
    if limit_errors:
        out.body = {"errors": limit_errors}
        return out
    rate.charge(cost)
    extra: list[dict[str, Any]] = []
    root = Root(world, rate, cost, node_count, extra).fields()
    result = execute(schema, doc, root_value=root, variable_values=inputs, operation_name=op_name,
                     field_resolver=field_resolver, type_resolver=type_resolver)
    missing = sorted({str(e.original_error) for e in result.errors or []
                      if isinstance(e.original_error, Unimplemented)})
    if missing:
        out.unimplemented = missing
        out.status = 501
        out.body = {"message": f"fakehub: no resolver for {', '.join(missing)} (serve it in "
                    "tests/fakehub/gql_views.py or via the scenario's graphql_extra)", "documentation_url": DOCS}
        return out
    errors = [_format(e) for e in result.errors or []] + extra
    out.body = {"data": result.data}
    if errors:
        out.body["errors"] = errors
    return out


class Root:
    """Query and Mutation root fields."""

    def __init__(self, world: World, rate: RateBucket, cost: int, node_count: int, extra: list[dict]) -> None:
        self.world, self.rate, self.cost, self.node_count, self.extra = world, rate, cost, node_count, extra
        self.views = Views(world)

    def fields(self) -> dict[str, Any]:
        v = self.views
        return {
            "repository": self.repository,
            "node": lambda info, id: v.node(id),
            "nodes": self.nodes,
            "viewer": lambda info: v.actor(self.world.viewer),
            "user": self.user,
            "rateLimit": self.rate_limit,
            "resolveReviewThread": lambda info, input: self.set_resolved(input, True),
            "unresolveReviewThread": lambda info, input: self.set_resolved(input, False),
            "addPullRequestReviewThreadReply": self.add_reply,
            "addComment": self.add_comment,
            "submitPullRequestReview": lambda info, input: ext_reviews.submit_review(self, info, input),
            "deletePullRequestReview": lambda info, input: ext_reviews.delete_review(self, info, input),
        }

    def repository(self, info: GraphQLResolveInfo, owner: str, name: str, followRenames: bool = True) -> dict:
        repo = self.world.repo(owner, name)
        if repo is None:
            raise GitHubError("NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'.")
        return self.views.repo(repo)

    def user(self, info: GraphQLResolveInfo, login: str) -> dict[str, Any]:
        u = self.world.users.get(login)
        if u is None or u["type"] != "User":
            raise GitHubError("NOT_FOUND", f"Could not resolve to a User with the login of '{login}'.")
        return self.views.actor(login) or {}

    def nodes(self, info: GraphQLResolveInfo, ids: list[str]) -> list[dict[str, Any] | None]:
        out: list[dict[str, Any] | None] = []
        for i, node_id in enumerate(ids):
            try:
                out.append(self.views.node(node_id))
            except GitHubError as err:
                out.append(None)
                node = info.field_nodes[0]
                loc = node.loc.source.get_location(node.loc.start) if node.loc else None
                self.extra.append({"type": err.type, "path": [*info.path.as_list(), i],
                                   "locations": [{"line": loc.line, "column": loc.column}] if loc else [],
                                   "message": str(err)})
        return out

    def rate_limit(self, info: GraphQLResolveInfo, dryRun: bool = False) -> dict[str, Any]:
        reset = datetime.fromtimestamp(self.rate.reset, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return {"cost": self.cost, "limit": self.rate.limit, "remaining": self.rate.remaining,
                "used": self.rate.used, "resetAt": reset, "nodeCount": self.node_count}

    def _thread(self, thread_id: str) -> Any:
        loc = self.world.locate(thread_id)
        if loc is None or loc.kind != "thread":
            raise GitHubError("NOT_FOUND", f"Could not resolve to a node with the global id of '{thread_id}'")
        return loc

    def _forbid(self, mutation: str) -> GitHubError:
        return GitHubError("FORBIDDEN", f"{self.world.viewer} does not have the correct permissions to "
                           f"execute `{mutation}`")

    def set_resolved(self, input: dict[str, Any], resolved: bool) -> dict[str, Any]:
        loc = self._thread(input["threadId"])
        allowed = loc.obj["viewer_can_resolve" if resolved else "viewer_can_unresolve"]
        if not allowed:
            raise self._forbid("ResolveReviewThread" if resolved else "UnresolveReviewThread")
        th = self.world.set_resolved(loc.obj["id"], resolved)
        return {"clientMutationId": input.get("clientMutationId"),
                "thread": self.views.thread(loc.repo, loc.pr, th)}

    def add_reply(self, info: GraphQLResolveInfo, input: dict[str, Any]) -> dict[str, Any]:
        loc = self._thread(input["pullRequestReviewThreadId"])
        if not loc.obj["viewer_can_reply"]:
            raise self._forbid("AddPullRequestReviewThreadReply")
        if not input["body"].strip():
            raise GitHubError("UNPROCESSABLE", "Body can't be blank")
        review_id = input.get("pullRequestReviewId")
        if review_id is not None:
            found = self.world.locate(review_id)
            if found is None or found.kind != "review" or found.pr is not loc.pr or \
                    found.obj["state"] != "PENDING" or found.obj["author"] != self.world.viewer:
                raise GitHubError("NOT_FOUND", f"Could not resolve to a node with the global id of '{review_id}'")
        comment = self.world.add_reply(loc.obj["id"], input["body"], review_id)
        return {"clientMutationId": input.get("clientMutationId"),
                "comment": self.views.comment(loc.repo, loc.pr, loc.obj, comment)}

    def add_comment(self, info: GraphQLResolveInfo, input: dict[str, Any]) -> dict[str, Any]:
        subject = input["subjectId"]
        loc = self.world.locate(subject)
        if loc is None or loc.kind != "pull_request":
            raise GitHubError("NOT_FOUND", f"Could not resolve to a node with the global id of '{subject}'")
        if not input["body"].strip():
            raise GitHubError("UNPROCESSABLE", "Body can't be blank")
        ic = self.world.add_issue_comment(subject, input["body"])
        view = self.views.issue_comment(loc.repo, loc.pr, ic)
        edge = {"cursor": encode_cursor(len(loc.pr["issue_comments"]) - 1), "node": view}
        return {"clientMutationId": input.get("clientMutationId"), "commentEdge": edge,
                "timelineEdge": edge, "subject": self.views.pr(loc.repo, loc.pr)}
