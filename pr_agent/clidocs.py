"""Render the CLI reference (docs/cli.md) from click's own help text: one source of truth."""

from __future__ import annotations

import click

from pr_agent.cli import cli


def _help(cmd: click.Command, path: list[str]) -> str:
    ctx = click.Context(cmd, info_name=" ".join(path), parent=None, terminal_width=100, max_content_width=100)
    return cmd.get_help(ctx)


def render_cli_docs() -> str:
    out = ["# gh pr-agent — command reference", "",
           "Generated from `--help` by `scripts/gen-cli-docs`; do not edit by hand.", ""]

    def walk(cmd: click.Command, path: list[str]) -> None:
        out.extend([f"## `{' '.join(path)}`", "", "```", _help(cmd, path).rstrip(), "```", ""])
        if isinstance(cmd, click.Group):
            ctx = click.Context(cmd, info_name=" ".join(path))
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None:
                    walk(sub, [*path, name])

    walk(cli, ["gh pr-agent"])
    return "\n".join(out).rstrip() + "\n"
