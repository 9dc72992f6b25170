"""Hostile cursors against the MCP server's paging snapshots. A cursor's MAC key is in the source, so a
client can forge a cursor with a valid MAC; it can also read a snapshot id out of a cursor it was given.
Neither may ever page through another PR's snapshot: the server checks each snapshot's tool and scope
itself. A cursor altered without re-computing its MAC is refused."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import orjson

from pr_agent import paging
from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.test_mcp import mcp_session
from tests.e2e.worlds import big_world, comment, pr, thread

TOOL = "find_unresolved_comments"


def two_pr_world() -> dict[str, Any]:
    """PR 9 (135 unresolved threads) and PR 10 (120 threads of its own): both longer than a page."""
    w = big_world()
    others = [thread(f"PRRT_ten{i:04d}", "ten.py", 1 + i, [comment(60_000 + i, "zed", f"ten {i}", i)])
              for i in range(120)]
    w["repositories"][0]["pull_requests"].append(pr(10, others))
    return w


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def payload(cursor: str) -> dict[str, Any]:
    return orjson.loads(_unb64(cursor.partition(".")[0]))


def forge(cursor: str, **changes: Any) -> str:
    """``cursor`` with fields changed and a valid MAC (the key is public)."""
    data = orjson.dumps({**payload(cursor), **changes})
    return f"{_b64(data)}.{_b64(hmac.new(paging._KEY, data, hashlib.sha256).digest()[:12])}"


def tamper(cursor: str, **changes: Any) -> str:
    """``cursor`` with fields changed and its old MAC."""
    return f"{_b64(orjson.dumps({**payload(cursor), **changes}))}.{cursor.partition('.')[2]}"


def test_a_snapshot_id_never_crosses_to_another_pr(agent) -> None:
    a = agent(two_pr_world())

    async def body(c: Any) -> dict[str, Any]:
        async def call(args: dict[str, Any]) -> tuple[Any, int]:
            a.hub.reset_counters()
            result = await c.call_tool(TOOL, args)
            return result, sum(1 for r in list(a.hub.requests) if r.method != "CONNECT")

        nine = (await call({"pr": "acme/widgets#9"}))[0].structured_content
        ten = (await call({"pr": "acme/widgets#10"}))[0].structured_content
        stolen = payload(nine["nextCursor"])["n"]  # PR 9's snapshot id, read out of its cursor
        out = {"nine": nine, "ten": ten}
        out["legit"] = await call({"pr": "acme/widgets#10", "cursor": ten["nextCursor"]})
        out["forged"] = await call({"pr": "acme/widgets#10", "cursor": forge(ten["nextCursor"], n=stolen)})
        by_author = (await call({"pr": "acme/widgets#9", "sort": "by_author"}))[0].structured_content
        out["other_filters"] = await call({"pr": "acme/widgets#9", "sort": "by_author",
                                           "cursor": forge(by_author["nextCursor"], n=stolen)})
        out["tampered"] = await call({"pr": "acme/widgets#10", "cursor": tamper(ten["nextCursor"], n=stolen)})
        out["bad_type"] = await call({"pr": "acme/widgets#10", "cursor": forge(ten["nextCursor"], n=["x"])})
        return out

    got = mcp_session(a, body)
    assert payload(got["nine"]["nextCursor"])["n"] != payload(got["ten"]["nextCursor"])["n"]
    legit, legit_requests = got["legit"]
    assert legit_requests == 0 and legit.structured_content["from_snapshot"] is True
    forged, forged_requests = got["forged"]
    assert not forged.is_error and forged_requests > 0  # PR 9's snapshot was not used: PR 10 was read
    items = forged.structured_content["comments"]
    assert items and all(item_thread(i).startswith("PRRT_ten") for i in items)
    assert items == legit.structured_content["comments"] and forged.structured_content["from_snapshot"] is False
    filtered, filtered_requests = got["other_filters"]  # same PR, other filters: its own read, its own order
    assert not filtered.is_error and filtered_requests > 0 and filtered.structured_content["from_snapshot"] is False
    for key in ("tampered", "bad_type"):
        result, requests = got[key]
        assert result.is_error and result.structured_content["error"]["code"] == "invalid_cursor" and requests == 0
