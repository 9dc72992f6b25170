"""Unknown AI reviewers (issue 15): findings from common shapes, nothing from prose; Ellipsis; bots known only
by login (Korbit, Baz, Graphite, Amazon Q, Windsurf)."""

from __future__ import annotations

import pytest

from pr_agent.review.bots import detect_bot, parse_review_body
from pr_agent.review.bots.inline import parse_inline_comment
from tests.unit.review.fixture_cases import cases

UNKNOWN = "brand-new-reviewer[bot]"

SEVERITY_LIST = """## Review

I looked at the auth changes.

- 🔴 **Critical** `src/auth/session.py:42` — the session token is compared with `==`, which leaks timing.
- 🟡 **Minor** `src/auth/views.py:10-12` — unused import of `json`.
"""

DETAILS_PER_FINDING = """**2 issues found**

<details>
<summary>src/db/pool.go:88-91 · <b>High</b> · Connection leak on early return</summary>

The early `return err` skips `conn.Release()`.

```suggestion
defer conn.Release()
```

<details><summary>Prompt for AI agents</summary>

```
In src/db/pool.go around lines 88-91, release the connection on every path.
```
</details>
</details>

<details>
<summary>src/db/query.go:12 · <b>Low</b> · Typo in error message</summary>

"conection" should be "connection".
</details>
"""

HEADINGS_WITH_BADGES = """### Missing bounds check
**High Severity**

`parse_header` indexes `buf[4]` without checking the length; a short packet panics.

### Docs
Nothing else stood out.
"""

TABLE = """| Severity | File | Issue |
|---|---|---|
| High | `api/routes.ts:55` | User input reaches the SQL string unescaped |
| Low | `api/util.ts:3` | Helper duplicated from lib/strings.ts |
"""

WALKTHROUGH = """## Walkthrough

The PR adds a retry wrapper and rewires the client.

## Changes

| File | Change Summary |
|---|---|
| `client/retry.py` | Added exponential backoff |
| `client/http.py:20` | Wired the wrapper in |

- `client/retry.py`: added `retry()` with jitter
- `docs/usage.md`: documented the flag

## Summary by Bot

* **New Features** — retries for idempotent calls.
"""

GRAPHITE_STACK = (  # the stack comment graphite-app[bot] posts (shape as in Metta-AI/metta#471)
    '* **#471** <a href="https://app.graphite.dev/github/pr/acme/app/471?utm_source=stack-comment-icon">'
    '<img src="https://static.graphite.dev/graphite-32x32-black.png" alt="Graphite" width="10px" height="10px"/>'
    "</a> 👈\n* `main`\n\nThis stack of pull requests is managed by "
    '<a href="https://graphite.dev?utm-source=stack-comment"><b>Graphite</b></a>. Learn more about '
    '<a href="https://stacking.dev/?utm_source=stack-comment">stacking</a>.\n')


def test_unknown_bot_severity_list_yields_located_findings() -> None:
    result = parse_review_body(SEVERITY_LIST, UNKNOWN)
    assert result.bot == "generic"
    got = [(f.file_path, f.start_line, f.end_line, f.severity_level) for f in result.items]
    assert got == [("src/auth/session.py", 42, 42, "critical"), ("src/auth/views.py", 10, 12, "minor")]
    assert all(f.actionable and f.category == "actionable" for f in result.items)
    assert result.uncertain and "low confidence" in result.uncertain[0]


def test_unknown_bot_details_per_finding_keeps_suggestion_and_prompt() -> None:
    items = parse_review_body(DETAILS_PER_FINDING, UNKNOWN).items
    assert [(f.file_path, f.start_line, f.end_line) for f in items] == [("src/db/pool.go", 88, 91),
                                                                         ("src/db/query.go", 12, 12)]
    first = items[0]
    assert first.severity_level == "major" and "Connection leak" in first.title
    assert first.suggestion == "defer conn.Release()"
    assert first.ai_prompt and first.ai_prompt.startswith("In src/db/pool.go")
    assert items[1].severity_level == "trivial"


def test_unknown_bot_heading_then_severity_line_is_one_finding() -> None:
    items = parse_review_body(HEADINGS_WITH_BADGES, UNKNOWN).items
    assert [(f.title, f.severity_level) for f in items] == [("Missing bounds check", "major")]


def test_unknown_bot_issue_table_gives_one_finding_per_row() -> None:
    items = parse_review_body(TABLE, UNKNOWN).items
    assert [(f.file_path, f.start_line, f.severity_level) for f in items] == [("api/routes.ts", 55, "major"),
                                                                               ("api/util.ts", 3, "trivial")]


@pytest.mark.parametrize("body", [WALKTHROUGH, GRAPHITE_STACK, "Thanks! Looks good to me overall.",
                                  "Reviewed 3 files: `a.py`, `b.py`, `c.py`. No issues found."])
def test_prose_summaries_and_change_lists_are_not_findings(body: str) -> None:
    result = parse_review_body(body, UNKNOWN)
    assert result.items == [] and result.bot is None
    assert result.uncertain[0].startswith("unrecognised format")


def test_a_human_body_with_finding_shapes_stays_a_whole_review() -> None:
    result = parse_review_body(SEVERITY_LIST, "octocat")
    assert result.bot is None and result.items == []


def test_graphql_bot_login_without_suffix_reaches_the_generic_reader() -> None:
    from pr_agent.review.bodies import body_items

    review = {"id": "R1", "body": SEVERITY_LIST, "author": {"login": "brand-new-reviewer", "__typename": "Bot"},
              "submittedAt": "2026-01-01T00:00:00Z"}
    items, stats = body_items([review], [], lambda r: {"node_id": r["id"], "created_at": r["submittedAt"]})
    located = [i for i in items if i.get("file_path")]
    assert [i["file_path"] for i in located] == ["src/auth/session.py", "src/auth/views.py"]
    assert stats.findings == 2


def test_unknown_bot_inline_comment_gets_finding_fields_only_with_a_shape() -> None:
    body = "💡 **MEDIUM**: A long thread is clipped before it is added to `shown`.\n\nBound it without cutting."
    f = parse_inline_comment(body, "ultra-assistant[bot]", path="a.py", start=3, end=3)
    assert f is not None and f.severity_level == "minor" and f.file_path == "a.py"
    assert parse_inline_comment("Deployed preview to https://x.example", "deploy-bot[bot]", path="a.py",
                                start=1, end=1) is None
    assert parse_inline_comment(body, "octocat", path="a.py", start=3, end=3) is None


# --- bots known by login, format unverified ---------------------------------------------------------

@pytest.mark.parametrize(("login", "bot"), [
    ("ellipsis-dev[bot]", "ellipsis"), ("korbit-ai[bot]", "korbit"), ("baz-reviewer[bot]", "baz"),
    ("graphite-app[bot]", "graphite"), ("amazon-q-developer[bot]", "amazonq"), ("windsurf-bot[bot]", "windsurf"),
])
def test_logins_of_bots_without_samples_are_recognised(login: str, bot: str) -> None:
    assert detect_bot(login, "plain words") == bot


def test_login_known_bot_is_read_by_generic_shapes_with_a_note() -> None:
    result = parse_review_body(SEVERITY_LIST, "korbit-ai[bot]")
    assert result.bot == "korbit" and len(result.items) == 2
    assert "low confidence" in result.uncertain[0]
    stack = parse_review_body(GRAPHITE_STACK, "graphite-app[bot]")
    assert stack.bot == "graphite" and stack.items == [] and stack.uncertain == []


# --- Ellipsis ---------------------------------------------------------------------------------------

def _ellipsis():  # type: ignore[no-untyped-def]
    return next(c for c in cases() if c.id == "real/ellipsis/01-2025-04-lgtm-skipped-drafts-page-text")


def test_ellipsis_skipped_drafts_are_shown_but_not_actionable() -> None:
    result = parse_review_body(_ellipsis().body(), "ellipsis-dev[bot]")
    assert result.bot == "ellipsis" and len(result.items) == 9  # "Skipped posting `9` drafted comments"
    assert all(f.category == "additional" and not f.actionable for f in result.items)
    first = result.items[0]
    assert (first.file_path, first.start_line) == ("src/services/mcp/McpHub.ts", 209)
    assert first.title.startswith("Consider handling scenarios with multiple workspace folders")
    assert "Not posted by Ellipsis: Decided after close inspection" in first.body


def test_ellipsis_raw_markdown_drafts_and_a_short_count_note() -> None:
    raw = ("❌ Changes requested. Reviewed everything up to abc1234 in 1 minute\n\n<details>\n"
           "<summary>More details</summary>\n\n- Skipped posting `2` drafted comments based on config settings.\n\n"
           "<details>\n<summary>1. <code>src/a.py:12-14</code></summary>\n\n- **Draft comment:** \n"
           "Possible None dereference here.\n- **Reason this comment was not posted:** \n"
           "Confidence changes required: `30%` <= threshold `50%`\n</details>\n</details>\n\n"
           "You can teach Ellipsis what to look for with 👍 / 👎 [feedback](https://docs.ellipsis.dev/x).\n")
    result = parse_review_body(raw, None)  # detected by its markup alone
    assert result.bot == "ellipsis"
    assert [(f.file_path, f.start_line, f.end_line, f.title) for f in result.items] == [
        ("src/a.py", 12, 14, "Possible None dereference here.")]
    assert result.uncertain == ["Ellipsis: body declares 2 skipped draft comment(s), 1 parsed"]


# Devin Review's body on yigitkonur/website-vibescroll (2026-02-03), as quoted in a PR review dump (code-search
# file id 12204682860): a bot we have no parser for whose body has no finding.
DEVIN_NO_ISSUES = ("## ✅ Devin Review: No Issues Found\n\nDevin Review analyzed this PR and found no potential bugs "
                   "to report.\n\nView in Devin Review to see 2 additional flags.\n")


def test_real_no_issues_body_of_an_unknown_bot_yields_nothing() -> None:
    result = parse_review_body(DEVIN_NO_ISSUES, "devin-ai-integration[bot]")
    assert result.bot is None and result.items == []
