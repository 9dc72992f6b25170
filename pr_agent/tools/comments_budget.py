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
- **Nothing an item says twice**: ``thread_id`` when its ``mcp_action`` carries it, ``can_resolve: true`` (the
  ``mcp_action`` says it), ``source`` (it follows from ``type``) and a kept reply's ``id`` (no tool takes it:
  ``resolve_review_thread`` takes the item's own ``id`` for its thread) are left out; :func:`thread_id` reads an
  item's thread either way.
- **Bodies as GitHub shows them**: HTML comments (``<!-- … -->``, bot boilerplate github.com does not render)
  are dropped from bodies outside code (:func:`visible_markdown`); ``detail="full"`` has the text as written.
- **Pages fit a context**: :func:`page_size` is 20 items over MCP and 50 on the CLI unless ``page_size`` says.
- The answer's ``truncated`` says what was cut on this page and how to get it.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from pydantic import Field

from pr_agent import surface
from pr_agent.review.commands import REPLY_NEEDS_INPUT
from pr_agent.tooldef import OutputModel

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


def thread_id(item: dict[str, Any]) -> str | None:
    """The review thread of an item as sent: its ``thread_id``, or (concise, resolvable) its resolve call's."""
    action = (item.get("action_commands") or {}).get("mcp_action") or {}
    return item.get("thread_id") or (action.get("args") or {}).get("thread_id")


# fenced code shows an HTML comment as text: such a block is left as written
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")
_QUOTED = re.compile(r"(?: {0,3}> ?)*")  # a fence inside a block quote is a fence too
_TICKS = re.compile(r"`+")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def _blocks(body: str) -> list[tuple[bool, str]]:
    """``body`` as (is fenced code, text) runs of whole lines; an unclosed fence runs to the end."""
    out: list[tuple[bool, str]] = []
    prose: list[str] = []
    fence: str | None = None
    code: list[str] = []
    for line in body.splitlines(keepends=True):
        quote = _QUOTED.match(line)
        inner = line[quote.end():] if quote else line
        if fence is None:
            m = _FENCE_OPEN.match(inner)
            if m and not (m[1][0] == "`" and "`" in inner[m.end():]):
                out.append((False, "".join(prose)))
                prose, fence, code = [], m[1], [line]
            else:
                prose.append(line)
            continue
        code.append(line)
        closing = inner.strip()
        indent = len(inner) - len(inner.lstrip(" "))
        if closing and set(closing) == {fence[0]} and len(closing) >= len(fence) and indent < 4:
            out.append((True, "".join(code)))
            fence, code = None, []
    out += [(True, "".join(code))] if fence is not None else []
    out.append((False, "".join(prose)))
    return out


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Inline code spans: a run of backticks up to the next run of the same length (CommonMark), found in one
    pass (a bisect per run, so hostile runs of backticks stay linear-ish)."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    by_len: dict[int, list[int]] = {}
    for i, (start, end) in enumerate(runs):
        by_len.setdefault(end - start, []).append(i)
    spans, i = [], 0
    while i < len(runs):
        start, end = runs[i]
        if start and text[start - 1] == "\\":  # an escaped backtick opens nothing
            i += 1
            continue
        same = by_len[end - start]
        j = bisect.bisect_right(same, i)
        if j < len(same):
            spans.append((start, runs[same[j]][1]))
            i = same[j] + 1
        else:
            i += 1
    return spans


def _prose_without_comments(text: str) -> str:
    spans = _code_spans(text) if "`" in text else []
    starts = [s for s, _ in spans]
    out, at = [], 0
    for m in _COMMENT.finditer(text):
        k = bisect.bisect_right(starts, m.start()) - 1
        in_code = k >= 0 and spans[k][1] > m.start()
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if in_code or line.startswith(("    ", "\t")):  # code (or an indented line, maybe a code block) shows it
            continue
        out += [text[at:m.start()]]
        at = m.end()
    if not out:
        return text
    return _BLANK_RUN.sub("\n\n", "".join(out) + text[at:])


def visible_markdown(body: str) -> str:
    """``body`` as github.com shows it, less nothing: without the HTML comments it does not render (outside code
    blocks, inline code and indented lines), with the blank lines they leave folded. A body with nothing visible
    left is returned as written."""
    if "<!--" not in body:
        return body
    text = "".join(part if code else _prose_without_comments(part) for code, part in _blocks(body))
    return text.strip() if text != body and text.strip() else body


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
           and k not in ("node_id", "source")  # id names it (every tool taking a comment takes it); type says source
           and not (k == "changed_since_comment" and v == "false")}  # absent: false (or not applicable)
    out["action_commands"] = _concise_actions(item, conditions)
    action = out["action_commands"].get("mcp_action") or {}
    if action and (action.get("args") or {}).get("thread_id") == item.get("thread_id"):
        out.pop("thread_id", None)  # the resolve call names the thread (thread_id() reads it)
        if out.get("can_resolve") is True:
            out.pop("can_resolve")  # a resolve call is there: it may be resolved
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
    """A kept reply: who said what. Its ids, time and links are in detail=full (no tool takes a reply's id: the
    item's id names the thread); is_bot and is_minimized only when true."""
    return {k: v for k, v in reply.items() if k not in ("id", "node_id", "created_at")
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
        body, was_cut = _cut(visible_markdown(item.get("body") or ""), BODY_CHARS)
        item["body"] = body
        if was_cut:
            item["body_truncated"] = True
            bodies += 1
        replies = item.get("replies") or []
        if replies:
            kept = []
            for reply in replies[-KEEP_REPLIES:]:
                text, was_cut = _cut(visible_markdown(reply.get("body") or ""), REPLY_BODY_CHARS)
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
