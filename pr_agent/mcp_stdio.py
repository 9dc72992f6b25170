"""The MCP server's stdio transport: newline-delimited JSON-RPC on stdin/stdout (docs/mcp.md).

Replaces the SDK's ``stdio_server`` for three reasons:

- **It answers malformed input.** A line that is not JSON gets ``-32700``; a batch (JSON array), a non-object or
  a message that is not JSON-RPC gets ``-32600``; a request whose ``params`` is not an object gets ``-32602``
  with its id (the SDK dropped all of these, and a client waiting on such a request hung forever).
- **It bounds a line.** A line over :data:`MAX_LINE_BYTES` is skipped without being held in memory and
  answered ``-32600``; the next line is served as usual.
- **Its I/O never waits for a thread the tools hold.** stdin and stdout each get a dedicated thread (their own
  anyio limiter), so tool calls can never starve the transport; tools run on :data:`TOOL_LIMITER` threads.

stdin EOF is the client's shutdown (MCP stdio: the client closes our stdin, then waits for us to exit): **every
request read before EOF is answered** — tools/call, resources/read, anything. They get :data:`EOF_GRACE_S` to
finish, then every tool call still running is cancelled (its gh children killed, its reply a ``cancelled`` error
result); a request still unanswered :data:`SHUTDOWN_S` later gets a JSON-RPC error (``-32603``, "shutting
down") from the transport itself, and the server exits. A closed stdout ends the server the same way, quietly.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
import orjson
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from pr_agent import envvars

MAX_LINE_BYTES = 4 << 20  # tool arguments are a few KB; nothing a client sends us comes near this
# after stdin EOF, calls in flight have EOF_GRACE_S to answer before they are cancelled; EOF_GRACE_VAR overrides
# it (tests on a loaded machine, where a quick call may take longer than that)
EOF_GRACE_VAR = "GH_PR_AGENT_MCP_EOF_GRACE"
EOF_GRACE_S = envvars.SECONDS[EOF_GRACE_VAR][0]
SHUTDOWN_S = 2.0  # then this long for the cancelled calls' replies
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32602, -32603
log = logging.getLogger("gh-pr-agent")


def error_line(id_: Any, code: int, message: str) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}) + b"\n"


def _valid_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def classify(line: bytes) -> SessionMessage | bytes | None:
    """One inbound line: the message to serve, or the JSON-RPC error line to answer with, or None (ignored)."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return error_line(None, PARSE_ERROR, "Parse error: the line is not JSON (one JSON-RPC message per line).")
    if isinstance(obj, list):
        return error_line(None, INVALID_REQUEST, "Invalid Request: batches are not supported (MCP has no JSON-RPC "
                          "batching since 2025-06-18); send one message per line.")
    if not isinstance(obj, dict):
        return error_line(None, INVALID_REQUEST, "Invalid Request: a JSON-RPC message is a JSON object.")
    id_ = obj.get("id") if _valid_id(obj.get("id")) else None
    method = obj.get("method")
    if isinstance(method, str) and "params" in obj and not isinstance(obj["params"], dict):
        if id_ is None:
            log.warning("dropped notification %r: params is not an object", method[:100])
            return None
        return error_line(id_, INVALID_PARAMS, f"Invalid params: params of {method[:100]!r} must be an object.")
    try:
        message = types.jsonrpc_message_adapter.validate_python(obj, by_name=False)
    except ValidationError:
        if method is None and ("result" in obj or "error" in obj):
            log.warning("dropped a malformed response from the client (id %r)", id_)
            return None  # an answer to one of our requests: there is nothing to reply to
        if method is not None and "id" not in obj:
            log.warning("dropped a malformed notification")
            return None
        return error_line(id_, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 request, notification or "
                          "response ({\"jsonrpc\": \"2.0\", \"id\": …, \"method\": …, \"params\": {…}}).")
    return SessionMessage(message)


class Lines:
    """Splits a byte stream into lines, skipping (and reporting) any longer than ``limit``."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self.limit = limit
        self.buf = bytearray()
        self.skipping = 0  # bytes of an oversized line dropped so far (0: not skipping)

    def feed(self, chunk: bytes) -> list[bytes | int]:
        """Complete lines in ``chunk`` (bytes), or an int for each oversized line (its size so far)."""
        out: list[bytes | int] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            part = chunk[start:] if end < 0 else chunk[start:end]
            if self.skipping:
                self.skipping += len(part)
            else:
                self.buf += part
                if len(self.buf) > self.limit:
                    self.skipping = len(self.buf)
                    self.buf.clear()
            if end < 0:
                return out
            if self.skipping:
                out.append(self.skipping)
                self.skipping = 0
            else:
                out.append(bytes(self.buf))
                self.buf.clear()
            start = end + 1


def _claim_stdio() -> tuple[int, int]:
    """Private copies of fds 0 and 1 for the wire; fd 0 becomes /dev/null and fd 1 stderr, so nothing a
    child or a stray print writes can corrupt the protocol stream."""
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return rfd, wfd


class Calls:
    """What the transport needs of the server: how many calls are in flight, and how to cancel them all."""

    count: int

    def cancel_all(self, reason: str) -> None:  # pragma: no cover - interface
        raise NotImplementedError


SHUTDOWN_MESSAGE = "The server is shutting down (stdin closed) and could not finish this request; start it again."


class Unanswered:
    """The ids of the client's requests read from stdin and not yet answered on stdout."""

    def __init__(self) -> None:
        self.ids: dict[Any, None] = {}
        self.ours: set[Any] = set()  # answered by the transport at shutdown: a late reply of the server is dropped

    def read(self, message: Any) -> None:
        if isinstance(message, types.JSONRPCRequest):
            self.ids[message.id] = None
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            # the client gave up on it: no answer is owed (the spec: the receiver SHOULD NOT respond)
            rid = (message.params or {}).get("requestId")
            if _valid_id(rid):
                self.ids.pop(rid, None)

    def sent(self, message: Any) -> bool:
        """Whether ``message`` (the server's) still goes out; a reply marks its request answered."""
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            if message.id in self.ours:
                return False
            self.ids.pop(message.id, None)
        return True

    async def drained(self) -> None:
        while self.ids:
            await anyio.sleep(0.02)

    def answer_all(self) -> list[bytes]:
        """The JSON-RPC error lines for every request still unanswered (then nothing is)."""
        lines = [error_line(id_, INTERNAL_ERROR, SHUTDOWN_MESSAGE) for id_ in self.ids]
        self.ours.update(self.ids)
        self.ids.clear()
        return lines


async def serve_stdio(run: Callable[[Any, Any], Awaitable[None]], calls: Calls,
                      fds: tuple[int, int] | None = None) -> None:
    """Serve ``run(read_stream, write_stream)`` (the SDK server loop) over stdin/stdout until EOF."""
    grace = envvars.seconds(EOF_GRACE_VAR)  # its default is EOF_GRACE_S; a bad value was refused at start
    rfd, wfd = fds if fds is not None else _claim_stdio()
    reader_thread, writer_thread = anyio.CapacityLimiter(1), anyio.CapacityLimiter(1)
    inbound_send, inbound = anyio.create_memory_object_stream[Any](0)
    server_out, server_out_rx = anyio.create_memory_object_stream[SessionMessage](0)
    wire_send, wire = anyio.create_memory_object_stream[bytes](256)
    stdout_open = [True]

    async def write_all() -> None:
        async with wire:
            async for data in wire:
                if not stdout_open[0]:
                    continue
                try:
                    await anyio.to_thread.run_sync(_write_fully, wfd, data, limiter=writer_thread)
                except OSError:  # the client is gone (EPIPE): stop writing, shut down like on EOF
                    stdout_open[0] = False
                    log.info("stdout closed by the client; shutting down")
                    tg.start_soon(shutdown)

    unanswered = Unanswered()

    async def forward_server() -> None:
        async with server_out_rx, wire_send.clone() as out:
            async for message in server_out_rx:
                if unanswered.sent(message.message):
                    await out.send(message.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
                                   + b"\n")

    shutting_down = anyio.Event()

    async def shutdown() -> None:
        if shutting_down.is_set():
            return
        shutting_down.set()
        with anyio.move_on_after(grace if stdout_open[0] else 0):
            await unanswered.drained()  # every request read before EOF, not only tool calls
        calls.cancel_all("The MCP client closed the connection (stdin EOF): the call was cancelled.")
        with anyio.move_on_after(SHUTDOWN_S if stdout_open[0] else 0):
            await unanswered.drained()
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            for line in unanswered.answer_all():  # still unanswered: the transport says so itself
                await shutdown_errors.send(line)
        await inbound_send.aclose()  # the server loop ends; anything still running is cancelled by the SDK

    eof = [False]

    async def read_all() -> None:
        lines = Lines()
        async with wire_send.clone() as errors:
            while not shutting_down.is_set():
                chunk = await anyio.to_thread.run_sync(os.read, rfd, 1 << 16, limiter=reader_thread,
                                                       abandon_on_cancel=True)
                if not chunk:
                    eof[0] = True
                    break
                try:
                    for line in lines.feed(chunk):
                        await _route(line, errors)
                except anyio.ClosedResourceError:  # shutting down after stdout closed
                    break
        await shutdown()

    async def _route(line: bytes | int, errors: Any) -> None:
        if isinstance(line, int):
            await errors.send(error_line(None, INVALID_REQUEST, f"Invalid Request: a message of {line} bytes was "
                                         f"refused unread (the limit is {MAX_LINE_BYTES} bytes)."))
            return
        if not line.strip():
            return
        item = classify(line)
        if isinstance(item, bytes):
            await errors.send(item)
        elif item is not None:
            unanswered.read(item.message)
            await inbound_send.send(item)

    shutdown_errors = wire_send.clone()
    async with anyio.create_task_group() as tg:
        tg.start_soon(write_all)
        tg.start_soon(forward_server)
        tg.start_soon(read_all)
        await run(inbound, server_out)
        wire_send.close()
        shutdown_errors.close()
        if not eof[0]:  # stdout closed (or the loop ended by itself): nobody to flush to, stop reading stdin
            tg.cancel_scope.cancel()


def _write_fully(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def quiet_exit_hook() -> None:
    """No traceback for a client that vanished mid-write (BrokenPipe on interpreter shutdown)."""
    with contextlib.suppress(BrokenPipeError, ValueError):
        sys.stdout.flush()
