"""What resolve_review_thread answers when GitHub's answer is not plain success, and what the CLI prints (issue 19
mutation survivors of tools/resolve.py). Real gh against fakehub; GitHub's error answers are injected as faults."""

from __future__ import annotations

from typing import Any

import orjson

from tests.e2e.test_resolve import thread_of
from tests.e2e.worlds import feedback_world
from tests.fakehub import Fault

PR = "acme/widgets#7"


def graphql_answer(operation: str, data: dict[str, Any] | None, errors: list[dict[str, Any]]) -> Fault:
    """GitHub answering a mutation with HTTP 200 and GraphQL errors (beside data, or with none)."""
    return Fault(match=f"graphql:{operation}", status=200, body={"data": data, "errors": errors}, times=1)


def test_a_refused_resolve_names_githubs_errors_and_keeps_ten(agent) -> None:
    a = agent(feedback_world())
    errors = [{"type": "FORBIDDEN", "message": f"Resource not accessible by integration ({i})",
               "path": ["resolveReviewThread"], "locations": [{"line": 2, "column": 3}]} for i in range(12)]
    a.hub.add_fault(graphql_answer("ResolveThread", {"resolveReviewThread": None}, errors))
    proc = a.cli("resolve", PR, "--thread", "PRRT_human", "--json")
    assert proc.returncode == 3, proc.stderr
    err = orjson.loads(proc.stdout)["error"]
    assert err["code"] == "graphql_error"
    assert err["message"] == "GitHub's GraphQL API returned an error: Resource not accessible by integration (0)"
    assert err["details"]["graphql_errors"] == [
        {"type": "FORBIDDEN", "message": f"Resource not accessible by integration ({i})",
         "path": ["resolveReviewThread"]} for i in range(10)]


def test_a_reply_github_refused_stops_before_resolving(agent) -> None:
    a = agent(feedback_world())
    a.hub.add_fault(graphql_answer("ReplyToThread", {"addPullRequestReviewThreadReply": None},
                                   [{"type": "UNPROCESSABLE", "message": "Body is too long"}]))
    proc = a.cli("resolve", PR, "--thread", "PRRT_human", "--reply", "Renamed it.", "--json")
    assert proc.returncode == 3, proc.stderr
    err = orjson.loads(proc.stdout)["error"]
    assert (err["code"], err["details"]["graphql_errors"]) == (
        "graphql_error", [{"type": "UNPROCESSABLE", "message": "Body is too long"}])
    assert a.hub.find_requests(operation="ResolveThread") == []
    assert thread_of(a.hub, "PRRT_human")["resolved"] is False


def test_a_reply_posted_beside_errors_is_posted_and_the_thread_resolved(agent) -> None:
    """GitHub's data shows the reply (an id): errors beside it (a field it could not read) are no failure."""
    a = agent(feedback_world())
    posted = {"id": "PRRC_reply1", "fullDatabaseId": "9001",
              "url": "https://github.com/acme/widgets/pull/7#discussion_r9001"}
    a.hub.add_fault(graphql_answer("ReplyToThread", {"addPullRequestReviewThreadReply": {"comment": posted}},
                                   [{"type": "FORBIDDEN", "message": "Resource not accessible", "path": ["x"]}]))
    out = a.json("resolve", PR, "--thread", "PRRT_human", "--reply", "Renamed it.")
    assert (out["ok"], out["replied"], out["message"]) == (True, True, "Reply posted and thread resolved.")
    assert out["reply_comment"] == {"comment_id": 9001, "node_id": "PRRC_reply1", "url": posted["url"]}
    assert thread_of(a.hub, "PRRT_human")["resolved"] is True


def test_a_comment_id_on_a_pr_that_does_not_exist_is_pr_not_found_as_a_thread_id_is(agent) -> None:
    a = agent(feedback_world())
    errors = []
    for how in (("--comment", "1002"), ("--thread", "PRRT_human")):
        proc = a.cli("resolve", "acme/widgets#99", *how, "--json")
        assert proc.returncode == 3, proc.stderr
        errors.append(orjson.loads(proc.stdout)["error"])
    by_comment, by_thread = errors
    assert (by_comment["code"], by_comment["details"]["pr"]) == ("pr_not_found", "acme/widgets#99")
    assert by_comment["repair"]["command"].startswith("gh pr list")
    assert {k: by_comment[k] for k in ("code", "message", "suggestion", "repair")} == {
        k: by_thread[k] for k in ("code", "message", "suggestion", "repair")}


def test_an_answer_without_the_pull_request_is_pr_not_found(agent) -> None:
    a = agent(feedback_world())
    a.hub.add_fault(Fault(match="graphql:ThreadScan", status=200, times=1,
                          body={"data": {"viewer": {"login": "octocat"}, "repository": {"pullRequest": None}}}))
    proc = a.cli("resolve", PR, "--comment", "1002", "--json")
    assert proc.returncode == 3, proc.stderr
    assert orjson.loads(proc.stdout)["error"]["code"] == "pr_not_found"


def test_with_both_ids_the_thread_wins_unless_the_comment_is_preferred(agent) -> None:
    """PRRT_human is the thread; comment 1031 is in PRRT_rabbit."""
    a = agent(feedback_world())
    both = ("resolve", PR, "--thread", "PRRT_human", "--comment", "1031")
    assert a.json(*both)["thread_id"] == "PRRT_human"
    assert a.json(*both, "--prefer", "comment")["thread_id"] == "PRRT_rabbit"
    assert a.json("resolve", PR, "--thread", "PRRT_copilot", "--prefer", "comment")["thread_id"] == "PRRT_copilot"


def test_a_comment_of_a_short_thread_costs_one_scan_and_the_resolve(agent) -> None:
    """Every comment of a thread of up to 100 is on the scan's page: no second look-up of the thread."""
    a = agent(feedback_world())
    out = a.json("resolve", PR, "--comment", "1031")
    assert out["thread_id"] == "PRRT_rabbit" and out["ok"] is True
    assert [r.operation for r in a.hub.requests if r.operation] == ["ThreadScan", "ResolveThread"]


def test_the_cli_says_what_happened_to_the_thread(agent) -> None:
    a = agent(feedback_world())
    env = a.env(NO_COLOR="1")
    first = a.cli("resolve", PR, "--thread", "PRRT_human", "--reply", "Renamed it.", env=env)
    assert first.returncode == 0, first.stderr
    reply = thread_of(a.hub, "PRRT_human")["comments"][-1]
    assert first.stdout.splitlines()[0] == f"{PR}: thread PRRT_human resolved. Reply posted and thread resolved."
    assert first.stdout.splitlines()[1].startswith("reply: https://") and str(reply["id"]) in first.stdout
    again = a.cli("resolve", PR, "--thread", "PRRT_human", env=env)
    assert again.stdout == f"{PR}: thread PRRT_human already resolved. Thread was already resolved.\n"


def test_any_other_refusal_of_the_thread_scan_reaches_the_caller_as_itself(agent) -> None:
    a = agent(feedback_world())
    a.hub.add_fault(Fault(match="graphql:ThreadScan", status=403, times=1,
                          body={"message": "Resource not accessible by integration"}))
    proc = a.cli("resolve", PR, "--comment", "1002", "--json")
    assert proc.returncode == 3, proc.stderr
    err = orjson.loads(proc.stdout)["error"]
    assert err["code"] == "forbidden" and "Resource not accessible by integration" in orjson.dumps(err).decode()
    assert thread_of(a.hub, "PRRT_human")["resolved"] is False
