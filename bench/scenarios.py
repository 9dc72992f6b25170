"""Benchmark worlds for fakehub, built as scenario dicts (format: fixtures/scenarios/README.md).

``large_pr(size)`` is the busy PR of issue 7: hundreds of review threads (a few of them longer than
one 100-comment page, on different thread pages), every AI-reviewer body of ``fixtures/reviews`` as a
review, human reviews, reviews that only carry inline comments, hundreds of conversation comments, and a
3-PR stack beside it, CI (``bench/ci_scenario.py``: >= 60 checks, >= 12 failed Actions jobs with real logs,
main's ruleset) and real git history (``bench/gitworld.py``: the PR conflicts with main; the stack's base
was squash-merged). Everything is deterministic (seeded, fixed commit dates), so the floors in
``bench/floors.py`` are computed from the same dict the hub serves.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import ci_scenario

ROOT = Path(__file__).resolve().parents[1]
REVIEWS = ROOT / "fixtures" / "reviews"
OWNER, REPO, NUMBER = "acme", "widgets", 4242
STACK = (4301, 4302, 4303)  # base -> middle -> top

# Review-fixture directory -> the bot's GraphQL login (no "[bot]", as fakehub wants it).
BOT_LOGINS = {
    "coderabbit": "coderabbitai", "copilot": "copilot-pull-request-reviewer", "gemini": "gemini-code-assist",
    "codex": "chatgpt-codex-connector", "sourcery": "sourcery-ai", "qodo": "qodo-merge-pro",
    "greptile": "greptile-apps", "cursor": "cursor",
}
HUMANS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
INLINE_BOTS = ("coderabbitai", "copilot-pull-request-reviewer", "gemini-code-assist")


@dataclass(frozen=True)
class Size:
    """How big the large PR is. ``long_threads``: (thread index, comments, resolved)."""

    name: str
    threads: int
    long_threads: tuple[tuple[int, int, bool], ...]
    max_short_comments: int
    human_reviews: int
    carrier_reviews: int
    issue_comments: int
    ci: ci_scenario.CiSize = ci_scenario.FULL
    ai_bodies: int | None = None  # None: every fixture body
    resolved_every: int = 4
    outdated_every: int = 9
    extra: dict[str, Any] = field(default_factory=dict)


# >= 300 threads with >= 1,500 comments, >= 40 reviews (AI bodies included), >= 200 conversation comments.
FULL = Size("full", threads=320,
            long_threads=((7, 250, False), (61, 150, True), (130, 140, False), (260, 210, False), (310, 120, False)),
            max_short_comments=6, human_reviews=20, carrier_reviews=60, issue_comments=230)
# Tiny, but still one thread longer than a page so the paging path runs.
SMOKE = Size("smoke", threads=24, long_threads=((3, 105, False),), max_short_comments=3, human_reviews=3,
             carrier_reviews=4, issue_comments=12, ai_bodies=6, ci=ci_scenario.SMOKE)
SIZES = {"full": FULL, "smoke": SMOKE}


def _ts(minutes: int) -> str:
    day, rest = divmod(minutes, 24 * 60)
    return f"2026-11-{1 + day:02d}T{rest // 60:02d}:{rest % 60:02d}:00Z"


def review_bodies(limit: int | None = None) -> list[tuple[str, str]]:
    """(bot login, body) for every saved AI-reviewer body (hand-built and real), sorted by path."""
    out: list[tuple[str, str]] = []
    for path in sorted(REVIEWS.rglob("*.md")):
        if path.name == "README.md":
            continue
        bot_dir = path.parent.name
        if bot_dir not in BOT_LOGINS:
            continue  # human/ has no bot
        out.append((BOT_LOGINS[bot_dir], path.read_bytes().decode("utf-8", "replace")))
    return out if limit is None else out[:limit]


def _human_body(rng: random.Random, n: int) -> str:
    asks = ["Please add a test for the empty case.", "This allocates on every call; hoist it out of the loop.",
            "Nit: the name does not say what it returns.", "Can this race with the cache refresh?",
            "Why not reuse `parse_header()` here?", "The error message should name the file.",
            "This changes the public API; note it in the changelog.", "Off by one when `end == len(buf)`."]
    text = asks[n % len(asks)]
    if rng.random() < 0.3:
        text += "\n\n```python\nif end >= len(buf):\n    raise ValueError(f\"bad end {end}\")\n```"
    if rng.random() < 0.2:
        text += "\n\n" + " ".join(["More context on why this matters for the retry path."] * rng.randint(2, 6))
    return text


def _bot_inline_body(rng: random.Random, bot: str, n: int) -> str:
    if bot == "coderabbitai":
        sev = rng.choice(["_⚠️ Potential issue_ | _🟠 Major_", "_🛠️ Refactor suggestion_ | _🟡 Minor_",
                          "_⚠️ Potential issue_ | _🔴 Critical_"])
        return (f"{sev}\n\n**Unchecked result of `read_chunk()` (finding {n}).**\n\n"
                "The return value can be `None` when the stream closes early; the next line then raises "
                "`TypeError` instead of the documented `EOFError`.\n\n"
                "```suggestion\n    chunk = read_chunk(stream)\n    if chunk is None:\n"
                "        raise EOFError(\"stream closed\")\n```\n\n"
                "<details>\n<summary>🤖 Prompt for AI Agents</summary>\n\n```\nIn src/widgets/io.py around "
                f"line {10 + n % 90}, check the result of read_chunk() for None and raise EOFError.\n```\n\n"
                "</details>\n\n<!-- fingerprinting:phantom:triton:cougar -->\n\n<!-- This is an auto-generated "
                "comment by CodeRabbit -->")
    if bot == "copilot-pull-request-reviewer":
        return (f"The loop variable shadows the outer `item` (finding {n}); rename it to avoid confusing the "
                "later `item.close()` call.\n```suggestion\nfor entry in items:\n```")
    return (f"![medium](https://www.gstatic.com/codereviewagent/medium-priority.svg)\n\nThe timeout (finding "
            f"{n}) is read once at import time, so changing the environment later has no effect.")


def _thread_author(i: int) -> str:
    return INLINE_BOTS[i % 3] if i % 5 == 0 else HUMANS[i % len(HUMANS)]


def large_pr(size: Size | str = FULL, seed: int = 7, git: Any = None, workdir: Path | None = None) -> dict[str, Any]:
    """The scenario dict: acme/widgets PR 4242 (the large PR) and the 3-PR stack 4301 <- 4302 <- 4303.
    ``git``: a ``bench.gitworld.GitWorld`` whose commits the PRs get (without it they have none, and the
    git tools cannot run); ``workdir``: where the generated monorepo log is written (default: bench/.cache)."""
    size = SIZES[size] if isinstance(size, str) else size
    rng = random.Random(seed)
    long = {i: (n, resolved) for i, n, resolved in size.long_threads}
    reviews: list[dict[str, Any]] = []
    rid = iter(range(2_000_001, 3_000_000))
    carriers: dict[str, list[int]] = {}
    people = [*HUMANS, *INLINE_BOTS, "octocat"]
    for k in range(max(size.carrier_reviews, len(people))):
        author = people[k % len(people)]
        reviews.append({"id": next(rid), "author": author, "state": "COMMENTED", "body": "",
                        "submitted_at": _ts(30 + k * 17)})
        carriers.setdefault(author, []).append(reviews[-1]["id"])

    threads: list[dict[str, Any]] = []
    cid = iter(range(1_000_001, 2_000_000))
    minute = 0
    for i in range(size.threads):
        n_comments, resolved = long.get(i, (rng.randint(1, size.max_short_comments), i % size.resolved_every == 3))
        outdated = i % size.outdated_every == 5 and not resolved
        root_author = _thread_author(i)
        comments = []
        for j in range(n_comments):
            author = root_author if j == 0 else (
                "octocat" if j % 3 == 1 else HUMANS[(i + j) % len(HUMANS)] if root_author in HUMANS else "octocat")
            if j and j == n_comments - 1 and i % 7 == 2:
                author = root_author  # the reviewer spoke last
            minute += 1
            body = _bot_inline_body(rng, author, i) if author in INLINE_BOTS and j == 0 else _human_body(rng, i + j)
            comments.append({"id": next(cid), "author": author, "body": body, "created_at": _ts(minute),
                             "review": carriers[author][(i + j) % len(carriers[author])],
                             "diff_hunk": f"@@ -{1 + i % 400},6 +{1 + i % 400},7 @@ def handler_{i}(req):\n"
                             "     value = req.get(\"x\")\n+    if value is None:\n+        return None",
                             **({"reactions": {"THUMBS_UP": 1 + i % 3}} if i % 6 == 0 and j == 0 else {})})
        line = 5 + (i * 13) % 700
        threads.append({"path": f"src/widgets/mod_{i % 37:02d}.py", "line": line,
                        "start_line": line - 3 if i % 8 == 0 else None, "resolved": resolved,
                        "outdated": outdated, "subject_type": "FILE" if i % 50 == 49 else "LINE",
                        "comments": comments})

    for k, (bot, body) in enumerate(review_bodies(size.ai_bodies)):
        reviews.append({"id": next(rid), "author": bot, "state": "COMMENTED", "body": body,
                        "submitted_at": _ts(minute + 40 + k * 11)})
    states = ("CHANGES_REQUESTED", "COMMENTED", "APPROVED", "COMMENTED")
    for k in range(size.human_reviews):
        state = states[k % len(states)]
        body = "" if state == "APPROVED" and k % 2 else _human_body(rng, k) + " Overall the direction is right."
        reviews.append({"id": next(rid), "author": HUMANS[k % len(HUMANS)], "state": state, "body": body,
                        "submitted_at": _ts(minute + 50 + k * 23)})

    issue_comments = []
    for k in range(size.issue_comments):
        author = ("github-actions" if k % 10 == 0 else "codecov" if k % 15 == 1 else "coderabbitai" if k == 2
                  else HUMANS[k % len(HUMANS)])
        body = ("<!-- walkthrough -->\n## Walkthrough\n" + "Summary of the changes in this file. " * 40
                if author == "coderabbitai" else f"Coverage report for run {k}: 91.{k % 10}%"
                if author in ("github-actions", "codecov") else _human_body(rng, k + 3))
        issue_comments.append({"id": 3_000_001 + k, "author": author, "body": body, "created_at": _ts(minute + k * 5),
                               **({"minimized": True} if k % 40 == 39 else {})})

    big = {"number": NUMBER, "title": "Streaming parser rewrite", "author": "octocat",
           "head_ref": "feature/streaming-parser", "base_ref": "main", "created_at": "2026-11-01T00:00:00Z",
           "threads": threads, "reviews": reviews, "issue_comments": issue_comments, **size.extra}
    pulls = [big, *_stack()]
    ci = _ci_section(pulls, size, workdir or ROOT / "bench" / ".cache")
    for pr in pulls if git is not None else ():
        pr.update(git.pulls[pr["number"]])
    users: dict[str, Any] = {b: {"type": "Bot"} for b in (*BOT_LOGINS.values(), "github-actions", "codecov")}
    users["copilot-pull-request-reviewer"]["rest_comment_login"] = "Copilot"
    users.update({h: {"type": "User", "association": "COLLABORATOR"} for h in HUMANS})
    repo = {"owner": OWNER, "name": REPO, "viewer_permission": "WRITE", "pull_requests": pulls,
            "branch_rules": {"main": {"rulesets": [ci_scenario.ruleset()]}}, **(git.repo if git is not None else {})}
    return {"description": f"bench: large PR ({size.name})", "viewer": {"login": "octocat"}, "users": users,
            "repositories": [repo], "_bench": {"ci": ci, "git_history": git is not None}}


def _stack() -> list[dict[str, Any]]:
    """A 3-PR stack: main <- stack/base <- stack/middle <- stack/top, one review thread each (the git world
    then sets their commits: #4301 squash-merged, #4302 retargeted to main)."""
    out, base = [], "main"
    for n, name in zip(STACK, ("base", "middle", "top"), strict=True):
        out.append({"number": n, "title": f"Stack: {name}", "author": "octocat", "head_ref": f"stack/{name}",
                    "base_ref": base, "threads": [{"path": "src/stack.py", "line": 3, "comments": [
                        {"author": "alice", "body": f"Does {name} still need the shim?"}]}]})
        base = f"stack/{name}"
    return out


def _ci_section(pulls: list[dict[str, Any]], size: Size, workdir: Path) -> dict[str, int]:
    """Checks and Actions jobs with their logs on the large PR (issue 7: >= 60 checks, >= 12 failed jobs)."""
    return ci_scenario.ci_section(pulls[0], size.ci, workdir)


def describe(scenario: dict[str, Any]) -> dict[str, int]:
    """Counts of the large PR (recorded with the results)."""
    pr = pull(scenario)
    threads = pr["threads"]
    return {
        "threads": len(threads),
        "unresolved_threads": sum(not t.get("resolved") for t in threads),
        "comments": sum(len(t["comments"]) for t in threads),
        "threads_over_100_comments": sum(len(t["comments"]) > 100 for t in threads),
        "reviews": len(pr["reviews"]),
        "reviews_with_ai_bodies": sum(r["author"] in BOT_LOGINS.values() and bool(r["body"]) for r in pr["reviews"]),
        "issue_comments": len(pr["issue_comments"]),
        "stack_prs": len(STACK),
        **(scenario.get("_bench") or {}).get("ci", {}),
        "git_history": bool((scenario.get("_bench") or {}).get("git_history")),
    }


def pull(scenario: dict[str, Any], number: int = NUMBER) -> dict[str, Any]:
    return next(p for p in scenario["repositories"][0]["pull_requests"] if p["number"] == number)


def pr_ref(number: int = NUMBER) -> str:
    return f"{OWNER}/{REPO}#{number}"
