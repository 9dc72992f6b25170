"""The one error envelope of gh-pr-agent (design §5).

Every failure that reaches a user or an agent is a :class:`PrAgentError`. The CLI prints its
message and repair on stderr (or the envelope with ``--json``) and exits with :func:`exit_code`;
the MCP server returns it as an ``isError`` result whose ``structuredContent`` is
:meth:`PrAgentError.envelope`.
"""

from __future__ import annotations

from typing import Any, Literal

from pr_agent import surface

Category = Literal["user", "api", "logical"]

# Exit codes follow gh: 0 ok, 1 failure or negative verdict, 2 usage, 4 auth, 8 pending.
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_AUTH = 4
EXIT_PENDING = 8

# code -> (category, temporary, exit code). The table is the taxonomy: a code not listed here
# is a programming error caught by the tests.
CODES: dict[str, tuple[Category, bool, int]] = {
    # your input
    "invalid_arguments": ("user", False, EXIT_USAGE),
    "invalid_pr_reference": ("user", False, EXIT_USAGE),
    "repository_not_determined": ("user", False, EXIT_USAGE),
    "invalid_cursor": ("user", False, EXIT_USAGE),
    "cursor_mismatch": ("user", False, EXIT_USAGE),
    "cursor_expired": ("user", False, EXIT_USAGE),
    "invalid_preference": ("user", False, EXIT_USAGE),
    "preferences_corrupt": ("user", False, EXIT_FAILURE),
    "preferences_unwritable": ("user", False, EXIT_FAILURE),
    "gh_not_found": ("user", False, EXIT_FAILURE),
    "gh_too_old": ("user", False, EXIT_FAILURE),
    "gh_not_authenticated": ("user", False, EXIT_AUTH),
    "auth_failed": ("user", False, EXIT_AUTH),
    "not_a_git_repository": ("user", False, EXIT_FAILURE),
    "git_not_found": ("user", False, EXIT_FAILURE),
    "file_not_found": ("user", False, EXIT_USAGE),
    "git_too_old": ("user", False, EXIT_FAILURE),
    "clone_mismatch": ("user", False, EXIT_FAILURE),
    "ref_not_found": ("user", False, EXIT_FAILURE),
    # GitHub's answer
    "not_found": ("api", False, EXIT_FAILURE),
    "pr_not_found": ("api", False, EXIT_FAILURE),
    "repository_not_found": ("api", False, EXIT_FAILURE),
    "thread_not_found": ("api", False, EXIT_FAILURE),
    "comment_not_found": ("api", False, EXIT_FAILURE),
    "forbidden": ("api", False, EXIT_FAILURE),
    "rate_limited": ("api", True, EXIT_FAILURE),
    "server_error": ("api", True, EXIT_FAILURE),
    "network_error": ("api", True, EXIT_FAILURE),
    "timeout": ("api", True, EXIT_FAILURE),
    "graphql_error": ("api", False, EXIT_FAILURE),
    "validation_failed": ("api", False, EXIT_FAILURE),
    "log_expired": ("api", False, EXIT_FAILURE),
    "unexpected_response": ("api", True, EXIT_FAILURE),
    "gh_failed": ("api", False, EXIT_FAILURE),
    # a state problem
    "no_pr_for_branch": ("logical", False, EXIT_FAILURE),
    "detached_head": ("logical", False, EXIT_FAILURE),
    "thread_not_in_pr": ("logical", False, EXIT_FAILURE),
    "pending_review_blocks_reply": ("logical", False, EXIT_FAILURE),
    "reviewer_spoke_last": ("logical", False, EXIT_FAILURE),
    "unsafe_branch_name": ("logical", False, EXIT_FAILURE),
    "upstream_not_found": ("logical", False, EXIT_FAILURE),
    "upstream_not_merged": ("logical", False, EXIT_FAILURE),
    "wait_timeout": ("logical", True, EXIT_PENDING),
    "internal_error": ("logical", False, EXIT_FAILURE),
    "cancelled": ("user", True, EXIT_FAILURE),
    "git_failed": ("logical", False, EXIT_FAILURE),
}


class PrAgentError(Exception):
    """A typed failure carrying the envelope of design §5."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        suggestion: str,
        details: dict[str, Any] | None = None,
        retry_after_ms: int | None = None,
        repair: surface.Step | dict[str, Any] | None = None,
        temporary: bool | None = None,
    ) -> None:
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        category, default_temporary, _ = CODES[code]
        self.code = code
        self.message = message
        self.category: Category = category
        self.details = details or {}
        self.suggestion = suggestion
        self.temporary = default_temporary if temporary is None else temporary
        self.retry_after_ms = retry_after_ms
        self.step = _as_step(repair)

    @property
    def repair(self) -> dict[str, Any] | None:
        """The repair as the current face speaks it (see :func:`pr_agent.surface.repair`)."""
        return None if self.step is None else surface.repair(self.step)

    @repair.setter
    def repair(self, value: surface.Step | dict[str, Any] | None) -> None:
        self.step = _as_step(value)

    @property
    def exit_code(self) -> int:
        return CODES[self.code][2]

    def envelope(self) -> dict[str, Any]:
        return {
            "error": {
                "code": self.code,
                "message": self.message,
                "category": self.category,
                "details": self.details,
                "suggestion": self.suggestion,
                "temporary": self.temporary,
                "retry_after_ms": self.retry_after_ms,
                "repair": self.repair,
            }
        }

    def human(self) -> str:
        """Message, suggestion and repair, for stderr and MCP text content."""
        lines = [f"error [{self.code}]: {self.message}", f"  hint: {self.suggestion}"]
        if self.retry_after_ms is not None:
            lines.append(f"  retry after: {self.retry_after_ms / 1000:.1f}s")
        if self.step is not None:
            lines.append(f"  try: {surface.show(self.step)}")
            if self.step.why:
                lines.append(f"       {self.step.why}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"PrAgentError({self.code!r}, {self.message!r})"


def _as_step(repair: surface.Step | dict[str, Any] | None) -> surface.Step | None:
    if repair is None or isinstance(repair, surface.Step):
        return repair
    if "tool" in repair:
        return surface.call(repair["tool"], repair.get("arguments") or {},
                            needs_input=repair.get("needs_input") or (), why=repair.get("next_step") or "")
    if "argv" in repair:
        return surface.run(repair["argv"], why=repair.get("next_step") or "")
    import shlex  # a legacy {"command": "…"} built by hand: parsed back into its words

    return surface.run(shlex.split(repair["command"]), why=repair.get("next_step") or "")


def command_repair(argv: list[str], why: str = "") -> surface.Step:
    """Run a plain gh/git command (argv, every word data)."""
    if isinstance(argv, str):
        raise TypeError("command_repair takes an argv list, not a command line")
    return surface.run(argv, why=why)


def tool_repair(tool: str, arguments: dict[str, Any], next_step: str, *,
                needs_input: tuple[str, ...] = ()) -> surface.Step:
    """Call one of our tools; the fields the agent must write go in ``needs_input``, never as a value."""
    return surface.call(tool, arguments, needs_input=needs_input, why=next_step)
