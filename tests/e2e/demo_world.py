"""The world of `scripts/demo`: fixtures/scenarios/demo.json (PR 42's busy review, PR 43's pending review) made
real enough for every tool to have something to show.

- A real git history for acme/widgets (``tests/e2e/stack_repos.StackRepo``: a bare ``origin`` playing GitHub's,
  and the user's ``clone`` whose ``origin`` is the GitHub URL fakehub plays): PR 42 edits ``parse_header`` in
  ``src/widgets/parser.py`` while ``main`` rewrote the same lines (a conflict `conflicts` finds in the clone);
  PR 44 (``feature/cache-reset``) was squash-merged and its branch deleted, so GitHub retargeted PR 45
  (``feature/cache-stats``, stacked on it) to ``main``: `stack 44 45` and `rebase-after-squash 45` give the
  ``git rebase --onto`` plan.
- CI on PR 42's head: the required ``tests`` job failed with a real pytest log and ``typecheck`` with a real
  TypeScript compile error (fixtures/logs/real), ``lint`` passed, an external coverage status passed.
- Branch rules on ``main``: one approval, resolved conversations and ``tests`` required — so `ready` has real
  blockers (changes requested, a failing required check, unresolved threads, the conflict).

``python -m tests.e2e.demo_world DIR`` builds the repositories under DIR, writes ``DIR/scenario.json`` (served
by ``python -m tests.fakehub --scenario``) and prints the clone's path.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.e2e.stack_repos import StackRepo

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "scenarios" / "demo.json"
PYTEST_LOG = "fixtures/logs/real/pytest/01-one-failed-1039-passed.log"
TSC_LOG = "fixtures/logs/real/nontest/01-tsc-annotated-errors.log"

PARSER_V1 = '''"""HTTP header parsing."""


def parse_header(headers):
    raw = headers["Content-Type"]
    return raw.split(";")[0].strip()
'''
PARSER_PR = '''"""HTTP header parsing."""


def parse_header(headers):
    raw = headers.get("Content-Type")
    if not raw:
        return None
    return raw.split(";")[0].strip()
'''
PARSER_MAIN = '''"""HTTP header parsing."""


def parse_header(headers):
    raw = {k.lower(): v for k, v in headers.items()}["content-type"]
    return raw.split(";")[0].strip().lower()
'''
CACHE_V1 = '''class Cache:
    def __init__(self):
        self._data = {}

    def get(self, key):
        return self._data.get(key)
'''
RULES = {"main": {"rulesets": [{"id": 7, "name": "main protection", "rules": [
    {"type": "pull_request", "parameters": {
        "required_approving_review_count": 1, "required_review_thread_resolution": True,
        "dismiss_stale_reviews_on_push": False, "require_code_owner_review": False,
        "require_last_push_approval": False}},
    {"type": "required_status_checks", "parameters": {
        "required_status_checks": [{"context": "tests"}], "strict_required_status_checks_policy": False}},
]}]}}
T0, T1 = "2026-11-20T11:00:00Z", "2026-11-20T11:06:00Z"


def _job(name: str, job_id: int, conclusion: str) -> dict[str, Any]:
    return {"name": name, "id": job_id, "run_id": 7001, "workflow": "CI", "status": "COMPLETED",
            "conclusion": conclusion, "started_at": T0, "completed_at": T1}


CHECKS = [_job("tests", 81001, "FAILURE"), _job("typecheck", 81002, "FAILURE"), _job("lint", 81003, "SUCCESS"),
          {"kind": "status", "name": "codecov/patch", "state": "SUCCESS", "description": "92% of diff hit",
           "url": "https://codecov.example/gh/acme/widgets/pull/42"}]


def _steps(day: str, failed: str, times: list[str]) -> list[dict[str, Any]]:
    """The jobs API's steps of a job whose step `failed` failed; `times` are the steps' HH:MM:SS bounds (the logs
    above are tails without ``##[group]`` markers, so their steps are stated, as the jobs API would list them)."""
    names = ["Set up job", "Run actions/checkout@v4", "Install dependencies", failed, "Complete job"]
    return [{"number": i + 1, "name": name, "status": "completed",
             "conclusion": "failure" if name == failed else "success",
             "started_at": f"{day}T{times[i]}Z", "completed_at": f"{day}T{times[i + 1]}Z"}
            for i, name in enumerate(names)]


CI = {"runs": [
    {"check": "tests", "log": PYTEST_LOG,
     "steps": _steps("2026-05-28", "Run pytest -q", ["07:52:50", "07:52:55", "07:53:00", "07:53:20", "07:53:39",
                                                     "07:53:40"])},
    {"check": "typecheck", "log": TSC_LOG,
     "steps": _steps("2023-06-26", "Run npx tsc --noEmit", ["16:56:50", "16:56:55", "16:57:00", "16:57:30",
                                                            "16:57:37", "16:57:38"])},
    {"check": "lint", "log": "fixtures/logs/pytest/all_passed.log"}]}


def _history(repo: StackRepo) -> None:
    repo.commit("Widgets: parser and cache", {"src/widgets/parser.py": PARSER_V1, "src/widgets/cache.py": CACHE_V1})
    repo.push("main")
    # PR 42: tolerate a missing header (the PR the review is about)
    repo.checkout("fix/missing-content-type", "refs/heads/main")
    repo.commit("parser: tolerate a missing Content-Type header", {"src/widgets/parser.py": PARSER_PR})
    repo.push("fix/missing-content-type")
    # PR 43: Dependabot's bump
    repo.checkout("dependabot/pip/requests-2.32.3", "refs/heads/main")
    repo.commit("Bump requests from 2.32.2 to 2.32.3", {"requirements.txt": "requests==2.32.3\n"})
    repo.push("dependabot/pip/requests-2.32.3")
    # meanwhile main rewrote the same lines of parse_header: PR 42 now conflicts
    repo.checkout("main")
    repo.commit("parser: case-insensitive header names (#41)", {"src/widgets/parser.py": PARSER_MAIN})
    repo.push("main")
    # a stack: PR 44 adds Cache.reset(), PR 45 builds on it
    repo.checkout("feature/cache-reset", "refs/heads/main")
    repo.commit("cache: add reset()", {"src/widgets/cache.py": CACHE_V1 + "\n    def reset(self):\n"
                                                                          "        self._data.clear()\n"})
    repo.commit("cache: reset() returns how many entries it dropped",
                {"src/widgets/cache.py": CACHE_V1 + "\n    def reset(self):\n        n = len(self._data)\n"
                                                    "        self._data.clear()\n        return n\n"})
    repo.push("feature/cache-reset")
    repo.checkout("feature/cache-stats", "refs/heads/feature/cache-reset")
    repo.commit("stats: count cache resets", {"src/widgets/stats.py": "RESETS = 0\n"})
    repo.commit("stats: expose a snapshot", {"src/widgets/stats.py": "RESETS = 0\n\n\ndef snapshot():\n"
                                                                     "    return {'resets': RESETS}\n"})
    repo.push("feature/cache-stats")


def build(root: Path) -> tuple[dict[str, Any], Path]:
    """Build the repositories under ``root``; return the scenario and the user's clone."""
    repo = StackRepo(root / "repo")
    _history(repo)
    repo.open_pr(42, "fix/missing-content-type", "main")
    repo.open_pr(43, "dependabot/pip/requests-2.32.3", "main")
    repo.open_pr(44, "feature/cache-reset", "main", title="Cache: add a reset() hook")
    repo.open_pr(45, "feature/cache-stats", "feature/cache-reset", title="Stats: count cache resets")
    clone = repo.user_clone("feature/cache-reset", "feature/cache-stats", checkout="feature/cache-stats")
    repo.squash_merge(44, delete=True)  # GitHub's "Squash and merge", then "Delete branch"
    repo.retarget(45, "main", was="feature/cache-reset")  # which GitHub answers by retargeting PR 45
    for number in (42, 43):
        repo.refresh_pr(number)
    git_world = repo.scenario()["repositories"][0]
    scenario = json.loads(DEMO.read_text())
    scenario["description"] += " Made real for scripts/demo by tests/e2e/demo_world.py."
    widgets = scenario["repositories"][0]
    widgets.update(commits=git_world["commits"], branches=git_world["branches"], branch_rules=RULES)
    described = {pr["number"]: pr for pr in widgets["pull_requests"]}
    for pr in git_world["pull_requests"]:
        if pr["number"] in described:  # the review world keeps its own title, author and dates
            git_keys = ("head_ref", "base_ref", "head_sha", "base_sha", "commits")
            described[pr["number"]].update({k: pr[k] for k in git_keys})
        else:
            widgets["pull_requests"].append({**pr, "created_at": "2026-11-18T09:00:00Z"})
    described[42].update(checks=CHECKS, ci=CI, merge_state={"mergeable": "CONFLICTING"})
    return scenario, clone


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.e2e.demo_world DIR", file=sys.stderr)
        return 2
    root = Path(argv[0])
    scenario, clone = build(root)
    (root / "scenario.json").write_text(json.dumps(scenario, indent=1))
    print(clone)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
