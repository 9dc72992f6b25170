"""`gh pr-agent parse-review`: every sample body yields exactly its expected items, via the real CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pr_agent.cli import cli
from pr_agent.review.bots import SPEC_FIELDS
from tests.unit.review.fixture_cases import Case, cases

CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_parse_review_json_matches_expected(case: Case) -> None:
    want = case.expected()
    result = CliRunner().invoke(cli, ["parse-review", str(case.body_path), "--json", "--author", case.author])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert set(got) == {"bot", "items", "notes"}
    assert got["bot"] == want["bot"]
    assert got["items"] == [{k: item[k] for k in SPEC_FIELDS} for item in want["items"]]


def test_unknown_format_is_a_note_not_a_crash() -> None:
    result = CliRunner().invoke(cli, ["parse-review", "-", "--json"], input="Just some text.\n")
    got = json.loads(result.stdout)
    assert result.exit_code == 0 and got["bot"] is None and got["items"] == []
    assert any("unrecognised format" in n for n in got["notes"])


def test_missing_file_is_a_typed_error() -> None:
    result = CliRunner().invoke(cli, ["parse-review", "/nonexistent/review.md"])
    assert result.exit_code == 2 and "file_not_found" in result.stderr
