"""THE gateway to `gh` (design §4). No other module spawns gh.

Every GitHub request goes through :class:`Gh`: ``gh api -i`` so status and rate-limit headers are
visible, request bodies on stdin (``--input -``) so user text never touches argv or query text,
a cleaned child environment, bounded retries for idempotent reads, a per-call timeout, and a call
counter for the benchmarks.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from importlib import resources
from typing import Any, BinaryIO, TypeVar
from urllib.parse import urlencode

import orjson

from pr_agent.errors import PrAgentError, command_repair

MIN_GH_VERSION = (2, 23, 0)
INSTALL_URL = "https://github.com/cli/cli#installation"
_DROP_ENV = ("GH_FORCE_TTY", "CLICOLOR_FORCE", "GH_PAGER", "PAGER")
_T = TypeVar("_T")
_R = TypeVar("_R")


def debug(msg: str) -> None:
    if os.environ.get("GH_PR_AGENT_DEBUG"):
        print(f"[gh-pr-agent] {msg}", file=sys.stderr, flush=True)


_FRAGMENT = re.compile(r"^fragment\s+(\w+)\s+on\s+\w+\s*\{.*?^\}", re.S | re.M)
_fragments: dict[str, str] = {}
_queries: dict[str, str] = {}


def _all_fragments() -> dict[str, str]:
    if not _fragments:
        for entry in resources.files("pr_agent.queries").iterdir():
            if entry.name.startswith("fragments_") and entry.name.endswith(".graphql"):
                for m in _FRAGMENT.finditer(entry.read_text(encoding="utf-8")):
                    _fragments[m[1]] = m[0]
    return _fragments


def load_query(name: str) -> str:
    """``pr_agent/queries/<name>.graphql`` plus the shared fragments it uses (transitively)."""
    if name not in _queries:
        text = resources.files("pr_agent.queries").joinpath(f"{name}.graphql").read_text(encoding="utf-8")
        fragments = _all_fragments()
        needed: list[str] = []
        todo = re.findall(r"\.\.\.\s*([A-Z]\w*)", text)
        while todo:
            frag = todo.pop()
            if frag in fragments and frag not in needed:
                needed.append(frag)
                todo.extend(re.findall(r"\.\.\.\s*([A-Z]\w*)", fragments[frag]))
        _queries[name] = "\n".join([text, *(fragments[f] for f in sorted(needed))])
    return _queries[name]


_UNPARSED: Any = object()


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes
    _data: Any = field(default=_UNPARSED, repr=False, compare=False)

    def json(self) -> Any:
        if self._data is not _UNPARSED:
            return self._data
        try:
            if not self.body.strip():
                if self.status != 204 and "json" in self.headers.get("content-type", ""):
                    raise ValueError("empty body")  # a JSON answer cut off before its first byte
                self._data = None
            else:
                self._data = orjson.loads(self.body)
        except (orjson.JSONDecodeError, ValueError) as exc:
            raise PrAgentError(
                "unexpected_response",
                f"GitHub returned a response that is not valid JSON (HTTP {self.status}).",
                suggestion="Retry the call; if it keeps failing, run with GH_PR_AGENT_DEBUG=1 and report it.",
                details={"status": self.status, "reason": str(exc), "body_start": self.body[:200].decode(
                    "utf-8", "replace")},
            ) from None
        return self._data


@dataclass
class GhVersion:
    path: str
    version: tuple[int, int, int]


_version_cache: dict[str, GhVersion] = {}
_version_lock = threading.Lock()


def find_gh() -> str:
    path = os.environ.get("GH_PR_AGENT_GH") or shutil.which("gh")
    if not path or not os.path.exists(path):
        raise PrAgentError(
            "gh_not_found",
            "The GitHub CLI `gh` was not found on PATH.",
            suggestion=f"Install gh {'.'.join(map(str, MIN_GH_VERSION))} or newer ({INSTALL_URL}), "
            "then run `gh auth login`.",
            details={"searched": "GH_PR_AGENT_GH, PATH", "install_url": INSTALL_URL},
            repair=None,  # installing gh is platform-specific: the suggestion carries the link
        )
    return path


def check_gh(env: dict[str, str]) -> GhVersion:
    path = find_gh()
    with _version_lock:
        if path in _version_cache:
            return _version_cache[path]
        try:
            proc = subprocess.run([path, "--version"], capture_output=True, timeout=20, env=env, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PrAgentError(
                "gh_not_found",
                f"`{path} --version` could not be run: {exc}.",
                suggestion=f"Reinstall gh ({INSTALL_URL}).",
                details={"path": path},
            ) from None
        m = re.search(rb"gh version (\d+)\.(\d+)\.(\d+)", proc.stdout)
        if not m:
            raise PrAgentError(
                "gh_not_found",
                f"`{path}` does not look like the GitHub CLI (no version line).",
                suggestion=f"Put the real gh first on PATH ({INSTALL_URL}) or set GH_PR_AGENT_GH.",
                details={"path": path, "output": proc.stdout[:200].decode("utf-8", "replace")},
            )
        version = (int(m[1]), int(m[2]), int(m[3]))
        if version < MIN_GH_VERSION:
            need = ".".join(map(str, MIN_GH_VERSION))
            raise PrAgentError(
                "gh_too_old",
                f"gh {'.'.join(map(str, version))} is too old; gh-pr-agent needs gh {need} or newer.",
                suggestion=f"Upgrade gh ({INSTALL_URL}).",
                details={"path": path, "version": ".".join(map(str, version)), "minimum": need},
                repair=command_repair("gh --version"),
            )
        _version_cache[path] = GhVersion(path, version)
        return _version_cache[path]


_flags_cache: dict[str, frozenset[str]] = {}


def api_flags(path: str, env: dict[str, str]) -> frozenset[str]:
    """The long options `gh api` accepts (from its --help; cached per binary)."""
    with _version_lock:
        if path not in _flags_cache:
            try:
                out = subprocess.run([path, "api", "--help"], capture_output=True, timeout=20, env=env,
                                     check=False).stdout
            except (OSError, subprocess.TimeoutExpired):
                out = b""
            _flags_cache[path] = frozenset(re.findall(r"--[a-z][a-z-]+", out.decode("utf-8", "replace")))
        return _flags_cache[path]


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    for name in _DROP_ENV:
        env.pop(name, None)
    env.update(GH_PROMPT_DISABLED="1", NO_COLOR="1", GH_PAGER="cat", GH_NO_UPDATE_NOTIFIER="1",
               GH_SPINNER_DISABLED="1", GH_TELEMETRY="false", DO_NOT_TRACK="1")
    return env


def parse_included(stdout: bytes) -> tuple[int, dict[str, str], bytes] | None:
    """Split `gh api -i` output into (status, lower-cased headers, body); None if there is no status line."""
    if not stdout.startswith(b"HTTP/"):
        return None
    nl = stdout.find(b"\n")
    status_line = stdout[:nl].decode("latin-1")
    parts = status_line.split()
    try:
        status = int(parts[1])
    except (IndexError, ValueError):
        return None
    rest = stdout[nl + 1 :]
    ends = [i for i in (rest.find(b"\r\n\r\n"), rest.find(b"\n\n")) if i >= 0]
    if rest.startswith((b"\r\n", b"\n")):
        head, body = b"", rest.lstrip(b"\r\n")
    elif ends:
        end = min(ends)
        head = rest[:end]
        body = rest[end + (4 if rest[end : end + 4] == b"\r\n\r\n" else 2) :]
    else:
        head, body = rest, b""
    headers: dict[str, str] = {}
    for line in head.decode("latin-1").splitlines():
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return status, headers, body


def _message_of(body: bytes) -> str:
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return ""
    if isinstance(data, dict):
        if isinstance(data.get("message"), str):
            return data["message"]
        errs = data.get("errors")
        if isinstance(errs, list):
            return "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errs)
    return ""


def _retry_after_ms(headers: dict[str, str], now: float) -> int | None:
    ra = headers.get("retry-after")
    if ra:
        if ra.isascii() and ra.isdigit():  # str.isdigit() also accepts '²', which int() refuses
            return int(ra) * 1000
        try:
            return max(0, int((parsedate_to_datetime(ra).timestamp() - now) * 1000))
        except (TypeError, ValueError):
            pass
    reset = headers.get("x-ratelimit-reset")
    if headers.get("x-ratelimit-remaining") == "0" and reset and reset.isascii() and reset.isdigit():
        return max(0, int((int(reset) - now) * 1000))
    return None


@dataclass
class Gh:
    """One gateway per tool call or server. Thread-safe; counts its calls."""

    hostname: str | None = None
    timeout: float = float(os.environ.get("GH_PR_AGENT_TIMEOUT", "60"))
    max_retries: int = 2
    max_retry_wait_s: float = float(os.environ.get("GH_PR_AGENT_MAX_RETRY_WAIT", "20"))
    base_env: dict[str, str] | None = None
    sleep: Callable[[float], None] = time.sleep
    cancel: threading.Event | None = None
    calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- public API -------------------------------------------------------------------------
    def rest(self, method: str, path: str, *, params: dict[str, Any] | None = None,
             body: Any = None, hostname: str | None = None) -> Response:
        """One REST request. Raises PrAgentError for any non-2xx answer."""
        if params:
            path = f"{path}{'&' if '?' in path else '?'}{urlencode(params, doseq=True)}"
        argv = ["api", "-i", "--method", method.upper(), path]
        stdin = None
        if body is not None:
            argv += ["--input", "-"]
            stdin = orjson.dumps(body)
        return self._call(argv, stdin, idempotent=method.upper() in ("GET", "HEAD"), hostname=hostname,
                          what=f"{method.upper()} {path}")

    def rest_pages(self, path: str, params: dict[str, Any] | None = None, *,
                   hostname: str | None = None, max_pages: int = 100) -> list[Any]:
        """All items of a paginated REST list (follows Link rel="next")."""
        params = {"per_page": 100, **(params or {})}
        url: str | None = f"{path}{'&' if '?' in path else '?'}{urlencode(params, doseq=True)}"
        items: list[Any] = []
        pages = 0
        while url and pages < max_pages:
            resp = self.rest("GET", url, hostname=hostname)
            data = resp.json()
            items.extend(data if isinstance(data, list) else [data])
            url = _next_link(resp.headers.get("link", ""))
            pages += 1
        return items

    def graphql(self, query: str, variables: dict[str, Any] | None = None, *, mutation: bool = False,
                hostname: str | None = None) -> dict[str, Any]:
        """Run one GraphQL document with variables; returns ``data``. Any ``errors`` raise."""
        payload = orjson.dumps({"query": query, "variables": variables or {}})
        op = re.search(r"\b(query|mutation)\s+(\w+)", query)
        resp = self._call(["api", "-i", "graphql", "--input", "-"], payload, idempotent=not mutation,
                          hostname=hostname, what=f"graphql {op[2] if op else ''}".strip())
        data = resp.json()
        if not isinstance(data, dict):
            raise PrAgentError("unexpected_response", "GitHub's GraphQL answer was not a JSON object.",
                               suggestion="Retry the call.", details={"status": resp.status})
        return data.get("data") or {}

    def pool(self, max_workers: int = 6) -> ThreadPoolExecutor:
        """A bounded pool for independent calls that are discovered as results arrive."""
        return ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="gh")

    def map(self, fn: Callable[[_T], _R], items: Iterable[_T], max_workers: int = 6) -> list[_R]:
        """Run independent calls concurrently (bounded), preserving order; the first error wins."""
        items = list(items)
        if len(items) <= 1:
            return [fn(i) for i in items]
        with ThreadPoolExecutor(max_workers=min(max_workers, len(items))) as pool:
            return list(pool.map(fn, items))

    def download(self, path: str, dest: BinaryIO, *, hostname: str | None = None) -> Response:
        """GET ``path`` and stream the body into ``dest`` in chunks (memory stays bounded: job logs can be
        hundreds of MB). gh follows redirects (a job log answers 302 to a short-lived blob URL). Returns the
        final status and headers (``body`` empty); a non-2xx answer raises like :meth:`rest`. Retried like
        any read while nothing was written; killed on cancellation or after ``timeout`` seconds of silence.
        """
        env = self._env()
        gh = check_gh(env).path
        host = hostname or self.hostname
        # Newer gh refuses to print a body with terminal escape sequences (logs are full of colours) unless
        # told it may; the body goes to a file, never to a terminal. gh 2.23 does not know the flag.
        allow = ["--allow-escape-sequences"] if "--allow-escape-sequences" in api_flags(gh, env) else []
        argv = [gh, "api", *(["--hostname", host] if host else []), "-i", *allow, "--method", "GET", path]
        what = f"GET {path}"
        start = dest.tell()

        def attempt() -> Response:
            dest.seek(start)
            dest.truncate()  # a retry starts from a clean file
            return self._stream_once(argv, env, dest, what)

        return self._retrying(attempt, idempotent=True, host=host, what=what)

    # -- internals --------------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        return child_env(self.base_env)

    def _call(self, argv: list[str], stdin: bytes | None, *, idempotent: bool, hostname: str | None,
              what: str) -> Response:
        env = self._env()
        gh = check_gh(env).path
        host = hostname or self.hostname
        full = [gh, *argv[:1], *(["--hostname", host] if host else []), *argv[1:]]
        return self._retrying(lambda: self._once(full, stdin, env, what), idempotent=idempotent, host=host,
                              what=what)

    def _retrying(self, once: Callable[[], Response], *, idempotent: bool, host: str | None,
                  what: str) -> Response:
        """Run ``once``; retry idempotent reads on temporary failures with backoff (honouring
        ``retry-after``); never retry a write; stop at once on cancellation."""
        attempt = 0
        while True:
            try:
                return once()
            except PrAgentError as err:
                if host and err.code in ("auth_failed", "gh_not_authenticated"):
                    err.details["host"] = host
                    err.repair = command_repair(f"gh auth login --hostname {host}")
                    err.suggestion = f"Log in to {host} with `gh auth login --hostname {host}` (or set a token)."
                wait = self._retry_wait(err, attempt) if idempotent else None
                if wait is None:
                    raise
                attempt += 1
                debug(f"retry {attempt}/{self.max_retries} of {what} in {wait:.2f}s after {err.code}")
                if self.cancel is not None:
                    if self.cancel.wait(wait):
                        raise _cancelled(what) from None
                else:
                    self.sleep(wait)

    def _retry_wait(self, err: PrAgentError, attempt: int) -> float | None:
        if attempt >= self.max_retries or not err.temporary or err.code == "timeout":
            return None
        if err.code == "rate_limited":
            if err.details.get("kind") != "secondary" or err.retry_after_ms is None:
                return None
            wait = err.retry_after_ms / 1000
            return wait if wait <= self.max_retry_wait_s else None
        return 0.5 * (2**attempt)

    def _spawn(self, argv: list[str], stdin: bytes | None, env: dict[str, str],
               what: str) -> subprocess.CompletedProcess[bytes]:
        """Run gh to completion, killing it on timeout or cancellation (no child is left behind)."""
        if self.cancel is not None and self.cancel.is_set():
            raise _cancelled(what)
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=env)
        except OSError as exc:
            raise PrAgentError("gh_not_found", f"gh could not be started: {exc}.",
                               suggestion=f"Reinstall gh ({INSTALL_URL}).", details={"path": argv[0]}) from None
        deadline = time.monotonic() + self.timeout
        data: bytes | None = stdin if stdin is not None else b""
        while True:
            try:
                out, err = proc.communicate(data, timeout=0.1 if self.cancel is not None else self.timeout)
                break
            except subprocess.TimeoutExpired:
                data = None
                cancelled = self.cancel is not None and self.cancel.is_set()
                if cancelled or time.monotonic() >= deadline:
                    proc.kill()
                    proc.communicate()
                    if cancelled:
                        raise _cancelled(what) from None
                    raise PrAgentError(
                        "timeout", f"GitHub did not answer {what} within {self.timeout:.0f}s.",
                        suggestion="Retry later; set GH_PR_AGENT_TIMEOUT to wait longer.",
                        details={"request": what, "timeout_s": self.timeout}) from None
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def _stream_once(self, argv: list[str], env: dict[str, str], dest: BinaryIO, what: str) -> Response:
        with self._lock:
            self.calls += 1
        if self.cancel is not None and self.cancel.is_set():
            raise _cancelled(what)
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=env)
        except OSError as exc:
            raise PrAgentError("gh_not_found", f"gh could not be started: {exc}.",
                               suggestion=f"Reinstall gh ({INSTALL_URL}).", details={"path": argv[0]}) from None
        assert proc.stdout is not None and proc.stderr is not None
        last = [time.monotonic()]
        why: list[str] = []
        done = threading.Event()
        errors: list[bytes] = []

        def watchdog() -> None:
            while not done.wait(0.1):
                if self.cancel is not None and self.cancel.is_set():
                    why.append("cancelled")
                elif time.monotonic() - last[0] > self.timeout:
                    why.append("timeout")
                else:
                    continue
                proc.kill()
                return

        def drain_stderr() -> None:
            assert proc.stderr is not None
            for chunk in iter(lambda: proc.stderr.read(65536), b""):  # type: ignore[union-attr]
                if sum(map(len, errors)) < 65536:
                    errors.append(chunk)

        threads = [threading.Thread(target=watchdog, daemon=True), threading.Thread(target=drain_stderr,
                                                                                    daemon=True)]
        for t in threads:
            t.start()
        head = b""
        parsed: tuple[int, dict[str, str], bytes] | None = None
        error_body = b""
        try:
            for chunk in iter(lambda: proc.stdout.read1(1 << 16), b""):  # type: ignore[union-attr]
                last[0] = time.monotonic()
                if parsed is None:
                    head += chunk
                    ends = [i for i in (head.find(b"\r\n\r\n"), head.find(b"\n\n")) if i >= 0]
                    if not ends:
                        continue
                    parsed = parse_included(head)
                    if parsed is None:
                        continue
                    chunk = parsed[2]
                if parsed[0] >= 400:
                    if len(error_body) < 1 << 20:
                        error_body += chunk
                else:
                    dest.write(chunk)
            proc.wait()
        finally:
            done.set()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            threads[1].join(timeout=5)
        debug(f"{what} (streamed) -> exit {proc.returncode}")
        if "cancelled" in why:
            raise _cancelled(what)
        if "timeout" in why:
            raise PrAgentError("timeout", f"GitHub sent nothing for {what} within {self.timeout:.0f}s.",
                               suggestion="Retry later; set GH_PR_AGENT_TIMEOUT to wait longer.",
                               details={"request": what, "timeout_s": self.timeout})
        if parsed is None:
            raise _process_error(subprocess.CompletedProcess(argv, proc.returncode, head, b"".join(errors)), what)
        status, headers, _ = parsed
        if status >= 400:
            raise http_error(status, headers, error_body, what)
        return Response(status, headers, b"")

    def _once(self, argv: list[str], stdin: bytes | None, env: dict[str, str], what: str) -> Response:
        with self._lock:
            self.calls += 1
        started = time.monotonic()
        proc = self._spawn(argv, stdin, env, what)
        debug(f"{what} -> exit {proc.returncode} in {time.monotonic() - started:.2f}s")
        parsed = parse_included(proc.stdout)
        if parsed is None:
            raise _process_error(proc, what)
        status, headers, body = parsed
        if status >= 400:
            raise http_error(status, headers, body, what)
        if what.startswith("graphql"):
            _raise_graphql_errors(headers, body, what)
            return Response(status, headers, body)
        resp = Response(status, headers, body)
        if "json" in headers.get("content-type", ""):
            resp.json()  # parsed here, so a cut-off answer is a temporary failure retried like any other (reads)
        return resp


def _cancelled(what: str) -> PrAgentError:
    return PrAgentError("cancelled", f"The call was cancelled while waiting for {what}.",
                        suggestion="Call again when you want the answer.", details={"request": what})


def _next_link(link: str) -> str | None:
    for part in link.split(","):
        m = re.search(r'<([^>]+)>\s*;\s*rel="next"', part)
        if m:
            url = m[1]
            m2 = re.match(r"https?://[^/]+(?:/api/v3)?/(.*)", url)
            return m2[1] if m2 else url
    return None


def _process_error(proc: subprocess.CompletedProcess[bytes], what: str) -> PrAgentError:
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode == 4 or "gh auth login" in err:
        return PrAgentError(
            "gh_not_authenticated",
            "gh is not logged in to GitHub.",
            suggestion="Run `gh auth login` (or set GH_TOKEN), then retry.",
            details={"gh_stderr": err[:500]},
            repair=command_repair("gh auth login"),
        )
    low = err.lower()
    if "unexpected end of json input" in low or "invalid character" in low:
        return PrAgentError("unexpected_response", f"GitHub's answer to {what} was cut off or is not JSON.",
                            suggestion="Retry the call.", details={"gh_stderr": err[:500]})
    if any(s in low for s in ("connection refused", "dial tcp", "error connecting", "no such host",
                              "i/o timeout", "tls handshake", "connection reset", "eof")):
        return PrAgentError("network_error", f"gh could not reach GitHub for {what}.",
                            suggestion="Check the network connection and retry.",
                            details={"gh_stderr": err[:500]})
    return PrAgentError("gh_failed", f"gh failed for {what} (exit {proc.returncode}): {err[:300]}",
                        suggestion="Run with GH_PR_AGENT_DEBUG=1 to see the gh call.",
                        details={"exit_code": proc.returncode, "gh_stderr": err[:500]})


def http_error(status: int, headers: dict[str, str], body: bytes, what: str) -> PrAgentError:
    msg = _message_of(body) or f"HTTP {status}"
    details: dict[str, Any] = {"status": status, "request": what, "github_message": msg}
    now = time.time()
    if status in (403, 429):
        retry = _retry_after_ms(headers, now)
        if headers.get("x-ratelimit-remaining") == "0":
            details["kind"] = "primary"
            return PrAgentError("rate_limited", f"GitHub's API rate limit is exhausted ({msg}).",
                                suggestion="Wait until the limit resets, then retry.",
                                details=details, retry_after_ms=retry)
        if status == 429 or "retry-after" in headers or "secondary rate limit" in msg.lower():
            details["kind"] = "secondary"
            return PrAgentError("rate_limited", f"GitHub's secondary rate limit was hit ({msg}).",
                                suggestion="Slow down and retry after the indicated wait.",
                                details=details, retry_after_ms=retry if retry is not None else 60_000)
        return PrAgentError("forbidden", f"GitHub refused {what}: {msg}.",
                            suggestion="Check that your gh login has access (`gh auth status`); "
                            "you may need more scopes or repository permissions.",
                            details=details, repair=command_repair("gh auth status"))
    if status == 401:
        return PrAgentError("auth_failed", f"GitHub rejected gh's credentials ({msg}).",
                            suggestion="Log in again with `gh auth login` or refresh GH_TOKEN.",
                            details=details, repair=command_repair("gh auth login"))
    if status == 404:
        return PrAgentError("not_found", f"GitHub says {what} does not exist or is not visible to you.",
                            suggestion="Check the repository and number, and that your gh login can see it.",
                            details=details)
    if status in (409, 410, 422):
        return PrAgentError("validation_failed", f"GitHub refused {what}: {msg}.",
                            suggestion="Read details.github_message; the request was not applied.",
                            details={**details, "body": _safe_json(body)})
    if status >= 500:
        return PrAgentError("server_error", f"GitHub had a server error ({status}) on {what}.",
                            suggestion="Retry in a little while.", details=details)
    return PrAgentError("gh_failed", f"Unexpected HTTP {status} for {what}: {msg}.",
                        suggestion="Run with GH_PR_AGENT_DEBUG=1 to see the call.", details=details)


def _safe_json(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return body[:500].decode("utf-8", "replace")


def _raise_graphql_errors(headers: dict[str, str], body: bytes, what: str) -> None:
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise PrAgentError("unexpected_response", f"GitHub's answer to {what} is not valid JSON.",
                           suggestion="Retry the call.",
                           details={"body_start": body[:200].decode("utf-8", "replace")}) from None
    errors = data.get("errors") if isinstance(data, dict) else None
    if not errors:
        return
    if not isinstance(errors, list):  # not GitHub's shape, but still an error answer: typed, never a crash
        errors = [errors]
    first = errors[0] if isinstance(errors[0], dict) else {"message": str(errors[0])}
    etype = str(first.get("type") or "")
    message = str(first.get("message") or "GraphQL error")
    details: dict[str, Any] = {
        "request": what,
        "graphql_errors": [
            {k: e.get(k) for k in ("type", "message", "path") if k in e}
            for e in errors
            if isinstance(e, dict)
        ][:10],
        "partial_data": bool(data.get("data")),
    }
    if etype in ("RATE_LIMITED", "RATE_LIMIT") or "rate limit" in message.lower():
        details["kind"] = "secondary" if "secondary" in message.lower() else "primary"
        raise PrAgentError("rate_limited", f"GitHub's GraphQL rate limit was hit ({message}).",
                           suggestion="Wait until the limit resets, then retry.", details=details,
                           retry_after_ms=_retry_after_ms({**headers, "x-ratelimit-remaining": "0"},
                                                          time.time()))
    if etype == "NOT_FOUND":
        raise PrAgentError("not_found", message, suggestion="Check the reference; it may not exist or "
                           "may not be visible to your gh login.", details=details)
    if etype in ("FORBIDDEN", "INSUFFICIENT_SCOPES"):
        raise PrAgentError("forbidden", message, suggestion="Your gh login lacks the permission or scope "
                           "for this; check `gh auth status`.", details=details,
                           repair=command_repair("gh auth status"))
    raise PrAgentError("graphql_error", f"GitHub's GraphQL API returned an error: {message}",
                       suggestion="Read details.graphql_errors; if it persists, report it with "
                       "GH_PR_AGENT_DEBUG=1 output.", details=details)


def iter_nodes(conn: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    for node in (conn or {}).get("nodes") or []:
        if node is not None:
            yield node
