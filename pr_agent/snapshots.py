"""Paging snapshots: what a paged tool read from GitHub, kept for a short time by the MCP server.

A paged tool (comments, checks) reads everything from GitHub on every call and then cuts one page out of
it. The CLI is one process per call, so it has no choice; the MCP server is long-lived, so it keeps each
fetch here under a random id that the call's ``nextCursor`` carries (inside the cursor's MAC). A later
call with that cursor is then cut from the same read, with no GitHub request, as long as the entry is:

- held by this server process (ids are random; another process, or a restart, never knows them),
- for the same tool and the same scope (PR, filters, fetch variant) as the call — checked here, so a
  forged cursor (the MAC key is public) can never page through another PR's data,
- younger than the TTL (``GH_PR_AGENT_SNAPSHOT_TTL`` seconds, default 600; 0 turns snapshots off),
- not invalidated: a write tool call through the same server drops the snapshots of every PR it touched.

Otherwise the tool re-fetches exactly as the CLI does. The store is bounded: at most
``GH_PR_AGENT_SNAPSHOT_ENTRIES`` entries (default 8, least recently used evicted first) and
``GH_PR_AGENT_SNAPSHOT_MAX_MB`` of rough in-memory size (default 64); a fetch bigger than half the budget
is not kept at all. It is thread-safe (the server runs calls concurrently). A snapshot is shared by the
calls paging it, so it is immutable by contract: tools read it and build new objects from it.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pr_agent.paging import scope_hash

if TYPE_CHECKING:
    from pr_agent.refs import PRRef

T = TypeVar("T")
DEFAULT_TTL_S = 600.0
DEFAULT_ENTRIES = 8
DEFAULT_MAX_MB = 64.0


def pr_key(ref: PRRef) -> str:
    """The key a snapshot is invalidated by: host and PR, case-folded."""
    return f"{ref.host or 'github.com'}/{ref}".lower()


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def approx_size(value: Any, limit: float = float("inf")) -> int:
    """A rough in-memory size of plain data (dicts, lists, strings, dataclasses); stops counting above ``limit``."""
    total = 0
    seen: set[int] = set()
    stack = [value]
    while stack and total <= limit:
        obj = stack.pop()
        if isinstance(obj, (str, bytes, bytearray)):
            total += 49 + len(obj)
            continue
        if obj is None or isinstance(obj, (bool, int, float)):
            total += 28
            continue
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += 64
        if isinstance(obj, dict):
            total += 16 * len(obj)
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            total += 8 * len(obj)
            stack.extend(obj)
        elif dataclasses.is_dataclass(obj):
            stack.extend(getattr(obj, f.name) for f in dataclasses.fields(obj))
        elif hasattr(obj, "__dict__"):
            stack.extend(vars(obj).values())
    return total


@dataclass(frozen=True)
class Held(Generic[T]):
    """A fetch result and where it came from."""

    value: T
    as_of: str  # when GitHub was read (UTC, ISO 8601)
    snapshot_id: str | None  # the id to put in nextCursor (None: not kept, e.g. in the CLI)
    from_snapshot: bool  # True: cut from an earlier call's read, no GitHub request made


@dataclass(frozen=True)
class _Entry:
    tool: str
    scope: str
    prs: frozenset[str]
    value: Any
    as_of: str
    expires: float
    size: int


class SnapshotStore:
    """A small, bounded, thread-safe LRU of fetch results with a TTL (see the module docstring)."""

    def __init__(self, *, max_entries: int = DEFAULT_ENTRIES, ttl_s: float = DEFAULT_TTL_S,
                 max_bytes: int = int(DEFAULT_MAX_MB * (1 << 20)), max_entry_bytes: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max(0, max_entries)
        self.ttl_s = max(0.0, ttl_s)
        self.max_bytes = max(0, max_bytes)
        self.max_entry_bytes = max_bytes // 2 if max_entry_bytes is None else max_entry_bytes
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0
        self._seq = 0  # bumped by every invalidation
        self._dropped: dict[str, int] = {}  # pr key -> sequence number of its last invalidation

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> SnapshotStore:
        def number(name: str, default: float) -> float:
            try:
                return max(0.0, float(env.get(name, default)))
            except ValueError:
                return default

        return cls(max_entries=int(number("GH_PR_AGENT_SNAPSHOT_ENTRIES", DEFAULT_ENTRIES)),
                   ttl_s=number("GH_PR_AGENT_SNAPSHOT_TTL", DEFAULT_TTL_S),
                   max_bytes=int(number("GH_PR_AGENT_SNAPSHOT_MAX_MB", DEFAULT_MAX_MB) * (1 << 20)))

    @property
    def enabled(self) -> bool:
        return self.max_entries > 0 and self.ttl_s > 0 and self.max_entry_bytes > 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def size_bytes(self) -> int:
        with self._lock:
            return self._bytes

    def epoch(self) -> int:
        """Take before fetching and pass to :meth:`put`: a write that lands meanwhile keeps the fetch out."""
        with self._lock:
            return self._seq

    def put(self, tool: str, scope: Mapping[str, Any], prs: Collection[str], value: Any, as_of: str, *,
            since: int | None = None, size: int | None = None) -> str | None:
        """Keep ``value``; its id, or None when it is not kept (disabled, too big, or a PR it reads was
        written to since ``since``)."""
        if not self.enabled:
            return None
        size = approx_size(value, self.max_entry_bytes) if size is None else size
        if size > self.max_entry_bytes:
            return None
        sid = secrets.token_urlsafe(12)
        entry = _Entry(tool, scope_hash(dict(scope)), frozenset(prs), value, as_of, self._clock() + self.ttl_s, size)
        with self._lock:
            if since is not None and any(self._dropped.get(p, -1) > since for p in entry.prs):
                return None
            self._expire()
            while self._entries and (len(self._entries) >= self.max_entries or self._bytes + size > self.max_bytes):
                self._remove(next(iter(self._entries)))  # least recently used first
            self._entries[sid] = entry
            self._bytes += size
        return sid

    def get(self, sid: str, tool: str, scope: Mapping[str, Any]) -> _Entry | None:
        """The live entry ``sid`` if it was made for this tool and scope, else None (the caller re-fetches)."""
        with self._lock:
            entry = self._entries.get(sid)
            if entry is None:
                return None
            if entry.expires <= self._clock():
                self._remove(sid)
                return None
            if entry.tool != tool or entry.scope != scope_hash(dict(scope)):
                return None
            self._entries.move_to_end(sid)
            return entry

    def invalidate(self, pr: str) -> int:
        """Drop every snapshot that reads PR ``pr`` (a :func:`pr_key`); how many were dropped."""
        with self._lock:
            self._seq += 1
            self._dropped[pr] = self._seq
            gone = [sid for sid, e in self._entries.items() if pr in e.prs]
            for sid in gone:
                self._remove(sid)
            if len(self._dropped) > 1024:  # forget old invalidations (a fetch never spans a thousand writes)
                oldest = sorted(self._dropped, key=self._dropped.__getitem__)[:512]
                for key in oldest:
                    del self._dropped[key]
            return len(gone)

    def _expire(self) -> None:
        now = self._clock()
        for sid in [sid for sid, e in self._entries.items() if e.expires <= now]:
            self._remove(sid)

    def _remove(self, sid: str) -> None:
        entry = self._entries.pop(sid)
        self._bytes -= entry.size


def fetch_or_reuse(store: SnapshotStore | None, tool: str, scope: Mapping[str, Any], snapshot_id: str | None,
                   prs: Collection[PRRef], fetch: Callable[[], T]) -> Held[T]:
    """The snapshot ``snapshot_id`` when this server still holds it for ``tool`` and ``scope``; else
    ``fetch()``, kept in ``store`` (the MCP server's; None in the CLI) for the next pages. ``scope`` must name
    everything the fetch depends on."""
    if store is not None and snapshot_id:
        entry = store.get(snapshot_id, tool, scope)
        if entry is not None:
            return Held(entry.value, entry.as_of, snapshot_id, True)
    since = store.epoch() if store is not None else None
    as_of = now_iso()
    value = fetch()
    sid = store.put(tool, scope, [pr_key(r) for r in prs], value, as_of, since=since) if store is not None else None
    return Held(value, as_of, sid, False)


AS_OF_DESCRIPTION = ("When GitHub was read for this answer (UTC, ISO 8601). Pages after the first that the same "
                     "MCP server answers are cut from that read (from_snapshot); call without cursor for fresh data.")
FROM_SNAPSHOT_DESCRIPTION = ("True when this page was cut from what an earlier call of this MCP server read at "
                             "as_of, without asking GitHub again (kept for minutes, and dropped when a write tool "
                             "touches the PR): changes made since are not shown. Call without cursor for fresh data.")
