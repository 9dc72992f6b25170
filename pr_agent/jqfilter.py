"""``--jq EXPR``: filter a command's JSON output as gh's ``--jq`` does.

The expression runs in libjq, the reference jq implementation, through the ``jq`` package from PyPI (binary
wheels with libjq inside for Linux, macOS and Windows, so no ``jq`` program is needed, as with gh, whose
``--jq`` is built in). gh itself cannot be used: its ``--jq`` exists only on ``gh api`` and the commands that
fetch their own data. Output follows gh (pkg/jq): a string prints raw, null as an empty line, true/false as
words, an integral number without decimals and any other number with two; arrays and objects as compact JSON
(indented on a terminal or with GH_FORCE_TTY, where a raw string's control characters are escaped; coloured as
gh colours JSON where colour is on — gh's go-gh jsonpretty — each result still ending its line). An invalid
expression, or one that fails on this output, is a usage error (``invalid_arguments``, exit 2) naming ``--jq``.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

from pr_agent.errors import PrAgentError
from pr_agent.iostreams import color_json
from pr_agent.textsafe import terminal_safe

_PREFIX = re.compile(r"^jq: error(?: \(at [^)]*\))?: ")


def _clean(message: str) -> str:
    lines = [ln for ln in message.strip().splitlines() if not re.fullmatch(r"jq: \d+ compile errors?", ln)]
    return _PREFIX.sub("", "\n".join(lines)).strip() or "invalid expression"


def _bad(expr: str, reason: str) -> PrAgentError:
    return PrAgentError("invalid_arguments", f"--jq {expr!r}: {reason}",
                        suggestion="Fix the jq expression (e.g. '.field', '.items[] | .name', '.items | length'); "
                        "see https://jqlang.org/manual/.",
                        details={"field": "--jq", "value": expr, "reason": reason})


def compile_filter(expr: str) -> Any:
    """The compiled program, or the typed usage error for an expression jq refuses."""
    import jq

    try:
        return jq.compile(expr)
    except ValueError as exc:
        raise _bad(expr, _clean(str(exc))) from None


def scalar_text(value: Any) -> str | None:
    """gh's jsonScalarToString: the text of a scalar result, None for an array or object."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value == math.trunc(value):
            return str(int(value))
        return f"{value:.2f}"
    return None


def apply(program: Any, expr: str, data: Any, *, terminal: bool = False, color: bool = False) -> bytes:
    """Every result of the program on `data`, one per line. On a terminal, JSON is indented and a raw string has
    its control characters escaped (pr_agent.textsafe: text from others must not drive the terminal). With
    ``color`` (gh's colour rule), an array or object is coloured as gh colours JSON (pr_agent.iostreams); a
    scalar prints raw and plain, as in gh."""
    try:
        results = program.input_text(orjson.dumps(data).decode()).all()
    except ValueError as exc:
        raise _bad(expr, _clean(str(exc))) from None
    out = []
    for value in results:
        text = scalar_text(value)
        if text is not None:
            out.append((terminal_safe(text) if terminal else text).encode("utf-8", "backslashreplace"))
        elif color:
            out.append(color_json(value, indent=terminal)[:-1])
        else:
            out.append(orjson.dumps(value, option=orjson.OPT_INDENT_2 if terminal else 0))
    return b"".join(line + b"\n" for line in out)
