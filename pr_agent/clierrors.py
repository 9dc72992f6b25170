"""How the CLI reports a failure: the message on stderr, the envelope on stdout with --json, the exit code;
click's usage errors included (:class:`JsonUsageCommand`). Imported by cli.py and offline.py."""

from __future__ import annotations

import sys
from typing import Any

import click
import orjson

from pr_agent.errors import PrAgentError


def _print_json(data: Any) -> None:
    option = orjson.OPT_INDENT_2 if sys.stdout.isatty() else 0
    sys.stdout.buffer.write(orjson.dumps(data, option=option) + b"\n")
    sys.stdout.flush()


def fail(err: PrAgentError, as_json: bool) -> None:
    """Report a typed error (stderr; plus the envelope on stdout with --json) and exit."""
    if as_json:
        _print_json(err.envelope())
    from pr_agent.textsafe import terminal_safe

    click.echo(terminal_safe(err.human()), err=True)  # messages may quote untrusted text (paths, names)
    sys.exit(err.exit_code)


def usage_error(exc: click.UsageError, args: list[str]) -> None:
    """With --json, a click usage error (unknown option, bad choice, not a number) is the envelope on stdout
    too; without it, click's own message and exit 2."""
    if "--json" not in args:
        raise exc
    param = getattr(exc, "param", None)
    field = (param.opts[0] if param is not None and getattr(param, "opts", None) else
             getattr(exc, "option_name", None) or "(arguments)")
    where = exc.ctx.command_path if exc.ctx is not None else "gh pr-agent"
    err = PrAgentError("invalid_arguments", f"{where}: {exc.format_message()}",
                       suggestion=f"See `{where} --help` for its options and allowed values.",
                       details={"field": field, "reason": exc.format_message()})
    fail(err, True)


class JsonUsageCommand(click.Command):
    """A command whose usage errors honour --json (see :func:`usage_error`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            usage_error(exc, given)
            raise
