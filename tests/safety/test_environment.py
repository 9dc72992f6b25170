"""Environment faults and secrets: each a typed error with a usable repair; tokens never leak."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import orjson
from mcp import Client, StdioServerParameters

from tests.e2e.worlds import feedback_world


def test_logged_into_another_host_only(agent, tmp_path: Path) -> None:
    a = agent(feedback_world())
    config = tmp_path / "ghcfg"
    config.mkdir()
    (config / "hosts.yml").write_text("github.com:\n    oauth_token: gho_other\n    user: me\n", encoding="utf-8")
    env = a.env(GH_CONFIG_DIR=str(config))
    for name in ("GH_TOKEN", "GH_HOST"):
        env.pop(name, None)
    proc = a.cli("comments", "https://github.localhost/acme/widgets/pull/7", "--json", env=env)
    err = orjson.loads(proc.stdout)["error"]
    assert proc.returncode == 4 and err["code"] == "auth_failed"
    assert err["repair"] == {"command": "gh auth login --hostname github.localhost"}


def test_canary_token_never_appears_anywhere(agent) -> None:
    from tests.fakehub import Fault

    a = agent(feedback_world())
    token = a.hub.token
    assert token.startswith("gho_")
    env = a.env(GH_PR_AGENT_DEBUG="1")
    outputs = [a.cli("comments", "acme/widgets#7", "--json", env=env),
               a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_nope", "--json", env=env)]
    a.hub.add_fault(Fault(match="graphql", status=401, body={"message": "Bad credentials"}, times=5))
    outputs.append(a.cli("comments", "acme/widgets#7", "--json", env=env))
    a.hub.add_fault(Fault(match="graphql", status=500, times=5))
    outputs.append(a.cli("comments", "acme/widgets#7", env=env))
    assert "gh api" in outputs[0].stderr or "graphql" in outputs[0].stderr  # debug output was on
    for proc in outputs:
        assert token not in proc.stdout and token not in proc.stderr

    params = StdioServerParameters(command=sys.executable, args=["-m", "pr_agent", "mcp"], env=env)

    async def main() -> str:
        async with Client(params, mode="legacy") as c:
            ok = await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#7"})
            bad = await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#404"})
            return orjson.dumps([ok.model_dump(mode="json"), bad.model_dump(mode="json")]).decode()

    assert token not in anyio.run(main)
