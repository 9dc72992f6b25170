"""A raw JSON-RPC client for `python -m pr_agent mcp` over stdio: send lines, read messages as they arrive,
time answers, watch the server's gh children (from /proc)."""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson

# A client that writes its requests and closes stdin at once owes the server nothing more: every request read
# before EOF is answered, within the EOF grace (3 s). On a loaded machine a quick call can take longer than that
# and is then, by design, cancelled; a test that proves "answered normally" gives the server a grace longer than
# any such call (the server ends the grace as soon as everything is answered, so this costs no time) and keeps a
# generous hang guard. The grace running out is proven with a call that hangs (test_mcp_load.py).
PATIENT_EOF = {"GH_PR_AGENT_MCP_EOF_GRACE": "150"}

HANDSHAKE_PARAMS = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


def rpc(id_: int | str, method: str, params: dict[str, Any] | None = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return orjson.dumps(msg) + b"\n"


def call(id_: int | str, name: str, arguments: dict[str, Any], token: str | None = None) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return rpc(id_, "tools/call", params)


def cancel(id_: int | str) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": id_, "reason": "test"}}) + b"\n"


def gh_children(pid: int) -> list[int]:
    """gh processes descending from ``pid``."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        names[int(entry.name)] = stat[stat.index("(") + 1 : stat.rindex(")")]
        parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    out = []
    for child, name in names.items():
        p = child
        while p in parents and p not in (0, 1):
            p = parents[p]
            if p == pid:
                if name == "gh":
                    out.append(child)
                break
    return out


class RawSession:
    def __init__(self, env: dict[str, str], args: tuple[str, ...] = ()) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "pr_agent", "mcp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.stdout_lines: list[bytes] = []
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip():
                self.stdout_lines.append(line)
                self.inbox.put(orjson.loads(line))  # every stdout line must be JSON

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read(4096), b""):  # type: ignore[union-attr]
            self.stderr += chunk

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def handshake(self) -> dict[str, Any]:
        self.send(rpc("init", "initialize", HANDSHAKE_PARAMS))
        reply = self.wait_for(lambda m: m.get("id") == "init", 60)
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        return reply

    def wait_for(self, pred: Any, timeout: float) -> dict[str, Any]:
        for msg in self.seen:
            if pred(msg):
                self.seen.remove(msg)
                return msg
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                msg = self.inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            if pred(msg):
                return msg
            self.seen.append(msg)
        raise AssertionError(f"no matching message within {timeout}s; got {self.seen[-5:]}")

    def reply(self, id_: int | str, timeout: float = 60) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == id_ and "method" not in m, timeout)

    def timed(self, data: bytes, id_: int | str, timeout: float = 30) -> tuple[float, dict[str, Any]]:
        started = time.monotonic()
        self.send(data)
        msg = self.reply(id_, timeout)
        return time.monotonic() - started, msg

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def drain(self) -> list[dict[str, Any]]:
        out = list(self.seen)
        self.seen.clear()
        while True:
            try:
                out.append(self.inbox.get_nowait())
            except queue.Empty:
                return out

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                self.close_stdin()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, 9)
                self.proc.wait()

