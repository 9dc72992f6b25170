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
from pr_agent.review.dedup import dedup_across_bots
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


# an item's resolve_condition unless it has one of its own (a thread you cannot resolve); concise answers send
# these once per page (``actions.resolve_condition``) instead of on every item (docs/mcp.md, "Context budget")
RESOLVE_CONDITIONS = {
    "review_comment": "Resolve ONLY after verifying the fix for everything the thread asks: its body and every "
                      "reply.",
    "review": "A review body cannot be resolved; reply in the conversation once it is addressed.",
    "issue_comment": "A conversation comment cannot be resolved; reply in the conversation once it is addressed.",
}


def _conversation_actions(ref: PRRef, type_: str) -> dict[str, Any]:
    return {
        "reply_command": commands.conversation_reply_command(ref),
        "needs_input": list(commands.REPLY_NEEDS_INPUT),
        "resolve_command": None,
        "resolve_condition": RESOLVE_CONDITIONS[type_],
        "view_in_browser": commands.view_command(ref),
    }


def _hidden(node: dict[str, Any]) -> dict[str, Any]:
    """``is_minimized`` (and its reason) of a comment a maintainer hid on GitHub."""
    if not node.get("isMinimized"):
        return {"is_minimized": False}
    return {"is_minimized": True, "minimized_reason": (node.get("minimizedReason") or "").lower() or None}


def inline_finding_fields(root: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """An AI reviewer's inline comment as a finding: title, severity, category, suggestion, ai_prompt (the
    fields a review-body finding has). A bot we cannot name, or a human, gives nothing."""
    from pr_agent.review.bots.inline import parse_inline_comment

    author = root.get("author") or {}
    login = author.get("login") or ""
    if author.get("__typename") == "Bot" and not login.endswith("[bot]"):
        login += "[bot]"  # GraphQL drops the suffix; with it, an unknown bot is recognised by its markup
    end = item.get("line_number")
    f = parse_inline_comment(root.get("body") or "", login, path=item.get("file_path"),
                             start=item.get("start_line") or end, end=end)
    if f is None:
        return {}
    return {"title": f.title or None, "severity": f.severity, "severity_level": f.severity_level,
            "category": f.category, "suggestion": f.suggestion, "ai_prompt": f.ai_prompt,
            "fingerprint": f.fingerprint}


def viewer_pending_review(fb: Feedback) -> dict[str, Any] | None:
    """The viewer's own unsubmitted review (GitHub lists it to its author only), if any."""
    me = normalize_login(fb.viewer)
    return next((r for r in fb.reviews if r.get("state") == "PENDING" and me
                 and normalize_login(display_login(r.get("author"))) == me), None)


def thread_item(thread: dict[str, Any], ref: PRRef, full: bool, viewer: str = "",
                pending_review: str | None = None) -> dict[str, Any] | None:
    comments = [c for c in thread["comments"]["nodes"] if c.get("state") != "PENDING"]
    if not comments:
        return None  # only the viewer's own unsubmitted draft: nobody else can see it yet
    visible = [c for c in comments if not c.get("isMinimized")]
    if not visible and not full:
        return None  # every comment was hidden by a maintainer: shown only with detail=full
    root, rest = comments[0], comments[1:]
    item = _base(root, "review_comment", full)
    item.update(_hidden(root))
    outdated = bool(thread.get("isOutdated"))
    line_thread = thread.get("subjectType") != "FILE" and bool(thread.get("line") or thread.get("originalLine"))
    # GitHub marks a thread outdated when the lines it is anchored to changed in a later push
    item["changed_since_comment"] = "true" if outdated else ("false" if line_thread else "unknown")
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
    if item["is_bot"] and not item["is_minimized"]:
        item.update(inline_finding_fields(root, item))
    hidden_replies = 0
    for reply in rest:
        if reply.get("isMinimized") and not full:
            hidden_replies += 1
            continue
        author = reply.get("author") or {}
        entry: dict[str, Any] = {
            "id": _int_id(reply), "node_id": reply["id"], "author": display_login(author),
            "is_bot": is_bot(author.get("login"), author.get("__typename")),
            "created_at": reply.get("createdAt") or "", "body": reply.get("body") or "",
            **_hidden(reply),
        }
        if full:
            entry["html_url"] = reply.get("url")
            entry["reactions"] = reactions(reply)
        item["replies"].append(entry)
    item["hidden_replies"] = hidden_replies
    # who spoke last is who spoke last VISIBLY: a reply hidden as spam is nobody's last word
    me = normalize_login(viewer)
    if visible:
        last_author = visible[-1].get("author") or {}
        item["last_author"] = display_login(last_author)
        item["last_author_is_bot"] = is_bot(last_author.get("login"), last_author.get("__typename"))
    item["viewer_replied"] = bool(me) and any(
        normalize_login(display_login(c.get("author"))) == me for c in visible if c is not root)
    item["source"] = "thread"
    item["_uid"] = thread["id"]
    item["action_commands"] = _thread_actions(thread, ref, item, pending_review)
    return item


def _thread_actions(thread: dict[str, Any], ref: PRRef, item: dict[str, Any],
                    pending_review: str | None) -> dict[str, Any]:
    actions: dict[str, Any] = {
        "reply_command": commands.review_reply_command(ref, item["id"]),
        "needs_input": list(commands.REPLY_NEEDS_INPUT),
        "view_in_browser": commands.view_command(ref),
    }
    if pending_review:
        # GitHub answers 422 to a REST reply while the viewer has a pending review: reply into it instead
        actions["reply_command"] = commands.pending_reply_command(ref, thread["id"], pending_review)
        actions["reply_into_pending_review"] = True
    if not item["can_resolve"]:
        # GitHub answers FORBIDDEN to anything we could offer: say why instead of offering it
        actions["resolve_command"] = None
        actions["resolve_condition"] = (
            "Your gh login cannot resolve this thread (GitHub's viewerCanResolve is false: only the PR author "
            "and people with write access may). Reply once it is addressed and ask the reviewer or a "
            "maintainer to resolve it.")
        return actions
    actions["resolve_command"] = commands.resolve_command(ref, thread["id"])
    actions["resolve_condition"] = "Run ONLY after verifying the fix for: " + repr(one_line(item["body"], 120))
    actions["mcp_action"] = {"tool": "resolve_review_thread",
                             "args": {"pr": ref.qualified, "thread_id": thread["id"]}}
    return actions


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
    item.update(_hidden(review))
    item["created_at"] = review.get("submittedAt") or review.get("createdAt") or ""
    item["review_state"] = review.get("state")
    item["_commit"] = (review.get("commit") or {}).get("oid")
    item["source"] = "review_body"
    item["_uid"] = review["id"]
    item["action_commands"] = _conversation_actions(ref, "review")
    return item


def build_items(fb: Feedback, ref: PRRef, *, full: bool,
                parse_bodies: bool = True) -> tuple[list[dict[str, Any]], int, BodyStats]:
    """(items, number of resolved threads skipped, review-body statistics)."""
    items: list[dict[str, Any]] = []
    resolved = 0
    pending = viewer_pending_review(fb)
    for thread in fb.threads:
        if thread.get("isResolved"):
            resolved += 1
            continue
        item = thread_item(thread, ref, full, fb.viewer, pending["id"] if pending else None)
        if item:
            items.append(item)
    superseded = _superseded(fb.reviews)
    standing = [
        r for r in fb.reviews
        # an approval is not open feedback; a pending review is the viewer's own unsent draft
        if r.get("state") not in ("PENDING", "DISMISSED", "APPROVED") and r["id"] not in superseded
        and (r.get("body") or "").strip()
    ]
    # a hidden review body is no finding; with detail=full it is listed whole, flagged
    shown = [r for r in standing if not r.get("isMinimized")]
    if parse_bodies:
        found, stats = body_items(shown, fb.threads, lambda r: review_item(r, ref, full))
        items.extend(found)
    else:
        stats = BodyStats()
        items.extend(review_item(r, ref, full) for r in shown)
    if full:
        items.extend(review_item(r, ref, full) for r in standing if r.get("isMinimized"))
    for comment in fb.issue_comments:
        if (comment.get("isMinimized") and not full) or not (comment.get("body") or "").strip():
            continue
        item = _base(comment, "issue_comment", full)
        item.update(_hidden(comment))
        item["source"] = "conversation"
        item["_uid"] = comment["id"]
        item["action_commands"] = _conversation_actions(ref, "issue_comment")
        items.append(item)
    items, stats.cross_bot_merged = dedup_across_bots(items)
    return items, resolved, stats


def mark_changed_since(items: list[dict[str, Any]], head: str | None, hunks: Any) -> None:
    """``changed_since_comment`` of review-body findings anchored to lines: false when the review is of the
    current head; else, when ``hunks(old, new, path)`` (git inside a clone) can tell, whether a change
    touched those lines; "unknown" otherwise. A hint, never a reason to resolve anything by itself."""
    for it in items:
        if it["source"] != "review_body" or not it.get("fingerprint"):
            continue
        end, path, commit = it.get("line_number"), it.get("file_path"), it.get("_commit")
        if not (end and path and commit and head):
            it["changed_since_comment"] = "unknown"
            continue
        if commit == head:
            it["changed_since_comment"] = "false"
            continue
        ranges = hunks(commit, head, path)
        if ranges is None:
            it["changed_since_comment"] = "unknown"
            continue
        start = it.get("start_line") or end
        it["changed_since_comment"] = "true" if any(a <= end and start <= b for a, b in ranges) else "false"
