"""Offline helpers that read a saved file instead of GitHub: `parse-review` and `parse-log`."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click

from pr_agent.clierrors import JsonUsageCommand
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
    from pr_agent.iostreams import colors
    from pr_agent.textsafe import one_line, terminal_safe

    c = colors()
    lines = [f"bot: {out['bot'] or 'none recognised'}; {len(out['items'])} item(s)"]
    for it in out["items"]:
        where = it["file_path"] or "(no file)"
        if it["start_line"]:
            where += f":{it['start_line']}" + (f"-{it['end_line']}" if it["end_line"] not in (None, it["start_line"])
                                             else "")
        tag = terminal_safe(f"- [{it['category']}/{it['severity_level'] or '-'}]")
        lines.append((c.red(tag) if it["severity_level"] in ("critical", "major") else c.yellow(tag))
                     + terminal_safe(f" {where}: {one_line(it['title'] or it['body'], 110)}"))
    lines.extend(c.dim(terminal_safe(f"note: {n}")) for n in out["notes"])
    return "\n".join(lines) + "\n"


@click.command("parse-review", cls=JsonUsageCommand)
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
    from pr_agent.clierrors import _print_json, run_guarded

    def go() -> None:
        out = parse_review_output(read_text(file), author)
        if as_json:
            _print_json(out)
        else:
            sys.stdout.write(render_review(out))

    run_guarded(as_json, go)


# The runners of pr_agent.ci.parsers.HINTS, spelled out so the CLI starts without importing the parsers
# (tests/unit/test_offline.py keeps the two equal).
LOG_FORMATS = ("auto", "pytest", "unittest", "jest", "vitest", "mocha", "go", "cargo", "nextest", "rspec", "phpunit",
               "dotnet", "junit", "gradle", "maven", "googletest", "xctest", "playwright", "exunit", "catch2", "tap",
               "swift-testing", "dart", "minitest",
               "cypress", "stestr", "ctest", "sbt", "kotest", "karma", "ava", "bun", "deno")


def log_lines(path: str) -> Iterator[bytes]:
    """A saved log (or '-' for stdin), streamed as raw 1 MiB pieces: ``parse_log`` splits them into lines
    itself and decodes only the lines it looks at (invalid UTF-8 is replaced, never fatal)."""
    if path == "-":
        while chunk := sys.stdin.buffer.read(1 << 20):
            yield chunk
        return
    try:
        fh = open(path, "rb")  # noqa: SIM115 (closed below; a generator)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as exc:
        raise PrAgentError("file_not_found", f"Cannot read {path}: {exc.strerror or exc}.",
                           suggestion="Pass the path of a saved log, or - to read standard input.",
                           details={"field": "FILE", "value": path}) from None
    with fh:
        while chunk := fh.read(1 << 20):
            yield chunk


def parse_log_output(lines: Iterable[str | bytes], fmt: str = "auto") -> tuple[dict[str, Any], list[str]]:
    """The ``parse-log --json`` object, and the decisive lines of a non-test failure (for the text view)."""
    from pr_agent.ci.parsers import parse_log

    parsed = parse_log(lines, hint=None if fmt == "auto" else fmt)
    ntf = parsed.non_test_failure
    out = {
        "format": fmt if fmt != "auto" else (",".join(parsed.runners_detected) or "unknown"),
        "failures": [{"test_name": f.test_name, "file_path": f.file_path, "line_number": f.line_number,
                      "error_message": f.error_message, "confidence": f.confidence} for f in parsed.failures],
        "non_test_failure": ntf.summary if ntf else None,
        "passed_count": parsed.passed_count,
        "failed_count": parsed.failed_count,
        "lines_cut": parsed.lines_cut,
    }
    return out, list(ntf.decisive_lines) if ntf else []


def render_log(out: dict[str, Any], decisive: list[str]) -> str:
    from pr_agent.iostreams import colors
    from pr_agent.textsafe import one_line, terminal_safe

    c = colors()
    counts = ", ".join(f"{n} {k}" for k, n in (("passed", out["passed_count"]), ("failed", out["failed_count"]))
                       if n is not None)
    lines = [f"format: {out['format']}; {len(out['failures'])} failing test(s)" + (f" ({counts})" if counts else "")]
    for f in out["failures"]:
        where = f["file_path"] + (f":{f['line_number']}" if f["line_number"] else "") if f["file_path"] else ""
        lines.append(c.red("●") + terminal_safe(f" {f['test_name']}")
                     + (c.dim(terminal_safe(f"  ({where})")) if where else ""))
        lines.append("    " + terminal_safe(one_line(f["error_message"], 160)))
    if out.get("lines_cut"):
        lines.append(c.dim(f"note: {out['lines_cut']} line(s) longer than 4096 characters were cut to that length"))
    if out["non_test_failure"]:
        lines.append(c.red("not a test failure:") + terminal_safe(f" {out['non_test_failure']}"))
        lines += ["    " + c.dim("|") + " " + terminal_safe(one_line(t, 160)) for t in decisive]
    return "\n".join(lines) + "\n"


@click.command("parse-log", cls=JsonUsageCommand)
@click.argument("file", metavar="FILE")
@click.option("--format", "fmt", type=click.Choice(LOG_FORMATS), default="auto", show_default=True,
              help="The test runner that wrote the log; auto detects it.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"format", "failures": [{test_name, file_path, line_number, error_message, confidence}], '
              '"non_test_failure": str|null, "passed_count": int|null, "failed_count": int|null, "lines_cut": int}.')
def parse_log_command(file: str, fmt: str, as_json: bool) -> None:
    """Parse a saved CI log (- for stdin) into its failing tests, or the reason it failed without one.

    Works offline, on a raw GitHub Actions job log (timestamps, colours) or plain runner output: pytest,
    unittest, jest, vitest, mocha, go test (plain and -json), cargo test, nextest, rspec, phpunit, dotnet
    test, JUnit XML, Gradle and Maven. A job that failed to compile, lint, install dependencies, ran out of
    memory or timed out is reported as a non-test failure.
    """
    from pr_agent.clierrors import _print_json, run_guarded

    def go() -> None:
        out, decisive = parse_log_output(log_lines(file), fmt)
        if as_json:
            _print_json(out)
        else:
            sys.stdout.write(render_log(out, decisive))

    run_guarded(as_json, go)
