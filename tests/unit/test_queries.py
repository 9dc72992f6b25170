"""Every GraphQL document we send validates against GitHub's pinned public schema."""

from __future__ import annotations

from importlib import resources

import pytest
from graphql import parse, validate

from pr_agent.queries import load_query
from tests.fakehub.schemas import graphql_schema

NAMES = sorted(
    e.name[: -len(".graphql")]
    for e in resources.files("pr_agent.queries").iterdir()
    if e.name.endswith(".graphql") and not e.name.startswith("fragments_")
)


@pytest.mark.parametrize("name", NAMES)
def test_query_validates_against_github_schema(name: str) -> None:
    errors = validate(graphql_schema(), parse(load_query(name)))
    assert not errors, [e.message for e in errors]


def test_every_operation_is_named_once() -> None:
    import re

    ops = [re.search(r"\b(?:query|mutation)\s+(\w+)", load_query(n)) for n in NAMES]
    assert all(ops)
    assert len({m[1] for m in ops if m}) == len(NAMES)
