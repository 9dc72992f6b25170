"""Concise find_unresolved_comments items (pr_agent/tools/comments_budget.py, docs/mcp.md "Contract decision"):
what every item would repeat is said once per page, an item keeps what is its own, false flags and zero counts
are left out; detail=full keeps everything."""

from __future__ import annotations

from typing import Any

from pr_agent import surface
from pr_agent.tools.comments_budget import summarise

CONDITIONS = {"review_comment": "Resolve only after verifying.", "issue_comment": "Cannot be resolved."}
VIEW = "gh pr view 7 --repo acme/widgets --web"
ACTION = {"tool": "resolve_review_thread", "args": {"pr": "acme/widgets#7", "thread_id": "PRRT_a"}}


def thread(can_resolve: bool, condition: str) -> dict[str, Any]:
    ac: dict[str, Any] = {"reply_command": "gh api -X POST x -F body=@-", "needs_input": ["stdin"],
                          "resolve_condition": condition, "view_in_browser": VIEW}
    if can_resolve:
        ac["mcp_action"] = ACTION
    return {"id": 1, "type": "review_comment", "body": "Fix it.", "thread_id": "PRRT_a", "can_resolve": can_resolve,
            "is_outdated": False, "is_minimized": False, "hidden_replies": 0, "viewer_replied": True,
            "last_author_is_bot": False, "replies": [], "action_commands": ac}


def conversation(condition: str) -> dict[str, Any]:
    return {"id": 2, "type": "issue_comment", "body": "When?", "is_minimized": False, "replies": [],
            "action_commands": {"reply_command": "gh api -X POST y -F body=@-", "needs_input": ["stdin"],
                                "resolve_command": None, "resolve_condition": condition, "view_in_browser": VIEW}}


def test_concise_items_keep_their_own_actions_only() -> None:
    items = [thread(True, "Run ONLY after verifying the fix for: 'Fix it.'"),
             thread(False, "Your gh login cannot resolve this thread."), conversation("Cannot be resolved.")]
    with surface.using("mcp"):
        sent, truncated = summarise(items, full=False, conditions=CONDITIONS)
    assert truncated is None
    resolvable, locked, convo = sent
    assert resolvable["action_commands"] == {"reply_command": "gh api -X POST x -F body=@-",
                                             "needs_input": ["stdin"], "mcp_action": ACTION}
    assert locked["action_commands"] == {"reply_command": "gh api -X POST x -F body=@-", "needs_input": ["stdin"],
                                         "resolve_condition": "Your gh login cannot resolve this thread."}
    assert convo["action_commands"] == {"reply_command": "gh api -X POST y -F body=@-", "needs_input": ["stdin"],
                                        "resolve_command": None}
    # false flags and zero counts are left out; true ones stay
    assert "is_outdated" not in resolvable and "is_minimized" not in resolvable and "hidden_replies" not in resolvable
    assert "last_author_is_bot" not in resolvable and resolvable["viewer_replied"] is True
    assert resolvable["can_resolve"] is True and locked["can_resolve"] is False  # can_resolve is no default flag
    assert items[0]["action_commands"]["view_in_browser"] == VIEW  # the input (a shared snapshot) is untouched


def test_a_conversation_item_with_a_condition_of_its_own_keeps_it() -> None:
    [item], _ = summarise([conversation("Locked conversation.")], full=False, conditions=CONDITIONS)
    assert item["action_commands"]["resolve_condition"] == "Locked conversation."


def test_full_items_repeat_everything() -> None:
    items = [thread(True, "Run ONLY after verifying the fix for: 'Fix it.'")]
    with surface.using("cli"):
        [item], truncated = summarise(items, full=True, conditions=CONDITIONS)
    assert truncated is None and item == items[0]
