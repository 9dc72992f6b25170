"""Untrusted text stays data: generated commands run against a recording stub get exactly the intended
argv, outputs stay valid JSON, and the terminal view is free of escape sequences."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from pr_agent.review.commands import RESOLVE_MUTATION
from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.worlds import comment, pr, thread, world
from tests.safety.hostile import PATHS, TEXTS, huge_body, nested_markdown, recorded, recording_stub

ARGV_SAFE = [t for t in TEXTS if "\x00" not in t]  # argv cannot carry NUL bytes at all


def hostile_world() -> dict[str, Any]:
    threads = [
        thread(f"PRRT_h{i}", PATHS[i % len(PATHS)], i + 1,
               [comment(7000 + i, "mallory", text, i, association="NONE")])
        for i, text in enumerate(TEXTS)
    ]
    return world(pr(7, threads, issue_comments=[
        {"id": 8000 + i, "author": "mallory", "body": t, "created_at": "2026-11-01T10:00:00Z"}
        for i, t in enumerate(TEXTS)]))


def gh_sanitised(text: str) -> str:
    return "".join(f"^{chr(ord(c) + 64)}" if ord(c) < 32 and c not in "\t\n\r" else c for c in text)


def run_stubbed(command: str, stub_dir: Path, cwd: Path, stdin: str = "") -> None:
    env = {"PATH": f"{stub_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(cwd)}
    proc = subprocess.run(["bash", "-c", command], env=env, cwd=cwd, capture_output=True, text=True, timeout=30,
                          check=False, input=stdin)
    assert proc.returncode == 0, (command, proc.stderr)


def test_reply_and_resolve_commands_get_exactly_the_intended_argv(agent, tmp_path: Path) -> None:
    a = agent(hostile_world())
    out = a.json("comments", "acme/widgets#7")
    items = out["comments"]
    assert len(items) == 2 * len(TEXTS)
    record = tmp_path / "argv.jsonl"
    stubs = tmp_path / "stubs"
    recording_stub(stubs, "gh", record)
    expected: list[list[str]] = []
    for item in items:
        cmds = item["action_commands"]
        for reply in [*ARGV_SAFE[:6], "it's"]:  # the reply travels on stdin: it never becomes a word of the command
            run_stubbed(cmds["reply_command"], stubs, tmp_path, stdin=reply)
            if item["type"] == "review_comment":
                path = f"repos/acme/widgets/pulls/7/comments/{item['id']}/replies"
            else:
                path = "repos/acme/widgets/issues/7/comments"
            expected.append(["api", "-X", "POST", path, "-F", "body=@-"])
        if cmds.get("resolve_command"):
            run_stubbed(cmds["resolve_command"], stubs, tmp_path)
            expected.append(["api", "graphql", "-f", f"query={RESOLVE_MUTATION}", "-f", f"id={item_thread(item)}"])
    assert recorded(record) == expected
    assert not list(Path("/tmp").glob("pwned*"))


def test_outputs_stay_json_and_terminal_text_is_neutralised(agent) -> None:
    a = agent(hostile_world())
    raw = a.cli("comments", "acme/widgets#7", "--json", "--detail", "full")
    data = orjson.loads(raw.stdout)
    bodies = {c["body"] for c in data["comments"]}
    # gh itself rewrites C0 control characters in API answers to caret notation (ESC -> "^["), so that
    # is what reaches us; everything else comes back byte for byte
    assert {gh_sanitised(t) for t in TEXTS} <= bodies
    human = a.cli("comments", "acme/widgets#7")
    assert human.returncode == 0
    for bad in ("\x1b", "\x07", "\x00", "\u202e", "\u2066", "\r"):
        assert bad not in human.stdout, repr(bad)


@pytest.mark.parametrize("body", [huge_body(5), nested_markdown(1000)], ids=["5MB", "nested1000"])
def test_monster_bodies(agent, body: str) -> None:
    w = world(pr(7, [thread("PRRT_big", "a.py", 1, [comment(1, "coderabbitai", body, 1, association="NONE")])],
                 reviews=[{"id": 2, "author": "coderabbitai", "state": "COMMENTED", "body": body,
                           "submitted_at": "2026-11-01T10:00:00Z"}]))
    a = agent(w)
    out = a.json("comments", "acme/widgets#7")
    # concise: a prefix of the body, flagged as cut (the context budget); full detail: the body exactly
    item = next(c for c in out["comments"] if item_thread(c) == "PRRT_big")
    cut = item["body"].removesuffix("…")
    assert item["body_truncated"] is True and body.startswith(cut) and len(cut) < len(body)
    full = a.json("comments", "acme/widgets#7", "--detail", "full")
    assert any(item_thread(c) == "PRRT_big" and c["body"] == body for c in full["comments"])
