"""fakehub without gh: scenario checking, every REST route against the OpenAPI subset, HTTP details."""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any

import pytest

from tests.fakehub import DEMO_SCENARIO, FakeHub, Fault, ScenarioError, World
from tests.fakehub import rest as rest_routes
from tests.fakehub.ext_ci_rest import ROUTES as CI_ROUTES
from tests.fakehub.ext_ci_runs import ROUTES as RUN_ROUTES
from tests.fakehub.ext_merge_rest import ROUTES as MERGE_ROUTES
from tests.fakehub.ext_stack_rest import ROUTES as STACK_ROUTES
from tests.fakehub.schemas import graphql_schema, operation_keys, validate_response

TOKEN = {"Authorization": "token x"}


def call(hub: FakeHub, method: str, target: str, body: Any = None, headers: dict[str, str] | None = None,
         raw: bytes | None = None) -> tuple[int, dict[str, str], Any]:
    """One request through the hub as a proxy (absolute-form target), like gh sends it."""
    conn = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=10)
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    url = target if target.startswith("http") else f"http://api.github.localhost{target}"
    conn.request(method, url, body=data, headers={**TOKEN, **(headers or {})})
    resp = conn.getresponse()
    payload = resp.read()
    conn.close()
    try:
        parsed = json.loads(payload)
    except ValueError:
        parsed = payload
    return resp.status, dict(resp.getheaders()), parsed


def gql(hub: FakeHub, query: str, **variables: Any) -> Any:
    return call(hub, "POST", "/graphql", {"query": query, "variables": variables})[2]


# ---------------------------------------------------------------- scenarios
@pytest.mark.parametrize(("scenario", "message"), [
    ({}, "scenario: 'viewer' is required"),
    ({"viewer": {"login": "o"}, "colour": 1}, "scenario: unknown key(s) colour"),
    ({"viewer": {"login": "o"}, "repositories": [{"owner": "a", "name": "b", "pull_requests": [
        {"number": 1, "threads": [{"comments": [{"author": "x", "body": "y", "mood": "grumpy"}]}]}]}]},
     "repositories[0].pull_requests[0].threads[0].comments[0]: unknown key(s) mood"),
    ({"viewer": {"login": "o"}, "repositories": [{"owner": "a", "name": "b", "pull_requests": [
        {"number": 1, "state": "open"}]}]}, "repositories[0].pull_requests[0].state: 'open' is not one of"),
    ({"viewer": {"login": "o"}, "repositories": [{"owner": "a", "name": "b", "pull_requests": [
        {"number": 1, "threads": [{"comments": []}]}]}]}, "a thread needs at least one comment"),
    ({"viewer": {"login": "o"}, "repositories": [{"owner": "a", "name": "b", "pull_requests": [
        {"number": 1, "issue_comments": [{"id": 5, "author": "x", "body": "1"},
                                         {"id": 5, "author": "x", "body": "2"}]}]}]},
     "duplicate issue_comment id 5"),
    ({"viewer": {"login": "o"}, "repositories": [{"owner": "a", "name": "b", "pull_requests": [
        {"number": "1"}]}]}, 'repositories[0].pull_requests[0].number: expected int, got "1"'),
    ({"viewer": {"login": "o"}, "repositories": [{"owner": "a", "name": "b", "pull_requests": [
        {"number": 1, "threads": [{"comments": [{"author": "x", "body": "y", "review": 9}]}]}]}]},
     "no review with id 9"),
])
def test_bad_scenarios_say_where(scenario: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError) as err:
        World(scenario)
    assert message in str(err.value)


def test_defaults_are_deterministic_and_realistic() -> None:
    a, b = World(DEMO_SCENARIO), World(json.loads(DEMO_SCENARIO.read_text()))
    assert a.data == b.data
    pr = a.pull_request("acme/widgets", 42)
    bob = pr["threads"][1]["comments"][0]
    implicit = a.review(bob["review"])
    assert implicit["implicit"] and implicit["state"] == "COMMENTED" and implicit["body"] == ""
    assert a.users["coderabbitai"]["rest_login"] == "coderabbitai[bot]"
    assert a.users["acme"]["type"] == "Organization"
    pending = a.pending_review(a.pull_request("acme/widgets", 43))
    assert pending is not None and pending["author"] == "octocat" and pending["submitted_at"] is None
    root = pr["threads"][0]["comments"][0]
    assert a["repositories"][0]["name"] == "widgets" and a.comment(1900000101) is a.comment(root["node_id"]) is root


def test_pinned_graphql_schema_is_githubs() -> None:
    schema = graphql_schema()
    assert schema is graphql_schema()  # cached per process
    thread = schema.type_map["PullRequestReviewThread"]
    assert {"isResolved", "viewerCanResolve", "subjectType"} <= set(thread.fields)  # type: ignore[attr-defined]


# ---------------------------------------------------------------- REST schema conformance
def test_every_route_has_a_pinned_schema() -> None:
    assert set(rest_routes.ROUTES) <= operation_keys()


def test_every_served_rest_response_validates() -> None:
    with FakeHub(DEMO_SCENARIO) as hub:
        repo = "/repos/acme/widgets"
        reads = ["/", "/user", "/rate_limit", repo, f"{repo}/pulls/42", f"{repo}/pulls/43",
                 f"{repo}/pulls/42/comments?per_page=3&page=2", f"{repo}/pulls/42/comments?sort=updated&direction=desc",
                 f"{repo}/pulls/comments/1900000107", f"{repo}/pulls/comments/1900000109",
                 f"{repo}/pulls/42/reviews", f"{repo}/pulls/43/reviews", f"{repo}/issues/42/comments",
                 f"/api/v3{repo}/issues/42/comments?since=2026-11-20T11:00:00Z"]
        for target in reads:
            status, _, _ = call(hub, "GET", target)
            assert status == 200, target
        assert call(hub, "POST", f"{repo}/pulls/42/comments/1900000109/replies", {"body": "ok"})[0] == 201
        assert call(hub, "POST", f"{repo}/issues/42/comments", {"body": "ok"})[0] == 201
        assert hub.schema_violations == [] and hub.unhandled == [] and hub.errors == []
        # the merge-readiness routes are exercised in test_ext_merge.py, the stack ones in test_ext_stack.py,
        # the CI ones in test_ext_ci.py, the runs and artifacts ones in test_ext_ci_runs.py
        others = set(MERGE_ROUTES) | set(STACK_ROUTES) | set(CI_ROUTES) | set(RUN_ROUTES)
        assert {r.route for r in hub.requests} == set(rest_routes.ROUTES) - others


def test_schema_violations_are_recorded_but_sent() -> None:
    scenario = json.loads(DEMO_SCENARIO.read_text())
    scenario["repositories"][0]["pull_requests"][0]["rest_extra"] = {"state": "sideways"}
    with FakeHub(scenario) as hub:
        status, _, body = call(hub, "GET", "/repos/acme/widgets/pulls/42")
        assert status == 200 and body["state"] == "sideways"
        [violation] = hub.schema_violations
        assert violation.operation == "GET /repos/{owner}/{repo}/pulls/{pull_number}"
        assert violation.errors == ["state: 'sideways' is not one of ['open', 'closed']"]
    assert validate_response("GET /user", {"login": 1}) != []


# ---------------------------------------------------------------- HTTP details
def test_headers_links_and_ghes_prefix() -> None:
    with FakeHub(DEMO_SCENARIO) as hub:
        status, headers, _ = call(hub, "GET", "/api/v3/repos/acme/widgets/issues/42/comments?per_page=2&page=2")
        assert status == 200 and headers["Content-Type"] == "application/json; charset=utf-8"
        for name in ("X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Used", "X-Ratelimit-Reset",
                     "X-Ratelimit-Resource", "X-Github-Request-Id"):
            assert headers[name]
        base = "http://api.github.localhost/api/v3/repos/acme/widgets/issues/42/comments?per_page=2&page="
        assert headers["Link"] == (f'<{base}1>; rel="prev", <{base}3>; rel="next", <{base}3>; rel="last", '
                                   f'<{base}1>; rel="first"')
        status, headers, body = call(hub, "POST", "/api/graphql", {"query": "{viewer{login}}"})
        assert body == {"data": {"viewer": {"login": "octocat"}}} and headers["X-Ratelimit-Resource"] == "graphql"
        # origin-form requests work too
        conn = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=10)
        conn.request("GET", "/user", headers=TOKEN)
        assert json.loads(conn.getresponse().read())["login"] == "octocat"
        used = int(call(hub, "GET", "/rate_limit")[2]["resources"]["core"]["used"])
        assert used == 2  # the two counted REST calls above; /rate_limit itself is free


def test_auth_connect_and_chunked_bodies() -> None:
    with FakeHub(DEMO_SCENARIO) as hub:
        assert call(hub, "GET", "/user", headers={"Authorization": ""})[:3:2] == (
            401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
        assert call(hub, "GET", "/user", headers={"Authorization": "token bad-token"})[0] == 401
        with socket.create_connection(("127.0.0.1", hub.port), timeout=10) as sock:
            sock.sendall(b"CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n")
            assert sock.recv(200).startswith(b"HTTP/1.1 403 fakehub does not serve api.github.com:443: it serves only")
        body = json.dumps({"body": "chunked hello"}).encode()
        chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
        status, _, made = call(hub, "POST", "/repos/acme/widgets/issues/42/comments", raw=chunked,
                               headers={"Transfer-Encoding": "chunked"})
        assert status == 201 and made["body"] == "chunked hello"
        assert hub.requests[0].method == "GET" and hub.find_requests(method="CONNECT")[0].status == 403


def test_graphql_unit_behaviour() -> None:
    with FakeHub(DEMO_SCENARIO) as hub:
        q = ('{ repository(owner:"acme",name:"widgets"){ pullRequest(number:42){'
             ' reviewThreads(first:3){ edges{ cursor } } } } }')
        edges = gql(hub, q)["data"]["repository"]["pullRequest"]["reviewThreads"]["edges"]
        assert [e["cursor"] for e in edges] == ["Y3Vyc29yOnYyOjA=", "Y3Vyc29yOnYyOjE=", "Y3Vyc29yOnYyOjI="]
        bad = gql(hub, '{ repository(owner:"acme",name:"widgets"){ pullRequest(number:42){ '
                       'reviewThreads(first:3, after:"nope"){ totalCount } } } }')
        assert bad["errors"][0]["message"] == "`nope` does not appear to be a valid cursor."
        # the viewer's pending reply is visible to the viewer, with state PENDING
        reply = gql(hub, "mutation($t:ID!){ addPullRequestReviewThreadReply(input:{pullRequestReviewThreadId:$t, "
                         "body:\"wip\"}){ comment{ state pullRequestReview{ state } } } }", t="PRRT_kwDOKdemo0101")
        assert reply["data"]["addPullRequestReviewThreadReply"]["comment"] == {
            "state": "PENDING", "pullRequestReview": {"state": "PENDING"}}
        status, _, rest_list = call(hub, "GET", "/repos/acme/widgets/pulls/43/comments")
        assert status == 200 and [c["body"] for c in rest_list] == ["Does this need the `urllib3` bump too?"]
        unknown = gql(hub, 'mutation{ addComment(input:{subjectId:"PR_x", body:"hi"}){ clientMutationId } }')
        assert unknown["errors"][0]["type"] == "NOT_FOUND"
        assert hub.requests[-1].operation is None and hub.requests[-2].operation is None


def test_fault_matching_rules() -> None:
    f = Fault(match="graphql:Resolve.*", times=None)
    assert f.matches("POST", "/graphql", "", "ResolveThread", []) and not f.matches("POST", "/graphql", "", "Q", [])
    assert Fault(match="graphql:resolveReviewThread").matches("POST", "/graphql", "", None, ["resolveReviewThread"])
    assert Fault(match=r"comments\?.*page=2").matches("GET", "/repos/a/b/pulls/1/comments", "per_page=100&page=2",
                                                      None, [])
    assert not Fault(match="graphql").matches("GET", "/repos/a/graphql-x", "", None, [])
    once = Fault(times=2)
    assert once.claim() and once.claim() and not once.claim() and once.expired
    with pytest.raises(ValueError):
        Fault(kind="meteor")
