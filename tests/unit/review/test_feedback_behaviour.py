"""Reaction counts on review feedback (issue 19 mutation survivor of review/feedback.py): an agent reads 👍/👎
on a bot's finding as the team's verdict on it. Input: GitHub's `reactionGroups { content reactors { totalCount } }`."""

from __future__ import annotations

from pr_agent.review.feedback import inline_finding_fields, reactions


def test_reaction_counts_come_from_each_group() -> None:
    node = {"reactionGroups": [
        {"content": "THUMBS_UP", "reactors": {"totalCount": 3}},
        {"content": "THUMBS_DOWN", "reactors": {"totalCount": 1}},
        {"content": "HEART", "reactors": {"totalCount": 0}},
        {"content": "SOMETHING_NEW", "reactors": {"totalCount": 9}},  # a content we do not know is not counted
    ]}
    rx = reactions(node)
    assert (rx["+1"], rx["-1"], rx["heart"], rx["total_count"]) == (3, 1, 0, 4)


def test_no_reaction_groups_is_all_zero() -> None:
    rx = reactions({"reactionGroups": None})
    assert rx["total_count"] == 0 and rx["+1"] == 0 and rx["eyes"] == 0
    assert reactions({"reactionGroups": [{"content": "EYES", "reactors": None}]})["eyes"] == 0


# The badge line of a Codex inline finding (chatgpt-codex-connector's format), here from a bot we do not know.
BADGE_BODY = ("**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  Guard against "
              "empty input**\n\nThe loop reads index 0 of a list that may be empty.\n\nUseful? React with 👍 / 👎.")


def test_an_unknown_bot_account_is_read_by_its_markup_although_graphql_drops_the_bot_suffix() -> None:
    """GraphQL gives a Bot author's login without `[bot]` (`acme-reviewer`, REST: `acme-reviewer[bot]`)."""
    root = {"author": {"__typename": "Bot", "login": "acme-reviewer"}, "body": BADGE_BODY}
    fields = inline_finding_fields(root, {"file_path": "src/a.py", "line_number": 12, "start_line": None})
    assert (fields["title"], fields["severity"]) == ("Guard against empty input", "P1")


def test_a_human_with_the_same_markup_stays_plain() -> None:
    root = {"author": {"__typename": "User", "login": "acme-reviewer"}, "body": BADGE_BODY}
    assert inline_finding_fields(root, {"file_path": "src/a.py", "line_number": 12}) == {}
