"""gh's own PR commands against fakehub, with both gh versions: `gh pr checks` (the rollup of the PR's last
commit, ``Commit.statusCheckRollup``) and `gh pr view --json reviews,comments` (``PullRequestReview.commit``).
These are the reference rows of the benchmarks (figure 6)."""

from __future__ import annotations

import json
from typing import Any

from tests.fakehub import FakeHub

HEAD = "c0ffee" + "0" * 34
LISTED_HEAD = "b" * 40
REVIEWED = "a" * 40


def check(name: str, **kw: Any) -> dict[str, Any]:
    return {"name": name, "status": "COMPLETED", "conclusion": "SUCCESS", **kw}


def world() -> dict[str, Any]:
    checks = [
        check("unit"),
        check("lint", conclusion="FAILURE"),
        check("e2e", status="IN_PROGRESS"),
        check("docs", conclusion="SKIPPED"),
        check("deploy", app="vercel", url="https://vercel.example/deploy/1"),
        {"name": "ci/jenkins", "kind": "status", "state": "ERROR", "url": "https://ci.example/job/7"},
    ]
    many = [check(f"shard {i:03d}") for i in range(130)]  # two rollup pages (gh asks 100 at a time)
    commits = [{"oid": "1" * 40, "message": "base"}, {"oid": LISTED_HEAD, "message": "head", "parents": ["1" * 40]}]
    return {
        "viewer": {"login": "octocat"},
        "users": {"alice": {}, "bob": {}, "carol": {}},
        "repositories": [{"owner": "acme", "name": "widgets", "commits": commits, "pull_requests": [
            {"number": 1, "head_ref": "feature", "head_sha": HEAD, "checks": checks,
             "reviews": [{"author": "alice", "state": "APPROVED", "body": "LGTM"},
                         {"author": "bob", "state": "CHANGES_REQUESTED", "body": "Split this.",
                          "commit_id": REVIEWED}],
             "issue_comments": [{"author": "carol", "body": "When does this ship?"}]},
            {"number": 2, "head_ref": "sharded", "checks": many},
            {"number": 3, "head_ref": "quiet"},
            {"number": 4, "head_ref": "listed", "head_sha": LISTED_HEAD, "commits": ["1" * 40, LISTED_HEAD],
             "checks": [check("unit")]},
        ]}],
    }


def pr_checks(hub: FakeHub, gh: str, number: int) -> tuple[int, dict[str, str], str]:
    proc = hub.run_gh(gh, "pr", "checks", str(number), "-R", "acme/widgets")
    rows = [line.split("\t") for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, {r[0]: r[1] for r in rows}, proc.stdout + proc.stderr


def test_gh_pr_checks_reads_the_last_commits_rollup(make_hub, gh_path) -> None:
    hub = make_hub(world())
    code, states, out = pr_checks(hub, gh_path, 1)
    assert code == 1, out  # a check failed
    assert states == {"unit": "pass", "lint": "fail", "e2e": "pending", "docs": "skipping", "deploy": "pass",
                      "ci/jenkins": "fail"}, out
    assert "https://ci.example/job/7" in out and "https://vercel.example/deploy/1" in out
    assert "https://github.localhost/acme/widgets/actions/runs/" in out  # the Actions job page of a check run
    ops = [r.operation for r in hub.requests]
    assert "PullRequestStatusChecks" in ops and hub.unhandled == []


def test_gh_pr_checks_pages_through_the_rollup(make_hub, gh_path) -> None:
    hub = make_hub(world())
    code, states, out = pr_checks(hub, gh_path, 2)
    assert code == 0, out
    assert len(states) == 130 and set(states.values()) == {"pass"}
    assert [r.operation for r in hub.requests].count("PullRequestStatusChecks") == 2


def test_gh_pr_checks_on_a_listed_head_commit_and_on_none(make_hub, gh_path) -> None:
    hub = make_hub(world())
    code, states, out = pr_checks(hub, gh_path, 4)  # the scenario lists the commits: the last one's checks
    assert (code, states) == (0, {"unit": "pass"}), out
    code, states, out = pr_checks(hub, gh_path, 3)  # no checks and no commits: gh has nothing to show
    assert code != 0 and states == {}, out
    assert hub.unhandled == []


def test_gh_pr_view_reviews_and_comments(make_hub, gh_path) -> None:
    hub = make_hub(world())
    proc = hub.run_gh(gh_path, "pr", "view", "1", "-R", "acme/widgets", "--json", "reviews,comments")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [(r["author"]["login"], r["state"], r["body"], r["commit"]["oid"]) for r in out["reviews"]] == [
        ("alice", "APPROVED", "LGTM", HEAD), ("bob", "CHANGES_REQUESTED", "Split this.", REVIEWED)]
    assert [(c["author"]["login"], c["body"]) for c in out["comments"]] == [("carol", "When does this ship?")]
    assert hub.unhandled == []
