"""Environment faults and secrets: each a typed error with a usable repair; tokens never leak."""

from __future__ import annotations

from pathlib import Path

import orjson

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
    err = orjson.loads(proc.stdout)["error"]  # not GH_HOST, no remote, gh is not logged into it: a stranger
    assert proc.returncode == 2 and err["code"] == "untrusted_host" and err["details"]["host"] == "github.localhost"
    env["GH_PR_AGENT_ALLOWED_HOSTS"] = "github.localhost"  # allowed by the user, but gh has no login for it
    proc = a.cli("comments", "https://github.localhost/acme/widgets/pull/7", "--json", env=env)
    err = orjson.loads(proc.stdout)["error"]
    assert proc.returncode == 4 and err["code"] == "auth_failed"
    assert err["repair"] == {"command": "gh auth login --hostname github.localhost"}


CANARY = "gho_CANARY0canary0CANARY0canary0CANARY00"


def test_canary_token_never_appears_anywhere(make_hub, tmp_path: Path) -> None:
    """Every tool once, through the CLI (text and --json, success and failure) and over MCP, with debug output on:
    the token never appears in stdout, stderr, errors or MCP results."""
    from tests.e2e.test_mcp_robustness import HANDSHAKE, rpc, run_raw
    from tests.fakehub import Fault
    from tests.safety.worlds import FAST_ENV, TOOL_CASES, agent_for

    seen: list[str] = []
    worlds = sorted({c.world for c in TOOL_CASES})
    for key in worlds:
        a = agent_for(make_hub, key, tmp_path / f"home-{key}", token=CANARY)
        assert a.hub.token == CANARY
        env = a.env(GH_PR_AGENT_DEBUG="1", **FAST_ENV)
        cases = [c for c in TOOL_CASES if c.world == key]
        for case in cases:
            for extra in ([], ["--json"]):
                proc = a.cli(*case.args, *extra, env=env)
                assert proc.returncode == case.ok_exit, (case.tool, proc.stderr[-500:])
                seen += [proc.stdout, proc.stderr]
        assert any("[gh-pr-agent]" in text for text in seen[-2:]), "debug output was not on"
        payload = HANDSHAKE + b"".join(rpc(i + 1, "tools/call", {"name": c.tool, "arguments": c.arguments()})
                                       for i, c in enumerate(cases))
        a.hub.add_fault(Fault(match="graphql", status=401, body={"message": "Bad credentials"}, times=1))
        a.hub.add_fault(Fault(match="graphql", status=500, times=3))
        messages, raw = run_raw(a, payload + b"".join(
            rpc(100 + i, "tools/call", {"name": c.tool, "arguments": c.arguments()}) for i, c in enumerate(cases)))
        replies = {m["id"]: m for m in messages if "id" in m}
        assert all(i + 1 in replies for i in range(len(cases))), "an MCP call was not answered"
        seen += [raw.stdout.decode("utf-8", "replace"), raw.stderr.decode("utf-8", "replace")]
        for case in cases:  # failures with debug output on: 401 and 5xx
            proc = a.cli(*case.args, "--json", env=a.env(GH_PR_AGENT_DEBUG="1", GH_TOKEN="bad-token"))
            seen += [proc.stdout, proc.stderr]
    assert len(seen) > 4 * len(TOOL_CASES)
    for text in seen:
        assert CANARY not in text and "CANARY0canary" not in text
        assert "Authorization" not in text and "authorization:" not in text.lower()


def test_read_only_server_exposes_every_read_tool_and_nothing_else(agent) -> None:
    """Least privilege over every tool: --read-only lists all tools but the one that writes."""
    import subprocess
    import sys

    from pr_agent.registry import all_tools
    from tests.e2e.test_mcp_robustness import HANDSHAKE, rpc

    a = agent(feedback_world())
    proc = subprocess.run([sys.executable, "-m", "pr_agent", "mcp", "--read-only"],
                          input=HANDSHAKE + rpc(1, "tools/list"), capture_output=True, env=a.env(), timeout=120,
                          check=False)
    replies = {m.get("id"): m for m in map(orjson.loads, filter(bytes.strip, proc.stdout.split(b"\n")))}
    listed = {t["name"]: t for t in replies[1]["result"]["tools"]}
    writers = {name for name, tool in all_tools().items() if not tool.annotations.read_only}
    assert writers == {"resolve_review_thread"}
    assert set(listed) == set(all_tools()) - writers
    assert all(t["annotations"]["readOnlyHint"] is True for t in listed.values())
