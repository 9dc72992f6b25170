"""Importing this package registers every tool (each module declares its tool next to its handler)."""

from pr_agent.tools import comments, resolve

__all__ = ["comments", "resolve"]
