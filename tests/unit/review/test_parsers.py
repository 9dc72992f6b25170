"""AI-reviewer body parsers: golden fixtures, detection, fingerprints, robustness."""

from __future__ import annotations

import html
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pr_agent.review.bots import (
    SPEC_FIELDS,
    BotParser,
    Finding,
    ParseResult,
    detect_bot,
    get_parser,
    make_fingerprint,
    normalize_severity,
    parse_review_body,
    parsers,
)
from pr_agent.review.bots.model import CATEGORIES, LEVELS
from tests.unit.review.fixture_cases import FIXTURES, REAL, SOURCE_KEYS, Case, cases

CASES = cases()
REAL_CASES = [c for c in CASES if c.real]
NO_BODY_MARKERS = {"gemini/summary_only", "human/plain_request"}


def _case(case_id: str) -> Case:
    return next(c for c in CASES if c.id == case_id)


# --- golden fixtures ------------------------------------------------------------------------------


def test_fixture_corpus_is_complete() -> None:
    by_bot: dict[str, int] = {}
    for c in CASES:
        by_bot[c.bot_dir] = by_bot.get(c.bot_dir, 0) + 1
        assert c.expected_path.exists(), f"{c.id}: run tests/unit/review/regen_expected.py"
    assert by_bot["coderabbit"] >= 4
    for bot in ("copilot", "gemini", "codex", "sourcery", "qodo", "greptile", "cursor"):
        assert by_bot.get(bot, 0) >= 1, bot
    assert len(CASES) >= 25


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_golden(case: Case) -> None:
    actual = case.actual()
    expected = case.expected()
    assert actual["bot"] == expected["bot"]
    assert actual["uncertain"] == expected["uncertain"]
    assert len(actual["items"]) == len(expected["items"])
    for got, want in zip(actual["items"], expected["items"], strict=True):
        assert got == want


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_items_carry_the_contract_fields(case: Case) -> None:
    for item in case.actual()["items"]:
        assert set(SPEC_FIELDS) <= set(item)
        assert item["category"] in {"actionable", "nitpick", "outside_diff", "duplicate",
                                    "additional", "lgtm", "general"}
        assert item["severity_level"] in {None, "critical", "major", "minor", "trivial", "info"}
        assert item["title"], item
        if item["start_line"] is not None:
            assert item["end_line"] >= item["start_line"]


@pytest.mark.parametrize("case", [c for c in CASES if c.id not in NO_BODY_MARKERS], ids=lambda c: c.id)
def test_detection_from_body_alone_gives_the_same_result(case: Case) -> None:
    if not case.body_markers:  # real body with no marker of its own: never misattributed, though
        assert detect_bot(None, case.body()) in (None, case.bot_dir)
        return
    assert detect_bot(None, case.body()) == case.bot_dir
    assert parse_review_body(case.body()).to_dict() == case.actual()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_crlf_and_lf_bodies_parse_the_same(case: Case) -> None:
    body = case.body().replace("\r\n", "\n")
    lf = parse_review_body(body, case.author).to_dict()
    crlf = parse_review_body(body.replace("\n", "\r\n"), case.author).to_dict()
    assert lf == crlf == case.actual()


# --- real bodies (fixtures/reviews/real) --------------------------------------------------------


def test_real_corpus_covers_every_reviewer() -> None:
    by_bot: dict[str, int] = {}
    for c in REAL_CASES:
        by_bot[c.bot_dir] = by_bot.get(c.bot_dir, 0) + 1
    assert len(REAL_CASES) >= 25
    assert by_bot["coderabbit"] >= 8
    for bot in ("copilot", "gemini", "codex", "sourcery", "qodo", "greptile", "cursor"):
        assert by_bot.get(bot, 0) >= 1, bot


@pytest.mark.parametrize("case", REAL_CASES, ids=lambda c: c.id)
def test_real_fixture_records_its_source(case: Case) -> None:
    source = case.source()
    assert set(SOURCE_KEYS) <= set(source), case.id
    assert all(isinstance(source[k], str) and source[k].strip() for k in SOURCE_KEYS)
    assert source["captured"] in ("2026-11-30", "2026-12-02")  # the two capture sessions
    assert detect_bot(source["author"], "") == case.bot_dir  # the login as found names the bot
    assert case.name[:2].isdigit() and case.name[2] == "-"


def test_real_fixtures_are_listed_in_the_readme() -> None:
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    for case in REAL_CASES:
        assert case.id in readme, f"{case.id} missing from fixtures/reviews/README.md"
    assert {p.parent.name for p in REAL.glob("*/*.md")} <= set(by.bot_dir for by in REAL_CASES)


def _real(case_id: str):
    case = _case(case_id)
    return parse_review_body(case.body(), case.author)


def test_real_coderabbit_stray_fence_does_not_hide_the_next_item() -> None:
    result = _real("real/coderabbit/05-2026-02-minor-tier-truncated")
    lines = [i.start_line for i in result.items]
    assert 57 in lines and len(lines) == 11  # js-batch-dom-css.md 57-70 sits after the broken fence
    assert any("unterminated code fence" in n for n in result.uncertain)
    assert any("declares 23 item(s); parsed 11" in n for n in result.uncertain)  # truncated on purpose
    assert all(i.suggestion for i in result.items if i.start_line != 34)  # "📝 修正案" diffs are kept


def test_real_coderabbit_html_comments_inside_diffs_are_kept() -> None:
    result = _real("real/coderabbit/04-2025-10-caution-outside-diff")
    item = next(i for i in result.items if i.title.startswith("README replacement"))
    assert item.suggestion and "<!-- MCP_TOOLS:START -->" in item.suggestion
    assert "<!-- MCP_TOOLS:END -->" in item.body


def test_real_coderabbit_request_filed_as_additional_is_flagged_not_promoted() -> None:
    result = _real("real/coderabbit/04-2025-10-caution-outside-diff")
    item = next(i for i in result.items if i.title.startswith("Remove unused indexmap"))
    assert item.category == "additional" and item.actionable is False
    assert any("Remove unused indexmap" in n and "reads like a request" in n for n in result.uncertain)


def test_real_gemini_fallback_body_items_have_locations() -> None:
    result = _real("real/gemini/03-inline-fallback-findings")
    assert [(i.file_path, i.start_line, i.end_line) for i in result.items][:3] == [
        ("docker-compose.yml", 164, 165),
        ("src/frontend/src/components/YearRangeInput.tsx", 9, 71),
        ("src/frontend/src/pages/Rankings.tsx", 44, 44),
    ]
    assert result.items[0].severity == "critical (security)"
    assert "</details>" not in result.items[-1].body


def test_real_copilot_stated_priority_is_kept() -> None:
    result = _real("real/copilot/05-2026-05-no-new-comments-suppressed")
    assert [i.severity for i in result.items] == ["P1 (low confidence)"] * 2
    assert all(i.severity_level == "major" and i.category == "nitpick" for i in result.items)
    assert "<path to be created>" in result.items[1].body  # prose in angle brackets is not markup


def test_drift_fixture_reports_count_mismatches() -> None:
    result = parse_review_body(_case("coderabbit/drift_crlf_entities").body(), "coderabbitai")
    assert any("declares 2 item(s); parsed 1" in n for n in result.uncertain)
    assert any("declares 3 item(s); parsed 2" in n for n in result.uncertain)
    assert len(result.items) == 3  # what was parsed is kept


SUMMARY_ONLY = [
    "coderabbit/summary_only", "coderabbit/walkthrough_comment", "copilot/overview_no_findings",
    "gemini/summary_only", "codex/no_findings", "greptile/review_body_summary",
    "cursor/bugbot_summary_only",
]


@pytest.mark.parametrize("case_id", SUMMARY_ONLY)
def test_summary_only_bodies_yield_no_items(case_id: str) -> None:
    case = _case(case_id)
    result = parse_review_body(case.body(), case.author)
    assert result.bot == case.bot_dir
    assert result.items == []
    assert result.uncertain == []


def test_lgtm_and_additional_notes_are_not_actionable() -> None:
    seen = 0
    for case in CASES:
        for item in case.actual()["items"]:
            if item["category"] in ("lgtm", "additional"):
                seen += 1
                assert item["actionable"] is False, (case.id, item["title"])
            else:
                assert item["actionable"] is True, (case.id, item["title"])
    assert seen >= 4


def test_coderabbit_tiers_are_categorised() -> None:
    result = parse_review_body(_case("coderabbit/outside_diff_caution_2025").body(), "coderabbitai")
    cats = [i.category for i in result.items]
    assert cats == ["outside_diff", "outside_diff", "duplicate", "nitpick", "lgtm", "additional"]
    first = result.items[0]
    assert first.file_path == "app/services/session_store.py"
    assert (first.start_line, first.end_line) == (118, 131)
    assert first.severity == "🟠 Major" and first.severity_level == "major"
    assert first.suggestion and "self._index.pop(key, None)" in first.suggestion
    assert first.ai_prompt and first.ai_prompt.startswith("In app/services/session_store.py")
    assert "Ruff" not in " ".join(i.body for i in result.items)  # tool hints are not findings


def test_human_review_is_not_parsed_even_when_it_quotes_a_bot() -> None:
    body = _case("coderabbit/outside_diff_caution_2025").body()
    result = parse_review_body(body, "octocat")
    assert result.bot is None and result.items == []
    assert result.uncertain and result.uncertain[0].startswith("unrecognised format")


def test_unknown_format_gets_a_clear_note() -> None:
    result = parse_review_body("Some text from a bot we have never seen.", "mystery-reviewer[bot]")
    assert result.bot is None and result.items == []
    assert result.uncertain[0].startswith("unrecognised format")
    assert parse_review_body("", None).uncertain == []


# --- detection ------------------------------------------------------------------------------------

AUTHORS = [
    ("coderabbitai[bot]", "coderabbit"), ("coderabbitai", "coderabbit"),
    ("Copilot", "copilot"), ("copilot-pull-request-reviewer[bot]", "copilot"),
    ("copilot-pull-request-reviewer", "copilot"),
    ("gemini-code-assist[bot]", "gemini"), ("gemini-code-assist", "gemini"),
    ("chatgpt-codex-connector[bot]", "codex"), ("chatgpt-codex-connector", "codex"),
    ("sourcery-ai[bot]", "sourcery"), ("sourcery-ai", "sourcery"),
    ("qodo-merge-pro[bot]", "qodo"), ("qodo-merge-pro", "qodo"),
    ("greptile-apps[bot]", "greptile"), ("greptile-apps", "greptile"),
    ("cursor[bot]", "cursor"), ("cursor", "cursor"), ("app/coderabbitai", "coderabbit"),
    ("octocat", None), ("", None), (None, None), ("renovate[bot]", None),
]


@pytest.mark.parametrize(("author", "bot"), AUTHORS)
def test_detection_from_author(author: str | None, bot: str | None) -> None:
    assert detect_bot(author, "plain words, no markers") == bot


def test_author_wins_over_body_markers() -> None:
    body = _case("coderabbit/nitpicks_2024_bold_title").body()
    assert detect_bot("sourcery-ai[bot]", body) == "sourcery"
    assert detect_bot("github-actions[bot]", body) == "coderabbit"  # unknown bot: markers decide


def test_registry_has_one_parser_per_bot() -> None:
    names = [p.name for p in parsers()]
    assert names == ["coderabbit", "copilot", "gemini", "codex", "sourcery", "codeant", "qodo", "greptile",
                     "cursor", "cubic", "bito", "augment", "ellipsis", "korbit", "baz", "graphite", "amazonq",
                     "windsurf"]
    assert all(isinstance(p, BotParser) for p in parsers())
    assert get_parser(None).parse("anything") == []


# --- fingerprints ---------------------------------------------------------------------------------


def _findings(body: str) -> list[Finding]:
    return parse_review_body(body, "coderabbitai[bot]").items


def test_fingerprint_ignores_line_numbers_and_whitespace() -> None:
    body = _case("coderabbit/minor_and_nitpicks_2026").body()
    moved = body.replace("`71-79`", "`75-83`").replace("`23-23`", "`31-31`").replace("`12-14`", "`9`")
    moved = moved.replace("**Abort the pending upload", "**Abort   the pending\tupload")
    before, after = _findings(body), _findings(moved)
    assert [f.start_line for f in before] != [f.start_line for f in after]
    assert [f.fingerprint for f in before] == [f.fingerprint for f in after]


def test_reposted_finding_keeps_its_fingerprint_across_reviews() -> None:
    first = _findings(_case("coderabbit/minor_and_nitpicks_2026").body())
    upload = next(f for f in first if f.title.startswith("Abort the pending upload"))
    later = """**Actionable comments posted: 0**

<details>
<summary>♻️ Duplicate comments (1)</summary><blockquote>

<details>
<summary>web/src/hooks/useUpload.ts (1)</summary><blockquote>

`80-88`: _⚠️ Potential issue_ | _🟡 Minor_

**Abort the pending upload when the component unmounts**

Still unaddressed: the request keeps running after unmount.

</blockquote></details>

</blockquote></details>
"""
    (again,) = _findings(later)
    assert again.category == "duplicate" and again.start_line == 80
    assert again.fingerprint == upload.fingerprint


def test_different_findings_have_different_fingerprints() -> None:
    all_fps = []
    for case in CASES:
        all_fps.extend(item["fingerprint"] for item in case.actual()["items"])
    assert len(all_fps) == len(set(all_fps))
    base = make_fingerprint("coderabbit", "a.py", "Close the file", "")
    assert make_fingerprint("coderabbit", "b.py", "Close the file", "") != base
    assert make_fingerprint("coderabbit", "a.py", "Close the socket", "") != base
    assert make_fingerprint("sourcery", "a.py", "Close the file", "") != base
    assert make_fingerprint("coderabbit", "./A.py", "  close the FILE.  ", "") == base
    # no title: the first meaningful body line stands in, line references stripped
    assert make_fingerprint("x", None, "", "Line 12: leak\nmore") == make_fingerprint(
        "x", None, "", "\n\nLine 40: leak\nother")


# --- severities -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "level"), [
    ("🔴 Critical", "critical"), ("🟠 Major", "major"), ("🟡 Minor", "minor"), ("🔵 Trivial", "trivial"),
    ("_⚠️ Potential issue_", "major"), ("🛠️ Refactor suggestion", "minor"), ("🧹 Nitpick", "trivial"),
    ("P0", "critical"), ("P1", "major"), ("P2", "minor"), ("P3", "trivial"),
    ("high", "major"), ("medium", "minor"), ("low", "trivial"), ("critical", "critical"),
    ("issue (bug_risk)", "major"), ("suggestion (performance)", "minor"), ("nitpick (typo)", "trivial"),
    ("🚨 security (sql injection)", "major"), ("praise", "info"), ("High Severity", "major"),
    ("", None), (None, None), ("💡 Verification agent", None),
])
def test_normalize_severity(raw: str | None, level: str | None) -> None:
    assert normalize_severity(raw) == level


# --- robustness -----------------------------------------------------------------------------------


def test_a_parser_bug_becomes_a_note_not_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = get_parser("codex")

    def boom(text: str, notes: list[str]) -> list[Finding]:
        raise RuntimeError("boom")

    monkeypatch.setattr(parser, "extract", boom)
    result = parse_review_body("### 💡 Codex Review", "chatgpt-codex-connector[bot]")
    assert isinstance(result, ParseResult) and result.items == []
    assert result.uncertain == ["codex failed on this body (RuntimeError); no items kept"]


def test_non_string_input_is_tolerated() -> None:
    assert parse_review_body(None, None).items == []  # type: ignore[arg-type]
    assert parse_review_body(b"bytes", "coderabbitai").items == []  # type: ignore[arg-type]


_TOKENS = st.sampled_from([
    "<details>", "</details>", "<summary>", "</summary>", "<blockquote>", "</blockquote>",
    "> ", "> > ", "```", "```diff", "~~~", "\n", "\r\n", " ", "`10-12`: ", "12-14: ",
    "Line range hint `4-15`: ", "**Title.**", "_⚠️ Potential issue_ | _🟠 Major_", "🧹 Nitpick comments (2)",
    "⚠️ Outside diff range comments (1)", "src/a.py (1)", "🔇 Additional comments (1)", "**LGTM!**",
    "[!CAUTION]", "**src/x.py:12**", "* finding", "Comments suppressed due to low confidence (1)",
    "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)", "### Comment 1",
    "<location> `a.py:1` </location>", "<issue_to_address>", "**issue (bug_risk):** t",
    "</issue_to_address>", "<!-- BUGBOT_BUG_ID: x -->", "### Bug: t", "**High Severity**",
    "<!-- LOCATIONS START\na.py#L1-L2\nLOCATIONS END -->", "<!-- DESCRIPTION START -->",
    "1. `a.py`, line 3-4 ", "Comments Outside Diff (1)", "<a href='https://github.com/o/r/blob/s/a.py#L1'>",
    "<strong>T</strong></a>", "https://github.com/o/r/blob/s/a.py#L1-L2",
    "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  T**",
    "<!--", "-->", "&amp;", "&#x26A0;", "·", "<em>🟡 Minor</em> · T · <code>a.py:1-2</code>", "---",
    "````", "</blockquote></details>", "### a.py (1-2)", "P1 (xref): ", "📝 修正案",
    "![security-critical](https://www.gstatic.com/codereviewagent/security-critical.svg)",
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.text(max_size=3000), author=st.sampled_from([None, "coderabbitai[bot]", "x[bot]"]))
def test_arbitrary_text_never_raises_and_invents_nothing(body: str, author: str | None) -> None:
    _invents_nothing(body, parse_review_body(body, author).items)
    for p in parsers():
        _invents_nothing(body, p.parse(body))


def _invents_nothing(body: str, findings: list[Finding]) -> None:
    """What any parse of any body promises: every item says something, from the body, in the model's terms."""
    plain = html.unescape(body)
    for f in findings:
        assert f.title.strip() or f.body.strip() or (f.suggestion or "").strip(), f  # no empty finding
        assert f.category in CATEGORIES, f
        assert f.severity_level is None or f.severity_level in LEVELS, f
        if f.start_line is not None and f.end_line is not None:
            assert 1 <= f.start_line <= f.end_line, f
        if f.file_path:
            assert f.file_path in body or f.file_path in plain, f  # a path is read, never made up


@pytest.mark.parametrize("body", [
    "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)",
    "```![security-critical](https://www.gstatic.com/codereviewagent/security-critical.svg)",
])
def test_a_severity_badge_with_nothing_after_it_is_not_a_finding(body: str) -> None:
    assert parse_review_body(body, "gemini-code-assist[bot]").items == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tokens=st.lists(_TOKENS, max_size=200))
def test_arbitrary_markup_never_raises(tokens: list[str]) -> None:
    body = "".join(tokens)
    started = time.perf_counter()
    for p in parsers():
        found = p.parse(body)
        _invents_nothing(body, found)
        for finding in found:
            assert set(SPEC_FIELDS) <= set(finding.to_dict())
    assert time.perf_counter() - started < 60.0  # a hang guard, not a benchmark


def _timed(body: str) -> float:
    started = time.perf_counter()
    for p in parsers():
        p.parse(body)
    parse_review_body(body, "coderabbitai[bot]")
    return time.perf_counter() - started


def test_five_megabyte_body_finishes() -> None:
    unit = _case("coderabbit/outside_diff_caution_2025").body()
    body = (unit * (5_000_000 // len(unit) + 1))[:5_000_000]
    elapsed = _timed(body)
    print(f"5 MB CodeRabbit-like body, all parsers: {elapsed:.2f}s")
    # a hang guard, not a benchmark: ~35 s on a quiet 2-core machine for 13 parsers; a quadratic parser takes hours
    assert elapsed < 300.0


def test_many_stray_fences_finish() -> None:
    unit = "````\n" + "x\n" * 2000 + "</blockquote></details>\n"
    body = "**Actionable comments posted: 1**\n" + unit * 300
    elapsed = _timed(body)
    print(f"300 stray fences over {len(body)} chars: {elapsed:.2f}s")
    assert elapsed < 60.0  # a hang guard, not a benchmark


@pytest.mark.parametrize("opener,closer", [
    ("<details><summary>🧹 Nitpick comments (1)</summary><blockquote>\n", "</blockquote></details>\n"),
    ("> ", ""),
    ("<blockquote>\n", "</blockquote>\n"),
])
def test_thousand_level_nesting_finishes(opener: str, closer: str) -> None:
    if closer:
        body = opener * 1000 + "`1-2`: **deep**\n\ntext\n" + closer * 1000
    else:  # quote markers nest by prefix
        body = "\n".join(opener * 1000 + line for line in ["<details>", "`1-2`: **deep**", "</details>"])
    elapsed = _timed(body)
    print(f"1000-level nesting ({opener.strip()[:20]!r}): {elapsed:.2f}s")
    assert elapsed < 60.0  # a hang guard, not a benchmark


def test_unclosed_and_stray_tags_are_tolerated() -> None:
    body = "</details></summary><details><summary>🧹 Nitpick comments (1)<blockquote>\n`3`: **x**\n"
    result = parse_review_body(body, "coderabbitai[bot]")
    assert isinstance(result.items, list)


def test_fixtures_directory_is_where_the_tests_look() -> None:
    assert (FIXTURES / "coderabbit").is_dir()


# --- CodeRabbit format variants not covered by a whole fixture ------------------------------------


def test_coderabbit_failed_to_post_bare_locator_and_combined_2024_title() -> None:
    body = """Actionable comments posted: 1

<details>
<summary>🛑 Comments failed to post (1)</summary><blockquote>

<details>
<summary>src/db.py (1)</summary><blockquote>

62-75: _⚠️ Potential issue_ | _🟠 Major_

**Connection is not returned to the pool on error.**

Wrap the body in `try/finally`.

</blockquote></details>

</blockquote></details>

<details>
<summary>Outside diff range, codebase verification and nitpick comments (2)</summary><blockquote>

<details>
<summary>src/db.py (2)</summary><blockquote>

`5-9`: _🧹 Nitpick_

**Sort the imports.**

---

`120-130`: _⚠️ Potential issue_

**`close()` is never awaited.**

</blockquote></details>

</blockquote></details>
"""
    items = parse_review_body(body, "coderabbitai[bot]").items
    assert [(i.start_line, i.end_line, i.category) for i in items] == [
        (62, 75, "actionable"), (5, 9, "nitpick"), (120, 130, "outside_diff")]
    assert items[0].severity == "🟠 Major" and items[0].title.startswith("Connection is not")
    assert items[2].severity == "⚠️ Potential issue" and items[2].severity_level == "major"


def test_coderabbit_unknown_section_with_findings_is_reported_not_dropped() -> None:
    body = """**Actionable comments posted: 0**

<details>
<summary>🧪 Verification findings (1)</summary><blockquote>

`10-12`: **Something new.**

</blockquote></details>
"""
    result = parse_review_body(body, "coderabbitai[bot]")
    assert result.items == []
    assert result.uncertain == ["CodeRabbit section '🧪 Verification findings (1)' looks like findings "
                                "but is not a known section; not parsed"]


def _quote_twice(text: str) -> str:
    return "\n".join("> > " + line if line else "> >" for line in text.split("\n"))


def test_coderabbit_doubly_quoted_caution_block() -> None:
    body = _quote_twice("""[!CAUTION]
<details>
<summary>⚠️ Outside diff range comments (1)</summary><blockquote>

<details>
<summary>a/b.py (1)</summary><blockquote>

`3-4`: _⚠️ Potential issue_ | _🟡 Minor_

**Quoted twice.**

Text with >= 0 kept.

</blockquote></details>

</blockquote></details>""")
    (item,) = parse_review_body(body, "coderabbitai[bot]").items
    assert (item.file_path, item.start_line, item.category) == ("a/b.py", 3, "outside_diff")
    assert item.body == "Text with >= 0 kept."


def test_coderabbit_file_summary_with_line_range_suffix() -> None:
    body = """<details>
<summary>🧹 Nitpick comments (1)</summary><blockquote>

<details>
<summary>src/app.component.ts-10-12 (1)</summary><blockquote>

`10-12`: _🧹 Nitpick_ | _🔵 Trivial_

**Drop the unused input.**

</blockquote></details>

</blockquote></details>
"""
    (item,) = parse_review_body(body, "coderabbitai[bot]").items
    assert (item.file_path, item.start_line, item.end_line) == ("src/app.component.ts", 10, 12)
