"""Concise find_unresolved_comments items (pr_agent/tools/comments_budget.py, docs/mcp.md "Contract decision"):
what every item would repeat is said once per page, an item keeps what is its own, false flags and zero counts
are left out; detail=full keeps everything."""

from __future__ import annotations

from typing import Any

from pr_agent import surface
from pr_agent.tools.comments_budget import summarise, thread_id, visible_markdown

CONDITIONS = {"review_comment": "Resolve only after verifying.", "issue_comment": "Cannot be resolved."}
VIEW = "gh pr view 7 --repo acme/widgets --web"
ACTION = {"tool": "resolve_review_thread", "args": {"pr": "acme/widgets#7", "thread_id": "PRRT_a"}}


def thread(can_resolve: bool, condition: str) -> dict[str, Any]:
    ac: dict[str, Any] = {"reply_command": "gh api -X POST x -F body=@-", "needs_input": ["stdin"],
                          "resolve_condition": condition, "view_in_browser": VIEW}
    if can_resolve:
        ac["mcp_action"] = ACTION
    return {"id": 1, "type": "review_comment", "body": "Fix it.", "thread_id": "PRRT_a", "can_resolve": can_resolve,
            "source": "thread",
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
    # needs_input is every reply command's (stdin): the page's actions.needs_input says it once
    assert resolvable["action_commands"] == {"reply_command": "gh api -X POST x -F body=@-", "mcp_action": ACTION}
    assert locked["action_commands"] == {"reply_command": "gh api -X POST x -F body=@-",
                                         "resolve_condition": "Your gh login cannot resolve this thread."}
    assert convo["action_commands"] == {"reply_command": "gh api -X POST y -F body=@-", "resolve_command": None}
    # false flags and zero counts are left out; true ones stay
    assert "is_outdated" not in resolvable and "is_minimized" not in resolvable and "hidden_replies" not in resolvable
    assert "last_author_is_bot" not in resolvable and resolvable["viewer_replied"] is True
    # the resolve call names the thread and says it may be resolved: thread_id and can_resolve: true are not repeated
    assert "thread_id" not in resolvable and "can_resolve" not in resolvable
    assert thread_id(resolvable) == "PRRT_a" and thread_id(items[0]) == "PRRT_a"
    assert locked["thread_id"] == "PRRT_a" and locked["can_resolve"] is False  # no resolve call: both stay
    assert items[0]["action_commands"]["view_in_browser"] == VIEW  # the input (a shared snapshot) is untouched


def test_a_conversation_item_with_a_condition_of_its_own_keeps_it() -> None:
    [item], _ = summarise([conversation("Locked conversation.")], full=False, conditions=CONDITIONS)
    assert item["action_commands"]["resolve_condition"] == "Locked conversation."


def test_full_items_repeat_everything() -> None:
    items = [thread(True, "Run ONLY after verifying the fix for: 'Fix it.'")]
    with surface.using("cli"):
        [item], truncated = summarise(items, full=True, conditions=CONDITIONS)
    assert truncated is None and item == items[0]


def replied(*replies: tuple[str, bool, str], last_author: str, **extra: Any) -> dict[str, Any]:
    item = thread(True, "Run ONLY after verifying the fix for: 'Fix it.'")
    item.update({"node_id": "PRRC_1", "author": "alice", "changed_since_comment": "false",
                 "last_author": last_author, "last_author_is_bot": last_author.endswith("[bot]"), **extra})
    item["replies"] = [{"id": 10 + i, "node_id": f"PRRC_{10 + i}", "author": who, "is_bot": bot,
                        "created_at": "2026-11-01T00:00:00Z", "body": body}
                       for i, (who, bot, body) in enumerate(replies)]
    return item


def test_concise_items_say_who_spoke_last_once_and_keep_replies_lean() -> None:
    chain = replied(("bob", False, "Why?"), ("carol", False, "Because."), ("dave", False, "Fixed?"), last_author="dave")
    [item], truncated = summarise([chain], full=False, conditions=CONDITIONS)
    assert "node_id" not in item and "changed_since_comment" not in item  # id names it; absent: false
    assert "last_author" not in item and "last_author_is_bot" not in item  # the last reply shown says it
    # no id (no tool takes a reply's), no time; is_bot only when true
    assert item["replies"] == [{"author": "carol", "body": "Because."}, {"author": "dave", "body": "Fixed?"}]
    assert item["reply_count"] == 3 and item["replies_omitted"] == 1
    assert truncated is not None and truncated.replies_omitted == 1
    bot = replied(("coderabbitai[bot]", True, "Done."), last_author="coderabbitai[bot]")
    [item], _ = summarise([bot], full=False, conditions=CONDITIONS)
    assert item["replies"] == [{"author": "coderabbitai[bot]", "is_bot": True, "body": "Done."}]
    assert "reply_count" not in item and "replies_omitted" not in item  # nothing left out: replies is all
    # a last word the item does not show (a reply filtered out) stays said
    filtered = replied(("bob", False, "Why?"), last_author="erin", filtered_replies=1)
    [item], _ = summarise([filtered], full=False, conditions=CONDITIONS)
    assert item["last_author"] == "erin"
    changed = replied(last_author="alice", changed_since_comment="true")
    [item], _ = summarise([changed], full=False, conditions=CONDITIONS)
    assert item["changed_since_comment"] == "true" and "last_author" not in item  # the comment's own author
    [full], _ = summarise([chain], full=True, conditions=CONDITIONS)
    assert full == chain  # detail=full: everything


def test_a_long_body_is_cut_at_a_word_boundary_and_flagged() -> None:
    from pr_agent.tools.comments_budget import BODY_CHARS

    words = ("lorem ipsum dolor sit amet " * 200).strip()
    long = replied(last_author="alice")
    long["body"] = words
    [item], truncated = summarise([long], full=False, conditions=CONDITIONS)
    assert item["body_truncated"] is True and item["body"].endswith("…")
    kept = item["body"][:-1]
    assert len(kept) <= BODY_CHARS and words.startswith(kept) and words[len(kept)] == " "  # never mid-word
    assert truncated is not None and truncated.bodies_cut == 1 and "full" in truncated.how_to_get_all
    one_word = replied(last_author="alice")
    one_word["body"] = "x" * (BODY_CHARS + 50)  # no boundary to cut at: cut at the bound, still flagged
    [item], _ = summarise([one_word], full=False, conditions=CONDITIONS)
    assert item["body"] == "x" * BODY_CHARS + "…" and item["body_truncated"] is True


def test_source_follows_from_type_and_only_full_items_say_it() -> None:
    items = [thread(True, "Run ONLY after verifying the fix for: 'Fix it.'"), {**conversation("Cannot be resolved."),
                                                                           "source": "conversation"}]
    sent, _ = summarise(items, full=False, conditions=CONDITIONS)
    assert [("source" in it, it["type"]) for it in sent] == [(False, "review_comment"), (False, "issue_comment")]
    full, _ = summarise(items, full=True, conditions=CONDITIONS)
    assert [it["source"] for it in full] == ["thread", "conversation"]


BOILERPLATE = ("<!-- This is an auto-generated comment by CodeRabbit -->\n"
               "Guard the retry: `fetch()` can raise.\n\n<!-- fingerprinting:phantom:medusa:abc -->\n\n"
               "<!--\nmulti-line\nstate\n-->\nThanks!")


def test_concise_bodies_leave_out_the_html_comments_github_does_not_show() -> None:
    item = {**conversation("Cannot be resolved."), "body": BOILERPLATE}
    [sent], truncated = summarise([item], full=False, conditions=CONDITIONS)
    assert sent["body"] == "Guard the retry: `fetch()` can raise.\n\nThanks!" and truncated is None
    [whole], _ = summarise([item], full=True, conditions=CONDITIONS)
    assert whole["body"] == BOILERPLATE  # detail=full: the text as written
    chain = replied(("bob", False, "Done <!-- bot-state: 1 --> now."), last_author="bob")
    [sent], _ = summarise([chain], full=False, conditions=CONDITIONS)
    assert sent["replies"] == [{"author": "bob", "body": "Done  now."}]


def test_html_comments_that_github_shows_as_code_stay() -> None:
    fenced = "Use:\n```html\n<!-- keep me -->\n```\n<!-- drop -->\nend"
    assert visible_markdown(fenced) == "Use:\n```html\n<!-- keep me -->\n```\n\nend"
    tilde_unclosed = "a <!-- x --> b\n~~~\n<!-- in an unclosed fence -->\n"
    assert visible_markdown(tilde_unclosed) == "a  b\n~~~\n<!-- in an unclosed fence -->"
    inline = "Write `<!-- note -->` or ``<!-- `x` -->``, not <!-- this -->."
    assert visible_markdown(inline) == "Write `<!-- note -->` or ``<!-- `x` -->``, not ."
    quoted = "> ```\n> <!-- quoted code -->\n> ```\n<!-- gone -->"
    assert visible_markdown(quoted) == "> ```\n> <!-- quoted code -->\n> ```"
    escaped = "a \\` tick, then `<!-- code -->`"  # an escaped backtick opens no code span
    assert visible_markdown(escaped) == escaped
    indented = "Example:\n\n    <!-- an indented code block -->\n"
    assert visible_markdown(indented) == indented
    unclosed = "text <!-- never closed"
    assert visible_markdown(unclosed) == unclosed  # GitHub hides it to the end; kept as written (nothing lost)
    assert visible_markdown("<!-- nothing visible -->") == "<!-- nothing visible -->"  # not an empty body


def test_comment_stripping_stays_fast_on_hostile_backticks() -> None:
    import time

    body = "`" * 50_000 + " <!-- x --> " + "` " * 50_000
    start = time.perf_counter()
    out = visible_markdown(body)
    assert time.perf_counter() - start < 2.0 and "<!-- x -->" not in out
