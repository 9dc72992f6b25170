"""Pending-review mutations as GitHub does them: submitPullRequestReview and deletePullRequestReview.

GitHub: a review is PENDING until its author submits it (event COMMENT, APPROVE or REQUEST_CHANGES); only
then do its draft comments become visible to others. Deleting works only on a pending review and removes
its draft comments ("Can only delete pending reviews" otherwise). Only the review's author can do either;
another user's pending review is invisible to the viewer, so it is NOT_FOUND.
"""

from __future__ import annotations

from typing import Any

from .gql_views import GitHubError

_EVENTS = {"COMMENT": "COMMENTED", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}


def _own_pending(gql: Any, review_id: str) -> Any:
    loc = gql.world.locate(review_id)
    if loc is None or loc.kind != "review" or (loc.obj["state"] == "PENDING" and loc.obj["author"] != gql.world.viewer):
        raise GitHubError("NOT_FOUND", f"Could not resolve to a node with the global id of '{review_id}'")
    return loc


def submit_review(gql: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    loc = _own_pending(gql, input["pullRequestReviewId"])
    r, pr, world = loc.obj, loc.pr, gql.world
    if r["state"] != "PENDING":
        raise GitHubError("UNPROCESSABLE", "Review has already been submitted.")
    event = input.get("event") or "COMMENT"
    if event == "DISMISS" or event not in _EVENTS:
        raise GitHubError("UNPROCESSABLE", f"Invalid event {event} for a pending review.")
    with world.lock:
        now = world.now()
        r["state"], r["submitted_at"] = _EVENTS[event], now
        if input.get("body") is not None:
            r["body"] = input["body"]
        for c in world.review_comments(pr, r["id"]):
            c["state"] = "SUBMITTED"
        pr["viewer_pending_review"] = False
        pr["updated_at"] = now
    return {"clientMutationId": input.get("clientMutationId"), "pullRequestReview": gql.views.review(loc.repo, pr, r)}


def delete_review(gql: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    loc = _own_pending(gql, input["pullRequestReviewId"])
    r, pr, world = loc.obj, loc.pr, gql.world
    if r["state"] != "PENDING":
        raise GitHubError("UNPROCESSABLE", "Can only delete pending reviews.")
    view = gql.views.review(loc.repo, pr, r)
    with world.lock:
        for th in pr["threads"]:
            th["comments"] = [c for c in th["comments"] if c["review"] != r["id"]]
        pr["threads"] = [th for th in pr["threads"] if th["comments"]]
        pr["reviews"] = [x for x in pr["reviews"] if x is not r]
        pr["viewer_pending_review"] = False
        world.reindex()
    return {"clientMutationId": input.get("clientMutationId"), "pullRequestReview": view}
