"""A minimal MCP stdio client speaking raw JSON-RPC (no SDK import in the measuring process).

Used for spawn-to-first-``tools/list`` (figure 4), for the bytes of a ``tools/call`` result as an
agent receives it (figure 5), and to read every output page of a paged tool through one server (figure 1).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROTOCOL = "2025-11-25"


@dataclass
class Session:
    spawn_to_tools_list_s: float
    tools: list[str]
    max_rss_mb: float
    call_bytes: int | None = None  # the whole JSON-RPC response line of tools/call
    tools_list_bytes: int = 0  # the whole JSON-RPC response line of tools/list
    call_result: dict[str, Any] | None = None


class _Proc:
    def __init__(self, argv: list[str], env: dict[str, str] | None) -> None:
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  env=env)
        self.buf = b""
        self.sel = selectors.DefaultSelector()
        assert self.p.stdout is not None
        self.sel.register(self.p.stdout, selectors.EVENT_READ)

    def __enter__(self) -> _Proc:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self.p.kill()  # a failed session leaves no server behind
        self.close()

    def initialize(self, timeout: float) -> None:
        """The MCP handshake: initialize (id 1), then the initialized notification."""
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        self.reply(1, timeout)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict[str, Any]) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()

    def reply(self, want_id: int, timeout: float) -> tuple[dict[str, Any], int]:
        """The response with id ``want_id`` and its size in bytes (notifications are skipped)."""
        assert self.p.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                if not line.strip():
                    continue
                msg = json.loads(line)
                if msg.get("id") == want_id:
                    return msg, len(line)
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                raise TimeoutError(f"no MCP response {want_id} within {timeout}s")
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                raise RuntimeError("MCP server closed stdout")
            self.buf += chunk

    def peak_rss_mb(self) -> float:
        """Largest VmHWM (peak RSS) among the server process and its descendants (gh -> launcher -> python)."""
        return max((_hwm_kb(pid) for pid in _tree(self.p.pid)), default=0) / 1024

    def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()
        try:
            self.p.wait(30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.sel.close()


def _tree(root: int) -> list[int]:
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += [c for c, p in parent.items() if p == pid]
    return out


def _hwm_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def session(argv: list[str], env: dict[str, str] | None = None, call: tuple[str, dict[str, Any]] | None = None,
            timeout: float = 120) -> Session:
    """Spawn the server, initialize, list tools (timed from spawn), optionally call one tool, close."""
    start = time.perf_counter()
    with _Proc(argv, env) as proc:
        proc.initialize(timeout)
        proc.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        listed, list_bytes = proc.reply(2, timeout)
        elapsed = time.perf_counter() - start
        out = Session(elapsed, [t["name"] for t in listed["result"]["tools"]], 0.0, tools_list_bytes=list_bytes)
        if call is not None:
            proc.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": call[0], "arguments": call[1]}})
            msg, size = proc.reply(3, timeout)
            out.call_bytes, out.call_result = size, msg.get("result")
        out.max_rss_mb = proc.peak_rss_mb()
    return out


def pages(argv: list[str], env: dict[str, str] | None, tool: str, arguments: dict[str, Any],
          before_call: Callable[[], None] | None = None, timeout: float = 300) -> list[dict[str, Any]]:
    """Spawn the server and call ``tool`` following nextCursor to the last page, all in one session; the
    structuredContent of each page. ``before_call`` runs before each tools/call (e.g. to mark a request count)."""
    out: list[dict[str, Any]] = []
    with _Proc(argv, env) as proc:
        proc.initialize(timeout)
        cursor: str | None = None
        while True:
            if before_call:
                before_call()
            msg_id = 10 + len(out)
            args = {**arguments, **({"cursor": cursor} if cursor else {})}
            proc.send({"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": tool,
                                                                                        "arguments": args}})
            msg, _ = proc.reply(msg_id, timeout)
            result = msg.get("result") or {}
            if result.get("isError") or "structuredContent" not in result:
                raise RuntimeError(f"{tool}: {str(result or msg)[:300]}")
            out.append(result["structuredContent"])
            cursor = out[-1].get("nextCursor")
            if not cursor:
                break
    return out
