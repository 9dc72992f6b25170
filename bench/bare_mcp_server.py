"""The start-up floor for `gh pr-agent mcp`: the MCP SDK's low-level Server with one tool, over stdio.

Run as ``python bench/bare_mcp_server.py``; it imports only what any low-level SDK server must.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

TOOL = types.Tool(name="echo", title="Echo", description="Returns its text argument.",
                  input_schema={"type": "object", "properties": {"text": {"type": "string"}},
                                "required": ["text"], "additionalProperties": False})


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[TOOL])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = str((params.arguments or {}).get("text", ""))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=False)


def main() -> None:
    server: Server[Any] = Server("bare", version="1", on_list_tools=list_tools, on_call_tool=call_tool)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
