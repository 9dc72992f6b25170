"""One registry of tools behind the CLI and the MCP server (design §3, §6).

A tool is declared once — name, title, description, input and output models, annotations,
handler, CLI shape — and both faces are generated from it. :func:`run_tool` is the only way a tool
runs: it validates the arguments with the input model, fills stored preferences, calls the handler
and turns every failure into a :class:`PrAgentError`.
"""

from __future__ import annotations

import copy
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pr_agent import surface
from pr_agent.context import Context
from pr_agent.errors import EXIT_OK, PrAgentError, tool_repair
from pr_agent.shellcmd import command

STORED = "x-stored-preference"
# how a 💾 field's description ends; the CLI's help names its `config` command there (cli._option), MCP clients
# read it in tools/list, where no CLI exists
STORED_PHRASE = "Omitted means your stored preference"
BUILTIN = "x-builtin-default"


class InputModel(BaseModel):
    """Tool arguments. Strict: a value is accepted only when the published inputSchema admits it — no
    ``"yes"``/``"false"``/``0`` for a boolean, no ``"5"`` or ``true`` for an integer (the only lenient step is
    JSON's own: an integral number such as ``5.0`` is an integer, as JSON Schema says)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False, strict=True)


class OutputModel(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def stored(default: Any, description: str, **kw: Any) -> Any:
    """A field whose default comes from the stored preferences (💾), then ``default``."""
    return Field(
        None,
        description=f"{description} {STORED_PHRASE}, else {_show(default)}.",
        json_schema_extra={STORED: True, BUILTIN: default},
        **kw,
    )


def _show(value: Any) -> str:
    if value is None:
        return "decided by the tool"
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class Annotations:
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = True

    def wire(self, title: str) -> dict[str, Any]:
        return {"title": title, "readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": self.open_world}


@dataclass(frozen=True)
class CliExtra:
    """A CLI-only option of a tool's command, not part of the MCP tool. When the option is given,
    ``run(ctx, arguments, value)`` answers instead of the tool (it prints its own output) and returns
    the exit code; ``arguments`` are the tool arguments given on the same command line."""

    flag: str
    dest: str
    help: str
    run: Callable[[Context, dict[str, Any], Any], int]
    metavar: str = "VALUE"
    type: Any = str


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_model: type[InputModel]
    output_model: type[OutputModel]
    annotations: Annotations
    handler: Callable[[Context, Any], OutputModel]
    cli_name: str
    cli_help: str
    render: Callable[[dict[str, Any]], str]
    cli_options: dict[str, str] = field(default_factory=dict)  # field -> "--flag" override
    cli_positional: str | tuple[str, ...] | None = "pr"  # field(s) taken as positional CLI arguments
    exit_code: Callable[[dict[str, Any]], int] = lambda _out: EXIT_OK
    exit_codes_help: str = ""
    cli_extra: tuple[CliExtra, ...] = ()  # CLI-only options (not part of the MCP tool)

    def input_schema(self) -> dict[str, Any]:
        return publishable_schema(self.input_model)

    def output_schema(self) -> dict[str, Any]:
        """The schema of a successful result (the output model's)."""
        return publishable_schema(self.output_model)

    def wire_output_schema(self) -> dict[str, Any]:
        """The published ``outputSchema``: the success shape (top level) or an error result carrying the envelope
        (pr_agent/wire_schema.py)."""
        from pr_agent.wire_schema import compact_output

        return compact_output(self.output_schema(), self.name)

    def snapshot(self) -> dict[str, Any]:
        """What tests/snapshots/tools holds: the wire contract plus the full output schema (reviewed alike)."""
        return {**self.describe(), "fullOutputSchema": self.output_schema()}

    def stored_fields(self) -> dict[str, Any]:
        """field name -> built-in default, for every 💾 field."""
        out = {}
        for name, info in self.input_model.model_fields.items():
            extra = info.json_schema_extra
            if isinstance(extra, dict) and extra.get(STORED):
                out[name] = extra.get(BUILTIN)
        return out

    def describe(self) -> dict[str, Any]:
        """The tool as published on the wire (and snapshotted in tests/snapshots/tools)."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "annotations": self.annotations.wire(self.title),
            "inputSchema": self.input_schema(),
            "outputSchema": self.wire_output_schema(),
        }


def _strip_null_defaults(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("default", 0) is None:
            del node["default"]
        for value in node.values():
            _strip_null_defaults(value)
    elif isinstance(node, list):
        for value in node:
            _strip_null_defaults(value)


def _strip_titles(node: Any, names: bool = False) -> None:
    """Drop pydantic's generated ``title`` of every schema ("Thread Id" for thread_id, the model's class name):
    it only repeats the property's name, and tools/list is in every client's context. ``names``: ``node`` maps
    names to schemas (``properties``, ``$defs``), so a property called ``title`` stays."""
    if isinstance(node, dict):
        if not names and isinstance(node.get("title"), str):
            del node["title"]
        for key, value in node.items():
            _strip_titles(value, names=not names and key in ("properties", "$defs"))
    elif isinstance(node, list):
        for value in node:
            _strip_titles(value)


def publishable_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = copy.deepcopy(model.model_json_schema(by_alias=True, mode="serialization"))
    _strip_null_defaults(schema)
    _strip_titles(schema)
    return schema


TOOLS: dict[str, Tool] = {}


def register(tool: Tool) -> Tool:
    if tool.name in TOOLS:
        raise ValueError(f"tool {tool.name} registered twice")
    TOOLS[tool.name] = tool
    return tool


def all_tools() -> dict[str, Tool]:
    import pr_agent.tools  # noqa: F401  (registers every tool)

    return TOOLS


def by_cli_name(name: str) -> Tool:
    for tool in all_tools().values():
        if tool.cli_name == name:
            return tool
    raise KeyError(name)


def validation_error(tool: Tool, exc: ValidationError, arguments: dict[str, Any] | None = None) -> PrAgentError:
    """Pydantic's errors in plain words, naming each argument as the current face spells it."""
    problems = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(arguments)"
        reason = plain_reason(tool, err)
        problems.append({"field": loc, "reason": reason, "value": _short(err.get("input"))})
    first = problems[0] if problems else {"field": "(arguments)", "reason": "is not valid"}
    allowed = sorted(tool.input_model.model_fields)
    unknown = [p["field"] for p in problems if p["reason"] == UNKNOWN_ARGUMENT]
    repair = None
    if unknown and arguments is not None and len(unknown) == len(problems):
        cleaned = {k: v for k, v in arguments.items() if k in allowed}
        repair = tool_repair(tool.name, cleaned, "Call again without: " + ", ".join(unknown) + ".")
    what = "" if first["field"] == "(arguments)" else _arg_name(tool, first["field"]) + " "
    return PrAgentError(
        "invalid_arguments",
        surface.text("Invalid arguments for ", surface.tool(tool.name), ": ", what, first["reason"], "."),
        suggestion=surface.text(surface.face(
            cli=f"See `{command(['gh', 'pr-agent', tool.cli_name, '--help'])}` for its arguments and allowed values.",
            mcp=f"{tool.name} takes only these arguments: {', '.join(allowed)}.")),
        details={"field": first["field"], "reason": first["reason"], "problems": problems,
                 "allowed_arguments": allowed},
        repair=repair,
    )


UNKNOWN_ARGUMENT = "is not an argument of this tool"


def _arg_name(tool: Tool, field_name: str) -> str:
    if field_name in tool.input_model.model_fields:
        return surface.text(surface.arg(tool.name, field_name))
    return field_name


def plain_reason(tool: Tool | None, err: Any) -> str:
    """One pydantic error as plain words (no pydantic wording, no Python repr, no raw regex)."""
    kind = err.get("type", "")
    ctx = err.get("ctx") or {}
    if kind == "extra_forbidden":
        return UNKNOWN_ARGUMENT
    if kind == "missing":
        return "is required"
    if kind == "literal_error":
        expected = ctx.get("expected", "")
        return f"must be one of: {expected.replace(chr(39), '').replace(' or ', ', ')}"
    if kind.startswith("bool"):
        return "must be true or false"
    if kind.startswith("int") or kind == "int_from_float":
        return "must be a whole number"
    if kind.startswith("float"):
        return "must be a number"
    if kind in ("string_type", "string_unicode"):
        return "must be a string"
    if kind.startswith("list") or kind == "tuple_type":
        return "must be a list"
    if kind == "string_too_short":
        n = ctx.get("min_length", 1)
        return "must not be empty" if n == 1 else f"must be at least {n} characters long"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters long"
    if kind == "string_pattern_mismatch":
        return _pattern_words(str(ctx.get("pattern", "")))
    bounds = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
              "greater_than": ("more than", "gt"), "less_than": ("less than", "lt")}
    if kind in bounds:
        word, key = bounds[kind]
        return f"must be {word} {ctx.get(key)}"
    if kind in ("value_error", "assertion_error"):
        msg = str(err.get("msg", ""))
        for prefix in ("Value error, ", "Assertion failed, "):
            msg = msg.removeprefix(prefix)
        return msg or "is not valid"
    if kind == "model_type" or kind == "dict_type":
        return "must be an object"
    return "is not valid"


def _pattern_words(pattern: str) -> str:
    if "~^:?*" in pattern:
        return ("must be a branch name: no spaces or control characters, none of ~ ^ : ? * [ \\, "
                "and not starting with -")
    if "[0-9]{1,20}" in pattern:
        return "must be a numeric comment id or a GitHub node id (e.g. PRRC_…)"
    if "A-Za-z0-9_=+/-" in pattern:
        return "must be a GitHub node id (e.g. PRRT_…): letters, digits, _ = + / -, 4 to 200 characters"
    return "does not have an allowed form (see the argument's description)"


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > 200:
        return value[:200] + "…"
    if isinstance(value, (dict, list)):
        text = repr(value)
        return text[:200] + ("…" if len(text) > 200 else "")
    return value


def validate_arguments(tool: Tool, arguments: dict[str, Any]) -> InputModel:
    """The tool's arguments as its input model, or an ``invalid_arguments`` error (accepts exactly what the
    published inputSchema admits: tests/unit/test_validation_schema.py)."""
    try:
        return tool.input_model.model_validate(json_integers(tool.input_model, arguments))
    except ValidationError as exc:
        raise validation_error(tool, exc, arguments) from None


def run_tool(tool: Tool, ctx: Context, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Validate, apply preferences, run; return the structured output. Raises PrAgentError only."""
    try:
        if arguments is not None and not isinstance(arguments, dict):
            raise PrAgentError("invalid_arguments", "Tool arguments must be a JSON object.",
                               suggestion="Pass the arguments as an object of named values.",
                               details={"field": "(arguments)", "reason": "not an object"})
        params = validate_arguments(tool, arguments or {})
        from pr_agent.prefs import Preferences

        params = Preferences.load(ctx.env).apply(tool, params)
        output = tool.handler(ctx, params)
        return dump_output(output)
    except PrAgentError:
        raise
    except Exception as exc:  # a bug: never a traceback on stdout, always a typed envelope
        if os.environ.get("GH_PR_AGENT_DEBUG"):
            traceback.print_exc(file=sys.stderr)
        raise PrAgentError(
            "internal_error", f"gh-pr-agent hit an internal error in {tool.name}: {type(exc).__name__}.",
            suggestion=surface.text(surface.face(
                cli="Retry with GH_PR_AGENT_DEBUG=1 and report the traceback it prints on stderr.",
                mcp="Report it with the server's stderr log (debugging on shows the traceback).")),
            details={"exception": type(exc).__name__},
        ) from exc


def _takes_int(annotation: Any) -> bool:
    if annotation is int:
        return True
    return any(_takes_int(a) for a in get_args(annotation))


def json_integers(model: type[BaseModel], arguments: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema counts ``5.0`` as an integer; strict pydantic does not: pass integral floats as ints."""
    out = dict(arguments)
    for name, value in arguments.items():
        info = model.model_fields.get(name)
        if (info is not None and isinstance(value, float) and value.is_integer()
                and _takes_int(info.annotation)):
            out[name] = int(value)
    return out


def dump_output(output: BaseModel) -> dict[str, Any]:
    return output.model_dump(mode="json", by_alias=True, exclude_none=True)
