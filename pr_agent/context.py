"""What a tool handler gets: the gateways, the environment and the caller's options."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pr_agent.gh import Gh
from pr_agent.git import Git
from pr_agent.refs import PRRef, resolve_pr

ProgressFn = Callable[[float, float | None, str], None]


@dataclass
class Context:
    gh: Gh = field(default_factory=Gh)
    git: Git = field(default_factory=Git)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    repo_override: str | None = None
    progress: ProgressFn | None = None

    def pr(self, text: str | None) -> PRRef:
        """Resolve a PR reference; the gateway then talks to that PR's host."""
        ref = resolve_pr(self, text)
        return ref

    def report(self, done: float, total: float | None, message: str) -> None:
        if self.progress:
            self.progress(done, total, message)
