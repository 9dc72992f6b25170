"""How the CLI reports a failure: the message on stderr, the envelope on stdout with --json, the exit code;
click's usage errors included (:class:`JsonUsageCommand`). Imported by cli.py and offline.py."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click
import orjson

from pr_agent.errors import PrAgentError

_jq: tuple[str, Any] | None = None  # (expression, compiled program) of this run's --jq


def _print_json(data: Any, *, filtered: bool = True) -> None:
    """A command's JSON output on stdout; with --jq, what the expression makes of it (not for error envelopes:
    like gh, the filter never hides an error)."""
    from pr_agent.iostreams import color_json, json_layout

    coloured, terminal = json_layout()  # as gh: GH_FORCE_TTY counts as a terminal
    if _jq is not None and filtered:
        from pr_agent.jqfilter import apply

        try:
            text = apply(_jq[1], _jq[0], data, terminal=terminal, color=coloured)
        except PrAgentError as err:
            fail(err, True)
        sys.stdout.buffer.write(text)
    else:  # as gh: coloured (and so indented) where colour is on, compact and plain otherwise
        sys.stdout.buffer.write(color_json(data) if coloured else orjson.dumps(data) + b"\n")
    sys.stdout.flush()


def fail(err: PrAgentError, as_json: bool) -> NoReturn:
    """Report a typed error (stderr; plus the envelope on stdout with --json) and exit."""
    if as_json:
        _print_json(err.envelope(), filtered=False)
    from pr_agent.textsafe import terminal_safe

    click.echo(terminal_safe(err.human()), err=True)  # messages may quote untrusted text (paths, names)
    sys.exit(err.exit_code)


def run_guarded(as_json: bool, fn: Callable[[], None]) -> None:
    """Run a command's body; a typed error becomes its message (or envelope) and exit code."""
    try:
        fn()
    except PrAgentError as err:
        fail(err, as_json)


def usage_error(exc: click.UsageError, args: list[str]) -> None:
    """With --json, a click usage error (unknown option, bad choice, not a number) is the envelope on stdout
    too; without it, click's own message and exit 2."""
    if not any(a in ("--json", "--jq", "-q") or a.startswith("--jq=") for a in args):
        raise exc
    param = getattr(exc, "param", None)
    field = (param.opts[0] if param is not None and getattr(param, "opts", None) else
             getattr(exc, "option_name", None) or "(arguments)")
    where = exc.ctx.command_path if exc.ctx is not None else "gh pr-agent"
    err = PrAgentError("invalid_arguments", f"{where}: {exc.format_message()}",
                       suggestion=f"See `{where} --help` for its options and allowed values.",
                       details={"field": field, "reason": exc.format_message()})
    fail(err, True)


JQ_HELP = ("Filter the JSON output with a jq expression (implies --json), like gh's --jq: strings print raw, other "
           "values as JSON, one result per line.")


class JsonUsageCommand(click.Command):
    """A command whose usage errors honour --json (see :func:`usage_error`); one that takes --json takes
    ``-q/--jq EXPR`` too, as every gh command with --json does."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        if any(p.name == "as_json" for p in self.params):
            self.params.append(click.Option(["-q", "--jq", "jq_expr"], metavar="EXPR", default=None, help=JQ_HELP))

    def invoke(self, ctx: click.Context) -> Any:
        global _jq
        expr = ctx.params.pop("jq_expr", None)
        _jq = None  # one invocation's filter only (tests run several in one process)
        if expr is not None:
            from pr_agent.jqfilter import compile_filter

            try:
                _jq = (expr, compile_filter(expr))
            except PrAgentError as err:
                fail(err, True)
            ctx.params["as_json"] = True
        return super().invoke(ctx)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            usage_error(exc, given)
            raise
