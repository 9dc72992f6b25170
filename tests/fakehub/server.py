"""The HTTP side of fakehub: a loopback proxy that real `gh` talks to as if it were GitHub.

gh, run with ``hub.env`` (GH_HOST=github.localhost plus HTTP(S)_PROXY pointing here), sends absolute-form
requests such as ``GET http://api.github.localhost/repos/o/r``. Origin-form paths and the GHES prefixes
``/api/v3`` and ``/api/graphql`` are accepted too. CONNECT (what gh does for an https host such as github.com or
another GH_HOST) gets 403 with a reason phrase that names the host and what fakehub serves.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import traceback
from dataclasses import dataclass, field
from email.message import Message
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from . import ext_ci, gql, rest
from .faults import PARTIAL_ERROR, canned, json_bytes, merge_headers, refuse_fields
from .rest_objects import RestObjects
from .schemas import validate_response

if TYPE_CHECKING:
    from .hub import FakeHub

JSON_TYPE = "application/json; charset=utf-8"
BAD_CREDENTIALS = {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}


@dataclass
class Request:
    """One request as fakehub saw it, and what it answered."""

    method: str
    path: str                       # API path without query and without a /api/v3 prefix
    query: dict[str, str]
    headers: Message                # case-insensitive: r.headers["authorization"]
    body: bytes
    target: str                     # the raw request target (absolute-form for gh)
    host: str
    status: int | None = None
    operation: str | None = None    # GraphQL operation name (or None)
    graphql_query: str | None = None
    graphql_variables: dict[str, Any] | None = None
    top_fields: list[str] = field(default_factory=list)  # GraphQL: top-level fields selected
    route: str | None = None        # REST: the OpenAPI operation that served it
    fault: str | None = None        # the kind of injected fault applied, if any
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: bytes = b""
    raw_query: str = ""
    started: float = field(default_factory=time.time)

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    @property
    def response_json(self) -> Any:
        try:
            return json.loads(self.response_body) if self.response_body else None
        except ValueError:
            return None

    def __repr__(self) -> str:
        op = f" ({self.operation})" if self.operation else ""
        return f"<Request {self.method} {self.path}{op} -> {self.status}>"


@dataclass
class SchemaViolation:
    request: Request
    operation: str
    errors: list[str]


class Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], hub: FakeHub) -> None:
        self.hub = hub
        self.connections: set[socket.socket] = set()
        self.conn_lock = threading.Lock()
        super().__init__(address, Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.conn_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.conn_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self.conn_lock:
            conns = list(self.connections)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


SERVED = "http://api.github.localhost (gh with GH_HOST=github.localhost, as in the environment fakehub prints)"


def refused_tunnel_reason(target: str) -> str:
    """The reason phrase of a refused CONNECT: one line of visible ASCII (an HTTP status line), naming the host."""
    host = "".join(c if 32 < ord(c) < 127 else "?" for c in target[:200]) or "(no host)"
    return f"fakehub does not serve {host}: it serves only {SERVED}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server
    server_version = "github.com"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.hub.verbose:
            super().log_message(format, *args)

    def do_CONNECT(self) -> None:
        """gh asks the proxy for a tunnel to any https host: a host other than fakehub's (GH_HOST unset or another,
        ``--hostname github.com``, telemetry). Go's transport reports a refused CONNECT by its reason phrase alone
        (net/http: ``errors.New(text)`` of the status line), so the phrase itself names the host and what fakehub
        serves; a bare "Forbidden" would leave the user guessing."""
        rec = self._record(b"")
        reason = refused_tunnel_reason(self.path)
        self._send(rec, 403, {}, json_bytes({"message": reason}), reason=reason)
        self.close_connection = True

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = do_GET

    # ---------------------------------------------------------------- plumbing
    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline(65537).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline(65537)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _record(self, body: bytes) -> Request:
        target = self.path
        if target.startswith(("http://", "https://")):
            parts = urlsplit(target)
            host, path, query = parts.netloc, parts.path or "/", parts.query
        else:
            parts = urlsplit(target)
            host, path, query = self.headers.get("Host") or "", parts.path or "/", parts.query
        if self.command == "CONNECT":
            host, path, query = target, target, ""
        rec = Request(self.command, path, dict(parse_qsl(query, keep_blank_values=True)), self.headers, body,
                      target, host)
        rec.raw_query = query
        self.server.hub._log(rec)
        return rec

    def _send(self, rec: Request, status: int, headers: dict[str, str], body: bytes,
              reason: str | None = None) -> None:
        hub = self.server.hub
        out = {"Server": "github.com", "Date": formatdate(usegmt=True), "Content-Type": JSON_TYPE,
               **hub._rate_headers(rec), "X-Github-Request-Id": hub._request_id(),
               "X-Github-Media-Type": "github.v3; format=json", "X-Github-Api-Version-Selected": "2022-11-28",
               "X-Oauth-Scopes": "repo, read:org, workflow", "X-Content-Type-Options": "nosniff"}
        out = merge_headers(out, headers)
        out["Content-Length"] = str(len(body))
        rec.status, rec.response_headers, rec.response_body = status, out, body
        try:
            self.send_response(status, reason)
            for name, value in out.items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    # ---------------------------------------------------------------- one request
    def _handle(self) -> None:
        hub = self.server.hub
        rec = self._record(self._read_body())
        api_path = rec.path
        prefix = ""
        if api_path == "/api/graphql":
            api_path, prefix = "/graphql", "/api"
        elif api_path == "/api/v3" or api_path.startswith("/api/v3/"):
            api_path, prefix = api_path[len("/api/v3"):] or "/", "/api/v3"
        public_path, rec.path = rec.path, api_path
        if rec.path == "/graphql" and rec.method == "POST":
            payload = rec.json if isinstance(rec.json, dict) else {}
            rec.graphql_query = payload.get("query")
            rec.graphql_variables = payload.get("variables")
            rec.operation, rec.top_fields = gql.peek(rec.graphql_query, payload.get("operationName"))
        try:
            hub._sleep(hub.latency_ms / 1000)
            if ext_ci.is_blob(rec.target, rec.host):  # job-log "blob storage": a signed URL, no token
                return self._send(rec, *ext_ci.serve_blob(hub.world, rec.host, rec.path, rec.raw_query))
            auth = (self.headers.get("Authorization") or "").split()
            if len(auth) != 2 or auth[1] in hub.bad_tokens:
                return self._send(rec, 401, {}, json_bytes(BAD_CREDENTIALS))
            fault = hub._take_fault(rec)
            if fault is not None:
                rec.fault = fault.kind or "http"
                hub._sleep(fault.delay_s)
                if fault.kind == "disconnect":
                    self.close_connection = True
                    rec.status = 0
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return None
                reply = canned(fault)
                if reply is not None:
                    return self._send(rec, *reply)
            origin = f"http://{rec.host}" if rec.host else hub.url
            status, headers, body = self._serve(rec, origin, prefix, public_path)
            if fault is not None and fault.kind == "graphql_errors_partial" and status == 200:
                doc = json.loads(body)
                extra = fault.body if fault.body is not None else PARTIAL_ERROR
                doc["errors"] = [*doc.get("errors", []), *(extra if isinstance(extra, list) else [extra])]
                body = json_bytes(doc)
            if fault is not None and fault.kind == "graphql_field_refused" and status == 200:
                body = json_bytes(refuse_fields(json.loads(body), fault.body or {}))
            if fault is not None and fault.kind == "truncated_json":
                body = body[: max(len(body) // 2, 1) - 1]
            if fault is not None:
                headers = merge_headers(headers, fault.headers)
            return self._send(rec, status, headers, body)
        except Exception:
            hub.errors.append(traceback.format_exc())
            return self._send(rec, 500, {}, json_bytes({"message": "fakehub internal error (see hub.errors)"}))

    def _serve(self, rec: Request, origin: str, prefix: str, public_path: str) -> tuple[int, dict[str, str], bytes]:
        hub = self.server.hub
        world = hub.world
        if rec.path == "/graphql" and rec.method == "POST":
            with world.lock:
                outcome = gql.run(world, rec.body, hub.rates["graphql"])
            rec.operation = outcome.operation or rec.operation
            if outcome.unimplemented:
                hub.unhandled.append(rec)
            return outcome.status, {}, json_bytes(outcome.body)
        api = origin + ("/api/v3" if prefix == "/api/v3" else "")
        ctx = rest.Ctx(world, RestObjects(world, api), rec.method, rec.path, public_path, origin, rec.query,
                       rec.body, self.headers, hub.rates)
        try:
            with world.lock:
                response = rest.dispatch(ctx)
        except rest.Unserved as why:
            response, reason = None, str(why)
        else:
            reason = "no route"
        if response is None:
            hub.unhandled.append(rec)
            msg = f"fakehub: {reason} for {rec.method} {rec.path}"
            return 501, {}, json_bytes({"message": msg, "documentation_url": "https://docs.github.com/rest"})
        rec.route = response.operation
        if response.operation and 200 <= response.status < 300:
            problems = validate_response(response.operation, response.body)
            if problems:
                hub.schema_violations.append(SchemaViolation(rec, response.operation, problems))
        return response.status, response.headers, json_bytes(response.body)


