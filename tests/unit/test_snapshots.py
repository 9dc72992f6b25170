"""The MCP server's paging snapshots: LRU, TTL, size budget, invalidation, scope checks, threads."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import pytest

from pr_agent.errors import PrAgentError
from pr_agent.paging import decode_cursor, encode_cursor, read_cursor
from pr_agent.refs import PRRef
from pr_agent.snapshots import SnapshotStore, approx_size, fetch_or_reuse, pr_key

SCOPE = {"pr": "github.com/a/b#1", "sort": "chronological"}
PR = "github.com/a/b#1"


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_put_get_and_scope_check() -> None:
    store = SnapshotStore()
    sid = store.put("t", SCOPE, [PR], {"x": 1}, "2026-01-01T00:00:00Z")
    assert sid
    entry = store.get(sid, "t", SCOPE)
    assert entry is not None and entry.value == {"x": 1} and entry.as_of == "2026-01-01T00:00:00Z"
    # another tool, another scope (PR or filters) or an unknown id: never served
    assert store.get(sid, "other", SCOPE) is None
    assert store.get(sid, "t", {**SCOPE, "pr": "github.com/a/b#2"}) is None
    assert store.get(sid, "t", {**SCOPE, "sort": "by_file"}) is None
    assert store.get("nope", "t", SCOPE) is None
    assert store.get(sid, "t", SCOPE) is not None  # a mismatch does not drop the real owner's entry


def test_ids_are_random_and_distinct() -> None:
    store = SnapshotStore(max_entries=100)
    ids = {store.put("t", SCOPE, [PR], i, "T") for i in range(50)}
    assert len(ids) == 50 and all(isinstance(i, str) and len(i) >= 16 for i in ids)


def test_lru_evicts_least_recently_used() -> None:
    store = SnapshotStore(max_entries=3)
    a, b, c = (store.put("t", SCOPE, [PR], n, "T") for n in "abc")
    assert a and b and c
    assert store.get(a, "t", SCOPE)  # a is now the most recently used
    d = store.put("t", SCOPE, [PR], "d", "T")
    assert d and len(store) == 3
    assert store.get(b, "t", SCOPE) is None  # b was the least recently used
    assert all(store.get(s, "t", SCOPE) for s in (a, c, d))


def test_ttl_expires_entries() -> None:
    clock = Clock()
    store = SnapshotStore(ttl_s=600, clock=clock)
    sid = store.put("t", SCOPE, [PR], "v", "T")
    assert sid
    clock.t += 599
    assert store.get(sid, "t", SCOPE) is not None
    clock.t += 2
    assert store.get(sid, "t", SCOPE) is None
    assert len(store) == 0 and store.size_bytes == 0


def test_size_budget() -> None:
    store = SnapshotStore(max_bytes=100_000)  # one entry may use half: 50 000
    assert store.put("t", SCOPE, [PR], "x" * 60_000, "T") is None  # too big: not kept at all
    assert len(store) == 0
    ids = [store.put("t", SCOPE, [PR], "y" * 30_000, "T") for _ in range(4)]
    assert all(ids)
    # the total stays within budget: older entries were evicted to make room
    assert store.size_bytes <= 100_000 and len(store) == 3
    assert store.get(ids[0], "t", SCOPE) is None and store.get(ids[-1], "t", SCOPE) is not None


def test_approx_size_counts_nested_data_and_stops_early() -> None:
    @dataclass
    class Box:
        items: list[dict[str, Any]] = field(default_factory=list)

    box = Box([{"body": "z" * 1000} for _ in range(100)])
    size = approx_size(box)
    assert 100_000 < size < 200_000
    assert approx_size(box, limit=5_000) < 10_000  # gave up counting past the limit
    shared: list[Any] = ["s" * 1000]
    assert approx_size([shared, shared]) < 2 * approx_size(shared)  # an object is counted once
    loop: list[Any] = []
    loop.append(loop)
    assert approx_size(loop) > 0  # cycles end


def test_invalidate_drops_only_that_prs_snapshots() -> None:
    store = SnapshotStore()
    one = store.put("t", SCOPE, [PR], "1", "T")
    two = store.put("t", {**SCOPE, "pr": "github.com/a/b#2"}, ["github.com/a/b#2"], "2", "T")
    both = store.put("s", SCOPE, [PR, "github.com/a/b#3"], "3", "T")
    assert one and two and both
    assert store.invalidate(PR) == 2
    assert store.get(one, "t", SCOPE) is None and store.get(both, "s", SCOPE) is None
    assert store.get(two, "t", {**SCOPE, "pr": "github.com/a/b#2"}) is not None


def test_fetch_racing_a_write_is_not_kept() -> None:
    store = SnapshotStore()
    since = store.epoch()
    store.invalidate(PR)  # a write landed while the fetch was running
    assert store.put("t", SCOPE, [PR], "stale", "T", since=since) is None
    assert store.put("t", SCOPE, ["github.com/a/b#2"], "other PR", "T", since=since)  # another PR: kept
    assert store.put("t", SCOPE, [PR], "fresh", "T", since=store.epoch())


def test_disabled_by_zero_ttl_or_entries() -> None:
    assert SnapshotStore.from_env({"GH_PR_AGENT_SNAPSHOT_TTL": "0"}).put("t", SCOPE, [PR], 1, "T") is None
    assert SnapshotStore.from_env({"GH_PR_AGENT_SNAPSHOT_ENTRIES": "0"}).put("t", SCOPE, [PR], 1, "T") is None
    store = SnapshotStore.from_env({"GH_PR_AGENT_SNAPSHOT_TTL": "bad", "GH_PR_AGENT_SNAPSHOT_MAX_MB": "1"})
    assert store.ttl_s == 600 and store.max_bytes == 1 << 20


def test_fetch_or_reuse() -> None:
    ref = PRRef("a", "b", 1)
    calls: list[int] = []

    def fetch() -> dict[str, int]:
        calls.append(1)
        return {"n": len(calls)}

    cli = fetch_or_reuse(None, "t", SCOPE, None, [ref], fetch)  # the CLI: no store, nothing kept
    assert cli.snapshot_id is None and not cli.from_snapshot and cli.as_of.endswith("Z")
    store = SnapshotStore()
    first = fetch_or_reuse(store, "t", SCOPE, None, [ref], fetch)
    assert first.snapshot_id and not first.from_snapshot and len(calls) == 2
    again = fetch_or_reuse(store, "t", SCOPE, first.snapshot_id, [ref], fetch)
    assert again.from_snapshot and again.value is first.value and again.as_of == first.as_of and len(calls) == 2
    other = fetch_or_reuse(store, "t", {**SCOPE, "sort": "x"}, first.snapshot_id, [ref], fetch)
    assert not other.from_snapshot and len(calls) == 3  # another scope: re-fetched, never the other's data
    store.invalidate(pr_key(ref))
    after = fetch_or_reuse(store, "t", SCOPE, first.snapshot_id, [ref], fetch)
    assert not after.from_snapshot and len(calls) == 4 and after.snapshot_id != first.snapshot_id


def test_pr_key_includes_host() -> None:
    assert pr_key(PRRef("Acme", "W", 1)) == "github.com/acme/w#1"
    assert pr_key(PRRef("acme", "w", 1, "ghe.example.com")) == "ghe.example.com/acme/w#1"


def test_thread_safety_under_concurrent_use() -> None:
    store = SnapshotStore(max_entries=8, max_bytes=1 << 20)
    errors: list[BaseException] = []
    start = threading.Barrier(16)

    def worker(n: int) -> None:
        try:
            start.wait()
            for i in range(300):
                scope = {**SCOPE, "pr": f"github.com/a/b#{n % 4}"}
                sid = store.put("t", scope, [scope["pr"]], {"n": n, "i": i, "body": "b" * 500}, "T")
                got = store.get(sid, "t", scope) if sid else None
                if got is not None:
                    assert got.value["n"] == n and got.value["i"] == i  # never another call's data
                if i % 50 == 0:
                    store.invalidate(f"github.com/a/b#{(n + 1) % 4}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(store) <= 8 and 0 <= store.size_bytes <= 1 << 20
    with store._lock:  # the byte count matches what is held
        assert sum(e.size for e in store._entries.values()) == store._bytes


def test_cursor_carries_snapshot_id_under_the_mac() -> None:
    cur = encode_cursor("t", SCOPE, [1], snapshot="abc123")
    assert read_cursor(cur, "t", SCOPE).snapshot == "abc123"
    assert decode_cursor(cur, "t", SCOPE) == [1]
    old = encode_cursor("t", SCOPE, [1])  # no snapshot: as every cursor before snapshots (v1), still valid
    assert read_cursor(old, "t", SCOPE).snapshot is None
    body, _, mac = cur.partition(".")
    import base64

    payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).replace(b"abc123", b"abc124")
    forged = base64.urlsafe_b64encode(payload).decode().rstrip("=") + "." + mac
    with pytest.raises(PrAgentError) as exc:
        read_cursor(forged, "t", SCOPE)
    assert exc.value.code == "invalid_cursor"
