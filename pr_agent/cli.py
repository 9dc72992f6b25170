"""The click CLI, generated from the tool registry. It never imports the MCP SDK.

Start-up stays cheap: `--version`, `--help` and `config list|get|unset` read the generated command table
(pr_agent/cli_table.py) and never import the registry, pydantic or a tool module; a tool command imports
them when it runs (or shows its own help), `config set` when it validates a value, `mcp` when it serves.
"""

from __future__ import annotations

import contextlib
import os
import sys
import types
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

import click
import orjson

from pr_agent import __version__, cli_table
from pr_agent.clierrors import JsonUsageCommand, _print_json, run_guarded

if TYPE_CHECKING:
    from pr_agent.tooldef import Tool

EXIT_CODES_HELP = (
    "Exit codes: 0 success; 1 a negative answer; 2 invalid arguments or PR reference; 3 error (not found, "
    "GitHub, gh or git failed, refused); 4 gh is not logged in or its credentials were rejected; 8 still pending; "
    "130 interrupted."
)
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _bare(annotation: Any) -> Any:
    """Strip Optional[...] / X | None."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _option(tool: Tool, name: str, info: Any) -> click.Parameter:
    flag = tool.cli_options.get(name, "--" + name.replace("_", "-"))
    ann = _bare(info.annotation)
    from pr_agent.surface import cli_prose
    from pr_agent.tooldef import STORED_PHRASE

    help_text = (info.description or "").replace(STORED_PHRASE + ",", STORED_PHRASE + " (gh pr-agent config),")
    help_text = cli_prose(tool.name, help_text, list(tool.input_model.model_fields))
    if ann is bool:
        return click.Option([f"{flag}/--no-{flag[2:]}", name], default=None, help=help_text)
    if get_origin(ann) is list:
        return click.Option([flag, name], multiple=True, help=help_text + " Repeat the option for several.")
    if get_origin(ann) is Literal:
        return click.Option([flag, name], type=click.Choice([str(a) for a in get_args(ann)]), default=None,
                            help=help_text)
    if ann is int:
        return click.Option([flag, name], type=int, default=None, help=help_text)
    return click.Option([flag, name], type=str, default=None, help=help_text, metavar="TEXT")


class TtyProgress:
    """Live progress of a long call (e.g. waiting for CI) on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.shown = False
        self.show = self._show if sys.stderr.isatty() else None

    def _show(self, done: float, total: float | None, message: str) -> None:
        from pr_agent.textsafe import terminal_safe

        sys.stderr.write("\r\x1b[2K" + terminal_safe(message)[:200])
        sys.stderr.flush()
        self.shown = True

    def __enter__(self) -> TtyProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()


def tool_command(tool: Tool) -> click.Command:
    params: list[click.Parameter] = []
    spec = tool.cli_positional
    positional = (spec,) if isinstance(spec, str) else tuple(spec or ())
    for name, info in tool.input_model.model_fields.items():
        if name in positional:
            params.append(click.Argument([name], required=False, metavar="[PR]" if name == "pr" else name.upper()))
        else:
            params.append(_option(tool, name, info))
    params.append(click.Option(["-R", "--repo", "repo_override"], metavar="[HOST/]OWNER/REPO", default=None,
                               help="Repository for a bare PR number (default: GH_REPO, then the current clone)."))
    params.append(click.Option(["--json", "as_json"], is_flag=True,
                               help="Print the tool's structured output (exactly the MCP structuredContent)."))
    params += [click.Option([x.flag, x.dest], type=x.type, metavar=x.metavar, default=None, help=x.help)
               for x in tool.cli_extra]

    def callback(repo_override: str | None, as_json: bool, **values: Any) -> None:
        from pr_agent.context import Context
        from pr_agent.dispatch import run_tool

        extras = [(x, values.pop(x.dest)) for x in tool.cli_extra]
        arguments = {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items()
                     if v is not None and v != ()}
        extra = next(((x, v) for x, v in extras if v is not None), None)
        if extra is not None:
            run_guarded(as_json, lambda: sys.exit(extra[0].run(Context(repo_override=repo_override), arguments,
                                                               extra[1])))
            return

        def go() -> None:
            from pr_agent import envvars

            envvars.check_all()  # every variable of ours, whichever this command reads: a typo is said at once
            with TtyProgress() as progress:
                out = run_tool(tool, Context(repo_override=repo_override, progress=progress.show), arguments)
            if as_json:
                _print_json(out)
            else:
                sys.stdout.write(tool.render(out))
                sys.stdout.flush()
            sys.exit(tool.exit_code(out))

        run_guarded(as_json, go)

    from pr_agent.surface import cli_prose

    epilog = f"MCP tool: {tool.name}. {tool.exit_codes_help or EXIT_CODES_HELP}"
    description = cli_prose(tool.name, tool.description or "", list(tool.input_model.model_fields))
    return JsonUsageCommand(tool.cli_name, params=params, callback=callback, help=description,
                         short_help=tool.cli_help, epilog=epilog, context_settings=CONTEXT_SETTINGS)


class LazyGroup(click.Group):
    """Tool commands are named by the generated table (pr_agent/cli_table.py, derived from the registry and
    checked by tests/unit/test_docs.py); a command is built from the registry only when it is invoked or
    its own help is shown. The group's --help lists the tools from the table alone."""

    _listing = False  # inside format_commands: the short help from the table is all that is needed

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(cli_table.COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None or cmd_name not in cli_table.COMMANDS:
            return cmd
        if self._listing:
            return click.Command(cmd_name, short_help=cli_table.COMMANDS[cmd_name][1])
        from pr_agent.registry import all_tools

        tool = all_tools().get(cli_table.COMMANDS[cmd_name][0])
        return tool_command(tool) if tool is not None and tool.cli_name == cmd_name else None

    def make_context(self, *args: Any, **kw: Any) -> click.Context:
        try:  # --help and --version write while parsing
            return super().make_context(*args, **kw)
        except OSError as exc:  # click would exit 1 on a closed pipe; ours is quiet and 141, like gh
            _output_failed(exc)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OSError as exc:
            _output_failed(exc)
            raise

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS, epilog=EXIT_CODES_HELP)
@click.version_option(__version__, prog_name="gh-pr-agent")
def cli() -> None:
    """Precise answers about a GitHub pull request, for AI agents and people.

    PR can be 123, #123, owner/repo#123, owner/repo/pull/123 or a PR URL (with or without its host, any
    suffix); without it, the PR of the current branch. --json (structured output; errors as a JSON envelope
    on stdout) is taken by the tool commands, parse-log, parse-review and config list|get; not by config
    set|unset or mcp. Wherever --json is, -q/--jq EXPR filters that output like gh's --jq. Text is coloured
    on a terminal as gh colours it (NO_COLOR or CLICOLOR=0: never; CLICOLOR_FORCE: even when piped). Run
    `gh pr-agent mcp` to serve the same tools over MCP.
    """


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.option("--read-only", is_flag=True, help="Expose only the tools that never write to GitHub.")
@click.option("--tools", "tool_list", metavar="NAME[,NAME…]",
              help="Expose only these tools (MCP names, comma-separated). Default: all.")
def mcp(read_only: bool, tool_list: str | None) -> None:
    """Serve the tools over MCP on stdin/stdout (register `gh pr-agent mcp` in your agent)."""
    selected = select_tools(read_only, tool_list)
    from pr_agent import envvars, iostreams, surface

    run_guarded(False, envvars.check_all)  # a bad value stops the server before it serves, with its name
    from pr_agent.mcp_server import serve

    surface.set_face("mcp")  # from here on, every message speaks MCP: tool calls and argument names
    iostreams.plain()
    _stop_on_interrupt()
    if sys.stdin.isatty():
        sys.stderr.write(MCP_TTY_HINT)
        sys.stderr.flush()
    serve(selected, {"read_only": read_only, "tools": sorted(selected)})


MCP_TTY_HINT = (
    "gh pr-agent mcp speaks the Model Context Protocol (JSON-RPC) on stdin/stdout: it is started by an MCP\n"
    "client, not typed at. Register it in your agent, e.g.:\n"
    "  claude mcp add pr-agent -- gh pr-agent mcp\n"
    '  or in an mcpServers config: {"pr-agent": {"command": "gh", "args": ["pr-agent", "mcp"]}}\n'
    "Waiting for a client on stdin; Ctrl-C stops it.\n"
)


def _stop_on_interrupt() -> None:
    """Ctrl-C (SIGINT) or SIGTERM stops the server at once: no traceback from the event loop, and no server
    left behind blocked on a stdin read (its reader thread would keep the process alive)."""
    import signal

    def stop(signum: int, _frame: Any) -> None:
        with contextlib.suppress(OSError):
            sys.stderr.write("\ngh pr-agent mcp: stopped.\n")
            sys.stderr.flush()
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def select_tools(read_only: bool, tool_list: str | None) -> dict[str, Tool]:
    from pr_agent.registry import all_tools

    tools = all_tools()
    chosen = dict(tools)
    if tool_list is not None:
        names = [n.strip() for n in tool_list.split(",") if n.strip()]
        unknown = [n for n in names if n not in tools]
        if unknown or not names:
            raise click.BadParameter(f"unknown tool(s) {', '.join(unknown) or '(none given)'}; "
                                     f"choose from {', '.join(sorted(tools))}", param_hint="--tools")
        chosen = {n: tools[n] for n in names}
    if read_only:
        chosen = {n: t for n, t in chosen.items() if t.annotations.read_only}
    if not chosen:
        raise click.BadParameter("that selection leaves no tool to serve", param_hint="--tools/--read-only")
    return chosen


@cli.group(context_settings=CONTEXT_SETTINGS)
def config() -> None:
    """Stored preferences: the defaults used when an argument is omitted.

    Keys are TOOL.FIELD (see `config list`). Precedence: explicit argument > stored preference >
    built-in default. Stored in $GH_PR_AGENT_CONFIG_DIR or $XDG_CONFIG_HOME/gh-pr-agent/preferences.json.
    """


def _prefs() -> Any:
    from pr_agent.prefs import Preferences

    return Preferences.load(dict(os.environ))


@config.command("list", cls=JsonUsageCommand)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def config_list(as_json: bool) -> None:
    """Every preference key with its value and where the value comes from."""

    def go() -> None:
        rows = _prefs().listing()
        if as_json:
            _print_json({"preferences": rows})
            return
        width = max(len(r["key"]) for r in rows) if rows else 0
        for r in rows:
            click.echo(f"{r['key']:<{width}}  {orjson.dumps(r['value']).decode()}  ({r['source']})")

    run_guarded(as_json, go)


@config.command("get", cls=JsonUsageCommand)
@click.argument("key")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def config_get(key: str, as_json: bool) -> None:
    """The effective value of KEY."""

    def go() -> None:
        prefs = _prefs()
        row = next((r for r in prefs.listing() if r["key"] == key), None)
        if row is None:
            prefs.get(key)  # raises the typed unknown-key error
        assert row is not None
        if as_json:
            _print_json(row)
        else:
            click.echo(orjson.dumps(row["value"]).decode())

    run_guarded(as_json, go)


@config.command("set")
@click.argument("key")
@click.argument("value")
def config_set(key: str, value: str) -> None:
    """Store VALUE for KEY (JSON literals such as true, 3 or ["a"] are parsed; anything else is a string)."""
    from pr_agent.prefs import parse_cli_value

    def go() -> None:
        stored = _prefs().set(key, parse_cli_value(value))
        click.echo(f"{key} = {orjson.dumps(stored).decode()}")

    run_guarded(False, go)


@config.command("unset")
@click.argument("key")
def config_unset(key: str) -> None:
    """Forget the stored value of KEY (the built-in default applies again)."""

    def go() -> None:
        existed = _prefs().unset(key)
        click.echo(f"{key} unset" if existed else f"{key} was not set")

    run_guarded(False, go)


def _offline_commands() -> None:
    from pr_agent.offline import parse_log_command, parse_review

    cli.add_command(parse_review)
    cli.add_command(parse_log_command)


_offline_commands()


def main() -> None:
    from pr_agent import iostreams, surface

    surface.set_face("cli")  # messages name commands and flags; `mcp` switches to tool calls
    iostreams.setup()  # colour on a terminal, as gh decides it (NO_COLOR, CLICOLOR, CLICOLOR_FORCE, GH_FORCE_TTY)
    for stream in (sys.stdout, sys.stderr):  # an ASCII-only terminal gets escapes, never UnicodeEncodeError
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    try:
        try:
            code = cli.main(prog_name="gh pr-agent", standalone_mode=False)
        except click.ClickException as exc:  # what standalone mode does, but a closed pipe is ours below
            exc.show()
            code = exc.exit_code
        except click.Abort:  # Ctrl-C at a prompt
            sys.stderr.write("\n")
            code = 130
        finally:
            sys.stdout.flush()  # a write error shows here, inside the guard, not at interpreter exit
    except OSError as exc:
        _output_failed(exc)
    sys.exit(code if isinstance(code, int) else 0)


def _output_failed(exc: OSError) -> None:
    """stdout cannot take our output: a closed pipe ends quietly (like gh: `| head` is not an error to
    report); a full disk or another write error is said on stderr. Nothing more is written to stdout."""
    import errno

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
    except (OSError, ValueError):
        pass
    if exc.errno == errno.EPIPE:
        sys.exit(141)  # 128 + SIGPIPE, what a shell reports for gh (a Go program) in the same place
    try:
        sys.stderr.write(f"error [output_failed]: cannot write the output: {exc.strerror or exc}.\n")
        sys.stderr.flush()
    except OSError:
        pass
    from pr_agent.errors import EXIT_ERROR

    sys.exit(EXIT_ERROR)
