"""What the stack analysis decides, as data: the options it takes, the rebase strategy it picks and the
analysis it returns. A module of its own so that the deciding modules (pr_agent.stack.strategy,
pr_agent.stack.analysis) import it and never each other in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pr_agent.stack import discovery
from pr_agent.stack.local import Clone
from pr_agent.stack.merge import MergeFacts
from pr_agent.stack.model import Commit, Pull
from pr_agent.stack.plan import Step


@dataclass
class Strategy:
    recommended: Literal["regular", "onto", "none"]
    reason: str
    regular_command: str | None
    onto_command: str | None
    ai_should_decide: bool
    considerations: list[str] = field(default_factory=list)
    regular_is_exact: bool = True


Risk = Literal["low", "medium", "high"]


@dataclass
class Options:
    auto_fix: bool = True
    max_iterations: int = 3
    use_onto: bool | None = None
    onto_base: str | None = None
    commit_offset: int = 0
    commit_limit: int = 50
    say_use_onto: bool = True  # mention use_onto in the considerations when it forced the choice


@dataclass
class Changes:
    total: int = 0
    commits: list[Commit] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    source: Literal["local", "api"] = "api"
    more: bool = False


@dataclass
class Analysis:
    base: Pull
    dependent: Pull
    default_branch: str
    relation: discovery.Relation
    target_branch: str
    clone: Clone | None
    visualization: str
    chain: list[tuple[Pull, str]]  # (pull, role)
    old: discovery.OldBase = field(default_factory=lambda: discovery.OldBase(None, "none"))
    merge: MergeFacts | None = None
    needs_rebase: bool = False
    retarget_to: str | None = None
    strategy: Strategy = field(default_factory=lambda: Strategy("none", "", None, None, False, []))
    steps: list[Step] = field(default_factory=list)
    changes: Changes = field(default_factory=Changes)
    warnings: list[str] = field(default_factory=list)
    risk: Risk = "low"
    reason: str = ""
    tip: str = ""  # the new base's commit

    @property
    def in_clone(self) -> bool:
        return self.clone is not None

    @property
    def is_stacked(self) -> bool:
        return self.relation != "none"

    @property
    def action_required(self) -> bool:
        return bool(self.steps)
