"""Paging snapshots in the MCP server: the SDK client over stdio against `python -m pr_agent mcp`, real gh,
fakehub counting requests. Later pages of a paged tool are cut from the first call's read with no GitHub
request; a write through the server, an expired snapshot or a cursor from another process re-fetches."""

from __future__ import annotations

import time
from typing import Any

import orjson

from pr_agent.tools.comments_budget import thread_id as item_thread
from tests.e2e.ci_worlds import FAST, many_failures_world
from tests.e2e.test_mcp import mcp_session
from tests.e2e.worlds import big_world

PR = "acme/widgets#9"
EXPECTED = sorted(f"PRRT_big{i:04d}" for i in range(150) if i % 10 != 9)


def api_requests(hub: Any) -> int:
    """Requests to GitHub (gh >= 2.8x also tries telemetry through the proxy: CONNECT, not GitHub)."""
    return sum(1 for r in list(hub.requests) if r.method != "CONNECT")


def cli_pages(a: Any, tool: str, *args: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        proc = a.cli(tool, *args, *(["--cursor", cursor] if cursor else []), "--json", env=env)
        assert proc.returncode in (0, 1), proc.stderr
        pages.append(orjson.loads(proc.stdout))
        cursor = pages[-1].get("nextCursor")
        if not cursor:
            return pages


# the CLI's page size, so pages line up (over MCP the default is 20); items are compared by id, since over MCP
# an item's resolve is its tool call only (no shell twin)
MCP_ARGS = {"pr": PR, "page_size": 50}


def ids(items: list[dict[str, Any]]) -> list[Any]:
    return [(item["type"], item["id"]) for item in items]


async def mcp_pages(c: Any, hub: Any, tool: str, args: dict[str, Any], cursor: str | None = None
                    ) -> list[tuple[dict[str, Any], int]]:
    """Every page from ``cursor`` on, each with the GitHub requests its call made."""
    out: list[tuple[dict[str, Any], int]] = []
    while True:
        hub.reset_counters()
        result = await c.call_tool(tool, {**args, **({"cursor": cursor} if cursor else {})})
        assert not result.is_error, result.content
        out.append((result.structured_content, api_requests(hub)))
        cursor = result.structured_content.get("nextCursor")
        if not cursor:
            return out


def test_later_comment_pages_come_from_the_snapshot(agent) -> None:
    a = agent(big_world())
    cli = cli_pages(a, "comments", PR)

    async def body(c: Any) -> list[tuple[dict[str, Any], int]]:
        return await mcp_pages(c, a.hub, "find_unresolved_comments", MCP_ARGS)

    pages = mcp_session(a, body)
    assert len(pages) == len(cli) == 3
    first, first_requests = pages[0]
    assert first_requests > 0 and first["from_snapshot"] is False
    for page, requests in pages[1:]:
        assert requests == 0  # cut from the first call's read
        assert page["from_snapshot"] is True and page["as_of"] == first["as_of"]
    union = [item for page, _ in pages for item in page["comments"]]
    assert ids(union) == [i for page in cli for i in ids(page["comments"])]  # the same items, in the same order
    assert sorted(item_thread(item) for item in union) == EXPECTED
    assert all(p["from_snapshot"] is False for p in cli)  # the CLI keeps nothing between processes
    text = a.cli("comments", PR, "--cursor", cli[0]["nextCursor"])
    assert text.returncode == 0 and "from the snapshot" not in text.stdout


def test_a_write_through_the_server_drops_the_snapshot(agent) -> None:
    a = agent(big_world())

    async def body(c: Any) -> dict[str, Any]:
        first = (await c.call_tool("find_unresolved_comments", MCP_ARGS)).structured_content
        shown = {item_thread(item) for item in first["comments"]}
        target = next(t for t in reversed(EXPECTED) if t not in shown)  # a thread of a later page
        resolved = await c.call_tool("resolve_review_thread", {"pr": PR, "thread_id": target,
                                                                "when_reviewer_spoke_last": "resolve"})
        assert not resolved.is_error, resolved.content
        rest = await mcp_pages(c, a.hub, "find_unresolved_comments", MCP_ARGS, first["nextCursor"])
        return {"first": first, "target": target, "rest": rest}

    got = mcp_session(a, body)
    (second, requests), *later = got["rest"]
    assert requests > 0 and second["from_snapshot"] is False  # re-fetched after the write
    assert second["total_unresolved"] == got["first"]["total_unresolved"] - 1 == 134
    ids = {item_thread(item) for page, _ in got["rest"] for item in page["comments"]}
    assert got["target"] not in ids
    assert all(r == 0 and page["from_snapshot"] for page, r in later)  # the re-fetch became the new snapshot
    seen = [item_thread(item) for item in got["first"]["comments"]] + sorted(ids)
    assert sorted(seen) == [t for t in EXPECTED if t != got["target"]]


def test_an_expired_snapshot_is_read_again(agent) -> None:
    a = agent(big_world())
    cli = cli_pages(a, "comments", PR)

    async def body(c: Any) -> list[tuple[dict[str, Any], int]]:
        a.hub.reset_counters()
        first = (await c.call_tool("find_unresolved_comments", MCP_ARGS)).structured_content
        time.sleep(1.5)  # past GH_PR_AGENT_SNAPSHOT_TTL
        return [(first, 0), *await mcp_pages(c, a.hub, "find_unresolved_comments", MCP_ARGS, first["nextCursor"])]

    pages = mcp_session(a, body, env=a.env(GH_PR_AGENT_SNAPSHOT_TTL="1"))
    second, requests = pages[1]
    assert requests > 0 and second["from_snapshot"] is False and second["as_of"] >= pages[0][0]["as_of"]
    assert [ids(p["comments"]) for p, _ in pages] == [ids(p["comments"]) for p in cli]


def test_cursors_from_another_process_still_work(agent) -> None:
    a = agent(big_world())
    cli = cli_pages(a, "comments", PR)

    async def first_page(c: Any) -> dict[str, Any]:
        return (await c.call_tool("find_unresolved_comments", MCP_ARGS)).structured_content

    old_server = mcp_session(a, first_page)  # a server that has exited since (its snapshot is gone)

    async def body(c: Any) -> dict[str, Any]:
        from_cli = await mcp_pages(c, a.hub, "find_unresolved_comments", MCP_ARGS, cli[0]["nextCursor"])
        from_old = await mcp_pages(c, a.hub, "find_unresolved_comments", MCP_ARGS, old_server["nextCursor"])
        return {"cli": from_cli, "old": from_old}

    got = mcp_session(a, body)
    for key in ("cli", "old"):
        (page, requests), *later = got[key]
        assert requests > 0 and page["from_snapshot"] is False  # re-fetched, and still the right page
        assert [ids(p["comments"]) for p, _ in got[key]] == [ids(p["comments"]) for p in cli[1:]]
        assert all(r == 0 for _, r in later)
    # and an MCP cursor in the CLI: the snapshot id is ignored there
    proc = a.cli("comments", PR, "--cursor", old_server["nextCursor"], "--json")
    assert proc.returncode == 0 and ids(orjson.loads(proc.stdout)["comments"]) == ids(cli[1]["comments"])


def test_later_check_pages_come_from_the_snapshot(agent) -> None:
    a = agent(many_failures_world(35))
    env = a.env(**FAST)
    cli = cli_pages(a, "checks", "acme/widgets#7", env=env)

    async def body(c: Any) -> list[tuple[dict[str, Any], int]]:
        return await mcp_pages(c, a.hub, "get_failing_tests", {"pr": "acme/widgets#7", "page_size": 30})

    pages = mcp_session(a, body, env=env)
    assert len(pages) == len(cli) == 2
    (first, first_requests), (second, second_requests) = pages
    assert first_requests > 0 and second_requests == 0  # the job log is not downloaded again
    assert second["from_snapshot"] is True and second["as_of"] == first["as_of"] and "wait_info" not in second
    assert [f["test_name"] for p, _ in pages for f in p["failures"]] == [f["test_name"] for p in cli
                                                                         for f in p["failures"]]
    assert [{k: v for k, v in c.items() if k != "full_log_command"} for c in cli[1]["failed_checks"]] \
        == second["failed_checks"]  # over MCP the full log is the resource, not a CLI command
    assert second["instructions"] == cli[1]["instructions"]
