"""README and CLI reference stay true to the code."""

from __future__ import annotations

from pathlib import Path

from pr_agent.clidocs import render_cli_docs, render_cli_table
from pr_agent.errors import EXIT_AUTH, EXIT_PENDING, EXIT_USAGE
from pr_agent.registry import all_tools

ROOT = Path(__file__).resolve().parents[2]


def test_cli_reference_is_generated_from_help() -> None:
    assert (ROOT / "docs" / "cli.md").read_text(encoding="utf-8") == render_cli_docs(), (
        "docs/cli.md is stale: run scripts/gen-cli-docs")


def test_cli_table_is_generated_from_registry() -> None:
    # --help and config read the commands and preference keys from this derived table, not the registry
    assert (ROOT / "pr_agent" / "cli_table.py").read_text(encoding="utf-8") == render_cli_table(), (
        "pr_agent/cli_table.py is stale: run scripts/gen-cli-docs")


def test_readme_names_every_tool_command_and_exit_code() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for tool in all_tools().values():
        assert f"gh pr-agent {tool.cli_name}" in readme, tool.cli_name
        assert tool.name in readme, tool.name
    for code in (EXIT_USAGE, EXIT_AUTH, EXIT_PENDING):
        assert f"**{code}**" in readme
    assert "scripts/demo" in readme and "scripts/test" in readme
