"""fakehub REST route for stacked PRs: ``PATCH /repos/{owner}/{repo}/pulls/{pull_number}`` (title, body, base),
the call that retargets a PR. Registered into rest.ROUTES by tests/fakehub/rest.py."""

from __future__ import annotations

from typing import Any

from . import rest
from .ext_stack import add_base_change


def update_pull(ctx: Any) -> rest.RestResponse:
    repo, pr = ctx.pull()
    body = ctx.json_body()
    for key in ("title", "body", "base"):
        if key in body and not isinstance(body[key], str):
            raise rest.invalid(f'Invalid request.\n\nFor \'properties/{key}\', {body[key]!r} is not a string.')
    base = body.get("base")
    if base is not None:
        if pr["state"] != "OPEN":
            raise rest.invalid("Validation Failed", [{"resource": "PullRequest", "code": "custom", "field": "base",
                                                      "message": "Cannot change the base branch of a closed "
                                                                 "pull request."}])
        known = repo.get("branches") or {}
        if known and base not in known:
            raise rest.invalid("Validation Failed", [{"resource": "PullRequest", "field": "base", "code": "invalid"}])
        if base == pr["head_ref"]:
            raise rest.invalid("Validation Failed", [{"resource": "PullRequest", "code": "custom", "field": "base",
                                                      "message": "The base branch cannot be the head branch."}])
        if base != pr["base_ref"]:
            add_base_change(pr, base, ctx.world.viewer, ctx.world.now())
            pr["base_sha"] = known.get(base, pr["base_sha"])
    if isinstance(body.get("title"), str):
        pr["title"] = body["title"]
    if isinstance(body.get("body"), str):
        pr["body"] = body["body"]
    return rest.RestResponse(200, ctx.objects.pull(repo, pr))


ROUTES: dict[str, Any] = {
    "PATCH /repos/{owner}/{repo}/pulls/{pull_number}": update_pull,
}
