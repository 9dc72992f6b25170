"""The cheap commands start without the registry: no pydantic, no tool module, no gh/git gateway."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pr_agent import cli_table
from pr_agent.registry import all_tools

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pydantic", "pr_agent.registry", "pr_agent.tools", "pr_agent.context", "pr_agent.gh", "mcp")

PROBE = """
import json, sys
from pr_agent.cli import cli
try:
    cli.main(sys.argv[1:], prog_name="gh pr-agent")
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def run_probe(tmp_path: Path, *args: str) -> tuple[int, str, set[str]]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                               "GH_PR_AGENT_CONFIG_DIR": str(tmp_path / "cfg")}, timeout=60, check=False)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["code"], proc.stdout, set(report["modules"])


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))


@pytest.mark.parametrize("args", [
    ["--version"], ["--help"], ["config", "list"], ["config", "list", "--json"],
    ["config", "get", "find_unresolved_comments.sort"], ["config", "unset", "get_failing_tests.wait"],
    ["config", "get", "no.such_key"], ["no-such-command"],
])
def test_cheap_commands_import_no_tool(tmp_path: Path, args: list[str]) -> None:
    code, _out, modules = run_probe(tmp_path, *args)
    assert code in (0, 2, None)
    assert heavy(modules) == []


def test_help_lists_every_tool_from_the_table(tmp_path: Path) -> None:
    code, out, _ = run_probe(tmp_path, "--help")
    flat = " ".join(out.split())  # click wraps the short help to the terminal width
    assert code == 0
    for tool in all_tools().values():
        assert f" {tool.cli_name} {tool.cli_help}" in flat


def test_a_tool_command_builds_from_the_registry(tmp_path: Path) -> None:
    code, out, modules = run_probe(tmp_path, "checks", "--help")
    assert code == 0 and "pr_agent.registry" in modules and "--bail-on-first" in out


def test_config_set_validates_with_the_models(tmp_path: Path) -> None:
    code, _out, modules = run_probe(tmp_path, "config", "set", "find_unresolved_comments.sort", "sideways")
    assert code == 2 and "pydantic" in modules
    assert not (tmp_path / "cfg" / "preferences.json").exists()


def test_table_names_every_tool() -> None:
    assert {c: n for c, (n, _h) in cli_table.COMMANDS.items()} == {t.cli_name: t.name for t in all_tools().values()}
