"""fakehub driven by the real gh binaries (both versions via `gh_path`): GraphQL reads, pagination,
GitHub-shaped errors, REST pagination, and writes that change `hub.world`."""

from __future__ import annotations

import json
from typing import Any

from tests.fakehub import DEMO_SCENARIO, FakeHub

PR42 = 'repository(owner:"acme",name:"widgets"){ pullRequest(number:42){ %s } }'
THREADS_QUERY = """
query Threads($owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated isCollapsed path line originalLine startLine diffSide subjectType
          viewerCanResolve viewerCanUnresolve viewerCanReply resolvedBy { login }
          comments(first: 100) {
            totalCount
            nodes {
              id fullDatabaseId databaseId url body createdAt authorAssociation outdated diffHunk state
              author { login __typename } replyTo { id fullDatabaseId } pullRequestReview { id state }
              isMinimized minimizedReason reactionGroups { content reactors { totalCount } }
            }
          }
        }
      }
    }
  }
}"""


def json_values(text: str) -> list[Any]:
    """Every JSON value in `text`: gh 2.23 prints pages back to back (`[..][..]`), newer gh merges them."""
    decoder, values, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        value, i = decoder.raw_decode(text, i)
        values.append(value)
    return values


def gh_json(hub: FakeHub, gh: str, *args: str, input: str | None = None) -> Any:
    proc = hub.run_gh(gh, *args, input=input)
    assert proc.returncode == 0, f"gh {' '.join(args)} exited {proc.returncode}: {proc.stderr}"
    return json.loads(proc.stdout)


def threads_page(hub: FakeHub, gh: str, number: int, first: int = 100, after: str | None = None) -> dict:
    args = ["api", "graphql", "-f", f"query={THREADS_QUERY}", "-f", "owner=acme", "-f", "name=widgets",
            "-F", f"number={number}", "-F", f"first={first}"]
    if after:
        args += ["-f", f"after={after}"]
    return gh_json(hub, gh, *args)["data"]["repository"]["pullRequest"]["reviewThreads"]


def big_pr(n_threads: int = 150, long_thread: int = 130, issue_comments: int = 0) -> dict[str, Any]:
    threads, cid = [], 50_000
    for i in range(n_threads):
        comments = []
        for j in range(long_thread if i == 3 else 1 + i % 2):
            cid += 1
            comments.append({"id": cid, "author": "alice" if j % 2 == 0 else "bob", "body": f"t{i} c{j}"})
        threads.append({"id": f"PRRT_big{i:04d}", "path": f"src/f{i % 7}.py", "line": i + 1,
                        "resolved": i % 10 == 9, "comments": comments})
    ics = [{"author": "carol", "body": f"conversation {k}"} for k in range(issue_comments)]
    return {"viewer": {"login": "octocat"},
            "repositories": [{"owner": "acme", "name": "widgets", "pull_requests": [
                {"number": 9, "threads": threads, "issue_comments": ics}]}]}


def test_demo_threads_come_back_as_in_the_scenario(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    scenario = json.loads(DEMO_SCENARIO.read_text())
    conn = threads_page(hub, gh_path, 42)
    assert conn["totalCount"] == 8 and conn["pageInfo"]["hasNextPage"] is False
    by_id = {t["id"]: t for t in conn["nodes"]}
    assert list(by_id) == [t["id"] for t in scenario["repositories"][0]["pull_requests"][0]["threads"]]

    human = by_id["PRRT_kwDOKdemo0001"]
    root = human["comments"]["nodes"][0]
    assert (human["isResolved"], human["line"], human["path"]) == (False, 42, "src/widgets/parser.py")
    assert root["fullDatabaseId"] == "1900000101" and root["databaseId"] == 1900000101
    assert root["author"] == {"login": "alice", "__typename": "User"} and root["replyTo"] is None
    assert root["pullRequestReview"]["state"] == "CHANGES_REQUESTED"
    assert root["url"] == "https://github.localhost/acme/widgets/pull/42#discussion_r1900000101"
    thumbs = {g["content"]: g["reactors"]["totalCount"] for g in root["reactionGroups"]}
    assert thumbs["THUMBS_UP"] == 2 and len(thumbs) == 8

    talk = by_id["PRRT_kwDOKdemo0002"]["comments"]["nodes"]
    assert [c["author"]["login"] for c in talk] == ["bob", "octocat", "bob"]
    assert all(c["replyTo"]["fullDatabaseId"] == "1900000102" for c in talk[1:])
    assert talk[2]["body"] == "Then please add a test that proves it.\nOtherwise this will regress."

    resolved, outdated = by_id["PRRT_kwDOKdemo0003"], by_id["PRRT_kwDOKdemo0004"]
    assert resolved["isResolved"] and resolved["isCollapsed"] and resolved["resolvedBy"] == {"login": "octocat"}
    assert not resolved["viewerCanResolve"] and resolved["viewerCanUnresolve"]
    assert outdated["isOutdated"] and outdated["line"] is None and outdated["originalLine"] == 88

    rabbit = by_id["PRRT_kwDOKdemo0005"]["comments"]["nodes"][0]
    expected = scenario["repositories"][0]["pull_requests"][0]["threads"][4]["comments"][0]["body"]
    assert rabbit["body"] == expected and "$(curl" in rabbit["body"] and '"' in rabbit["body"]
    assert rabbit["author"] == {"login": "coderabbitai", "__typename": "Bot"}
    assert by_id["PRRT_kwDOKdemo0006"]["subjectType"] == "FILE" and by_id["PRRT_kwDOKdemo0006"]["line"] is None
    copilot = by_id["PRRT_kwDOKdemo0007"]["comments"]["nodes"][0]["author"]
    assert copilot == {"login": "copilot-pull-request-reviewer", "__typename": "Bot"}
    assert by_id["PRRT_kwDOKdemo0008"]["viewerCanResolve"] is False


def test_reviews_conversation_viewer_and_nodes(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    query = """query($n:Int!){ viewer{login} rateLimit{cost limit remaining nodeCount}
      repository(owner:"ACME", name:"Widgets"){ nameWithOwner viewerPermission defaultBranchRef{name}
        owner{login __typename}
        pullRequest(number:$n){ number title state isDraft headRefName baseRefName headRefOid author{login}
          changes: reviews(first:10, states:[CHANGES_REQUESTED]){ totalCount nodes{ body author{login} state } }
          reviews(first:50){ totalCount nodes{ fullDatabaseId state } }
          comments(first:10){ nodes{ fullDatabaseId body isMinimized minimizedReason author{login __typename} } } }
        prs: pullRequests(first:5, states:[OPEN], headRefName:"fix/missing-content-type"){ nodes{ number } } } }"""
    data = gh_json(hub, gh_path, "api", "graphql", "-f", f"query={query}", "-F", "n=42")["data"]
    assert data["viewer"] == {"login": "octocat"}
    assert data["rateLimit"]["cost"] == 1 and data["rateLimit"]["limit"] == 5000
    repo = data["repository"]
    assert repo["nameWithOwner"] == "acme/widgets" and repo["owner"]["__typename"] == "Organization"
    assert repo["prs"]["nodes"] == [{"number": 42}]
    pr = repo["pullRequest"]
    assert pr["changes"]["nodes"] == [{"body": "Please handle the missing-header case before merging; see the "
                                       "inline comments.", "author": {"login": "alice"}, "state": "CHANGES_REQUESTED"}]
    assert "PENDING" not in {r["state"] for r in pr["reviews"]["nodes"]}
    convo = pr["comments"]["nodes"]
    assert convo[0]["author"] == {"login": "coderabbitai", "__typename": "Bot"}
    assert [c["isMinimized"] for c in convo] == [False, True, False, False, False]
    assert convo[1]["minimizedReason"] == "outdated"

    ids = ["PRRT_kwDOKdemo0001", "PRR_kwDONope"]
    proc = hub.run_gh(gh_path, "api", "graphql", "-f", "query=query($ids:[ID!]!){ nodes(ids:$ids){ id "
                      "... on PullRequestReviewThread { path } } }", "-f", f"ids[]={ids[0]}", "-f", f"ids[]={ids[1]}")
    body = json.loads(proc.stdout)
    assert proc.returncode == 1 and "Could not resolve to a node with the global id of 'PRR_kwDONope'" in proc.stderr
    assert body["data"]["nodes"] == [{"id": ids[0], "path": "src/widgets/parser.py"}, None]
    assert body["errors"][0]["type"] == "NOT_FOUND" and body["errors"][0]["path"] == ["nodes", 1]


def test_first_after_pagination_returns_every_thread_once(make_hub, gh_path) -> None:
    hub = make_hub(big_pr(n_threads=150, long_thread=3))
    seen, after, pages = [], None, 0
    while True:
        conn = threads_page(hub, gh_path, 9, first=40, after=after)
        pages += 1
        seen += [t["id"] for t in conn["nodes"]]
        assert conn["totalCount"] == 150
        if not conn["pageInfo"]["hasNextPage"]:
            break
        after = conn["pageInfo"]["endCursor"]
    assert pages == 4 and seen == [f"PRRT_big{i:04d}" for i in range(150)]
    # gh's own GraphQL pagination drives $endCursor the same way
    query = ("query($endCursor:String){ repository(owner:\"acme\",name:\"widgets\"){ pullRequest(number:9){"
             " reviewThreads(first:100, after:$endCursor){ pageInfo{hasNextPage endCursor} nodes{id} } } } }")
    proc = hub.run_gh(gh_path, "api", "graphql", "--paginate", "-f", f"query={query}")
    assert proc.returncode == 0, proc.stderr
    pages_ = json_values(proc.stdout)
    ids = [n["id"] for p in pages_ for n in p["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]]
    assert len(pages_) == 2 and ids == seen
    last = ("{ repository(owner:\"acme\",name:\"widgets\"){ pullRequest(number:9){"
            " reviewThreads(last:2){ pageInfo{hasPreviousPage startCursor} nodes{id} } } } }")
    back = gh_json(hub, gh_path, "api", "graphql", "-f", f"query={last}")
    conn = back["data"]["repository"]["pullRequest"]["reviewThreads"]
    assert [n["id"] for n in conn["nodes"]] == ["PRRT_big0148", "PRRT_big0149"]
    assert conn["pageInfo"]["hasPreviousPage"] is True


def test_long_thread_comments_page_through_node(make_hub, gh_path) -> None:
    hub = make_hub(big_pr(n_threads=5, long_thread=130))
    query = ("query($id:ID!,$after:String){ node(id:$id){ ... on PullRequestReviewThread {"
             " comments(first:100, after:$after){ totalCount pageInfo{hasNextPage endCursor} nodes{ body } } } } }")
    first = gh_json(hub, gh_path, "api", "graphql", "-f", f"query={query}", "-f", "id=PRRT_big0003")
    conn = first["data"]["node"]["comments"]
    assert conn["totalCount"] == 130 and len(conn["nodes"]) == 100 and conn["pageInfo"]["hasNextPage"]
    rest = gh_json(hub, gh_path, "api", "graphql", "-f", f"query={query}", "-f", "id=PRRT_big0003",
                   "-f", f"after={conn['pageInfo']['endCursor']}")["data"]["node"]["comments"]
    bodies = [n["body"] for n in conn["nodes"] + rest["nodes"]]
    assert bodies == [f"t3 c{j}" for j in range(130)] and rest["pageInfo"]["hasNextPage"] is False


def test_graphql_errors_are_githubs(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    typo = "{ %s }" % (PR42 % "reviewThreads(first:5){ nodes{ isResolvedd } }")
    proc = hub.run_gh(gh_path, "api", "graphql", "-f", f"query={typo}")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "gh: Field 'isResolvedd' doesn't exist on type 'PullRequestReviewThread'"
    body = json.loads(proc.stdout)
    assert "data" not in body and body["errors"][0]["extensions"]["code"] == "undefinedField"
    assert body["errors"][0]["path"] == ["query", "repository", "pullRequest", "reviewThreads", "nodes", "isResolvedd"]

    cases = {
        '{ repository(owner:"acme",name:"nope"){ id } }':
            "Could not resolve to a Repository with the name 'acme/nope'.",
        '{ repository(owner:"acme",name:"widgets"){ pullRequest(number:404){ id } } }':
            "Could not resolve to a PullRequest with the number of 404.",
        "{ %s }" % (PR42 % "reviewThreads(first:101){ nodes{ id } }"):
            "Requesting 101 records on the `reviewThreads` connection exceeds the `first` limit of 100 records.",
        "{ %s }" % (PR42 % "comments{ nodes{ id } }"):
            "You must provide a `first` or `last` value to properly paginate the `comments` connection.",
        '{ node(id:"PRRT_nope"){ id } }': "Could not resolve to a node with the global id of 'PRRT_nope'",
    }
    for query, message in cases.items():
        proc = hub.run_gh(gh_path, "api", "graphql", "-f", f"query={query}")
        assert (proc.returncode, proc.stderr.strip()) == (1, f"gh: {message}"), query
    count_only = "{ %s }" % (PR42 % "reviewThreads{ totalCount }")
    data = gh_json(hub, gh_path, "api", "graphql", "-f", f"query={count_only}")["data"]
    assert data["repository"]["pullRequest"]["reviewThreads"]["totalCount"] == 8
    needs_n = 'query($n:Int!){ repository(owner:"acme",name:"widgets"){ pullRequest(number:$n){ id } } }'
    missing_var = hub.run_gh(gh_path, "api", "graphql", "-f", f"query={needs_n}")
    assert missing_var.stderr.strip() == "gh: Variable $n of type Int! was provided invalid value"


def test_rest_paginate_over_100_comments(make_hub, gh_path) -> None:
    hub = make_hub(big_pr(n_threads=10, long_thread=130, issue_comments=250))
    proc = hub.run_gh(gh_path, "api", "--paginate", "repos/acme/widgets/pulls/9/comments")
    assert proc.returncode == 0, proc.stderr
    comments = [c for page in json_values(proc.stdout) for c in page]
    assert len(comments) == 130 + 13 == len({c["id"] for c in comments})
    root = hub.world.thread("PRRT_big0003")["comments"][0]["id"]
    replies = [c for c in comments if c.get("in_reply_to_id") == root]
    assert len(replies) == 129 and all(c["user"]["login"] in ("alice", "bob") for c in replies)
    pages = hub.find_requests("GET", "/repos/acme/widgets/pulls/9/comments")
    assert [r.query.get("page", "1") for r in pages] == ["1", "2"] and pages[0].query["per_page"] == "100"
    link = pages[0].response_headers["Link"]
    assert link == ('<http://api.github.localhost/repos/acme/widgets/pulls/9/comments?per_page=100&page=2>; '
                    'rel="next", <http://api.github.localhost/repos/acme/widgets/pulls/9/comments?per_page=100'
                    '&page=2>; rel="last"')
    proc = hub.run_gh(gh_path, "api", "--paginate", "repos/acme/widgets/issues/9/comments?per_page=60")
    bodies = [c["body"] for page in json_values(proc.stdout) for c in page]
    assert bodies == [f"conversation {k}" for k in range(250)]
    assert len(hub.find_requests("GET", "/repos/acme/widgets/issues/9/comments")) == 5


def test_graphql_writes_change_the_world(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    resolve = ("mutation($id:ID!){ resolveReviewThread(input:{threadId:$id}){"
               " thread{ id isResolved resolvedBy{login} } } }")
    out = gh_json(hub, gh_path, "api", "graphql", "-f", f"query={resolve}", "-f", "id=PRRT_kwDOKdemo0001")
    assert out["data"]["resolveReviewThread"]["thread"]["isResolved"] is True
    assert hub.world.thread("PRRT_kwDOKdemo0001")["resolved"] is True
    assert hub.world.thread("PRRT_kwDOKdemo0001")["resolved_by"] == "octocat"
    unresolve = resolve.replace("resolveReviewThread", "unresolveReviewThread")
    gh_json(hub, gh_path, "api", "graphql", "-f", f"query={unresolve}", "-f", "id=PRRT_kwDOKdemo0003")
    assert hub.world.thread("PRRT_kwDOKdemo0003")["resolved"] is False

    denied = hub.run_gh(gh_path, "api", "graphql", "-f", f"query={resolve}", "-f", "id=PRRT_kwDOKdemo0008")
    assert denied.returncode == 1
    assert denied.stderr.strip() == "gh: octocat does not have the correct permissions to execute `ResolveReviewThread`"
    assert json.loads(denied.stdout)["errors"][0]["type"] == "FORBIDDEN"
    assert hub.world.thread("PRRT_kwDOKdemo0008")["resolved"] is False

    body = 'Fixed in 9f1c2ab: "quoted", $(not run), `ticks`\nsecond line'
    reply = ("mutation($t:ID!,$b:String!){ addPullRequestReviewThreadReply(input:{"
             "pullRequestReviewThreadId:$t, body:$b}){"
             " comment{ id fullDatabaseId body state author{login} replyTo{fullDatabaseId} url } } }")
    args = ("api", "graphql", "-f", f"query={reply}", "-f")
    out = gh_json(hub, gh_path, *args, "t=PRRT_kwDOKdemo0002", "-f", f"b={body}")
    comment = out["data"]["addPullRequestReviewThreadReply"]["comment"]
    stored = hub.world.thread("PRRT_kwDOKdemo0002")["comments"][-1]
    assert stored["body"] == comment["body"] == body and stored["author"] == "octocat"
    assert comment["state"] == "SUBMITTED" and comment["replyTo"] == {"fullDatabaseId": "1900000102"}
    assert hub.world.review(stored["review"])["state"] == "COMMENTED"

    pending = gh_json(hub, gh_path, *args, "t=PRRT_kwDOKdemo0101", "-f", "b=draft")
    assert pending["data"]["addPullRequestReviewThreadReply"]["comment"]["state"] == "PENDING"
    stored = hub.world.thread("PRRT_kwDOKdemo0101")["comments"][-1]
    assert hub.world.review(stored["review"])["state"] == "PENDING"

    add = ("mutation($s:ID!,$b:String!){ addComment(input:{subjectId:$s, body:$b}){"
           " commentEdge{ node{ body author{login} } } } }")
    pr_id = hub.world.pull_request("acme/widgets", 42)["node_id"]
    gh_json(hub, gh_path, "api", "graphql", "-f", f"query={add}", "-f", f"s={pr_id}", "-f", f"b={body}")
    assert hub.world.pull_request("acme/widgets", 42)["issue_comments"][-1]["body"] == body


def test_rest_reads_and_writes(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    assert gh_json(hub, gh_path, "api", "user")["login"] == "octocat"
    pull = gh_json(hub, gh_path, "api", "repos/acme/widgets/pulls/42")
    assert (pull["head"]["ref"], pull["state"], pull["user"]["login"]) == (
        "fix/missing-content-type", "open", "octocat")
    comments = gh_json(hub, gh_path, "api", "repos/acme/widgets/pulls/42/comments")
    logins = {c["user"]["login"]: c["user"]["type"] for c in comments}
    assert logins["coderabbitai[bot]"] == "Bot" and logins["Copilot"] == "Bot" and logins["alice"] == "User"
    outdated = next(c for c in comments if c["id"] == 1900000107)
    assert outdated["line"] is None and outdated["original_line"] == 88 and outdated["position"] is None
    one = gh_json(hub, gh_path, "api", "repos/acme/widgets/pulls/comments/1900000103")
    assert one["in_reply_to_id"] == 1900000102 and one["node_id"] == hub.world.comment(1900000103)["node_id"]
    reviews = gh_json(hub, gh_path, "api", "repos/acme/widgets/pulls/42/reviews")
    assert {r["user"]["login"] for r in reviews} >= {"copilot-pull-request-reviewer[bot]", "alice"}

    body = "Thanks! \"quoted\" $(whoami) `id`\nline two"
    target = "repos/acme/widgets/pulls/42/comments/1900000101/replies"
    reply = gh_json(hub, gh_path, "api", target, "-f", f"body={body}")
    assert reply["in_reply_to_id"] == 1900000101 and reply["body"] == body
    assert hub.world.thread("PRRT_kwDOKdemo0001")["comments"][-1]["body"] == body
    wrong_pr = hub.run_gh(gh_path, "api", "repos/acme/widgets/pulls/43/comments/1900000101/replies", "-f", "body=x")
    assert wrong_pr.returncode == 1 and "Not Found (HTTP 404)" in wrong_pr.stderr
    pending = hub.run_gh(gh_path, "api", "repos/acme/widgets/pulls/43/comments/1900000201/replies", "-f", "body=x")
    assert pending.returncode == 1 and "(HTTP 422)" in pending.stderr
    assert json.loads(pending.stdout)["errors"] == ["user_id can only have one pending review per pull request"]
    assert len(hub.world.thread("PRRT_kwDOKdemo0101")["comments"]) == 1

    payload = json.dumps({"body": "via --input -, sent chunked"})
    made = gh_json(hub, gh_path, "api", "repos/acme/widgets/issues/42/comments", "--input", "-", input=payload)
    assert made["body"] == "via --input -, sent chunked" and made["user"]["login"] == "octocat"
    sent = hub.find_requests("POST", "/repos/acme/widgets/issues/42/comments")[-1]
    assert sent.headers.get("Transfer-Encoding") == "chunked" and sent.json == {"body": "via --input -, sent chunked"}
    assert hub.world.pull_request("acme/widgets", 42)["issue_comments"][-1]["body"] == "via --input -, sent chunked"
    assert hub.schema_violations == []


def test_an_unknown_host_is_named_in_gh_s_error(make_hub, gh_path) -> None:
    """gh sends an https host that is not fakehub's (`--hostname github.com`, a GH_HOST of another Enterprise
    server) through the proxy as a CONNECT; gh's error then says which host fakehub does not serve and what it does
    serve, not a bare "Forbidden"."""
    hub = make_hub(DEMO_SCENARIO)
    for args, env, host in ((["api", "--hostname", "github.com", "user"], {}, "api.github.com:443"),
                            (["api", "user"], {"GH_HOST": "ghe.example.com"}, "ghe.example.com:443")):
        proc = hub.run_gh(gh_path, *args, env=hub.child_env(**env))
        assert proc.returncode == 1 and proc.stdout == "", proc
        assert f"fakehub does not serve {host}: it serves only http://api.github.localhost" in proc.stderr, \
            proc.stderr
        assert "GH_HOST=github.localhost" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
        assert hub.find_requests(method="CONNECT")[-1].status == 403
    # fakehub's own host is served as ever
    assert gh_json(hub, gh_path, "api", "user")["login"]
