"""The gh gateway's pure parts: `gh api -i` output, HTTP/GraphQL error classification, retry policy,
and the environment checks (missing gh, too old) with stand-in executables on PATH."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import orjson
import pytest

from pr_agent.errors import PrAgentError
from pr_agent.gh import INSTALL_URL, Gh, check_gh, child_env, find_gh
from pr_agent.ghwire import http_error, parse_included, raise_graphql_errors


def test_parse_included_gh_223_shape() -> None:
    out = b'HTTP/1.1 200 OK\nContent-Type: application/json\r\nX-Ratelimit-Remaining: 42\r\n\r\n{"a":1}'
    status, headers, body = parse_included(out)  # type: ignore[misc]
    assert status == 200
    assert headers["x-ratelimit-remaining"] == "42"
    assert body == b'{"a":1}'


def test_parse_included_http2_and_body_with_blank_lines() -> None:
    out = b'HTTP/2.0 404 Not Found\nA: b\r\n\r\n{"message":"x\\n\\ny"}\n\nmore'
    status, headers, body = parse_included(out)  # type: ignore[misc]
    assert status == 404 and headers == {"a": "b"}
    assert body.startswith(b'{"message"')


def test_parse_included_rejects_non_http() -> None:
    assert parse_included(b'{"a":1}') is None
    assert parse_included(b"") is None


def err_of(status: int, headers: dict[str, str], body: object) -> PrAgentError:
    return http_error(status, headers, orjson.dumps(body), "GET x")


def test_primary_rate_limit() -> None:
    reset = int(time.time()) + 120
    err = err_of(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)},
                 {"message": "API rate limit exceeded for user ID 1."})
    assert err.code == "rate_limited" and err.temporary
    assert err.details["kind"] == "primary"
    assert 100_000 <= (err.retry_after_ms or 0) <= 121_000


@pytest.mark.parametrize("status", [403, 429])
def test_secondary_rate_limit(status: int) -> None:
    err = err_of(status, {"retry-after": "7"}, {"message": "You have exceeded a secondary rate limit."})
    assert (err.code, err.details["kind"], err.retry_after_ms) == ("rate_limited", "secondary", 7000)


@pytest.mark.parametrize(("status", "code", "exit_code"), [
    (401, "auth_failed", 4), (403, "forbidden", 3), (404, "not_found", 3), (422, "validation_failed", 3),
    (500, "server_error", 3), (502, "server_error", 3), (418, "gh_failed", 3)])
def test_status_mapping(status: int, code: str, exit_code: int) -> None:
    err = err_of(status, {}, {"message": "m"})
    assert (err.code, err.exit_code) == (code, exit_code)
    assert err.suggestion


def test_graphql_errors() -> None:
    def classify(body: object, headers: dict[str, str] | None = None) -> PrAgentError:
        with pytest.raises(PrAgentError) as exc:
            raise_graphql_errors(headers or {}, orjson.dumps(body), "graphql Q")
        return exc.value

    assert classify({"errors": [{"type": "NOT_FOUND", "message": "Could not resolve"}]}).code == "not_found"
    rl = classify({"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]},
                  {"x-ratelimit-reset": str(int(time.time()) + 60)})
    assert rl.code == "rate_limited" and rl.retry_after_ms and rl.retry_after_ms > 50_000
    assert classify({"errors": [{"type": "FORBIDDEN", "message": "no"}]}).code == "forbidden"
    partial = classify({"data": {"x": 1}, "errors": [{"message": "boom", "path": ["x"]}]})
    assert partial.code == "graphql_error" and partial.details["partial_data"] is True
    raise_graphql_errors({}, b'{"data":{"a":1}}', "graphql Q")  # no errors: no raise


def test_retry_policy() -> None:
    gh = Gh()
    server = PrAgentError("server_error", "x", suggestion="y")
    assert gh._retry_wait(server, 0) == 0.5 and gh._retry_wait(server, 2) is None
    short = PrAgentError("rate_limited", "x", suggestion="y", retry_after_ms=2000, details={"kind": "secondary"})
    assert gh._retry_wait(short, 0) == 2.0
    long = PrAgentError("rate_limited", "x", suggestion="y", retry_after_ms=3_600_000, details={"kind": "secondary"})
    assert gh._retry_wait(long, 0) is None
    primary = PrAgentError("rate_limited", "x", suggestion="y", retry_after_ms=1000, details={"kind": "primary"})
    assert gh._retry_wait(primary, 0) is None
    assert gh._retry_wait(PrAgentError("timeout", "x", suggestion="y"), 0) is None
    assert gh._retry_wait(PrAgentError("not_found", "x", suggestion="y"), 0) is None


def test_child_env_is_clean() -> None:
    env = child_env({"GH_FORCE_TTY": "1", "CLICOLOR_FORCE": "1", "PAGER": "less", "KEEP": "x"})
    assert "GH_FORCE_TTY" not in env and "CLICOLOR_FORCE" not in env and "PAGER" not in env
    assert env["NO_COLOR"] == "1" and env["GH_PROMPT_DISABLED"] == "1" and env["KEEP"] == "x"


def _stand_in(tmp_path: Path, version: str) -> Path:
    exe = tmp_path / "bin" / "gh"
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text(f"#!/bin/sh\necho 'gh version {version} (2020-01-01)'\n", encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def test_gh_too_old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GH_PR_AGENT_GH", str(_stand_in(tmp_path, "2.14.7")))
    with pytest.raises(PrAgentError) as exc:
        check_gh(dict(os.environ))
    assert exc.value.code == "gh_too_old" and exc.value.details["version"] == "2.14.7"


def test_gh_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GH_PR_AGENT_GH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PrAgentError) as exc:
        find_gh()
    assert exc.value.code == "gh_not_found"
    assert exc.value.repair is None and INSTALL_URL in exc.value.suggestion


def test_refused_fields_are_returned_only_where_the_caller_can_do_without_them() -> None:
    """Gh.graphql_partial: a NOT_FOUND / FORBIDDEN field under a tolerated path comes back with the data; any
    other error (or one outside the path) still raises typed."""
    import orjson

    from pr_agent.errors import PrAgentError
    from pr_agent.ghwire import raise_graphql_errors

    refused = {"type": "FORBIDDEN", "path": ["nodes", 3, "annotations"], "message": "no"}
    body = orjson.dumps({"data": {"nodes": [None]}, "errors": [refused]})
    raise_graphql_errors({}, body, "graphql CheckRunDetails", ("nodes",))  # tolerated: no raise
    with pytest.raises(PrAgentError) as err:
        raise_graphql_errors({}, body, "graphql CheckRunDetails", ("repository.pullRequest.baseRef.rules",))
    assert err.value.code == "forbidden"
    other = orjson.dumps({"data": {"nodes": [None]}, "errors": [refused, {"message": "Something went wrong"}]})
    with pytest.raises(PrAgentError) as err:
        raise_graphql_errors({}, other, "graphql CheckRunDetails", ("nodes",))
    assert err.value.code == "graphql_error"
    rate = orjson.dumps({"data": {"nodes": [None]}, "errors": [{"type": "RATE_LIMITED", "path": ["nodes"],
                                                                 "message": "API rate limit exceeded"}]})
    with pytest.raises(PrAgentError) as err:
        raise_graphql_errors({}, rate, "graphql CheckRunDetails", ("nodes",))
    assert err.value.code == "rate_limited"


def test_the_escape_sequence_flag_follows_the_gh_version() -> None:
    """gh 2.97.0 added --allow-escape-sequences (and refuses escape sequences without it); the download picks
    it from the version check_gh read, without running `gh api --help`."""
    from pr_agent import gh

    assert gh.ESCAPE_FLAG_SINCE == (2, 97, 0) and not hasattr(gh, "api_flags")
    assert (2, 23, 0) < gh.ESCAPE_FLAG_SINCE <= (2, 103, 3)
