"""REST routes. Each route is keyed by its OpenAPI operation ("METHOD /path/{template}"), and every
success response is validated against that operation's schema in fixtures/github/openapi-subset.json.

To serve a new endpoint: add a handler to ROUTES, add the operation to OPERATIONS in
scripts/refresh-github-schemas, and re-run that script.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from .gql import RateBucket
from .rest_objects import RestObjects
from .world import World

DOCS = "https://docs.github.com/rest"


@dataclass
class RestResponse:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    operation: str | None = None  # the OpenAPI operation whose schema a 2xx body must satisfy


class RestError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("message"))
        self.status, self.body = status, body


class Unserved(Exception):
    """The route exists on GitHub but fakehub cannot answer this variant (e.g. a diff media type)."""


def not_found() -> RestError:
    return RestError(404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"})


def invalid(message: str, errors: list[Any] | None = None) -> RestError:
    body: dict[str, Any] = {"message": message}
    if errors is not None:
        body["errors"] = errors
    body.update({"documentation_url": DOCS, "status": "422"})
    return RestError(422, body)


@dataclass
class Ctx:
    world: World
    objects: RestObjects
    method: str
    path: str           # normalized API path, e.g. /repos/o/r/pulls/1/comments
    public_path: str    # the path as requested (keeps a /api/v3 prefix), for Link headers
    origin: str         # http://api.github.localhost
    query: dict[str, str]
    body: bytes
    headers: Any
    rates: dict[str, RateBucket]
    params: dict[str, str] = field(default_factory=dict)

    def json_body(self) -> dict[str, Any]:
        try:
            data = json.loads(self.body or b"{}")
        except ValueError:
            raise RestError(400, {"message": "Problems parsing JSON", "documentation_url": DOCS,
                                  "status": "400"}) from None
        if not isinstance(data, dict):
            raise RestError(400, {"message": "Problems parsing JSON", "documentation_url": DOCS, "status": "400"})
        return data

    def pull(self) -> tuple[dict[str, Any], dict[str, Any]]:
        found = self.world.pull(self.params["owner"], self.params["repo"],
                                int(self.params.get("pull_number") or self.params["issue_number"]))
        if found is None:
            raise not_found()
        return found

    def paginate(self, items: list[Any]) -> tuple[list[Any], dict[str, str]]:
        """GitHub's page/per_page slicing with a Link header gh --paginate can follow."""
        def number(name: str, default: int) -> int:
            try:
                return int(self.query.get(name, default))
            except ValueError:
                return default

        per_page = min(max(number("per_page", 30), 1), 100)
        page = max(number("page", 1), 1)
        last = max(1, math.ceil(len(items) / per_page))

        def url(n: int) -> str:
            query = dict(self.query)
            query["page"] = str(n)
            return f"{self.origin}{self.public_path}?{urlencode(query)}"

        rels = []
        if page > 1:
            rels.append(("prev", min(page - 1, last)))
        if page < last:
            rels += [("next", page + 1), ("last", last)]
        if page > 1:
            rels.append(("first", 1))
        headers = {"Link": ", ".join(f'<{url(n)}>; rel="{rel}"' for rel, n in rels)} if rels else {}
        return items[(page - 1) * per_page: page * per_page], headers


Handler = Callable[[Ctx], RestResponse]


def _sorted(ctx: Ctx, items: list[tuple[Any, dict[str, Any]]]) -> list[Any]:
    """`sort` (created|updated), `direction` and `since` as GitHub applies them to comment lists."""
    key = "updated_at" if ctx.query.get("sort") == "updated" else "created_at"
    since = ctx.query.get("since")
    kept = [(obj, raw) for obj, raw in items if not since or raw["updated_at"] >= since]
    kept.sort(key=lambda pair: (pair[1][key], pair[1]["id"]), reverse=ctx.query.get("direction") == "desc")
    return [obj for obj, _ in kept]


def get_root(ctx: Ctx) -> RestResponse:
    return RestResponse(200, ctx.objects.root())


def get_user(ctx: Ctx) -> RestResponse:
    return RestResponse(200, ctx.objects.private_user(ctx.world.viewer))


def get_rate_limit(ctx: Ctx) -> RestResponse:
    def bucket(name: str) -> dict[str, Any]:
        b = ctx.rates[name]
        return {"limit": b.limit, "used": b.used, "remaining": b.remaining, "reset": b.reset, "resource": name}

    reset = ctx.rates["core"].reset
    small = {"limit": 30, "used": 0, "remaining": 30, "reset": reset}
    resources = {"core": bucket("core"), "graphql": bucket("graphql"), "search": {**small, "resource": "search"},
                 "code_search": {"limit": 10, "used": 0, "remaining": 10, "reset": reset, "resource": "code_search"}}
    return RestResponse(200, {"resources": resources, "rate": resources["core"]})


def get_repo(ctx: Ctx) -> RestResponse:
    repo = ctx.world.repo(ctx.params["owner"], ctx.params["repo"])
    if repo is None:
        raise not_found()
    return RestResponse(200, ctx.objects.repository(repo))


def get_pull(ctx: Ctx) -> RestResponse:
    accept = (ctx.headers.get("Accept") or "").lower()
    if "diff" in accept or "patch" in accept:
        raise Unserved(f"media type {accept}")
    repo, pr = ctx.pull()
    return RestResponse(200, ctx.objects.pull(repo, pr))


def list_review_comments(ctx: Ctx) -> RestResponse:
    repo, pr = ctx.pull()
    items = [(ctx.objects.review_comment(repo, pr, th, c), c) for th in pr["threads"] for c in th["comments"]
             if c["state"] == "SUBMITTED"]
    page, headers = ctx.paginate(_sorted(ctx, items))
    return RestResponse(200, page, headers)


def get_review_comment(ctx: Ctx) -> RestResponse:
    loc = ctx.world.locate_db("comment", int(ctx.params["comment_id"]))
    if loc is None or loc.repo is not ctx.world.repo(ctx.params["owner"], ctx.params["repo"]) \
            or loc.obj["state"] != "SUBMITTED":
        raise not_found()
    assert loc.pr is not None and loc.thread is not None and loc.repo is not None
    return RestResponse(200, ctx.objects.review_comment(loc.repo, loc.pr, loc.thread, loc.obj))


def create_reply(ctx: Ctx) -> RestResponse:
    repo, pr = ctx.pull()
    loc = ctx.world.locate_db("comment", int(ctx.params["comment_id"]))
    if loc is None or loc.pr is not pr or loc.obj["state"] != "SUBMITTED":
        raise not_found()
    body = ctx.json_body().get("body")
    if not isinstance(body, str):
        raise invalid('Invalid request.\n\n"body" wasn\'t supplied.')
    if ctx.world.pending_review(pr) is not None:
        raise invalid("Validation Failed", ["user_id can only have one pending review per pull request"])
    if not body.strip():
        raise invalid("Validation Failed", [{"resource": "PullRequestReviewComment", "code": "missing_field",
                                             "field": "body"}])
    assert loc.thread is not None
    comment = ctx.world.add_reply(loc.thread["id"], body)
    obj = ctx.objects.review_comment(repo, pr, loc.thread, comment)
    return RestResponse(201, obj, {"Location": obj["url"]})


def list_reviews(ctx: Ctx) -> RestResponse:
    repo, pr = ctx.pull()
    page, headers = ctx.paginate([ctx.objects.review(repo, pr, r) for r in ctx.world.visible_reviews(pr)])
    return RestResponse(200, page, headers)


def list_issue_comments(ctx: Ctx) -> RestResponse:
    repo, pr = ctx.pull()
    items = [(ctx.objects.issue_comment(repo, pr, ic), ic) for ic in pr["issue_comments"]]
    page, headers = ctx.paginate(_sorted(ctx, items))
    return RestResponse(200, page, headers)


def create_issue_comment(ctx: Ctx) -> RestResponse:
    repo, pr = ctx.pull()
    body = ctx.json_body().get("body")
    if not isinstance(body, str) or not body.strip():
        raise invalid("Validation Failed", [{"resource": "IssueComment", "code": "missing_field", "field": "body"}])
    ic = ctx.world.add_issue_comment(pr["node_id"], body)
    obj = ctx.objects.issue_comment(repo, pr, ic)
    return RestResponse(201, obj, {"Location": obj["url"]})


ROUTES: dict[str, Handler] = {
    "GET /": get_root,
    "GET /user": get_user,
    "GET /rate_limit": get_rate_limit,
    "GET /repos/{owner}/{repo}": get_repo,
    "GET /repos/{owner}/{repo}/pulls/{pull_number}": get_pull,
    "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments": list_review_comments,
    "GET /repos/{owner}/{repo}/pulls/comments/{comment_id}": get_review_comment,
    "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies": create_reply,
    "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews": list_reviews,
    "GET /repos/{owner}/{repo}/issues/{issue_number}/comments": list_issue_comments,
    "POST /repos/{owner}/{repo}/issues/{issue_number}/comments": create_issue_comment,
}
from .ext_ci_rest import ROUTES as _CI_ROUTES  # noqa: E402  (needs the names above)
from .ext_ci_runs import ROUTES as _RUN_ROUTES  # noqa: E402  (needs the names above)
from .ext_merge_rest import ROUTES as _MERGE_ROUTES  # noqa: E402  (needs the names above)
from .ext_stack_rest import ROUTES as _STACK_ROUTES  # noqa: E402  (needs the names above)

ROUTES.update(_MERGE_ROUTES)
ROUTES.update(_STACK_ROUTES)
ROUTES.update(_CI_ROUTES)
ROUTES.update(_RUN_ROUTES)
UNCOUNTED = {"GET /rate_limit"}  # "does not count against your primary rate limit"


def _compile(template: str) -> re.Pattern[str]:
    def param(m: re.Match[str]) -> str:
        name = m[1]
        body = r"\d+" if name.endswith(("_number", "_id")) else r"[^/]+"
        return f"(?P<{name}>{body})"

    return re.compile(re.sub(r"\\\{(\w+)\\\}", param, re.escape(template)) + "/?")


_COMPILED = [(key.split(" ", 1)[0], _compile(key.split(" ", 1)[1]), key, fn) for key, fn in ROUTES.items()]


def match(method: str, path: str) -> tuple[str, Handler, dict[str, str]] | None:
    for m, pattern, key, fn in _COMPILED:
        found = pattern.fullmatch(path)
        if found and m == method:
            return key, fn, found.groupdict()
    return None


def dispatch(ctx: Ctx) -> RestResponse | None:
    """None when no route serves METHOD PATH (the server answers 501 and records it)."""
    found = match(ctx.method, ctx.path)
    if found is None:
        return None
    key, fn, params = found
    ctx.params = params
    if key not in UNCOUNTED:
        ctx.rates["core"].charge(1)
    try:
        response = fn(ctx)
    except RestError as err:
        return RestResponse(err.status, err.body, operation=key)
    response.operation = key
    return response
