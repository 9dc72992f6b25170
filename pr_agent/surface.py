"""Every message speaks its surface: one renderer per face for repairs, suggestions and next steps.

A next step is data — :func:`call` (one of our tools with its arguments) or :func:`run` (a plain
``gh``/``git`` argv) — plus ``needs_input``: the arguments the agent must write itself (a reply), which
never appear as a placeholder value. Prose that names our arguments, tools or CLI-only things is built
with :func:`text` from parts (:func:`arg`, :func:`tool`, :func:`face`); literal strings in it are never
interpreted, so untrusted text inside is safe. The process has one face, set once by its entry point:

- ``cli``: ``gh pr-agent resolve OWNER/REPO#1 --thread ID``, flags as you type them (``--wait``).
- ``mcp``: ``call resolve_review_thread with {"pr": …}``, argument names (``wait=true``); never a CLI
  flag, environment variable or ``gh pr-agent``.

The API is :func:`set_face` / :func:`using` / :func:`current`, :func:`call` / :func:`run` (a :class:`Step`),
:func:`show` (a step as one line), :func:`repair` (a step as the error envelope's ``repair`` object) and
:func:`text` / :func:`arg` / :func:`tool` / :func:`face`. Command lines come from
:func:`pr_agent.shellcmd.command`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from pr_agent import cli_table
from pr_agent.shellcmd import command

Face = Literal["cli", "mcp"]
_FACE: list[Face] = ["cli"]  # the process's face; `gh pr-agent mcp` sets "mcp" before it serves
_UNSET: Any = object()


def set_face(which: Face) -> None:
    if which not in ("cli", "mcp"):
        raise ValueError(f"unknown face {which!r}")
    _FACE[0] = which


def current() -> Face:
    return _FACE[0]


@contextlib.contextmanager
def using(which: Face) -> Iterator[None]:
    """Render with ``which`` inside the block (tests; one process serving one face never needs it)."""
    before = _FACE[0]
    set_face(which)
    try:
        yield
    finally:
        _FACE[0] = before


# ---------------------------------------------------------------------------------------------- steps


@dataclass(frozen=True)
class Step:
    """A next step as data: a tool call (``tool`` + ``arguments``) or a plain command (``argv``)."""

    tool: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)
    argv: tuple[str, ...] = ()
    needs_input: tuple[str, ...] = ()  # argument names the agent must fill with its own text
    why: str = ""  # one sentence: what the step does or what to put in needs_input


def call(tool_name: str, arguments: Mapping[str, Any], *, needs_input: Sequence[str] = (), why: str = "") -> Step:
    """Call one of our tools. ``arguments`` must not hold a placeholder: name the field in needs_input."""
    return Step(tool=tool_name, arguments={k: v for k, v in arguments.items() if v is not None},
                needs_input=tuple(needs_input), why=why)


def run(argv: Sequence[str], *, why: str = "") -> Step:
    """Run a plain gh or git command (nothing of ours needed), every word data."""
    command(argv)  # refuses a NUL byte or a non-string word now, not when it is shown
    return Step(argv=tuple(argv), why=why)


def show(step: Step) -> str:
    """The step as one line for the current face (a command line on the CLI, a tool call over MCP)."""
    if step.tool is None:
        return command(step.argv)
    if current() == "mcp":
        line = f"call {step.tool} with {_json(dict(step.arguments))}"
        if step.needs_input:
            line += "; add " + ", ".join(step.needs_input) + " (your own text)"
        return line
    line = command(cli_argv(step.tool, step.arguments))
    if step.needs_input:
        line += "  (add " + ", ".join(_flag(step.tool, n) + " TEXT" for n in step.needs_input) + ")"
    return line


def repair(step: Step) -> dict[str, Any]:
    """The error envelope's ``repair`` for the current face.

    MCP, our tools: ``{tool, arguments, next_step[, needs_input]}``. CLI, our tools: ``{command,
    next_step[, needs_input: [flags]]}``. Plain gh/git commands on both: ``{command[, next_step]}``."""
    if step.tool is not None and current() == "mcp":
        out: dict[str, Any] = {"tool": step.tool, "arguments": dict(step.arguments), "next_step": step.why}
        if step.needs_input:
            out["needs_input"] = list(step.needs_input)
        return out
    argv = list(step.argv) if step.tool is None else cli_argv(step.tool, step.arguments)
    out = {"command": command(argv)}
    if step.tool is not None or step.why:
        out["next_step"] = step.why
    if step.tool is not None and step.needs_input:
        out["needs_input"] = [_flag(step.tool, n) for n in step.needs_input]
    return out


# ---------------------------------------------------------------------------------------- CLI shapes


@dataclass(frozen=True)
class _Shape:
    cli_name: str
    positional: tuple[str, ...]
    options: Mapping[str, str]


def _tool(name: str) -> _Shape:
    """How a call of the tool ``name`` is written on the CLI, from the generated table (pr_agent/cli_table.py,
    checked against the registry by tests/unit/test_docs.py): this module never imports the registry."""
    cli_name, positional, options = cli_table.SHAPES[name]
    return _Shape(cli_name, positional, options)


def _flag(tool_name: str, name: str) -> str:
    t = _tool(tool_name)
    if name in t.positional:
        return name.upper()
    return t.options.get(name, "--" + name.replace("_", "-"))


def _word(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def cli_argv(tool_name: str, arguments: Mapping[str, Any]) -> list[str]:
    """``gh pr-agent CMD [POSITIONAL…] --flag value…`` for a call of ``tool_name``. Positionals that look
    like options go last, after ``--``; a positional can only be given with the ones before it."""
    t = _tool(tool_name)
    argv = ["gh", "pr-agent", t.cli_name]
    positional = t.positional
    given = [p for p in positional if arguments.get(p) is not None]
    words = [_word(arguments.get(p, "")) for p in positional  # click fills positionals in order
             if given and positional.index(p) <= positional.index(given[-1])]
    dashed = any(w.startswith("-") for w in words)  # data must not be read as an option: after `--`
    if not dashed:
        argv += words
    for name, value in arguments.items():
        if name in positional or value is None:
            continue
        flag = t.options.get(name, "--" + name.replace("_", "-"))
        if isinstance(value, bool):
            argv.append(flag if value else "--no-" + flag[2:])
        else:
            for v in value if isinstance(value, (list, tuple)) else [value]:
                w = _word(v)  # a value that looks like an option is glued to its flag
                argv += [f"{flag}={w}"] if w.startswith("-") else [flag, w]
    return [*argv, "--", *words] if dashed else argv


# ---------------------------------------------------------------------------------------------- prose


@dataclass(frozen=True)
class _Arg:
    tool: str
    name: str
    value: Any


@dataclass(frozen=True)
class _ToolRef:
    name: str


@dataclass(frozen=True)
class _Face:
    cli: str
    mcp: str


def arg(tool_name: str, name: str, value: Any = _UNSET) -> _Arg:
    """An argument of ``tool_name``: ``--flag [VALUE]`` on the CLI, ``name[=json]`` over MCP."""
    return _Arg(tool_name, name, value)


def tool(name: str) -> _ToolRef:
    """One of our tools: ``gh pr-agent CMD`` on the CLI, its MCP name over MCP."""
    return _ToolRef(name)


def face(*, cli: str, mcp: str) -> _Face:
    """Words that differ by face (``--repo``/``GH_REPO`` exist only on the CLI)."""
    return _Face(cli, mcp)


def text(*parts: str | _Arg | _ToolRef | _Face | Step) -> str:
    """Join literal strings and rendered parts for the current face."""
    return "".join(_render(p) for p in parts)


def _render(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, _Face):
        return part.cli if current() == "cli" else part.mcp
    if isinstance(part, _ToolRef):
        return part.name if current() == "mcp" else command(["gh", "pr-agent", _tool(part.name).cli_name])
    if isinstance(part, Step):
        return show(part)
    if isinstance(part, _Arg):
        if current() == "mcp":
            return part.name if part.value is _UNSET else f"{part.name}={_json(part.value)}"
        flag = _flag(part.tool, part.name)
        if part.value is _UNSET:
            return flag
        if isinstance(part.value, bool) and not flag.isupper():
            return flag if part.value else "--no-" + flag[2:]
        return command([flag, _word(part.value)]) if not flag.isupper() else command([_word(part.value)])
    raise TypeError(f"cannot render {type(part).__name__}")


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


# ------------------------------------------------------------------------------------- help text on the CLI

_VALUE = r"""(?:true|false|null|-?\d+(?:\.\d+)?|"[^"\n]*"|'[^'\n]*')"""


def cli_prose(tool_name: str, prose: str, fields: Sequence[str]) -> str:
    """A tool's description (written once, as MCP clients read it) as the CLI says it: our tools' MCP names
    become ``gh pr-agent CMD``; ``field=value`` / ``field: value`` of ``tool_name``'s own arguments become the
    flag as you type it (``--wait``, ``--no-wait``, ``--target main``); a bare snake_case argument name
    becomes its flag (or its positional's metavar), and so does a one-word name after "as ". Names inside
    dotted paths (``args.thread_id``) or after "its " (``its thread_id``: output fields) and any other word
    stay as written."""
    if not prose:
        return prose
    tools = {name: shape[0] for name, shape in cli_table.SHAPES.items()}
    names = sorted(set(fields), key=len, reverse=True)
    tool_alt = "|".join(re.escape(t) for t in sorted(tools, key=len, reverse=True))
    field_alt = "|".join(re.escape(f) for f in names) or r"(?!x)x"
    edge_l, edge_r = r"(?<![\w.\-])", r"(?![\w\-]|\.\w)"
    pattern = re.compile(
        rf"{edge_l}(?P<tool>{tool_alt}){edge_r}"
        rf"|{edge_l}(?<!its )(?P<field>{field_alt})"
        rf"(?:(?:=|: )(?P<value>{_VALUE})|=(?P<word>[A-Za-z][\w-]*))?{edge_r}")

    def one(m: re.Match[str]) -> str:
        if m.group("tool"):
            return command(["gh", "pr-agent", tools[m.group("tool")]])
        name, raw, word = m.group("field"), m.group("value"), m.group("word")
        if raw is None and word is None:  # a bare name: snake_case, or named as an argument ("… as cursor")
            named = "_" in name or prose[max(0, m.start() - 3):m.start()] == "as "
            return _flag(tool_name, name) if named else m.group(0)
        value: Any = word if word is not None else orjson.loads(raw) if not raw.startswith("'") else raw[1:-1]
        with using("cli"):
            return _render(_Arg(tool_name, name, value))

    return pattern.sub(one, prose)
