"""Offline helpers that read a saved file instead of GitHub: `parse-review` (and later `parse-log`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from pr_agent.errors import PrAgentError

MAX_FILE_BYTES = 256 * 1024 * 1024


def read_text(path: str) -> str:
    """A saved file (or '-' for stdin) as text; invalid UTF-8 is replaced, never fatal."""
    if path == "-":
        return sys.stdin.buffer.read().decode("utf-8", "replace")
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise PrAgentError("invalid_arguments", f"{path} is larger than 256 MB.",
                               suggestion="Pass a smaller file.", details={"field": "FILE", "value": path})
        return p.read_bytes().decode("utf-8", "replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as exc:
        raise PrAgentError("file_not_found", f"Cannot read {path}: {exc.strerror or exc}.",
                           suggestion="Pass the path of a saved file, or - to read standard input.",
                           details={"field": "FILE", "value": path}) from None


def parse_review_output(body: str, author: str | None) -> dict[str, Any]:
    from pr_agent.review.bots import SPEC_FIELDS, parse_review_body

    result = parse_review_body(body, author)
    return {
        "bot": result.bot,
        "items": [{k: f.to_dict()[k] for k in SPEC_FIELDS} for f in result.items],
        "notes": list(result.uncertain),
    }


def render_review(out: dict[str, Any]) -> str:
    from pr_agent.textsafe import one_line, terminal_safe

    lines = [f"bot: {out['bot'] or 'none recognised'}; {len(out['items'])} item(s)"]
    for it in out["items"]:
        where = it["file_path"] or "(no file)"
        if it["start_line"]:
            where += f":{it['start_line']}" + (f"-{it['end_line']}" if it["end_line"] not in (None, it["start_line"])
                                             else "")
        lines.append(terminal_safe(f"- [{it['category']}/{it['severity_level'] or '-'}] {where}: "
                                   f"{one_line(it['title'] or it['body'], 110)}"))
    lines.extend(terminal_safe(f"note: {n}") for n in out["notes"])
    return "\n".join(lines) + "\n"


@click.command("parse-review")
@click.argument("file", metavar="FILE")
@click.option("--author", metavar="LOGIN", help="Who posted it (e.g. coderabbitai[bot]); detected from the body "
              "when omitted.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"bot", "items": [{file_path, start_line, end_line, title, body, severity, '
              'severity_level, category, suggestion, ai_prompt, fingerprint}], "notes"}.')
def parse_review(file: str, author: str | None, as_json: bool) -> None:
    """Parse a saved review body (markdown; - for stdin) into the findings an AI reviewer put in it.

    Works offline. Use it to see what gh-pr-agent makes of a CodeRabbit, Copilot, Gemini, Codex,
    Sourcery, Qodo, Greptile or Cursor Bugbot review body.
    """
    from pr_agent.cli import _print_json, run_guarded

    def go() -> None:
        out = parse_review_output(read_text(file), author)
        if as_json:
            _print_json(out)
        else:
            sys.stdout.write(render_review(out))

    run_guarded(as_json, go)
