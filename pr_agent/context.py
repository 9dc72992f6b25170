"""What a tool handler gets: the gateways, the environment and the caller's options."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pr_agent.gh import Gh
from pr_agent.git import Git
from pr_agent.hosts import HostPolicy
from pr_agent.refs import PRRef, parse_remote_url, resolve_pr

if TYPE_CHECKING:
    from pr_agent.snapshots import SnapshotStore

ProgressFn = Callable[[float, float | None, str], None]


@dataclass
class Context:
    gh: Gh = field(default_factory=Gh)
    git: Git = field(default_factory=Git)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    repo_override: str | None = None
    progress: ProgressFn | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    snapshots: SnapshotStore | None = None  # the MCP server's paging snapshots; None in the CLI
    touched: list[PRRef] = field(default_factory=list)  # every PR this call resolved (write tools invalidate them)

    def __post_init__(self) -> None:
        if self.gh.cancel is None:
            self.gh.cancel = self.cancel
        if self.gh.host_policy is None:  # hosts the user chose: design §10, pr_agent/hosts.py
            self.gh.host_policy = HostPolicy(self.env, remote_hosts=self.remote_hosts,
                                             logged_in=self.gh.logged_in_hosts)

    def remote_hosts(self) -> list[str]:
        """Hosts of the current clone's remotes (none outside a clone)."""
        if not self.git.is_repo():
            return []
        specs = (parse_remote_url(url) for _, url in self.git.remotes())
        return [spec.host for spec in specs if spec and spec.host]

    @property
    def cancelled(self) -> bool:
        return self.cancel.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True if the call was cancelled meanwhile (stop promptly then)."""
        return self.cancel.wait(seconds)

    def pr(self, text: str | None) -> PRRef:
        """Resolve a PR reference (owner/repo#N, URL, bare number, or the current branch's PR)."""
        ref = resolve_pr(self, text)
        self.touched.append(ref)
        return ref

    def report(self, done: float, total: float | None, message: str) -> None:
        if self.progress:
            self.progress(done, total, message)
