"""Our environment variables, parsed in one place: a bad value is a typed error naming the variable
(``invalid_environment``, exit 2), never a traceback and never a silent fallback."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from pr_agent.errors import PrAgentError

# name -> (default, lowest allowed, what it is)
SECONDS: dict[str, tuple[float, float, str]] = {
    "GH_PR_AGENT_TIMEOUT": (60.0, 0.05, "seconds one gh call may take"),
    "GH_PR_AGENT_MAX_RETRY_WAIT": (20.0, 0.0, "longest wait before retrying a read, in seconds"),
    "GH_PR_AGENT_POLL_INTERVAL": (15.0, 0.05, "seconds between CI polls"),
    "GH_PR_AGENT_NO_CHECKS_GRACE": (120.0, 0.0, "seconds 'no checks yet' is waited out"),
    "GH_PR_AGENT_MERGEABLE_WAIT": (10.0, 0.0, "seconds an unknown mergeable state is re-read for"),
    "GH_PR_AGENT_MCP_EOF_GRACE": (3.0, 0.0, "seconds the MCP server lets calls in flight answer after stdin EOF"),
}


def seconds(name: str, env: Mapping[str, str] | None = None) -> float:
    """The value of the numeric variable ``name`` (its default when unset or empty)."""
    default, low, what = SECONDS[name]
    raw = (os.environ if env is None else env).get(name, "")
    if not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < low:
        shown = raw if len(raw) <= 40 else raw[:40] + "…"
        raise PrAgentError(
            "invalid_environment", f"{name}={shown!r} is not valid: it is the {what}, a number >= {low:g}.",
            suggestion=f"Set {name} to a number such as {default:g}, or unset it for the default ({default:g}).",
            details={"variable": name, "value": shown, "reason": f"not a number >= {low:g}", "default": default})
    return value


def check_all(env: Mapping[str, str] | None = None) -> None:
    """Validate every numeric variable now (a server checks them before it serves)."""
    for name in SECONDS:
        seconds(name, env)
