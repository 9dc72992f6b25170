"""Importing this package registers every tool (each module declares its tool next to its handler)."""

from pr_agent.tools import checks, comments, conflicts, ready, rebase, resolve, stack

__all__ = ["checks", "comments", "conflicts", "ready", "rebase", "resolve", "stack"]
