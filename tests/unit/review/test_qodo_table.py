"""Qodo code-suggestion tables: the Impact column is the severity, High-level rows are kept, and a
"Security concerns" row that says there are none is no finding (issue 15, point 3)."""

from __future__ import annotations

from pr_agent.review.bots import parse_review_body


def _row(category: str, title: str, what: str, location: str, importance: int, impact: str,
         rowspan: int | None = 1) -> str:
    head = f"<tr><td rowspan={rowspan}>{category}</td>\n" if rowspan else "<tr>"
    return (f"{head}<td>\n\n<details><summary>{title}</summary>\n\n___\n\n**{what}**\n\n{location}\n\n"
            f"<details><summary>Suggestion importance[1-10]: {importance}</summary>\n\n__\n\nWhy: because.\n\n"
            f"</details></details></td><td align=center>{impact}\n\n</td></tr>")


LINK = "[app/db.py [10-12]](https://github.com/acme/app/pull/3/files#diff-0123456789abcdefR10-R12)"
BODY = ("## PR Code Suggestions ✨\n\n<table><thead><tr><td><strong>Category</strong></td><td align=left>"
        "<strong>Suggestion</strong></td><td align=center><strong>Impact</strong></td></tr><tbody>"
        + _row("High-level", "Split the sync engine", "Move retries out of the request path.", "", 6, "High")
        + _row("Possible issue", "Close the cursor", "Close it on the error path.", LINK, 6, "High", rowspan=2)
        + _row("", "Check the row count", "Verify one row changed.", LINK, 9, "Low", rowspan=None)
        + "</tbody></table>")


def test_impact_column_is_the_severity_and_high_level_rows_stay() -> None:
    items = parse_review_body(BODY, "qodo-merge-pro[bot]").items
    got = [(f.title, f.severity, f.severity_level, f.category, f.file_path) for f in items]
    assert got == [
        ("Split the sync engine", "High impact", "major", "actionable", None),
        ("Close the cursor", "High impact", "major", "actionable", "app/db.py"),  # importance 6, Impact High
        ("Check the row count", "Low impact", "trivial", "nitpick", "app/db.py"),  # importance 9, Impact Low
    ]
    assert items[0].body.startswith("High-level")


def test_security_row_saying_none_is_no_finding() -> None:
    def guide(concern: str) -> str:
        return ("## PR Reviewer Guide 🔍\n\n<table>\n<tr><td>⏱️&nbsp;<strong>Estimated effort to review</strong>: 2"
                f"</td></tr>\n<tr><td>🔒&nbsp;<strong>Security concerns</strong><br><br>{concern}</td></tr>\n</table>")

    for none in ("No", "None", "No security concerns identified.", "none"):
        assert parse_review_body(guide(none), "qodo-merge-pro[bot]").items == [], none
    [real] = parse_review_body(guide("<strong>SQL injection:</strong><br>The query interpolates `name`."),
                               "qodo-merge-pro[bot]").items
    assert real.title == "Security concern: SQL injection" and real.category == "general"
