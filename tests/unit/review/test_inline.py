"""Inline comments of AI reviewers read as findings (pr_agent/review/bots/inline.py); humans stay plain."""

from __future__ import annotations

import pytest

from pr_agent.review.bots.inline import parse_inline_comment

CODERABBIT = """_⚠️ Potential issue_ | _🟠 Major_

**Unbounded retry loop.**

The loop never stops when the server is down.

<details>
<summary>📝 Committable suggestion</summary>

```suggestion
for _ in range(5):
```

</details>

<details>
<summary>🤖 Prompt for AI Agents</summary>

```
In src/db.py around line 40, bound the retry loop.
```

</details>

<!-- This is an auto-generated comment by CodeRabbit -->"""

CODEX = """**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  Guard None config**

When `config` is missing this raises.

Useful? React with 👍 / 👎."""

GEMINI = """![high](https://www.gstatic.com/codereviewagent/high-priority.svg)

The token is logged in plain text. Remove it.

```suggestion
log.info("connected")
```"""

GREPTILE = """**logic:** Off-by-one: `range(n+1)` reads past the end.

```suggestion
for i in range(n):
```

<details><summary>Prompt To Fix With AI</summary>

`````markdown
In a.py line 1, iterate range(n).
`````
</details>"""

CURSOR = """### Bug: Cache key ignores the tenant

**High Severity**

Two tenants share one cache entry.

<!-- BUGBOT_BUG_ID: 0f1e2d -->"""

# (body, author, expected title, severity, severity_level, category, suggestion, ai_prompt)
CASES = [
    (CODERABBIT, "coderabbitai", "Unbounded retry loop.", "🟠 Major", "major", "actionable", "for _ in range(5):",
     "In src/db.py around line 40, bound the retry loop."),
    (CODEX, "chatgpt-codex-connector", "Guard None config", "P1", "major", "actionable", None, None),
    (GEMINI, "gemini-code-assist", "The token is logged in plain text.", "high", "major", "actionable",
     'log.info("connected")', None),
    (GREPTILE, "greptile-apps", "Off-by-one: range(n+1) reads past the end.", "logic", "major", "actionable",
     "for i in range(n):", "In a.py line 1, iterate range(n)."),
    ("[nitpick] Rename `x` for clarity.", "copilot-pull-request-reviewer", "Rename x for clarity.", None, "trivial",
     "nitpick", None, None),
    (CURSOR, "cursor", "Bug: Cache key ignores the tenant", "High Severity", "major", "actionable", None, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
def test_inline_bodies_yield_the_body_finding_fields(case: tuple) -> None:
    body, author, title, severity, level, category, suggestion, prompt = case
    f = parse_inline_comment(body, author, path="src/db.py", start=38, end=40)
    assert f is not None
    assert (f.title, f.severity, f.severity_level, f.category, f.suggestion, f.ai_prompt) == (
        title, severity, level, category, suggestion, prompt)
    assert (f.file_path, f.start_line, f.end_line) == ("src/db.py", 38, 40)
    assert "Useful?" not in f.body and "BUGBOT" not in f.body and "auto-generated" not in f.body


def test_humans_stay_plain_even_when_quoting_a_bot() -> None:
    assert parse_inline_comment("Please rename this.", "alice", path="a.py", start=1, end=1) is None
    assert parse_inline_comment(CODERABBIT, "alice", path="a.py", start=1, end=1) is None


def test_unknown_bot_login_is_recognised_by_unambiguous_markup() -> None:
    f = parse_inline_comment(GEMINI, "my-gemini-proxy[bot]", path="a.py", start=1, end=1)
    assert f is not None and f.severity == "high"
    assert parse_inline_comment("Thanks!", "renovate[bot]", path="a.py", start=1, end=1) is None


def test_praise_nitpick_is_not_actionable() -> None:
    f = parse_inline_comment("_🧹 Nitpick_ | _🔵 Trivial_\n\n**LGTM!**\n\nNice cleanup.", "coderabbitai",
                             path="a.py", start=1, end=1)
    assert f is not None and f.category == "lgtm" and f.actionable is False
    ask = parse_inline_comment("_🧹 Nitpick_ | _🔵 Trivial_\n\n**Nice helper, but rename it.**\n\nConsider `load`.",
                               "coderabbitai", path="a.py", start=1, end=1)
    assert ask is not None and ask.category == "nitpick" and ask.actionable is True


# Real cubic inline comments (cubic-dev-ai[bot]), as the search corpus holds them (cut where it cut them):
# opsmill/infrahub-ansible#361 review thread 2026-07-03 (.agents/commands/speckit.review.errors.md:10) and
# affaan-m/ECC#1492 review thread 2026-04-18 (agents/aios-builder.md:23). Sources also in fixtures/reviews/README.md.
CUBIC_REAL = [
    ("P2: The entire prompt body from `.specify/extensions/review/commands/errors.md` is duplicated across three "
     "other artifacts: `.agents/skills/speckit-review-errors/SKILL.md`, `.github/agents/speckit.review.errors."
     "agent.md`, and now this newly added `.agents/commands/speckit.review.errors.md`.",
     "The entire prompt body from .specify/extensions/review/commands/errors.md is duplicated across three other "
     "artifacts: .agents/skills/speckit-review-errors/SKILL.md, .github/agents/speckit.review.errors.agent.md, "
     "and now this newly added .agents/commands/speckit.review.errors.md.", None),
    ("P2: Cross-flag grep pattern is written as regex character class syntax and is invalid (`Invalid range end`), "
     "so the command can fail instead of finding builder-specific flags.\n\n<details>\n<summary>Prompt for AI "
     "agents</summary>\n\n```text\nCheck if this issue\n```\n\n</details>",
     "Cross-flag grep pattern is written as regex character class syntax and is invalid (Invalid range end), so "
     "the command can fail instead of finding builder-specific flags.", "Check if this issue"),
]


@pytest.mark.parametrize("case", CUBIC_REAL, ids=["infrahub-ansible-361", "ecc-1492"])
def test_real_cubic_inline_comments(case: tuple) -> None:
    body, title, prompt = case
    f = parse_inline_comment(body, "cubic-dev-ai[bot]", path="a.md", start=10, end=10)
    assert f is not None
    assert (f.severity, f.severity_level, f.category, f.ai_prompt) == ("P2", "minor", "actionable", prompt)
    assert f.body == body.split("\n\n<details>")[0].removeprefix("P2: ")  # the lead is severity, not text
    assert f.title.startswith(title[:100]) and len(f.title) <= 161  # titles are cut at 160


def test_cubic_review_body_violations_or_kept_whole() -> None:
    from pr_agent.review.bots import parse_review_body

    body = ("**2 issues found** across 3 files\n\n<details>\n<summary>Prompt for AI agents (all 2 issues)</summary>"
            "\n\n```text\n<file name=\"src/a.ts\">\n<violation number=\"1\" location=\"src/a.ts:12\">\nP1: Missing "
            "await: the promise is dropped.\n</violation>\n<violation number=\"2\" location=\"src/a.ts:30-34\">\n"
            "P3: Unused import.\n</violation>\n</file>\n```\n\n</details>")
    got = parse_review_body(body, "cubic-dev-ai[bot]")
    assert [(f.file_path, f.start_line, f.end_line, f.severity_level, f.title) for f in got.items] == [
        ("src/a.ts", 12, 12, "major", "Missing await: the promise is dropped."),
        ("src/a.ts", 30, 34, "trivial", "Unused import.")]
    unknown = parse_review_body("**3 issues found** across 2 files. See the inline comments.", "cubic-dev-ai[bot]")
    assert unknown.bot == "cubic" and unknown.items == [] and unknown.uncertain  # kept whole, not dropped


# Real CodeAnt inline comments (codeant-ai[bot]) as github.com renders them (their raw Markdown was not in the
# corpus): netover/resync, resync/core/monitoring_integration.py (code-search file id 52602824272), and a
# backtothefutures83-oss PR on src/V12_002.SIMA.Flatten.cs (file id 55860902867). Also in fixtures/reviews/README.md.
CODEANT_REAL = [
    ("Suggestion: The tws_dashboard endpoint has the same TemplateResponse misuse as realtime_dashboard, passing the "
     "request object as the first positional argument and not including \"request\" in the context, which will "
     "raise a TypeError or break template rendering when the route is hit. [type error]\n\nSeverity Level: Major ⚠️",
     "The tws_dashboard endpoint has the same TemplateResponse misuse as realtime_dashboard, passing the request"),
    ("Suggestion: Swallowing all unexpected exceptions here makes callers treat flatten as successful even when it "
     "failed partway, so no upstream fallback/retry path can be triggered. Return an explicit failure signal or "
     "rethrow after logging so higher-level safety flows can react to an incomplete flatten. [incomplete "
     "implementation]\n\nSeverity Level: Major ⚠️",
     "Swallowing all unexpected exceptions here makes callers treat flatten as successful even when it failed"),
]


@pytest.mark.parametrize("case", CODEANT_REAL, ids=["resync-monitoring", "sima-flatten"])
def test_real_codeant_inline_comments(case: tuple) -> None:
    body, title = case
    f = parse_inline_comment(body, "codeant-ai[bot]", path="a.py", start=3, end=4)
    assert f is not None
    assert (f.severity, f.severity_level, f.category, f.file_path) == ("Major", "major", "actionable", "a.py")
    assert f.title.startswith(title) and not f.title.startswith("Suggestion")
    assert "Severity Level" not in f.body and f.body.startswith(title)
    bold = parse_inline_comment("**Suggestion:** Close the file. [resource leak]\n\n**Severity Level:** Minor ⚠️",
                                "codeant-ai[bot]", path="a.py", start=1, end=1)
    assert bold is not None and (bold.title, bold.severity_level) == ("Close the file.", "minor")


def test_new_bots_are_detected_by_login_and_by_unambiguous_markup() -> None:
    from pr_agent.review.bots import detect_bot

    assert [detect_bot(a, "") for a in ("codeant-ai[bot]", "bito-code-review[bot]", "augmentcode[bot]")] == [
        "codeant", "bito", "augment"]
    assert detect_bot("some-app[bot]", "CodeAnt AI finished reviewing your PR.") == "codeant"
    assert detect_bot("some-app[bot]", "<strong>Recommended areas for review</strong>") == "codeant"
    assert detect_bot("some-app[bot]", "<strong>Recommended focus areas for review</strong>") == "qodo"
    assert detect_bot("some-app[bot]", "## Code Review Agent Run Status\n\n- skipped") == "bito"
    assert detect_bot("some-app[bot]", "[![Fix All in Augment](https://x/y.svg)](https://app.augmentcode.com/z)") \
        == "augment"
    assert detect_bot("alice", "CodeAnt AI finished reviewing your PR.") is None  # a human quoting a bot
