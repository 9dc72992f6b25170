"""A tool's definition: its models, annotations and CLI shape, and :func:`register` (design §3, §6).

The tool modules (pr_agent/tools) import this module only; pr_agent.registry loads them and looks them
up, pr_agent.dispatch runs them. Imports go one way: tooldef <- tools <- registry <- prefs <- dispatch.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from pr_agent.errors import EXIT_OK

if TYPE_CHECKING:
    from pr_agent.context import Context

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
