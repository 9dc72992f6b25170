"""Turn fetched threads, reviews and conversation comments into feedback items (plain dicts).

Pure: no I/O. One item per unresolved thread (its later comments grouped as ``replies``), per
review body that still stands, and per visible conversation comment. Review bodies go through
:func:`review_body_items`, the seam where AI-reviewer parsing plugs in.
"""

from __future__ import annotations

from typing import Any

from pr_agent.refs import PRRef
from pr_agent.review import commands
from pr_agent.review.authors import display_login, is_bot, normalize_login
from pr_agent.review.bodies import BodyStats, body_items
from pr_agent.review.fetch import Feedback
from pr_agent.textsafe import one_line

_REACTIONS = {"THUMBS_UP": "+1", "THUMBS_DOWN": "-1", "LAUGH": "laugh", "HOORAY": "hooray",
              "CONFUSED": "confused", "HEART": "heart", "ROCKET": "rocket", "EYES": "eyes"}


def reactions(node: dict[str, Any]) -> dict[str, int]:
    out = dict.fromkeys(_REACTIONS.values(), 0)
    for group in node.get("reactionGroups") or []:
        key = _REACTIONS.get(group.get("content", ""))
        if key:
            out[key] = int((group.get("reactors") or {}).get("totalCount") or 0)
    return {"total_count": sum(out.values()), **out}


def _int_id(node: dict[str, Any]) -> int:
    return int(node.get("fullDatabaseId") or 0)


def _base(node: dict[str, Any], type_: str, full: bool) -> dict[str, Any]:
    author = node.get("author") or {}
    rx = reactions(node)
    item: dict[str, Any] = {
        "id": _int_id(node),
        "node_id": node["id"],
        "type": type_,
        "author": display_login(author),
        "author_association": node.get("authorAssociation") or "NONE",
        "is_bot": is_bot(author.get("login"), author.get("__typename")),
        "created_at": node.get("createdAt") or node.get("submittedAt") or "",
        "body": node.get("body") or "",
        "html_url": node.get("url") or "",
        "replies": [],
        "_reaction_total": rx["total_count"],
    }
    if full:
        item["updated_at"] = node.get("updatedAt")
        item["reactions"] = rx
    return item


def _conversation_actions(ref: PRRef, what: str) -> dict[str, Any]:
    return {
        "reply_command": commands.conversation_reply_command(ref),
        "resolve_command": None,
        "resolve_condition": f"{what} cannot be resolved; reply in the conversation once it is addressed.",
        "view_in_browser": commands.view_command(ref),
    }


def thread_item(thread: dict[str, Any], ref: PRRef, full: bool, viewer: str = "") -> dict[str, Any] | None:
    comments = [c for c in thread["comments"]["nodes"] if c.get("state") != "PENDING"]
    if not comments:
        return None  # only the viewer's own unsubmitted draft: nobody else can see it yet
    root, rest = comments[0], comments[1:]
    item = _base(root, "review_comment", full)
    outdated = bool(thread.get("isOutdated"))
    item.update(
        thread_id=thread["id"],
        file_path=thread.get("path"),
        line_number=thread.get("line") or thread.get("originalLine"),
        start_line=thread.get("startLine") or thread.get("originalStartLine"),
        is_outdated=outdated,
        can_resolve=bool(thread.get("viewerCanResolve")),
    )
    if full:
        item["diff_hunk"] = root.get("diffHunk")
        item["subject_type"] = thread.get("subjectType")
    for reply in rest:
        author = reply.get("author") or {}
        entry: dict[str, Any] = {
            "id": _int_id(reply), "node_id": reply["id"], "author": display_login(author),
            "is_bot": is_bot(author.get("login"), author.get("__typename")),
            "created_at": reply.get("createdAt") or "", "body": reply.get("body") or "",
        }
        if full:
            entry["html_url"] = reply.get("url")
            entry["reactions"] = reactions(reply)
        item["replies"].append(entry)
    last = (rest or [root])[-1]
    last_author = last.get("author") or {}
    me = normalize_login(viewer)
    item["last_author"] = display_login(last_author)
    item["last_author_is_bot"] = is_bot(last_author.get("login"), last_author.get("__typename"))
    item["viewer_replied"] = bool(me) and any(normalize_login(display_login(c.get("author"))) == me for c in rest)
    item["source"] = "thread"
    item["_uid"] = thread["id"]
    item["action_commands"] = {
        "reply_command": commands.review_reply_command(ref, item["id"]),
        "resolve_command": commands.resolve_command(ref, thread["id"]),
        "resolve_condition": "Run ONLY after verifying the fix for: " + repr(one_line(item["body"], 120)),
        "view_in_browser": commands.view_command(ref),
        "mcp_action": {"tool": "resolve_review_thread", "args": {"pr": ref.qualified, "thread_id": thread["id"]}},
    }
    return item


def _superseded(reviews: list[dict[str, Any]]) -> set[str]:
    """Reviews whose author later approved (or had the review dismissed): their requests no longer stand."""
    latest_approval: dict[str, str] = {}
    for r in reviews:
        if r.get("state") == "APPROVED":
            who = normalize_login(display_login(r.get("author")))
            when = r.get("submittedAt") or r.get("createdAt") or ""
            latest_approval[who] = max(latest_approval.get(who, ""), when)
    out = set()
    for r in reviews:
        who = normalize_login(display_login(r.get("author")))
        when = r.get("submittedAt") or r.get("createdAt") or ""
        if r.get("state") != "APPROVED" and who in latest_approval and when < latest_approval[who]:
            out.add(r["id"])
    return out


def review_item(review: dict[str, Any], ref: PRRef, full: bool) -> dict[str, Any]:
    """A review body as one item (human reviews, unparsed bot bodies)."""
    item = _base(review, "review", full)
    item["created_at"] = review.get("submittedAt") or review.get("createdAt") or ""
    item["review_state"] = review.get("state")
    item["source"] = "review_body"
    item["_uid"] = review["id"]
    item["action_commands"] = _conversation_actions(ref, "A review body")
    return item


def build_items(fb: Feedback, ref: PRRef, *, full: bool,
                parse_bodies: bool = True) -> tuple[list[dict[str, Any]], int, BodyStats]:
    """(items, number of resolved threads skipped, review-body statistics)."""
    items: list[dict[str, Any]] = []
    resolved = 0
    for thread in fb.threads:
        if thread.get("isResolved"):
            resolved += 1
            continue
        item = thread_item(thread, ref, full, fb.viewer)
        if item:
            items.append(item)
    superseded = _superseded(fb.reviews)
    standing = [
        r for r in fb.reviews
        # an approval is not open feedback; a pending review is the viewer's own unsent draft
        if r.get("state") not in ("PENDING", "DISMISSED", "APPROVED") and r["id"] not in superseded
        and (r.get("body") or "").strip()
    ]
    if parse_bodies:
        found, stats = body_items(standing, fb.threads, lambda r: review_item(r, ref, full))
        items.extend(found)
    else:
        stats = BodyStats()
        items.extend(review_item(r, ref, full) for r in standing)
    for comment in fb.issue_comments:
        if comment.get("isMinimized") or not (comment.get("body") or "").strip():
            continue
        item = _base(comment, "issue_comment", full)
        item["source"] = "conversation"
        item["_uid"] = comment["id"]
        item["action_commands"] = _conversation_actions(ref, "A conversation comment")
        items.append(item)
    return items, resolved, stats
