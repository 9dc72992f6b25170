"""Cross-bot dedup (pr_agent/review/dedup.py): one finding from two bots is one item, also_reported_by."""

from __future__ import annotations

from typing import Any

from pr_agent.review.dedup import dedup_across_bots


def item(author: str, source: str, path: str | None, line: int | None, title: str, **kw: Any) -> dict[str, Any]:
    return {"author": author, "is_bot": True, "source": source, "file_path": path, "line_number": line,
            "start_line": kw.pop("start", None), "title": title, "body": kw.pop("body", title),
            "fingerprint": f"{author}{line}", "node_id": f"N_{author}_{line}", "thread_id": kw.pop("thread", None),
            "severity": kw.pop("severity", None), "severity_level": kw.pop("level", None), "html_url": "u", **kw}


def test_body_finding_of_another_bot_folds_into_the_thread() -> None:
    thread = item("coderabbitai", "thread", "src/db.py", 42, "SQL injection: user input is interpolated into query",
                  thread="PRRT_1", severity="🔴 Critical", level="critical")
    body = item("gemini-code-assist", "review_body", "src/db.py", 41, "The query interpolates user input (SQL "
                "injection risk)", severity="high", level="major")
    other = item("gemini-code-assist", "review_body", "src/db.py", 90, "Unused import of os")
    out, merged = dedup_across_bots([thread, body, other])
    assert merged == 1 and out == [thread, other]
    assert [(r["author"], r["severity"], r["severity_level"]) for r in thread["also_reported_by"]] == [
        ("gemini-code-assist", "high", "major")]


def test_two_threads_both_stay_and_name_each_other() -> None:
    a = item("coderabbitai", "thread", "a.py", 10, "Possible None dereference of config", thread="PRRT_a")
    b = item("copilot-pull-request-reviewer", "thread", "a.py", 11, "config may be None here; dereference "
             "fails", thread="PRRT_b")
    out, merged = dedup_across_bots([a, b])
    assert merged == 0 and out == [a, b]
    assert a["also_reported_by"][0]["thread_id"] == "PRRT_b" and b["also_reported_by"][0]["thread_id"] == "PRRT_a"


def test_not_the_same_finding() -> None:
    base = item("coderabbitai", "thread", "a.py", 10, "Possible None dereference of config", thread="T")
    cases = [
        item("coderabbitai", "review_body", "a.py", 10, "Possible None dereference of config"),  # same bot
        item("gemini-code-assist", "review_body", "b.py", 10, "Possible None dereference of config"),  # other file
        item("gemini-code-assist", "review_body", "a.py", 30, "Possible None dereference of config"),  # far lines
        item("gemini-code-assist", "review_body", "a.py", 10, "Rename the variable for clarity"),  # other text
        item("gemini-code-assist", "review_body", None, None, "Possible None dereference of config"),  # no place
    ]
    for other in cases:
        out, merged = dedup_across_bots([dict(base), other])
        assert merged == 0 and len(out) == 2 and "also_reported_by" not in out[0], other
