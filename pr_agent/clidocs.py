"""Render the CLI reference (docs/cli.md) from click's own help text: one source of truth."""

from __future__ import annotations

import click

from pr_agent.cli import cli


def _context(cmd: click.Command, path: list[str], parent: click.Context | None) -> click.Context:
    # Nested like a real invocation, so subcommands inherit the group's settings (-h, --help): click caches
    # each command's help option the first time it is built, and a run of the CLI builds it this way.
    settings = {"terminal_width": 100, **cmd.context_settings, "max_content_width": 100}
    return click.Context(cmd, info_name=path[-1] if parent else " ".join(path), parent=parent, **settings)


def _help(ctx: click.Context) -> str:
    return ctx.command.get_help(ctx)


def render_cli_docs() -> str:
    out = ["# gh pr-agent — command reference", "",
           "Generated from `--help` by `scripts/gen-cli-docs`; do not edit by hand.", ""]

    def walk(cmd: click.Command, path: list[str], parent: click.Context | None) -> None:
        ctx = _context(cmd, path, parent)
        out.extend([f"## `{' '.join(path)}`", "", "```", _help(ctx).rstrip(), "```", ""])
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None:
                    walk(sub, [*path, name], ctx)

    walk(cli, ["gh pr-agent"], None)
    return "\n".join(out).rstrip() + "\n"
