"""Which error codes each tool can answer with, published in its ``_meta`` (as seed 000 does) and, with every
code's meaning, in the capability resource. The codes themselves and their category/temporary flags are
:data:`pr_agent.errors.CODES`; tests/unit/test_error_catalogue.py keeps the two tables in step."""

from __future__ import annotations

from typing import Any

from pr_agent.errors import CODES

META_KEY = "io.github.gh-pr-agent/errors"
COMMON_KEY = "io.github.gh-pr-agent/errors-common"

# any tool: its input, the PR reference, gh, GitHub, the stored preferences, a cancelled or broken call
COMMON = ("invalid_arguments", "invalid_pr_reference", "repository_not_determined", "no_pr_for_branch",
          "detached_head", "not_a_git_repository", "gh_not_found", "gh_too_old", "gh_not_authenticated",
          "auth_failed", "pr_not_found", "repository_not_found", "forbidden", "rate_limited", "server_error",
          "network_error", "timeout", "graphql_error", "unexpected_response", "gh_failed", "preferences_corrupt",
          "invalid_preference", "invalid_environment", "untrusted_host", "cancelled", "internal_error")
PAGED = ("invalid_cursor", "cursor_mismatch", "cursor_expired")
GIT = ("git_not_found", "git_too_old", "git_failed", "clone_mismatch", "ref_not_found")

BY_TOOL: dict[str, tuple[str, ...]] = {
    "find_unresolved_comments": PAGED,
    "get_failing_tests": (*PAGED, "wait_timeout", "not_found", "log_expired"),
    "resolve_review_thread": ("thread_not_found", "comment_not_found", "thread_not_in_pr",
                              "pending_review_blocks_reply", "reviewer_spoke_last", "validation_failed"),
    "check_merge_readiness": (),
    "detect_merge_conflicts": (*GIT, "file_not_found"),
    "manage_stacked_prs": (*PAGED, *GIT, "unsafe_branch_name"),
    "rebase_after_squash_merge": (*GIT, "unsafe_branch_name", "upstream_not_found", "upstream_not_merged"),
}

MEANING: dict[str, str] = {
    "invalid_arguments": "An argument the inputSchema does not admit; details.problems names each.",
    "invalid_pr_reference": "The pr text is not owner/repo#N, a PR URL or a number.",
    "repository_not_determined": "A bare PR number without a clone or repository to resolve it against.",
    "no_pr_for_branch": "No open PR has the current branch as head.",
    "detached_head": "No branch is checked out, so there is no current PR.",
    "pr_not_found": "GitHub has no such PR (or your login cannot see it).",
    "repository_not_found": "GitHub has no such repository (or your login cannot see it).",
    "gh_not_authenticated": "gh is not logged in to the host.",
    "rate_limited": "GitHub's rate limit: retry after retry_after_ms.",
    "wait_timeout": "CI did not finish within timeout_seconds; details.last_state has where it stood.",
    "invalid_cursor": "The cursor is not one this tool issued.",
    "cursor_mismatch": "The cursor belongs to other arguments or older data: start without it.",
    "cursor_expired": "The cursor is too old: start without it.",
    "cancelled": "The call was cancelled (by the client, or the server shutting down).",
    "reviewer_spoke_last": "A human reviewer wrote the thread's last comment: reply, or resolve anyway.",
    "unsafe_branch_name": "A branch name that would be an option or a force refspec: no command generated.",
}


def codes(tool: str) -> list[str]:
    return [*BY_TOOL.get(tool, ()), *COMMON]


def tool_meta(tool: str) -> dict[str, Any]:
    """A tool's ``_meta``: its own codes with their temporary flag; the common ones by reference (short, since
    tools/list goes into every conversation's context)."""
    return {META_KEY: [{"code": c, "temporary": CODES[c][1]} for c in BY_TOOL.get(tool, ())],
            COMMON_KEY: "pr-agent://capabilities#error_codes"}


def catalogue(tools: list[str]) -> dict[str, Any]:
    """For the capability resource: every code any of ``tools`` can return, with its category, whether a
    retry may help, and what it means; and which tool returns which."""
    used = sorted({c for t in tools for c in codes(t)})
    return {"codes": {c: {"category": CODES[c][0], "temporary": CODES[c][1],
                          **({"meaning": MEANING[c]} if c in MEANING else {})} for c in used},
            "common_to_every_tool": list(COMMON), "by_tool": {t: list(BY_TOOL.get(t, ())) for t in tools}}
