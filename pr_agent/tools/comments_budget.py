"""find_unresolved_comments' context budget (docs/mcp.md, "Context budget"): what concise answers leave out,
kept apart from what the items are.

- **Reply chains are summarised** with ``detail="concise"``: an item keeps its last :data:`KEEP_REPLIES`
  replies (each body at most :data:`REPLY_BODY_CHARS` characters), says how many there are
  (``reply_count``) and how many were left out (``replies_omitted``); a body over :data:`BODY_CHARS`
  is cut (``body_truncated``). ``detail="full"`` returns every reply whole.
- **Over MCP a resolve is a tool call**: ``action_commands.mcp_action`` is kept, its shell twin
  ``resolve_command`` is left out (the CLI keeps both).
- **What every item would repeat is said once per page** with ``detail="concise"``: ``view_in_browser`` (the
  same PR for every item) and the ``resolve_condition`` of each item type are in the answer's ``actions``; an
  item keeps its own ``resolve_condition`` only when it says something of its own (a thread you may not
  resolve). Flags that are false and counts that are 0 are left out (absent means false / 0).
  ``detail="full"`` repeats everything on every item.
- **Pages fit a context**: :func:`page_size` is 20 items over MCP and 50 on the CLI unless ``page_size`` says.
- The answer's ``truncated`` says what was cut on this page and how to get it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pr_agent import surface
from pr_agent.registry import OutputModel
from pr_agent.review.commands import REPLY_NEEDS_INPUT

KEEP_REPLIES = 2
REPLY_BODY_CHARS = 300
BODY_CHARS = 2000
MCP_PAGE_SIZE = 20
CLI_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
PAGE_SIZE_DESCRIPTION = (f"Items per page, 1-{MAX_PAGE_SIZE}. Omitted means {MCP_PAGE_SIZE} over MCP (sized for a "
                         f"model's context) and {CLI_PAGE_SIZE} on the CLI.")


class Truncated(OutputModel):
    items_with_replies_cut: int = Field(description="Items on this page whose reply chain was summarised.")
    replies_omitted: int = Field(description="Replies left out on this page.")
    bodies_cut: int = Field(description="Bodies (of items or kept replies) cut on this page.")
    how_to_get_all: str


def page_size(asked: int | None) -> int:
    if asked is not None:
        return asked
    return MCP_PAGE_SIZE if surface.current() == "mcp" else CLI_PAGE_SIZE


def _tool_call_only(item: dict[str, Any]) -> dict[str, Any]:
    actions = item.get("action_commands") or {}
    if actions.get("mcp_action") and actions.get("resolve_command"):
        item = {**item, "action_commands": {k: v for k, v in actions.items() if k != "resolve_command"}}
    return item


# left out of concise items when false / 0: absent means false (their descriptions say so)
_FALSE_BY_DEFAULT = ("is_minimized", "is_outdated", "hidden_replies", "filtered_replies", "viewer_replied",
                     "last_author_is_bot", "root_filtered")


def _concise_actions(item: dict[str, Any], conditions: dict[str, str]) -> dict[str, Any]:
    """``action_commands`` without what the page's ``actions`` already says for every item (the browser command,
    what a reply command reads, the item type's resolve condition)."""
    actions = {k: v for k, v in (item.get("action_commands") or {}).items()
               if k != "view_in_browser" and not (k == "needs_input" and list(v) == list(REPLY_NEEDS_INPUT))}
    generic = item.get("can_resolve") if item.get("type") == "review_comment" else (
        actions.get("resolve_condition") == conditions.get(item.get("type") or ""))
    if generic:
        actions.pop("resolve_condition", None)
    return actions


def _concise(item: dict[str, Any], conditions: dict[str, str]) -> dict[str, Any]:
    out = {k: v for k, v in item.items() if not (k in _FALSE_BY_DEFAULT and not v)
           and k != "node_id"  # id names it, and every tool taking a comment takes that id
           and not (k == "changed_since_comment" and v == "false")}  # absent: false (or not applicable)
    out["action_commands"] = _concise_actions(item, conditions)
    replies = [r for r in item.get("replies") or [] if not r.get("is_minimized")]
    shown_last = replies[-1] if replies else (item if not item.get("is_minimized") else None)
    last = out.get("last_author")
    if shown_last is not None and last is not None and last == shown_last.get("author") \
            and not item.get("filtered_replies") and not item.get("hidden_replies"):
        out.pop("last_author")  # the author of the last comment shown: absent means that one
        out.pop("last_author_is_bot", None)
    return out


def _cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` characters, at a word boundary (never mid-word), marked with "…"."""
    if len(text) <= limit:
        return text, False
    head = text[:limit + 1]
    at = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    head = head[:at] if at > limit // 2 else text[:limit]  # a word longer than half the bound: cut it
    return head.rstrip() + "…", True


def _concise_reply(reply: dict[str, Any]) -> dict[str, Any]:
    """A kept reply: who said what. Its node_id, time and links are in detail=full; is_bot and is_minimized only
    when true."""
    return {k: v for k, v in reply.items() if k not in ("node_id", "created_at")
            and not (k in ("is_bot", "is_minimized") and not v)}


def summarise(items: list[dict[str, Any]], *, full: bool,
              conditions: dict[str, str]) -> tuple[list[dict[str, Any]], Truncated | None]:
    """The page's items as sent (copies: the items may belong to a shared snapshot), and what was cut.
    ``conditions``: the page-level resolve_condition of each item type (``actions.resolve_condition``)."""
    if surface.current() == "mcp":  # over MCP, resolving is the mcp_action tool call: its shell twin only costs context
        items = [_tool_call_only(it) for it in items]
    if full:
        return items, None
    out = []
    cut_items = omitted = bodies = 0
    for item in items:
        item = _concise(item, conditions)
        body, was_cut = _cut(item.get("body") or "", BODY_CHARS)
        if was_cut:
            item["body"], item["body_truncated"] = body, True
            bodies += 1
        replies = item.get("replies") or []
        if replies:
            kept = []
            for reply in replies[-KEEP_REPLIES:]:
                text, was_cut = _cut(reply.get("body") or "", REPLY_BODY_CHARS)
                bodies += was_cut
                kept.append({**_concise_reply(reply), "body": text, **({"body_truncated": True} if was_cut else {})})
            item["replies"] = kept
            if len(replies) > KEEP_REPLIES:  # else reply_count would be len(replies)
                item["reply_count"], item["replies_omitted"] = len(replies), len(replies) - KEEP_REPLIES
                cut_items += 1
                omitted += len(replies) - KEEP_REPLIES
        out.append(item)
    if not (cut_items or bodies):
        return out, None
    return out, Truncated(items_with_replies_cut=cut_items, replies_omitted=omitted, bodies_cut=bodies,
                          how_to_get_all=surface.text(
                              "Call again with the same arguments and ",
                              surface.arg("find_unresolved_comments", "detail", "full"),
                              " (the same cursor works) for every reply and whole bodies."))
