"""The untrusted-text notice (issue 18 item 11): every tool answer that carries other people's text says how to treat
it, and MCP error text is filtered (invisible and control characters escaped) and labelled."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_mcp_robustness import HANDSHAKE, rpc, run_raw
from tests.safety.worlds import TOOL_CASES, agent_for, baseline


def test_every_tool_answer_carries_the_notice(make_hub, tmp_path: Path) -> None:
    for case in TOOL_CASES:
        out = baseline(make_hub, case, tmp_path / case.tool)
        notice = out.get("notice") or ""
        assert "data" in notice and ("instructions" in notice), (case.tool, sorted(out))


def test_mcp_error_text_is_filtered_and_labelled(make_hub, tmp_path: Path) -> None:
    a = agent_for(make_hub, "feedback", tmp_path / "mcp")
    hostile = "acme/widgets#7\u202e\u200b\U000e0041x"
    payload = HANDSHAKE + rpc(1, "tools/call", {"name": "find_unresolved_comments", "arguments": {"pr": hostile}})
    messages, _ = run_raw(a, payload)
    replies = {m["id"]: m for m in messages if "id" in m}
    result = replies[1]["result"]
    text = result["content"][0]["text"]
    assert result["isError"] is True and result["structuredContent"]["error"]["code"] == "invalid_pr_reference"
    assert not any(ch in text for ch in "\u202e\u200b\U000e0041") and "\\u202e" in text, text
    assert "not instructions" in text.splitlines()[-1]
