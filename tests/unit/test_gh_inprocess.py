"""The gh gateway (pr_agent/gh.py) against fakehub through the real gh, in this process: what it retries, what it
never retries, how a failure reads, and how a job log is streamed to a file."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest

from pr_agent.errors import PrAgentError
from pr_agent.gh import Gh
from pr_agent.queries import load_query
from tests.e2e.ci_worlds import failing_world
from tests.e2e.worlds import feedback_world
from tests.fakehub import Fault

USER = "query Viewer { viewer { login } }"


def _gh(**kw: object) -> Gh:
    slept: list[float] = []
    return Gh(sleep=slept.append, **kw)  # type: ignore[arg-type]


def test_a_read_that_gets_a_bad_gateway_is_retried_and_answers(inproc) -> None:
    a = inproc(feedback_world())
    a.hub.add_fault(Fault(match=r"GET /repos/acme/widgets$", status=502, times=2))
    slept: list[float] = []
    gh = Gh(sleep=slept.append)
    repo = gh.rest("GET", "repos/acme/widgets")
    assert repo.json()["full_name"] == "acme/widgets"
    assert gh.calls == 3 and slept == [0.5, 1.0]  # the backoff doubles


def test_a_read_that_keeps_failing_gives_up_with_a_temporary_error(inproc) -> None:
    a = inproc(feedback_world())
    a.hub.add_fault(Fault(match=r"GET /repos/acme/widgets$", status=502, times=None))
    gh = _gh(max_retries=1)
    with pytest.raises(PrAgentError) as exc:
        gh.rest("GET", "repos/acme/widgets")
    assert exc.value.code == "server_error" and exc.value.temporary and gh.calls == 2


def test_a_write_is_sent_once_even_when_the_answer_is_lost(inproc) -> None:
    a = inproc(feedback_world())
    a.hub.add_fault(Fault(match="graphql:ResolveThread", status=502, times=1))
    gh = _gh()
    with pytest.raises(PrAgentError) as exc:
        gh.mutate(load_query("resolve_thread"), {"thread": "PRRT_human"})
    assert gh.calls == 1 and exc.value.code == "server_error"
    assert len([r for r in a.hub.requests if r.operation == "ResolveThread"]) == 1


def test_a_secondary_rate_limit_waits_as_github_asks_then_retries(inproc) -> None:
    a = inproc(feedback_world())
    a.hub.add_fault(Fault(kind="secondary_rate_limit", match=r"GET /repos/acme/widgets$", retry_after_s=2))
    slept: list[float] = []
    assert Gh(sleep=slept.append).rest("GET", "repos/acme/widgets").status == 200
    assert slept == [2.0]
    a.hub.add_fault(Fault(kind="secondary_rate_limit", match=r"GET /repos/acme/widgets$", retry_after_s=600))
    with pytest.raises(PrAgentError) as exc:  # longer than GH_PR_AGENT_MAX_RETRY_WAIT: said, not slept
        _gh().rest("GET", "repos/acme/widgets")
    assert exc.value.code == "rate_limited" and exc.value.details["kind"] == "secondary"


def test_a_rejected_token_names_the_host_and_how_to_log_in(inproc, monkeypatch: pytest.MonkeyPatch) -> None:
    inproc(feedback_world())
    monkeypatch.setenv("GH_TOKEN", "bad-token")
    with pytest.raises(PrAgentError) as exc:
        _gh().graphql(USER)
    err = exc.value
    assert err.code == "auth_failed" and err.exit_code == 4
    assert err.details["host"] == "github.localhost"
    assert "gh auth login --hostname github.localhost" in err.suggestion


def test_graphql_errors_and_a_missing_object_are_typed(inproc) -> None:
    a = inproc(feedback_world())
    gh = _gh()
    assert gh.graphql(USER) == {"viewer": {"login": "octocat"}}
    a.hub.add_fault(Fault(kind="graphql_rate_limited", match="graphql:Viewer"))
    with pytest.raises(PrAgentError) as exc:
        gh.graphql(USER)
    assert exc.value.code == "rate_limited"
    with pytest.raises(PrAgentError) as missing:
        gh.rest("GET", "repos/acme/nothing-here")
    assert missing.value.code == "not_found" and missing.value.exit_code == 3


def test_a_path_that_could_walk_elsewhere_is_refused_before_gh_runs(inproc) -> None:
    a = inproc(feedback_world())
    for path in ("repos/acme/../secrets", "/user", "-X", "repos/acme/widgets\n"):
        with pytest.raises(PrAgentError) as exc:
            _gh().rest("GET", path)
        assert exc.value.code == "invalid_arguments", path
    assert a.hub.requests == []


def test_a_slow_answer_past_the_timeout_is_killed_and_said(inproc) -> None:
    a = inproc(feedback_world())
    a.hub.add_fault(Fault(kind="hang", delay_s=5, match=r"GET /repos/acme/widgets$"))
    with pytest.raises(PrAgentError) as exc:
        _gh(timeout=0.5, max_retries=0).rest("GET", "repos/acme/widgets")
    assert exc.value.code == "timeout" and "GH_PR_AGENT_TIMEOUT" in exc.value.suggestion


def test_a_cancelled_call_stops_at_once(inproc) -> None:
    a = inproc(feedback_world())
    a.hub.add_fault(Fault(kind="hang", delay_s=5, match=r"GET /repos/acme/widgets$"))
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    with pytest.raises(PrAgentError) as exc:
        _gh(cancel=cancel).rest("GET", "repos/acme/widgets")
    assert exc.value.code == "cancelled"


def test_lists_follow_every_page(inproc) -> None:
    a = inproc(feedback_world())
    comments = _gh().rest_pages("repos/acme/widgets/pulls/7/comments", {"per_page": 2})
    assert len(comments) == len({c["id"] for c in comments}) == 9  # every review comment of PR 7, once
    assert len(a.hub.requests) == 5


def test_a_job_log_streams_into_the_file_and_a_failed_attempt_leaves_nothing(inproc, tmp_path: Path) -> None:
    a = inproc(failing_world())
    a.hub.add_fault(Fault(match=r"GET /repos/acme/widgets/actions/jobs/103/logs", status=502, times=1))
    gh = _gh()
    with (tmp_path / "log").open("w+b") as dest:
        dest.write(b"kept before")
        resp = gh.download("repos/acme/widgets/actions/jobs/103/logs", dest)
        dest.seek(0)
        body = dest.read()
    assert resp.status == 200 and gh.calls == 2
    assert body.startswith(b"kept before") and body.count(b"Add(2, 2) = 5; want 4") == 1
    with pytest.raises(PrAgentError) as exc:
        gh.download("repos/acme/widgets/actions/jobs/999/logs", io.BytesIO())
    assert exc.value.code == "not_found"


def test_a_host_nobody_chose_is_refused_before_gh_runs(inproc) -> None:
    a = inproc(feedback_world())
    with pytest.raises(PrAgentError) as exc:
        _gh(hostname="evil.example").rest("GET", "repos/acme/widgets")
    assert exc.value.code == "untrusted_host"
    assert not any("evil" in f"{r.path} {r.host}" for r in a.hub.requests)
    ran = a.cli("comments", "https://evil.example/acme/widgets/pull/7", "--json")
    assert ran.code != 0 and ran.json()["error"]["code"] == "untrusted_host"


def test_no_network_says_gh_s_own_cause(inproc, monkeypatch: pytest.MonkeyPatch) -> None:
    inproc(feedback_world())
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # the discard port: nothing listens there
    with pytest.raises(PrAgentError) as exc:
        _gh(max_retries=0).rest("GET", "repos/acme/widgets")
    assert exc.value.code == "network_error" and "127.0.0.1:9" in exc.value.message


def test_not_logged_in_is_exit_4_with_the_login_command(inproc, monkeypatch: pytest.MonkeyPatch) -> None:
    a = inproc(feedback_world())
    monkeypatch.delenv("GH_TOKEN")
    monkeypatch.delenv("GH_HOST")  # github.com, where gh has no login at all: gh itself says so
    ran = a.cli("comments", "acme/widgets#7", "--json")
    assert ran.code == 4
    error = ran.json()["error"]
    assert error["code"] == "gh_not_authenticated" and error["repair"] == {"command": "gh auth login"}
    assert "gh auth login" in ran.stderr


def test_a_cut_off_answer_to_a_read_is_retried_and_then_said(inproc) -> None:
    a = inproc(feedback_world())
    a.hub.add_fault(Fault(kind="truncated_json", match=r"GET /repos/acme/widgets$", times=1))
    gh = _gh()
    assert gh.rest("GET", "repos/acme/widgets").json()["name"] == "widgets" and gh.calls == 2
    a.hub.add_fault(Fault(kind="truncated_json", match=r"GET /repos/acme/widgets$", times=None))
    with pytest.raises(PrAgentError) as exc:
        _gh(max_retries=1).rest("GET", "repos/acme/widgets")
    assert exc.value.code == "unexpected_response" and exc.value.temporary
