"""Stacked PRs: discovery, merge-method detection and restack plans (shared by the stack tools)."""
