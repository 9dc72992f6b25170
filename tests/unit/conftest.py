"""Fixtures of the unit tests that run our CLI and MCP server in this process (tests/unit/inproc.py)."""

from tests.unit.inproc import inproc, mcp_pipes  # noqa: F401
