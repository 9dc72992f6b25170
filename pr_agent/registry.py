"""One registry of tools behind the CLI and the MCP server (design §3, §6).

A tool is declared once — name, title, description, input and output models, annotations, handler, CLI shape
— in pr_agent.tooldef, and both faces are generated from it; this module finds the tools and validates their
arguments. :func:`pr_agent.dispatch.run_tool` is the only way a tool runs: it validates the arguments with
the input model, fills stored preferences, calls the handler and turns every failure into a
:class:`PrAgentError`.
"""

from __future__ import annotations

from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from pr_agent import surface
from pr_agent.errors import PrAgentError, tool_repair
from pr_agent.shellcmd import command
from pr_agent.tooldef import TOOLS, InputModel, Tool


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
