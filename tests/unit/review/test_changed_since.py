"""changed_since_comment of body findings from a real git clone (pr_agent/review/feedback.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from pr_agent.git import Git
from pr_agent.review.feedback import mark_changed_since


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a",
                               "GIT_COMMITTER_EMAIL": "a@x", "PATH": "/usr/bin:/bin"}).stdout.strip()


def finding(path: str, start: int | None, end: int, commit: str | None) -> dict[str, Any]:
    return {"source": "review_body", "fingerprint": "f", "file_path": path, "start_line": start, "line_number": end,
            "_commit": commit}


def test_lines_changed_or_not_since_the_reviewed_commit(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    src = tmp_path / "app.py"
    src.write_text("".join(f"line {i}\n" for i in range(1, 21)))
    _git(tmp_path, "add", "app.py")
    _git(tmp_path, "commit", "-qm", "one")
    old = _git(tmp_path, "rev-parse", "HEAD")
    lines = src.read_text().split("\n")
    lines[11] = "line 12 fixed"  # line 12 changes
    src.write_text("\n".join(lines))
    _git(tmp_path, "commit", "-qam", "two")
    head = _git(tmp_path, "rev-parse", "HEAD")
    git = Git(tmp_path)
    items = [finding("app.py", 11, 13, old), finding("app.py", None, 3, old), finding("app.py", None, 12, head),
             finding("app.py", None, 12, "f" * 40), finding("app.py", None, 12, None)]
    mark_changed_since(items, head, git.old_side_hunks)
    assert [it["changed_since_comment"] for it in items] == ["true", "false", "false", "unknown", "unknown"]
    assert git.old_side_hunks(old, head, "app.py") == [(12, 12)]
