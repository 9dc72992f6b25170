"""Why a job failed when no test did: compile errors, lint, format and type checks, dependency installs,
docker builds, size/coverage gates, scripts that crashed, OOM kills, timeouts, cancels.

Streaming: each prefiltered line is classified with cheap substring checks; only the first few matching
lines per kind are kept. The ~40 lines before ``##[error]Process completed with exit code N`` are kept
too: they are what a human reads first when nothing else is recognisable. A kind is only claimed from a
line that says it, and so is the tool (``causes.tool_of``; the failed step's ``##[group]Run`` command
names it when its lines look alike across tools). When nothing says why, the failure is "unrecognised",
with the last error-looking lines of the failed step.
"""

from __future__ import annotations

import re

from .base import Context
from .causes import refine, tool_of, tool_of_command
from .models import NonTestFailure

KIND_ORDER = ("timeout", "out_of_memory", "dependency_install", "compile_error", "type_check", "lint", "format",
              "docker_build", "gate", "script_error", "cancelled")
_SUMMARY = {
    "timeout": "The job hit a time limit",
    "out_of_memory": "The job ran out of memory",
    "dependency_install": "Installing dependencies failed",
    "compile_error": "Compilation failed",
    "type_check": "Type checking failed",
    "lint": "Lint or static checks failed",
    "format": "Formatting check failed",
    "docker_build": "The docker build failed",
    "gate": "A size or coverage gate failed",
    "script_error": "A script crashed",
    "cancelled": "The job was cancelled",
    "unknown": "Unrecognised failure",
}
_EXCEPTION_RE = re.compile(r"(?:[A-Z]\w{0,60})?(?:Error|Exception)\b(?: \[\w+\])?:")
# What an error looks like in a line of an unrecognised failure (its last such lines are the decisive ones).
_ERRORISH_RE = re.compile(r"(?i).{0,200}?(?:error|fail|fatal|exception|panic|denied|not found|no such|invalid|"
                          r"cannot|can't|unable|refused|missing|abort)")
_MAX_HITS = 15
_MAX_DECISIVE = 20
_CLASSIFY_CHARS = 512  # a longer line is classified by its first 384 and last 128 characters

_EXIT_RE = re.compile(r"Process completed with exit code (\d+)")
_TSC_RE = re.compile(r"error TS\d+:")
_ESLINT_RE = re.compile(r"\s+\d+:\d+\s+error\s+\S")
_FOUND_RE = re.compile(r"Found \d+ errors?\b")
_NPM_DEP_RE = re.compile(
    r"code (?:E404|ERESOLVE|ETARGET|EINTEGRITY|ENOTFOUND|E403|EAI_AGAIN|ECONNRESET|ETIMEDOUT|EUSAGE|"
    r"ENOVERSIONS)|notarget|404 Not Found|Could not resolve dependency|No matching version|"
    r"package\.json and package-lock\.json|ERESOLVE"
)
# "out of memory" only as the message itself (``fatal error: runtime: out of memory``, ``Out of memory: Killed
# process``, ``error: out of memory``), never inside other text (a test named test_out_of_memory, a log line).
_OUT_OF_MEMORY_RE = re.compile(r"\s*(?:(?:[\w.\-]+:? )?(?:fatal )?error: (?:runtime: )?|\[[^\]]*\] |FATAL: )?"
                               r"[Oo]ut of memory(?:[:.!]|$| \(| allocating| while)")
_SNAPSHOT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # Lines that rarely carry a prefilter word; read only in the ~40 lines before the exit code.
    ("dependency_install", re.compile(r".*(?:Could not resolve (?:all|dependencies)|Could not find gem|"
                                      r"requirements could not be resolved)")),
    ("out_of_memory", re.compile(r".*Cannot allocate memory")),
    ("out_of_memory", _OUT_OF_MEMORY_RE),
    ("compile_error", _GO_COMPILE_RE := re.compile(r"(?:\./)?[\w./\-]+\.go:\d+(?::\d+)?: \S")),
    ("compile_error", re.compile(r"\s*--> [\w./\-]+\.rs:\d+:\d+")),
    ("compile_error", re.compile(r"e: (?:file://)?[\w./\-]+\.kts?:\d+:\d+")),
    ("lint", re.compile(r"(?:\./)?[\w./\-]+\.py:\d+:\d+: [A-Z]+\d+\b")),
    ("lint", re.compile(r"\s*-->\s+[\w./\-]+\.py:\d+:\d+")),
    ("format", re.compile(r"would reformat |Would reformat: |Oh no! |.*Code style issues found|"
                          r"\d+ files? would be reformatted|Diff in /")),
    ("lint", re.compile(r"\d+ files? inspected, \d+ offenses? detected")),
    # (``\s*`` outside the ``.*`` branches: both before one ``.*`` read a run of spaces quadratically)
    ("gate", re.compile(r"\s*(?:Package size limit has exceeded|Size limit has exceeded)|.*coverage threshold for .* "
                        r"not met|.*does not meet global threshold")),
    ("script_error", re.compile(r"Traceback \(most recent call last\):|Node\.js v\d+|.*: command not found$|"
                                r".*: line \d+: .+")),
    (
        "compile_error",
        re.compile(r"[\w./\-]+\.(?:c|cc|cpp|cxx|h|hpp|m|swift|java|kt|scala):\d+(?::\d+)?: (?:fatal )?error"),
    ),
    ("lint", re.compile(r"[\w./\-]+\.(?:js|jsx|ts|tsx|go|rb|sh|ya?ml|md):\d+:\d+: \S")),
    ("lint", _ESLINT_FILE_RE := re.compile(r"/?[\w./\-]+\.(?:js|jsx|ts|tsx|mjs|cjs|vue|svelte)$")),
)
_KILLED_RE = re.compile(r"(?:^|\s)Killed(?:\s|$)")
# Maven/Gradle name the plugin or task that broke the build; that name says what kind of failure it was.
_MVN_GOAL_RE = re.compile(r"Failed to execute goal [\w.\-]+:([\w.\-]+):")
_GRADLE_TASK_RE = re.compile(r"(?:Execution failed for task '|> Task )([\w:\-]+)'?(?:\.| FAILED)")
_LINT_TOOLS = ("checkstyle", "pmd", "spotbugs", "findbugs", "animal-sniffer", "enforcer", "spotless", "apache-rat",
               "license", "detekt", "ktlint", "ktfmt", "lint", "apicheck", "revapi", "japicmp", "formatter")
_MVN_ERROR_AT_RE = re.compile(r"\[ERROR\] \S+\.(?:java|kt|scala|groovy):(?:\[\d+,\d+\]|\d+:) ")
_LOCATED_RE = re.compile(r"(?<![\w/.\-])[\w/.\-]+\.\w+(?::\[?\d+|\(\d+,\d+\))")


def _tool_kind(name: str) -> str | None:
    """``compile_error``/``lint`` for a build plugin or task name, None when it says nothing."""
    n = name.lower()
    if n.startswith(("compile", "kapt", "ksp")) or n == "maven-compiler-plugin":
        return "compile_error"
    if any(tool in n for tool in _LINT_TOOLS):
        return "lint"
    return None


def _any_of(*marks: str) -> re.Pattern[str]:
    # A regex alternation of literals: linear, and its cost per line is bounded (classify reads at most
    # _CLASSIFY_CHARS characters of a line).
    return re.compile("|".join(re.escape(m) for m in marks))


_DEP_RE = _any_of(
    "Could not find a version that satisfies",
    "No matching distribution found",
    "ResolutionImpossible",
    "No solution found when resolving dependencies",
    "SolverProblemError",
    "failed to select a version",
    "no matching package named",
    "Could not resolve dependencies",
    "Could not resolve all files for configuration",
    "Could not resolve all dependencies",
    "Your requirements could not be resolved",
    "Bundler::GemNotFound",
    "Could not find gem",
    "ERR_PNPM_",
    "error NU1101",
    "error NU1102",
    "Unable to find package",
    "YN0001",
    "YN0035",
    "error Couldn't find package",
    "verifying module:",
    "could not be resolved",
    "Could not transfer artifact",
)
_COMPILE_RE = _any_of(
    "error[E",
    "error: could not compile",
    "error: aborting due to",
    "COMPILATION ERROR",
    "Compilation failure",
    "Compilation failed",
    "[build failed]",
    "[setup failed]",
    "error: linking with",
    "error CS",
    "error FS",
    "error BC",
)
_OOM_RE = _any_of(
    "JavaScript heap out of memory",
    "OutOfMemoryError",
    "MemoryError",
    "Cannot allocate memory",
    "memory allocation of",
    "exit code 137",
    "signal: killed",
)


def _view(s: str) -> str:
    """What the rules read of a line: all of it, or of a long one its first 384 and last 128 characters (what
    says why a job failed is near an end of its line; and a rule reads a bounded line in bounded time)."""
    return s if len(s) <= _CLASSIFY_CHARS else s[: _CLASSIFY_CHARS - 128] + "\n" + s[-128:]


def classify(s: str) -> str | None:
    """The non-test failure kind a single line signals, if any (cheap substring gates first)."""
    kind = _classify_more(s)
    return kind if kind is not None else _classify(s)


def _classify_more(s: str) -> str | None:
    """The kinds beyond compile/lint/dependency: type checkers, docker builds, coverage gates."""
    if "error" in s and ".py" in s and (": error:" in s or " - error: " in s):
        return "type_check"  # mypy "a.py:3: error: …", pyright "a.py:3:5 - error: …"
    if "Found " in s and " errors in " in s and "(checked " in s:
        return "type_check"  # mypy's total
    if "failed to solve" in s or ("ERROR [" in s and "] RUN " in s) or "did not complete successfully: exit code" in s:
        return "docker_build"
    if "Required test coverage of" in s or "Coverage failure: total of" in s:
        return "gate"
    return None


def _classify(s: str) -> str | None:
    if "xceeded the maximum execution time" in s or ("timed out after" in s and (
            s.startswith(("panic: test timed out after", "##[error]")))):  # not one test's own timeout
        return "timeout"
    if "operation was canceled" in s or "received a shutdown signal" in s or "was cancelled by" in s:
        return "cancelled"
    if ("emory" in s or "137" in s or "illed" in s) and (
        _OOM_RE.search(s) or ("Killed" in s and _KILLED_RE.search(s))
        or ("ut of memory" in s and _OUT_OF_MEMORY_RE.match(s))
    ):
        return "out_of_memory"
    if "failed to download" in s or "failed to get 200" in s:  # cargo fetching crates
        return "dependency_install"
    if (
        "ould not" in s
        or "No matching" in s
        or "esolution" in s
        or "No solution" in s
        or "Solver" in s
        or "to select a version" in s
        or "no matching package" in s
        or "ERR_PNPM" in s
        or "NU110" in s
        or "Unable to find package" in s
        or "YN00" in s
        or "Couldn't find" in s
        or "verifying module" in s
        or "Bundler" in s
    ) and _DEP_RE.search(s):
        return "dependency_install"
    if "FAIL" in s and ("[build failed]" in s or "[setup failed]" in s):
        return "compile_error"
    if ("> Task :" in s and "FAIL" in s) or "Execution failed for task" in s:
        m = _GRADLE_TASK_RE.search(s)
        return _tool_kind(m.group(1).rsplit(":", 1)[-1]) if m else None
    if "Failed to execute goal" in s:
        m2 = _MVN_GOAL_RE.search(s)
        if m2 and _tool_kind(m2.group(1)):
            return _tool_kind(m2.group(1))
    if "[ERROR]" in s and _MVN_ERROR_AT_RE.match(s):
        return "compile_error" if ":[" in s else None
    if "error" in s:
        if _COMPILE_RE.search(s) or _TSC_RE.search(s):
            return "compile_error"
        if ": error:" in s or ": fatal error:" in s:
            return "lint" if ".py:" in s else "compile_error"
        if _ESLINT_RE.match(s):
            return "lint"
        t = s.lstrip()
        if t.startswith("Found ") and _FOUND_RE.match(t):
            return "lint"
    elif "COMPILATION ERROR" in s or "Compilation fail" in s:
        return "compile_error"
    if "✖" in s and "problem" in s:
        return "lint"
    return None


class NonTestDetector:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.hits: dict[str, list[tuple[int, str]]] = {k: [] for k in KIND_ORDER}
        self.errors: list[str] = []
        self.npm: list[tuple[int, str]] = []
        self.npm_dep = False
        self.exit_code: int | None = None
        self.snapshot: list[tuple[int, str]] | None = None
        self.step_start = 0  # line number after which the current step's own output starts
        self.step_command = ""  # the current step's command (its "##[group]Run …" header)
        self.hints: list[tuple[str, list[str]]] = []

    def _step_lines(self) -> list[tuple[int, str]]:
        """(line number, line) of the ring lines in the current step (after its ``##[group]Run`` header)."""
        ring = list(self.ctx.ring)
        first = self.ctx.lineno - len(ring) + 1
        skip = max(0, self.step_start - first + 1)
        return [(first + i, line) for i, line in enumerate(ring) if i >= skip]

    def hint(self, summary: str, lines: list[str]) -> None:
        """A parser's own account of a failure outside any test (``go test``: a package that panicked)."""
        if len(self.hints) < 20:
            self.hints.append((summary, lines))

    def feed(self, s: str) -> None:
        c = s[:1]
        if c == "[" and s.startswith(("[INFO]", "[WARNING]")):  # Maven's progress and warnings never decide it
            return
        if (c == "o" or c == "t") and s.startswith(("ok  \t", "test result: ok.")):  # a package / target that passed
            return
        if c == "#" and (s.startswith("##[group]Run ") or (s.startswith("##[endgroup]") and self.step_start >= 0)):
            if s.startswith("##[group]Run "):
                self.step_command = s[len("##[group]Run "):][:300]
            self.step_start = self.ctx.lineno
            if s.startswith("##[endgroup]"):
                self.step_start = -self.step_start  # only the endgroup right after a Run header counts
            return
        if self.step_start < 0:
            self.step_start = -self.step_start
        if "##[error]" in s or s.startswith(("::error", "Error: Process completed")):
            if len(self.errors) < _MAX_HITS:
                self.errors.append(s.strip())
            m = _EXIT_RE.search(s)
            if m:
                code = int(m.group(1))
                if self.exit_code is None or self.exit_code == 0:
                    self.exit_code = code
                if self.snapshot is None and code != 0:
                    self.snapshot = self._step_lines()[-41:-1]
        if "npm ERR!" in s or "npm error" in s:
            if len(self.npm) < _MAX_HITS:
                self.npm.append((self.ctx.lineno, s.strip()))
            if not self.npm_dep and _NPM_DEP_RE.search(s):
                self.npm_dep = True
            return
        t = s[9:] if s.startswith("##[error]") else s  # eslint's annotated "##[error]  1:1  error …"
        kind = classify(_view(t))
        if kind is not None and len(self.hits[kind]) < _MAX_HITS:
            self.hits[kind].append((self.ctx.lineno, s.strip()))
            if kind == "compile_error" and ("[build failed]" in s or "[setup failed]" in s):
                self._go_context()
            elif "Failed to execute goal" in s:
                self._maven_context(kind)

    def _go_context(self) -> None:
        """``go test``/``go vet`` print the compiler errors just before ``FAIL pkg [build failed]``."""
        rule = _GO_COMPILE_RE
        hits = self.hits["compile_error"]
        known = {n for n, _ in hits}
        for n, line in self._step_lines()[-30:]:
            if n not in known and rule.match(line.rstrip()) and len(hits) < _MAX_HITS:
                hits.append((n, line.strip()))
        hits.sort()

    def _maven_context(self, kind: str) -> None:
        """The ``[ERROR] File.java:12: …`` lines a failed Maven plugin printed before its summary."""
        hits = self.hits[kind]
        known = {n for n, _ in hits}
        for n, line in self._step_lines()[-40:]:
            if n not in known and line.startswith("[ERROR] ") and _LOCATED_RE.search(line) and len(hits) < _MAX_HITS:
                hits.append((n, line.strip()))
        hits.sort()

    def finish(self, has_failures: bool) -> NonTestFailure | None:
        if self.npm_dep:
            self.hits["dependency_install"] = sorted(self.npm + self.hits["dependency_install"])
        snapshot = self.snapshot if self.snapshot is not None else self._step_lines()[-40:]
        kinds = ("timeout", "out_of_memory") if has_failures else KIND_ORDER
        kind = next((k for k in kinds if self.hits[k]), None)
        if kind is None and has_failures:
            return None
        if kind is None and self.hints:
            lines = [line for _, hint_lines in self.hints for line in hint_lines]
            lines += [e for e in self.errors if e not in lines]
            return NonTestFailure(kind="unknown", summary=self.hints[0][0][:300], decisive_lines=lines[:_MAX_DECISIVE])
        if kind is None:
            kind = next((k for k, rule in _SNAPSHOT_RULES if any(rule.match(_view(t)) for _, t in snapshot)), None)
        tool: str | None = None
        if kind is None:
            if self.exit_code in (None, 0) and not self.errors:
                return None
            kind = "unknown"
            plain = [t.strip() for _, t in snapshot if t.strip() and not t.startswith("##[")]
            errorish = [t for t in plain if _ERRORISH_RE.match(t)]
            lines = (errorish or plain)[-_MAX_HITS:]
            headline = lines[-1] if lines else ""
        elif kind == "script_error":
            lines, headline, tool = _crash(snapshot)
        else:
            hits = self.hits.get(kind, [])
            rules = [rule for k, rule in _SNAPSHOT_RULES if k == kind]
            merged = dict(hits)
            for n, t in snapshot:
                if t.strip() and any(r.match(_view(t)) for r in rules):
                    merged.setdefault(n, t.strip())
            cause = ""
            for i, (n, t) in enumerate(snapshot):  # Gradle: the cause under "Execution failed for task"
                if "Execution failed for task" in t and i + 1 < len(snapshot):
                    merged.setdefault(n, t.strip())
                    if snapshot[i + 1][1].startswith("> "):
                        merged.setdefault(snapshot[i + 1][0], snapshot[i + 1][1].strip())
                        cause = cause or f"{t.strip()} {snapshot[i + 1][1].strip()}"
            lines = list(dict.fromkeys(t for _, t in sorted(merged.items())))[:_MAX_HITS]
            if kind == "lint":  # an eslint file header with no error under it only listed warnings
                lines = [t for i, t in enumerate(lines) if not _ESLINT_FILE_RE.match(t) or (
                    i + 1 < len(lines) and not _ESLINT_FILE_RE.match(lines[i + 1]) and "✖" not in lines[i + 1])]
            real = [t for _, t in sorted(hits) if "Process completed" not in t]
            headline = (next((t for t in real if _LOCATED_RE.search(t)), None) or cause
                        or next((t for t in real if not t.lower().startswith("warning")), None)
                        or (real[0] if real else "") or (lines[0] if lines else ""))
        if kind not in ("unknown", "script_error"):
            hit_lines = [t for _, t in sorted(self.hits.get(kind, []))]
            if kind == "compile_error":
                if any(t.lstrip().startswith("--> ") and ".rs:" in t for t in lines):
                    lines = _with_rust_headlines(lines, snapshot)
                    headline = next((t for t in lines if t.startswith("error")), headline)
                kind = refine(kind, [t for _, t in snapshot] + lines, self.step_command)
                if kind == "lint" and any("clippy" in t for t in [*lines, self.step_command]):
                    tool = "clippy"
            tool = tool or tool_of(kind, [headline, *hit_lines, *lines])
            if tool is None and kind in ("lint", "format", "type_check", "gate", "compile_error"):
                tool = tool_of_command(self.step_command)  # the step that ran says which tool printed them
        for e in self.errors:
            if e not in lines and len(lines) < _MAX_DECISIVE:
                lines.append(e)
        lines = lines[:_MAX_DECISIVE]
        headline = (headline or next((t for t in lines if t), "")).replace("##[error]", "").strip()
        head = f"{_SUMMARY[kind]} ({tool})" if tool else _SUMMARY[kind]
        summary = f"{head}: {headline}" if headline else head
        if len(summary) > 300:
            summary = summary[:299] + "…"
        return NonTestFailure(kind=kind, summary=summary, decisive_lines=lines, tool=tool)  # type: ignore[arg-type]


def _with_rust_headlines(lines: list[str], snapshot: list[tuple[int, str]]) -> list[str]:
    """rustc prints ``error: message`` (or ``error[E0425]: …``) on the line before each ``--> file:line``: keep
    that line too, it says what is wrong."""
    texts = [t.strip() for _, t in snapshot]
    out: list[str] = []
    for t in lines:
        if t.startswith("--> ") and t in texts:
            i = texts.index(t)
            head = next((texts[j] for j in range(i - 1, max(-1, i - 4), -1)
                         if texts[j].startswith(("error", "warning"))), None)
            if head and head not in out and head not in lines:
                out.append(head)
        out.append(t)
    return list(dict.fromkeys(out))[:_MAX_HITS]


def _crash(snapshot: list[tuple[int, str]]) -> tuple[list[str], str, str | None]:
    """A crashed script's decisive lines (its traceback, cut to the last lines), headline (the exception)
    and interpreter, from the lines before the exit code."""
    texts = [t.rstrip() for _, t in snapshot if not t.startswith("##[")]
    start = next((i for i in range(len(texts) - 1, -1, -1) if texts[i].startswith("Traceback (most recent call last)")),
                 None)
    if start is not None:
        block = texts[start:]
        exc = next((t for t in reversed(block) if t and not t[:1].isspace() and not t.startswith("Traceback")), "")
        end = block.index(exc) + 1 if exc in block else len(block)
        body = block[:end]
        lines = [body[0], *body[1:][-(_MAX_HITS - 1):]] if len(body) > _MAX_HITS else body
        return [t.strip() for t in lines if t.strip()], exc.strip(), "python"
    tail = [t.strip() for t in texts if t.strip()]
    node = next((i for i in range(len(tail) - 1, -1, -1) if tail[i].startswith("Node.js v")), None)
    if node is not None:
        block = tail[max(0, node - _MAX_HITS): node + 1]
        exc = next((t for t in block if _EXCEPTION_RE.match(t)), None) or next(
            (t for t in block if _ERRORISH_RE.match(t) and not t.startswith("at ")), block[0] if block else "")
        return block, exc, "node"
    lines = [t for t in tail if _ERRORISH_RE.match(t) or "command not found" in t or ": line " in t][-_MAX_HITS:]
    return lines, (lines[-1] if lines else ""), "bash"
