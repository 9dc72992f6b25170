"""check_merge_readiness and detect_merge_conflicts over MCP: results validate against their outputSchema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema

from tests.e2e.gitrepos import build, conflicts_world
from tests.e2e.merge_worlds import readiness_world
from tests.e2e.test_mcp import mcp_session


def test_readiness_over_mcp_validates(agent) -> None:
    a = agent(readiness_world())

    async def body(c: Any) -> dict[str, Any]:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        results = {n: await c.call_tool("check_merge_readiness", {"pr": f"acme/widgets#{n}"}) for n in (1, 3, 7, 11)}
        results["bad"] = await c.call_tool("check_merge_readiness", {"pr": "acme/widgets#1", "wait": True})
        return {"tools": tools, **results}

    got = mcp_session(a, body, env=a.env(GH_PR_AGENT_MERGEABLE_WAIT="0.2"))
    tool = got["tools"]["check_merge_readiness"]
    assert tool.annotations.read_only_hint is True and tool.input_schema["additionalProperties"] is False
    for n, verdict in ((1, "ready"), (3, "pending"), (7, "blocked"), (11, "unknown")):
        result = got[n]
        assert result.is_error is False
        jsonschema.validate(result.structured_content, tool.output_schema)
        assert result.structured_content["verdict"] == verdict
    assert got["bad"].is_error and got["bad"].structured_content["error"]["code"] == "invalid_arguments"


def test_conflicts_over_mcp_validates(agent, tmp_path: Path) -> None:
    repos = build(tmp_path / "git")
    a = agent(conflicts_world(repos, {25: "MERGEABLE"}))

    async def body(c: Any) -> dict[str, Any]:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        out: dict[str, Any] = {"tools": tools}
        for n in (21, 22, 23, 24, 25):
            out[n] = await c.call_tool("detect_merge_conflicts", {"pr": f"acme/widgets#{n}",
                                                                  "repo_path": str(repos.clone)})
        out["github_only"] = await c.call_tool("detect_merge_conflicts", {"pr": "acme/widgets#26"})
        return out

    got = mcp_session(a, body, env=a.env(GH_PR_AGENT_MERGEABLE_WAIT="0.2"))
    tool = got["tools"]["detect_merge_conflicts"]
    assert tool.annotations.read_only_hint is True and tool.input_schema["additionalProperties"] is False
    for key in (21, 22, 23, 24, 25, "github_only"):
        result = got[key]
        assert result.is_error is False, result.content
        jsonschema.validate(result.structured_content, tool.output_schema)
    assert got[24].structured_content["conflicts"][0]["conflict_type"] == "binary"
    assert got["github_only"].structured_content["verdict"] == "unknown"
