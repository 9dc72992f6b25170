"""Validation equals the schema: for every tool and argument, a value of every JSON kind is accepted by the
server exactly when the published inputSchema admits it (jsonschema is the oracle) — no coercion of "yes",
"false", 0 or "5" the schema does not allow, nothing refused that it does."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from pr_agent.errors import PrAgentError
from pr_agent.registry import all_tools, validate_arguments

VALUES: list[Any] = [
    True, False, 0, 1, 5, 5.0, 5.5, -1, 10**30, "yes", "false", "true", "5", "0", "", " ", "x", "PRRT_kwDOabcd",
    "PRRC_kwDOabcd", "123", "concise", "full", "chronological", "by_file", "refuse", "resolve", "thread",
    "acme/widgets#7", "a" * 5000, None, [], ["alice"], [1], [None], {}, {"a": 1},
]
# arguments that satisfy a tool's required fields and cross-field rules, so each field is judged on its own
BASE: dict[str, dict[str, Any]] = {
    "manage_stacked_prs": {"base_pr": "acme/widgets#1", "dependent_pr": "acme/widgets#2"},
    "resolve_review_thread": {"thread_id": "PRRT_kwDOabcd"},
}
CASES = [(t.name, field) for t in all_tools().values() for field in t.input_model.model_fields]


def _ours(tool: Any, args: dict[str, Any]) -> bool:
    try:
        validate_arguments(tool, args)
    except PrAgentError as err:
        assert err.code == "invalid_arguments"
        return False
    return True


@pytest.mark.parametrize(("tool_name", "field"), CASES, ids=[f"{t}.{f}" for t, f in CASES])
def test_a_field_accepts_exactly_what_its_schema_admits(tool_name: str, field: str) -> None:
    tool = all_tools()[tool_name]
    schema = tool.input_schema()
    validator = jsonschema.Draft202012Validator(schema)
    base = {k: v for k, v in BASE.get(tool_name, {}).items() if k != field}
    if tool_name == "resolve_review_thread" and field == "thread_id":
        base = {"comment_id": 123}
    differ = []
    for value in VALUES:
        args = {**base, field: value}
        expected = validator.is_valid(args)
        if _ours(tool, args) != expected:
            differ.append((value if not isinstance(value, str) or len(value) < 50 else "a*5000", expected))
    assert not differ, f"(value, schema admits) where the server disagrees: {differ}"


def test_the_ids_find_unresolved_comments_returns_are_accepted_by_resolve_review_thread() -> None:
    tools = all_tools()
    item = tools["find_unresolved_comments"].output_schema()["$defs"]
    comment = item["FeedbackItem"]
    assert comment["properties"]["id"]["type"] == "integer"  # what comments returns ...
    resolve = tools["resolve_review_thread"]
    for args in ({"comment_id": 2345678901}, {"comment_id": "2345678901"}, {"comment_id": "PRRC_kwDOabcd"},
                 {"thread_id": "PRRT_kwDOabcd"}):
        assert _ours(resolve, args), args  # ... is taken as it is
        assert jsonschema.Draft202012Validator(resolve.input_schema()).is_valid(args)
