"""What the benchmark measures: one entry per tool (append yours; see bench/README.md, "Adding a tool").

- ``CASES``: tool calls against the large PR in fakehub. Figures 1 (round trips vs floor), 2 (latency vs
  critical-path floor) and, with ``items_key``, 5 (output bytes per item).
- ``LOG_TOOLS``: commands that read a saved CI log. Figure 3 (throughput and peak RSS vs ``grep -c``).
- ``REFERENCE``: what a user would otherwise run (gh's own commands). Figure 6.

A case whose MCP tool (or CLI command) is not registered yet is reported as "not yet available", so an
entry can be appended before its tool lands and fills in by itself when it does.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import floors
from bench.floors import Floor
from bench.scenarios import NUMBER, OWNER, REPO, STACK, pr_ref


@dataclass
class BenchCtx:
    """What a case's ``plan`` may look at: the live fakehub world and the large PR in it."""

    hub: Any  # tests.fakehub.FakeHub
    size: str
    workdir: Path
    taken: set[str] = field(default_factory=set)
    extra: dict[str, Any] = field(default_factory=dict)  # for prepare() hooks (e.g. a git clone's path)
    git: Any = None  # bench.gitworld.GitWorld: the bare origin and the user's clone behind the scenario

    @property
    def ref(self) -> str:
        return pr_ref()

    @property
    def viewer(self) -> str:
        return str(self.hub.world.data["viewer"]["login"])

    def pr(self, number: int = NUMBER) -> dict[str, Any]:
        return self.hub.world.pull_request(f"{OWNER}/{REPO}", number)

    def rulesets(self, branch: str = "main") -> list[dict[str, Any]]:
        rules = self.hub.world.repo(OWNER, REPO).get("branch_rules") or {}
        return list((rules.get(branch) or {}).get("rulesets") or [])

    def pulls(self) -> list[dict[str, Any]]:
        return list(self.hub.world.repo(OWNER, REPO)["pull_requests"])

    def take_thread(self, from_end: bool = False) -> tuple[int, dict[str, Any]]:
        """An unresolved thread of one page of comments that no earlier run used (runs that write
        need fresh state): the first such thread, or the last (worst case for a scan)."""
        threads = list(enumerate(self.pr()["threads"]))
        for k, t in reversed(threads) if from_end else threads:
            if not t["resolved"] and t["id"] not in self.taken and len(t["comments"]) <= floors.PAGE:
                self.taken.add(t["id"])
                return k, t
        raise RuntimeError("bench: the scenario ran out of unresolved threads for write runs")


@dataclass(frozen=True)
class Call:
    argv: list[str]  # after `gh-pr-agent`; include --json
    floor: Floor
    mcp_args: dict[str, Any] | None = None  # the same call as MCP arguments (figure 5 measures the MCP result)
    cwd: Path | None = None  # where the CLI runs (default ctx.workdir, not a clone); the stack tools use a clone


@dataclass(frozen=True)
class Case:
    id: str  # row label
    tool: str  # MCP tool name: the row says "not yet available" until the registry has it
    plan: Callable[[BenchCtx], Call]  # called once per run (write cases pick fresh objects each time)
    items_key: str | None = None  # figure 5: the list in the JSON output whose items are measured
    detail: bool = False  # figure 5: compare --detail concise and full
    paged: bool = False  # figure 5 walks nextCursor (--cursor) to the last page
    prepare: Callable[[BenchCtx], None] | None = None  # once per hub, e.g. make a git clone for stack tools
    exits: tuple[int, ...] = (0,)  # exit codes of a successful call (checks/ready/conflicts exit 1 on findings)


def _comments(ctx: BenchCtx) -> Call:
    return Call(["comments", ctx.ref, "--json"], floors.feedback_fetch(ctx.pr(), ctx.viewer), {"pr": ctx.ref})


def _resolve(ctx: BenchCtx) -> Call:
    _, t = ctx.take_thread()
    return Call(["resolve", ctx.ref, "--thread", t["id"], "--when-reviewer-spoke-last", "resolve", "--json"],
                floors.resolve_thread(reply=False))


def _resolve_reply(ctx: BenchCtx) -> Call:
    _, t = ctx.take_thread()
    return Call(["resolve", ctx.ref, "--thread", t["id"], "--reply", "Fixed in 4f2a9c1, thanks.", "--json"],
                floors.resolve_thread(reply=True))


def _resolve_by_comment(ctx: BenchCtx) -> Call:
    k, t = ctx.take_thread(from_end=True)
    return Call(["resolve", ctx.ref, "--comment", str(t["comments"][0]["id"]), "--when-reviewer-spoke-last",
                 "resolve", "--json"], floors.resolve_by_comment(ctx.pr(), k))


def _checks(ctx: BenchCtx) -> Call:
    return Call(["checks", ctx.ref, "--json"], floors.failing_tests(ctx.pr()), {"pr": ctx.ref})


def _checks_no_history(ctx: BenchCtx) -> Call:
    return Call(["checks", ctx.ref, "--no-history", "--json"], floors.failing_tests(ctx.pr(), history=False),
                {"pr": ctx.ref, "history": False})


def _ready(ctx: BenchCtx) -> Call:
    return Call(["ready", ctx.ref, "--json"], floors.merge_readiness(ctx.pr(), ctx.rulesets()), {"pr": ctx.ref})


def make_conflicting_clone(ctx: BenchCtx) -> None:
    """A fresh clone of the bare origin (refs/pull/N/head included) whose head and base conflict; the
    origin URL is GitHub's, rewritten to the bare repository (tests/e2e/gitrepos.py does the same)."""
    from bench.gitworld import user_clone

    if ctx.git is None:
        raise RuntimeError("bench: the scenario was built without its git world")
    ctx.extra["clone"] = user_clone(ctx.git, Path(tempfile.mkdtemp(prefix="conflicts-", dir=ctx.workdir)) / "clone")


def _conflicts(ctx: BenchCtx) -> Call:
    return Call(["conflicts", ctx.ref, "--repo-path", str(ctx.extra["clone"]), "--json"], floors.conflicts())


def _default_branch(ctx: BenchCtx) -> str:
    return str(ctx.hub.world.repo(OWNER, REPO)["default_branch"])


def _stack(ctx: BenchCtx) -> Call:
    return Call(["stack", pr_ref(STACK[0]), pr_ref(STACK[1]), "--json"],
                floors.stack(ctx.pr(STACK[0]), ctx.pr(STACK[1]), ctx.pulls(), _default_branch(ctx)),
                cwd=ctx.git.clone if ctx.git else None)


def _rebase_after_squash(ctx: BenchCtx) -> Call:
    return Call(["rebase-after-squash", pr_ref(STACK[1]), "--upstream", pr_ref(STACK[0]), "--json"],
                floors.stack(ctx.pr(STACK[0]), ctx.pr(STACK[1]), ctx.pulls(), _default_branch(ctx),
                             "the PR and its upstream"), cwd=ctx.git.clone if ctx.git else None)


CASES: list[Case] = [
    Case("comments", "find_unresolved_comments", _comments, items_key="comments", detail=True, paged=True),
    Case("resolve --thread", "resolve_review_thread", _resolve),
    Case("resolve --thread --reply", "resolve_review_thread", _resolve_reply),
    Case("resolve --comment (last page)", "resolve_review_thread", _resolve_by_comment),
    Case("checks", "get_failing_tests", _checks, items_key="failures", detail=True, paged=True, exits=(0, 1)),
    Case("checks --no-history", "get_failing_tests", _checks_no_history, exits=(0, 1)),
    Case("ready", "check_merge_readiness", _ready, exits=(0, 1, 8)),
    Case("conflicts", "detect_merge_conflicts", _conflicts, prepare=make_conflicting_clone, exits=(0, 1)),
    Case("stack (in the clone)", "manage_stacked_prs", _stack),
    Case("rebase-after-squash --upstream (in the clone)", "rebase_after_squash_merge", _rebase_after_squash),
    # Append new tools here, one Case each (bench/README.md, "Adding a tool").
]


@dataclass(frozen=True)
class LogTool:
    id: str
    cli: str  # CLI command name: "not yet available" until `gh-pr-agent <cli> --help` succeeds
    argv: Callable[[Path], list[str]]  # after `gh-pr-agent`, for the generated log file
    failures_key: str = "failures"  # list of failures in the JSON output
    test_name_key: str = "test_name"


# PLACEHOLDER: parse-log is being built by another engineer. Until `gh-pr-agent parse-log --help` works,
# figure 3 reports "not yet available" for it and measures only the grep floor on the same file.
LOG_TOOLS: list[LogTool] = [
    LogTool("parse-log", "parse-log", lambda log: ["parse-log", str(log), "--json"]),
]


@dataclass(frozen=True)
class Reference:
    id: str
    argv: list[str]  # gh arguments
    compare_with: str | None = None  # the Case id answering the same question
    count: Callable[[str], int] | None = None  # items in gh's output (for bytes per item)
    exits: tuple[int, ...] = (0,)  # `gh pr checks` exits 1 when a check failed, 8 while one is pending


def _json_items(out: str, *keys: str) -> int:
    data = json.loads(out)
    return sum(len(data.get(key) or []) for key in keys)


REFERENCE: list[Reference] = [
    Reference("gh pr view --json reviews,comments",
              ["pr", "view", str(NUMBER), "-R", f"{OWNER}/{REPO}", "--json", "reviews,comments"], "comments",
              lambda out: _json_items(out, "reviews", "comments")),
    Reference("gh pr view --json comments",
              ["pr", "view", str(NUMBER), "-R", f"{OWNER}/{REPO}", "--json", "comments"], "comments",
              lambda out: _json_items(out, "comments")),
    # not a terminal: one tab-separated line per check (name, state, elapsed, link)
    Reference("gh pr checks", ["pr", "checks", str(NUMBER), "-R", f"{OWNER}/{REPO}"], "checks",
              lambda out: sum(1 for line in out.splitlines() if line.strip()), exits=(0, 1, 8)),
]
