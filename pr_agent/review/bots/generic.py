"""Findings of an AI reviewer whose format we do not know, read from the shapes most bots share.

A finding starts on a line that opens a unit — a heading, a bold line, a ``<summary>``, a list item, a
severity-led line — *and* says where or how bad: a file reference (``path.ext:12-14``, ``path#L12``,
```path``` then "Line 12") or a severity marker (🔴/🟠/🟡 with a word, ``**High**``, ``[MEDIUM]``,
``P1:``, ``Severity: high``, a priority badge). It runs to the next unit of the same or a higher level.
A table whose header names issues (issue / finding / severity / suggestion / problem / bug / violation)
gives one finding per row. Prose, summaries, walkthroughs, change lists ("`a.py`: added X") and anything
inside code fences never start a finding; sections titled like a summary (walkthrough, summary, changes,
overview, review details, …) are skipped unless the unit carries a severity. Findings get the usual fields
(title, severity, suggestion from a ```suggestion fence, ai_prompt from a "Prompt for AI…" block); the
caller marks them low confidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pr_agent.review.bots.markup import (
    clean_inline,
    first_sentence,
    remove_html_comments,
    split_fences,
    split_suggestion,
    strip_outer_fence,
    tidy_block,
    words_of,
)
from pr_agent.review.bots.model import Finding, make_finding, normalize_severity

_EXT = ("py|pyi|js|mjs|cjs|jsx|ts|tsx|mts|cts|go|rs|java|kt|kts|rb|php|cs|fs|cpp|cc|cxx|c|h|hh|hpp|m|mm|swift|"
        "scala|sh|bash|zsh|fish|ps1|bat|yml|yaml|json|jsonc|json5|toml|ini|cfg|conf|md|mdx|rst|txt|html|htm|css|"
        "scss|sass|less|vue|svelte|astro|sql|graphql|gql|proto|xml|gradle|lock|env|tf|tfvars|hcl|dart|lua|ex|exs|"
        "erl|hs|ml|mli|r|jl|pl|pm|vim|el|clj|cljs|nix|bzl|bazel|cmake|mk|dockerfile|properties|csv|ipynb|zig|sol|"
        "gemspec|plist|svg|tsv|sbt|groovy|cshtml|razor|xaml|csproj|sln|vb|asm|s|wat|cue|rego|prisma|hbs|ejs|"
        "erb|haml|pug|twig|liquid|j2|jinja|tpl|tmpl")
_PATH = (r"(?:(?:[\w.@~+()\[\]-]{1,100}/){0,20}[\w@~+-][\w.@~+-]{0,100}\.(?:" + _EXT + r")(?![\w]|-(?!\d))"
         r"|(?:[\w.@~+-]{1,100}/){0,20}(?:Dockerfile|Makefile|Gemfile|Rakefile|Procfile|Justfile|Jenkinsfile)\b)")
_REF = re.compile(
    rf"(?<![\w/.%=&?-])(?P<path>{_PATH})(?:`|</code>)?(?:[ \t]*(?::|#L|-(?=\d)|\[(?=\d{{1,7}}(?:-\d{{1,7}})?\])"
    rf"|\((?=\d{{1,7}}[ \t]*-[ \t]*\d{{1,7}}\))"
    rf"|,?[ \t]+(?:at[ \t]+)?lines?[ \t]+|[ \t]*\([ \t]*lines?[ \t]+|"
    rf"[ \t]+L)(?P<a>\d{{1,7}})(?:[ \t]*(?:-|–|to)[ \t]*L?(?P<b>\d{{1,7}}))?)?", re.IGNORECASE)
_BLOB = re.compile(r"/blob/[0-9a-f]{7,40}/(?P<path>[^\s#)\"'<>]{1,500})#L(?P<a>\d{1,7})(?:-L(?P<b>\d{1,7}))?")
_ANY_TAG_RE = re.compile(r"<[^<>\n]{0,500}>")
_DIFF_ANCHOR = re.compile(r"#diff-[0-9a-f]{16,64}R(\d{1,7})(?:-R(\d{1,7}))?")
_LINE_ONLY = re.compile(r"\blines?[ \t]+(\d{1,7})(?:[ \t]*(?:-|–|to)[ \t]*(\d{1,7}))?", re.IGNORECASE)
_SEV_WORDS = (r"critical|blocker|high|medium|moderate|low|major|minor|trivial|nit(?:pick)?|info|warning|error|bug|"
              r"security")
_SEVERITY = re.compile(
    r"(?P<emoji>[🔴🟠🟡🔵⚪🟢])\s*\**\s*(?P<ew>[A-Za-z][A-Za-z ]{1,20}?)\b"
    rf"|\*\*\s*(?P<bold>{_SEV_WORDS})(?:\s+(?:severity|priority|risk))?\s*:?\s*\*\*"
    rf"|\[(?P<br>{_SEV_WORDS}|P[0-3])\]"
    rf"|<(?:b|strong)>\s*(?P<hb>{_SEV_WORDS})(?:\s+(?:severity|priority))?\s*</(?:b|strong)>"
    rf"|(?:severity|priority|impact)(?:\s+level)?\**\s*:\s*\**\s*(?P<lab>{_SEV_WORDS}|P[0-3])\b"
    r"|^\s*(?:[-*]\s+|\d{1,3}\.\s+)?\**\s*(?P<p>P[0-3])\s*\**\s*[:|-]"
    rf"|\b(?P<sevw>{_SEV_WORDS})\s+(?:severity|priority)\b"
    r"|!\[(?P<badge>(?:security-)?(?:critical|high|medium|low)(?:-priority)?|P[0-3](?: Badge)?)\]\(",
    re.IGNORECASE | re.MULTILINE)
_P_LEVEL = {"P0": "critical", "P1": "major", "P2": "minor", "P3": "trivial"}
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.+)$")
_HTML_HEADING = re.compile(r"^[ \t]*(?:<details>[ \t]*)?(?:<summary>[ \t]*)?<h([1-6])>(.*?)</h\1>", re.IGNORECASE)
_BOLD_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]+|\d{1,3}\\?[.)][ \t]+)?\*\*(.{2,300}?)\*\*")
_LIST = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,3}\\?[.)])[ \t]+(.*)$")
_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|$)", re.IGNORECASE)
_TABLE_ROW = re.compile(r"^[ \t]*\|(.+)\|[ \t]*$")
_SEPARATOR = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}")
_SKIP_SECTION = ("walkthrough", "confidence score", "important files", "summary", "overview", "changes", "changelog",
                 "sequence diagram", "poem",
                 "review details", "configuration", "files reviewed", "files changed", "file changes",
                 "estimated code review", "related", "suggested labels", "suggested reviewers", "tips",
                 "what changed", "highlights", "description", "recent review", "review info", "stats",
                 "pre merge checks", "finishing touches", "commits", "how to", "usage", "commands")
_SKIP_DETAILS = ("looked at", "files", "ignored", "selected", "processing", "path filters", "details", "info",
                 "learnings",
                 "reviewed", "runs", "status")
_SECTION_TITLE = re.compile(r"^\W*(?:[\w-]+\s+){0,3}(?:comments?|issues?|findings?|suggestions?|nitpicks?)"
                            r"(?:\s+(?:posted|found|outside diff))?(?:\s*\(\s*\d+\s*\)|\s*:\s*\d+)\W*$", re.IGNORECASE)
_FEEDBACK_SECTION = re.compile(r"\b(?:comments|feedback|issues|findings|concerns|problems|suggestions|"
                               r"recommendations|action items|bugs)\b(?!\s+(?:posted|found))")
_FEEDBACK_LEAD = re.compile(r"(?:high level feedback|found \d+ issues?|issues? found)", re.IGNORECASE)
_FINDING_COLS = ("issue", "finding", "severity", "suggestion", "problem", "bug", "violation", "concern",
                 "vulnerability", "risk", "impact", "priority")
_TITLE_COLS = ("issue", "finding", "suggestion", "problem", "title", "description", "violation", "concern",
               "bug", "vulnerability")
_NONE = re.compile(r"^\W*(?:no|none|n/?a|nothing|lgtm|(?:all )?looks good|all good)\b"
                   r"|\b\d+\s+(?:issues?|comments?|findings?|suggestions?)\s+(?:found|posted)\W*$", re.IGNORECASE)
_CHANGE_VERB = re.compile(r"^\W*(?:adds?|added|updates?|updated|introduces?|introduced|renames?|renamed|"
                          r"removes?|removed|refactors?|refactored|moves?|moved|bumps?|bumped|creates?|created|"
                          r"implements?|implemented|modif(?:y|ies|ied)|changes?|changed|new)\b", re.IGNORECASE)


@dataclass
class _Unit:
    start: int  # index of the first line
    level: int  # 1–6 headings, 7 bold/summary/severity lead, 8 + indent list items
    head: str
    feedback: bool = False  # a bullet under a section named for feedback ("Overall Comments")
    path: str | None = None  # where the lines right under the unit's head say it is
    line: int | None = None


def extract_generic(text: str, bot: str) -> list[Finding]:
    """Findings read from common shapes (see the module docstring); ``[]`` when none is unambiguous."""
    text = remove_html_comments(text)
    lines, in_fence = _lines_outside_fences(text)
    units = _units(lines, in_fence)
    out: list[Finding] = []
    seen: set[tuple] = set()
    for i, unit in enumerate(units):
        stop = len(lines)
        for nxt in units[i + 1:]:
            if nxt.level <= unit.level or (unit.level >= 8 and nxt.level >= 8 and nxt.level <= unit.level):
                stop = nxt.start
                break
        chunk = "\n".join(lines[unit.start:stop])
        f = _finding(bot, unit, chunk)
        if f is None:
            continue
        key = (f.file_path, f.start_line) if f.start_line is not None and f.file_path else \
            (f.file_path, f.start_line, f.title.lower())
        if key not in seen:
            seen.add(key)
            out.append(f)
    for f in _table_findings(bot, lines, in_fence):
        key = (f.file_path, f.start_line, f.title.lower())
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def has_finding_shape(text: str) -> bool:
    """Whether an inline comment body of an unknown bot looks like a finding (severity, title, fix, prompt)."""
    t = remove_html_comments(text or "")
    return bool(_SEVERITY.search(t) or "```suggestion" in t or re.search(r"prompt for ai", t, re.I)
                or _BOLD_LINE.match(t.lstrip()))


def _lines_outside_fences(text: str) -> tuple[list[str], list[bool]]:
    lines: list[str] = []
    flags: list[bool] = []
    for kind, content in split_fences(text):
        part = content.split("\n") if kind == "text" else ["```" + kind[6:], *content.split("\n"), "```"]
        flag = [kind != "text"] * len(part)
        if kind != "text":  # a stray (unclosed) fence must not swallow the next <details> finding
            cut = next((k for k, ln in enumerate(part) if ln.lstrip().lower().startswith(
                ("<details", "<summary", "</details", "</blockquote"))), None)
            if cut is not None:
                flag[cut:] = [False] * (len(part) - cut)
        lines.extend(part)
        flags.extend(flag)
    return lines, flags


def _location(text: str) -> tuple[str | None, int | None, int | None]:
    path, a, b = _raw_location(text)
    if a is not None and a < 1:
        a = b = None  # "a.py:0" is no line
    return path, a, b


def _raw_location(text: str) -> tuple[str | None, int | None, int | None]:
    plain = clean_inline(_ANY_TAG_RE.sub(" ", text)) if "<" in text else text  # a tag separates words
    if m := _BLOB.search(text):
        a = int(m.group("a"))
        return m.group("path"), a, int(m.group("b") or a)
    anchor = _DIFF_ANCHOR.search(text)
    plain = re.sub(r"\]\([^)\s]{0,1000}\)", "] ", _IMAGE.sub(" ", plain))
    plain = re.sub(r"(?:https?://|www\.)\S+", " ", plain)
    best = None
    for m in _REF.finditer(plain.replace("**", " ").replace("`", " ")):
        path = m.group("path")
        if "@" in path and "/" not in path:
            continue  # an e-mail address
        while path[:1] in ("[", "(") and path.count(path[0]) > path.count("]" if path[0] == "[" else ")"):
            path = path[1:]  # "[a/b.py [60-66]](…)": the link's bracket is not part of the path
        if path.lower().startswith(("http", "www.")) or re.fullmatch(r"[\d.]+", path) or "." not in path:
            continue
        if re.fullmatch(r"(?:e\.g|i\.e|etc|vs|v\d[\w.]*)\.?\w*", path, re.IGNORECASE):
            continue
        if m.group("a"):
            a = int(m.group("a"))
            return path, a, int(m.group("b") or a)
        best = best or path
    if best:
        lm = _LINE_ONLY.search(plain)
        if lm:
            a = int(lm.group(1))
            return best, a, int(lm.group(2) or a)
        return best, None, None
    if anchor:
        a = int(anchor.group(1))
        return None, a, int(anchor.group(2) or a)
    return None, None, None


def _severity(text: str) -> tuple[str | None, str | None]:
    m = _SEVERITY.search(text)
    if not m:
        return None, None
    if m.group("emoji"):
        word = m.group("ew").strip()
        level = normalize_severity(m.group("emoji"))
        if m.group("emoji") == "🟢" and not normalize_severity(word):
            return None, None
        return f"{m.group('emoji')} {word}".strip(), level or normalize_severity(word)
    raw = next(g for g in (m.group("bold"), m.group("br"), m.group("hb"), m.group("lab"), m.group("p"), m.group("sevw"),
                           m.group("badge")) if g)
    raw = raw.replace(" Badge", "").replace("-priority", "")
    level = _P_LEVEL.get(raw.upper()) or normalize_severity(raw)
    return (raw, level) if level else (None, None)


_LEAD = re.compile(r"^\s*(?:[💡⚠️❗🚨🐛🔒⚡]\ufe0f?\s*)*")


def severity_lead(line: str) -> tuple[str | None, str | None, str]:
    """(severity, level, rest) when ``line`` opens with a severity ("💡 **MEDIUM**: text"), else (None, None, line)."""
    lead = _LEAD.match(line)
    start = lead.end() if lead else 0
    m = _SEVERITY.match(line, start)
    if not m:
        return None, None, line
    severity, level = _severity(m.group(0))
    if severity is None:
        return None, None, line
    return severity, level, line[m.end():].lstrip(" :–—-|")


def _head_text(line: str) -> str:
    if m := _SUMMARY.search(line):
        return m.group(1)
    return line


def _units(lines: list[str], in_fence: list[bool]) -> list[_Unit]:
    """Lines that open a finding. Inside a summary-like section (a heading or a ``<summary>`` that reads like
    walkthrough/summary/files…), only a unit with a severity or a path *with lines* counts."""
    units: list[_Unit] = []
    skip_level: int | None = None  # inside a summary-like section at this heading level
    feedback_section: int | None = 1 if _FEEDBACK_LEAD.search(" ".join(lines[:3])) else None
    depth = 0  # <details> nesting
    skip_depths: list[int] = []  # <details> depths whose summary reads like a summary section
    for idx, line in enumerate(lines):
        if in_fence[idx] or not line.strip():
            continue
        low = line.lower()
        depth += low.count("<details")
        closes = low.count("</details>")
        if closes:
            depth = max(0, depth - closes)
            skip_depths = [d for d in skip_depths if d <= depth]
        level: int | None = None
        if (hm := _HEADING.match(line)) or ((hh := _HTML_HEADING.match(line)) and "<summary" not in low):
            level, htext = (len(hm.group(1)), hm.group(2)) if hm else (int(hh.group(1)), hh.group(2))
            if skip_level is not None and level <= skip_level:
                skip_level = None
            if any(w in words_of(htext) for w in _SKIP_SECTION) and not _severity(htext)[0]:
                skip_level = level
                continue
        elif "<summary>" in low:
            level = 7
            words = words_of(_head_text(line))
            if any(w in words for w in _SKIP_SECTION + _SKIP_DETAILS):
                skip_depths.append(depth)
                continue
            if "prompt" in words.split():
                continue
        elif lm := _LIST.match(line):
            level = 8 + len(lm.group(1).expandtabs(4)) // 2
        elif (bm := _BOLD_LINE.match(line)) or _SEVERITY.match(line):
            level = 7
            if bm and not line[bm.end():].strip(" :") and _FEEDBACK_SECTION.search(words_of(bm.group(1))):
                feedback_section = 7  # "**Overall Comments**:" opens a feedback list
                continue
        if level is None:
            continue
        if level <= 6:
            feedback_section = level if _FEEDBACK_SECTION.search(words_of(htext)) else None
        head = _head_text(line)
        sev = _severity(head)[0]
        path, a, _ = _location(head)
        own = bool(sev or path or a is not None)
        if level >= 8 and feedback_section is not None and not (sev or path or a) and len(head.split()) >= 6:
            units.append(_Unit(idx, level, head, feedback=True))  # "## Overall Comments" bullets
            continue
        if sev is None and level <= 7 and not path:
            nxt = _next_lines(lines, in_fence, idx, 3)
            sev = _severity(nxt)[0]  # "### Title" then "**High Severity**"
            if sev is None and (loc := _location(nxt))[1] is not None:
                path, a = loc[0], loc[1]  # "### Comment 1" then "<location> a.py:12 </location>"
        if not (sev or path or a):
            continue
        if skip_depths and a is None:
            continue  # inside a collapsed summary/files/status block only a located finding counts
        if skip_level is not None and not sev and a is None:
            continue
        if not sev and level >= 8 and _is_change_note(head):
            continue  # "- `a.py`: added X" is a change list, not a finding
        if _SECTION_TITLE.match(clean_inline(_HEADING.sub(lambda m: m.group(2), head)).replace("*", "")):
            continue  # "🟡 Minor comments (23)" heads a tier; its items are the findings
        if units and idx - units[-1].start <= 4 and not path and a is None and _severity_only(head):
            continue  # a badge/severity line right under a title belongs to that finding
        if not own and level == 7 and units and idx - units[-1].start <= 4 and units[-1].level <= 7:
            continue  # a bold lead-in right under a <summary>/heading title is that finding's text
        units.append(_Unit(idx, level, head, path=None if own else path, line=None if own else a))
    return units


def _severity_only(head: str) -> bool:
    rest = _SEVERITY.sub(" ", _IMAGE.sub(" ", head))
    return len(clean_inline(rest).replace("*", " ").replace("_", " ").split()) < 2


def _next_lines(lines: list[str], in_fence: list[bool], idx: int, n: int) -> str:
    out: list[str] = []
    for j in range(idx + 1, min(len(lines), idx + 6)):
        if in_fence[j] or not lines[j].strip():
            continue
        if _HEADING.match(lines[j]) or _HTML_HEADING.match(lines[j]) or "<summary" in lines[j].lower() \
                or _LIST.match(lines[j]):
            break
        out.append(lines[j])
        if len(out) == n:
            break
    return "\n".join(out)


def _is_change_note(head: str) -> bool:
    plain = clean_inline(head).replace("`", "").replace("**", "")
    plain = re.sub(r"^\W*(?:[-*+]|\d{1,3}[.)])\s+", "", plain)
    after = _REF.sub("", plain, count=1)
    after = after.lstrip(" :–—-")
    has_line = bool(re.search(r":\d|#L\d|\blines?\s+\d", plain, re.IGNORECASE))
    if re.search(r"\bexcluded by\b|\(\d+ hunks?\)", plain, re.IGNORECASE):
        return True
    return not has_line and (not after.strip() or bool(_CHANGE_VERB.match(after)))


def _finding(bot: str, unit: _Unit, chunk: str) -> Finding | None:
    rest = chunk.partition("\n")[2]
    path, a, b = _location(unit.head)
    if path is None and a is None and (unit.path or unit.line is not None):
        path, a, b = unit.path, unit.line, unit.line
    if a is None:
        p2, a2, b2 = _location("\n".join(chunk.split("\n")[:4]))
        if a2 is not None and (path is None or p2 == path):
            path, a, b = p2 or path, a2, b2
    severity, level = _severity(unit.head)
    if severity is None:
        severity, level = _severity("\n".join(rest.split("\n")[:2]))
    title = _title(unit.head, rest)
    prompt = _prompt(rest)
    body_text = _strip_prompt(rest)
    body, suggestion = split_suggestion(tidy_block(body_text))
    if not title or _NONE.match(title):
        return None
    if not (path or severity or a is not None or unit.feedback):
        return None
    return make_finding(bot, title=title, body=body or title, file_path=path, start_line=a, end_line=b,
                        severity=severity, severity_level=level, category="actionable", suggestion=suggestion,
                        ai_prompt=prompt)


_IMAGE = re.compile(r"!\[[^\]]{0,100}\]\([^)\s]{0,1000}\)|<img\b[^<>]{0,1000}>", re.IGNORECASE)


def _title(head: str, rest: str) -> str:
    h = _IMAGE.sub(" ", head) if not _SEVERITY.fullmatch(head.strip()) else head
    if m := _BOLD_LINE.match(h):
        cand = clean_inline(m.group(1))
        if _severity(f"**{m.group(1)}**")[0] and len(cand.split()) <= 3:
            h = h[m.end():]  # "**High**: the title" — the bold is the severity
        elif _location(cand)[0] and len(_REF.sub("", cand.replace("`", "")).split()) == 0:
            return _title_from_body(rest)  # "**path:12**" then the text
        else:
            return _tidy_title(cand)
    h = _HEADING.sub(lambda m: m.group(2), h)
    h = _SEVERITY.sub(" ", h)
    h = _BLOB.sub(" ", h)
    plain = clean_inline(h).replace("`", "").replace("**", "")
    plain = _REF.sub(" ", plain)
    plain = re.sub(r"^\W*(?:[-*+]|\d{1,3}\\?[.)])\s+", "", plain)
    plain = plain.strip(" :–—-|·*_#[]()")
    if len(plain.split()) >= 2 and not _NUMBERED_TITLE.match(plain):
        return _tidy_title(plain)
    return _title_from_body(rest)


_NUMBERED_TITLE = re.compile(r"^(?:comment|issue|finding|suggestion|bug|problem|note)\s*#?\s*\d{1,4}$", re.I)


def _title_from_body(rest: str) -> str:
    """The first bold line near the top, else the first sentence of the first line without a severity."""
    body = _strip_prompt(rest)
    head = [ln for ln in body.split("\n")[:30] if ln.strip()]
    for ln in head[:20]:
        if (m := _BOLD_LINE.match(ln)) and not _severity(f"**{m.group(1)}**")[0]:
            label, after = m.group(1).strip(), ln[m.end():].strip()
            if label.endswith(":") and after:  # "**issue (bug_risk):** the title"
                return first_sentence(after)
            return _tidy_title(clean_inline(label))
    for ln in head:
        if not _severity(ln)[0] and first_sentence(ln):
            return first_sentence(ln)
    return first_sentence(body)


def _tidy_title(text: str) -> str:
    t = " ".join(text.split()).strip(" :–—-|·*_")
    return t[:200]


def _prompt(text: str) -> str | None:
    low = text.lower()
    i = low.find("prompt for ai")
    if i < 0:
        i = low.find("prompt to fix")
    if i < 0:
        return None
    tail = text[i:]
    for kind, content in split_fences(tail):
        if kind != "text":
            return strip_outer_fence(content).strip() or None
    end = tail.find("</details>")
    body = tail[: end if end > 0 else len(tail)].split("\n", 1)
    return clean_inline(body[1]) if len(body) > 1 and body[1].strip() else None


def _strip_prompt(text: str) -> str:
    low = text.lower()
    for marker in ("<details><summary>🤖 prompt", "<details>\n<summary>🤖 prompt", "<summary>prompt for ai",
                   "<summary>🤖 prompt", "prompt for ai agent"):
        i = low.find(marker)
        if i >= 0:
            return text[:i]
    return text


def _cells(line: str) -> list[str]:
    m = _TABLE_ROW.match(line)
    return [c.strip() for c in m.group(1).split("|")] if m else []


def _table_findings(bot: str, lines: list[str], in_fence: list[bool]) -> list[Finding]:
    out: list[Finding] = []
    i = 0
    while i < len(lines) - 2:
        header = _cells(lines[i]) if not in_fence[i] else []
        if not header or not _SEPARATOR.match(lines[i + 1]):
            i += 1
            continue
        names = [words_of(h) for h in header]
        finding_table = any(any(c in n.split() for c in _FINDING_COLS) for n in names)
        j = i + 2
        while j < len(lines) and _cells(lines[j]):
            if finding_table:
                f = _row_finding(bot, names, _cells(lines[j]))
                if f is not None:
                    out.append(f)
            j += 1
        i = j
    return out


def _row_finding(bot: str, names: list[str], cells: list[str]) -> Finding | None:
    joined = " | ".join(cells)
    if not clean_inline(joined).strip(" |-"):
        return None
    title_idx = next((k for k, n in enumerate(names) if any(c in n.split() for c in _TITLE_COLS)), None)
    title_cell = cells[title_idx] if title_idx is not None and title_idx < len(cells) else ""
    title = _tidy_title(clean_inline(title_cell).replace("**", "").replace("`", ""))
    if not title or _NONE.match(title) or len(title.split()) < 2:
        return None
    sev_idx = next((k for k, n in enumerate(names) if any(c in n.split() for c in ("severity", "priority",
                                                                                      "impact", "risk"))), None)
    severity, level = None, None
    if sev_idx is not None and sev_idx < len(cells):
        raw = clean_inline(cells[sev_idx]).replace("**", "")
        level = normalize_severity(raw)
        severity = raw if level else None
    if severity is None:
        severity, level = _severity(joined)
    path, a, b = _location(joined)
    return make_finding(bot, title=title, body=clean_inline(title_cell), file_path=path, start_line=a, end_line=b,
                        severity=severity, severity_level=level, category="actionable")
