"""The MCP part of `scripts/demo`: an agent's view of `gh pr-agent mcp` — start it, `initialize`, one
`tools/call get_failing_tests`, and print the key fields of its ``structuredContent``.

Stdin stays open until the answer is in (the server cancels what is still running 3 s after stdin closes, and a
loaded machine can take longer than that). ``python -m tests.e2e.demo_mcp PR``; exit 1 if the call failed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import IO, Any


def _send(pipe: IO[str], message: dict[str, Any]) -> None:
    pipe.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    pipe.flush()


def _answer(pipe: IO[str], request_id: int) -> dict[str, Any]:
    for line in pipe:
        message = json.loads(line)
        if message.get("id") == request_id:
            return message
    raise SystemExit(f"demo: the MCP server closed its output before answering request {request_id}")


def call(pr: str) -> dict[str, Any]:
    server = subprocess.Popen(["gh", "pr-agent", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdin and server.stdout
    try:
        _send(server.stdin, {"id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "demo", "version": "1"}}})
        _answer(server.stdout, 1)
        _send(server.stdin, {"method": "notifications/initialized"})
        _send(server.stdin, {"id": 2, "method": "tools/call",
                             "params": {"name": "get_failing_tests", "arguments": {"pr": pr}}})
        return _answer(server.stdout, 2)["result"]
    finally:
        server.stdin.close()  # EOF: the server exits
        server.wait(timeout=30)


def main(argv: list[str]) -> int:
    result = call(argv[0])
    out = result["structuredContent"]
    if result.get("isError"):
        print("demo: the MCP call failed: {code}: {message}".format(**out["error"]), file=sys.stderr)
        return 1
    print("isError:", result.get("isError", False), "| status:", out["status"], "| total_failures:",
          out["total_failures"])
    for f in out["failures"]:
        print("failures[]: {} at {}:{} ({})".format(f["test_name"], f["file_path"], f["line_number"], f["check_name"]))
        print("  reproduce_command:", f["reproduce_command"])
    for c in out["failed_checks"]:
        if c.get("non_test_failure"):
            print("failed_checks[]: {}: {}".format(c["check_name"], c["non_test_failure"]["summary"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
