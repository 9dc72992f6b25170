"""The ``outputSchema`` a tool publishes in ``tools/list`` (docs/mcp.md, "Context budget").

Every MCP client loads ``tools/list`` into the model's context on every conversation, so the published
output schema is the shape, not the manual: the top-level fields with their types (nested objects and
arrays as ``object`` / ``array``), which is all a client needs to validate a result; the full schema with
every nested field and its description is the resource ``pr-agent://output-schema/{tool}`` (and
``Tool.output_schema()``). Either way the schema admits the error envelope (:func:`admit_error_envelope`),
because TypeScript-SDK clients validate an error result's ``structuredContent`` against it too.
"""

from __future__ import annotations

from typing import Any

OUTPUT_SCHEMA_URI = "pr-agent://output-schema/{tool}"

ERROR_RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An isError result: {error: {code, message, category, details, suggestion, temporary, "
                   "retry_after_ms, repair}}.",
    "properties": {"error": {"type": "object", "properties": {"code": {"type": "string"},
                                                             "message": {"type": "string"}},
                             "required": ["code", "message", "suggestion"]}},
    "required": ["error"],
    "additionalProperties": False,
}


def admit_error_envelope(success: dict[str, Any]) -> dict[str, Any]:
    """``{type: object, anyOf: [success, error result]}``: what the tool really returns."""
    success = dict(success)
    defs = success.pop("$defs", None)
    wire: dict[str, Any] = {"type": "object", "anyOf": [success, {"$ref": "#/$defs/ToolError"}]}
    wire["$defs"] = {**(defs or {}), "ToolError": ERROR_RESULT_SCHEMA}
    return wire


def _shallow(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in prop:
        target = defs.get(prop["$ref"].rsplit("/", 1)[-1], {})
        return {"type": target.get("type", "object")} if "enum" not in target else {"enum": target["enum"]}
    if "anyOf" in prop:  # X | None: structured output drops None values, so only X ever appears
        options = [_shallow(p, defs) for p in prop["anyOf"] if p.get("type") != "null"]
        return options[0] if len(options) == 1 else {"anyOf": options}
    out = {k: prop[k] for k in ("type", "enum", "const") if k in prop}
    return out or {}


def compact_output(full: dict[str, Any], tool: str) -> dict[str, Any]:
    """The published output schema: the top level of ``full``, error envelope admitted."""
    defs = full.get("$defs", {})
    shape: dict[str, Any] = {
        "type": "object",
        "properties": {name: _shallow(prop, defs) for name, prop in full.get("properties", {}).items()},
        "required": full.get("required", []),
    }
    wire = admit_error_envelope(shape)
    wire["description"] = f"Top level only; every field described: resource {OUTPUT_SCHEMA_URI.format(tool=tool)}."
    return wire
