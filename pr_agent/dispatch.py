"""Running a tool call: validate the arguments, apply stored preferences, call the handler, and turn every
failure into a :class:`PrAgentError` (the only way a tool runs, for the CLI and the MCP server alike)."""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

from pr_agent import surface
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.prefs import Preferences
from pr_agent.registry import dump_output, validate_arguments
from pr_agent.tooldef import Tool


def run_tool(tool: Tool, ctx: Context, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Validate, apply preferences, run; return the structured output. Raises PrAgentError only."""
    try:
        if arguments is not None and not isinstance(arguments, dict):
            raise PrAgentError("invalid_arguments", "Tool arguments must be a JSON object.",
                               suggestion="Pass the arguments as an object of named values.",
                               details={"field": "(arguments)", "reason": "not an object"})
        params = validate_arguments(tool, arguments or {})
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
