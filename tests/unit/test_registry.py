"""The published tool contract: snapshots, schema discipline, and the shared error path."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import jsonschema
import pytest

from pr_agent import surface
from pr_agent.context import Context
from pr_agent.dispatch import run_tool
from pr_agent.errors import CODES, PrAgentError
from pr_agent.registry import all_tools
from tests.snapshots import render_snapshot

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots" / "tools"
TOOLS = all_tools()


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_schema_matches_reviewed_snapshot(name: str) -> None:
    path = SNAPSHOTS / f"{name}.json"
    assert path.exists(), f"no snapshot for {name}: run scripts/snapshot-schemas and review it"
    assert path.read_text(encoding="utf-8") == render_snapshot(TOOLS[name].snapshot()), (
        f"{name}'s published contract changed: run scripts/snapshot-schemas, review the diff, commit it")


def test_no_stale_snapshots() -> None:
    assert {p.stem for p in SNAPSHOTS.glob("*.json")} == set(TOOLS)


def _walk_objects(schema: dict[str, Any]):
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_input_schema_discipline(name: str) -> None:
    tool = TOOLS[name]
    schema = tool.input_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    for obj in _walk_objects(schema):
        assert obj.get("additionalProperties") is False
    required = set(schema.get("required", []))
    for field, prop in schema["properties"].items():
        assert prop.get("description"), f"{name}.{field} has no description"
        if field not in required:
            assert "Omitted means" in prop["description"], f"{name}.{field} does not say what omission means"
        assert prop.get("default", "absent") is not None, f"{name}.{field} publishes default null"


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_output_schema_is_strict_and_nullable_fields_are_optional(name: str) -> None:
    tool = TOOLS[name]
    jsonschema.Draft202012Validator.check_schema(tool.output_schema())
    # structured output drops None values, so a nullable field must never be required
    seen: set[type] = set()
    stack = [tool.output_model]
    while stack:
        model = stack.pop()
        if model in seen:
            continue
        seen.add(model)
        for fname, info in model.model_fields.items():
            ann = info.annotation
            nullable = get_origin(ann) in (Union, types.UnionType) and type(None) in get_args(ann)
            if nullable:
                assert not info.is_required(), f"{model.__name__}.{fname} is nullable but required"
            for arg in (ann, *get_args(ann), *(a for x in get_args(ann) for a in get_args(x))):
                if isinstance(arg, type) and hasattr(arg, "model_fields"):
                    stack.append(arg)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_annotations_are_honest(name: str) -> None:
    tool = TOOLS[name]
    if tool.annotations.read_only:
        assert not tool.annotations.destructive
        assert tool.annotations.idempotent


def test_unknown_argument_is_a_typed_error_with_repair() -> None:
    tool = TOOLS["find_unresolved_comments"]
    with pytest.raises(PrAgentError) as exc:
        run_tool(tool, Context(env={}), {"pr": "a/b#1", "bogus": 1})
    err = exc.value
    assert err.code == "invalid_arguments"
    assert err.details["field"] == "bogus"
    with surface.using("mcp"):
        assert err.repair == {"tool": "find_unresolved_comments", "arguments": {"pr": "a/b#1"},
                              "next_step": "Call again without: bogus."}
    with surface.using("cli"):
        assert err.repair == {"command": "gh pr-agent comments 'a/b#1'", "next_step": "Call again without: bogus."}


def test_wrong_type_and_non_object_arguments() -> None:
    tool = TOOLS["resolve_review_thread"]
    for args in ({"pr": "a/b#1", "thread_id": 5}, {"pr": "a/b#1"}, ["x"]):
        with pytest.raises(PrAgentError) as exc:
            run_tool(tool, Context(env={}), args)  # type: ignore[arg-type]
        assert exc.value.code == "invalid_arguments"


def test_error_codes_are_well_formed() -> None:
    for code, (category, temporary, exit_code) in CODES.items():
        assert code.islower() and " " not in code
        assert category in ("user", "api", "logical")
        assert isinstance(temporary, bool)
        # an error is never 1 (a negative answer) nor 0: a script can tell "the check failed" from "no answer"
        assert exit_code in (2, 3, 4) or (code, exit_code) in (("wait_timeout", 8), ("cancelled", 130))
        assert (exit_code == 2) == (category == "user" and code in (
            "invalid_arguments", "invalid_pr_reference", "repository_not_determined", "invalid_cursor",
            "cursor_mismatch", "cursor_expired", "invalid_preference", "invalid_environment", "file_not_found",
            "untrusted_host"))
    with pytest.raises(ValueError):
        PrAgentError("no_such_code", "x", suggestion="y")
