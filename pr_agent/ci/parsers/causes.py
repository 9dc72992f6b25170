"""Which tool a non-test failure's decisive lines come from: each rule reads one line that says it.

``tool_of(kind, lines)`` looks at the lines the detector kept for a kind (in log order) and returns the
first tool a line names: by its own marks (``error[E0308]`` is rustc, ``error TS2322`` tsc, ``npm ERR!``
npm, ``would reformat`` black, …) or by the file a compiler error points at (``x.swift:3:1: error:`` is
swiftc, ``x.c:3:1: error:`` gcc/clang). ``tool_of_command`` names the tool of a step from its
``##[group]Run <command>`` header, for a kind whose lines name no tool (a flake8 or a ruff finding looks
the same; the step that ran says which). Nothing here guesses from a kind alone: no line, no tool.

Every rule is a substring test, an ``endswith``, or a regex anchored at the start of a bounded line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_C_EXT = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".m", ".mm")
_LOC_ERR_RE = re.compile(r"(?:\./)?[\w./\\\-]+?(\.\w+)(?::\d+)+:? (?:fatal )?error\b")
_GO_LINT_RE = re.compile(r"(?:\./)?[\w./\-]+\.go:\d+:\d+: .*\((\w[\w-]*)\)$")
_GO_ERR_RE = re.compile(r"(?:\./)?[\w./\-]+\.go:\d+(?::\d+)?: \S")
_NPM_CODE_RE = re.compile(r"npm (?:ERR!|error) code (\w+)")
_MVN_GOAL_RE = re.compile(r".*?Failed to execute goal [\w.\-]+:([\w.\-]+):")
_GRADLE_TASK_RE = re.compile(r".*?Execution failed for task '([\w:\-]+)'")
_PY_LINT_RE = re.compile(r"(?:\./)?[\w./\\\-]+\.py:\d+:\d+: ([A-Z]+)\d+\b")

# (tool, marks: any of these substrings names it), per kind, first match wins.
_MARKS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "compile_error": (
        ("rustc", ("error[E", "error: could not compile", "error: aborting due to")),
        ("tsc", ("error TS",)),
        ("javac", ("COMPILATION ERROR", "Compilation failure", "maven-compiler-plugin")),
        ("dotnet build (C#)", ("error CS",)),
        ("dotnet build (F#)", ("error FS",)),
        ("dotnet build (VB)", ("error BC",)),
        ("go build", ("[build failed]", "[setup failed]")),
        ("linker", ("error: linking with", "undefined reference to", "ld: symbol(s) not found")),
    ),
    "type_check": (
        ("pyright", (" - error: ", "informations", " errors, ")),
        ("mypy", ("Found ", ": error: ")),
    ),
    "format": (
        ("ruff format", ("Would reformat: ", "would be reformatted")),
        ("black", ("would reformat ", "Oh no!", "would be reformatted")),
        ("prettier", ("Code style issues found", "[warn] ")),
        ("rustfmt", ("Diff in ",)),
        ("clang-format", ("clang-format",)),
    ),
    "lint": (
        ("clippy", ("clippy::",)),
        ("eslint", ("problem", "  error  ")),
        ("rubocop", ("offenses detected", "offense detected")),
        ("pylint", ("Your code has been rated",)),
        ("shellcheck", ("SC1", "SC2", "SC3")),
        ("hadolint", ("DL3", "DL4")),
        ("markdownlint", ("MD0",)),
        ("yamllint", ("[error]",)),
        ("ruff", ("Found ", "fixable with")),
    ),
    "dependency_install": (
        ("pnpm", ("ERR_PNPM_",)),
        ("yarn", ("YN0", "error Couldn't find package")),
        ("npm", ("npm ERR!", "npm error")),
        ("uv", ("No solution found when resolving",)),
        ("poetry", ("SolverProblemError",)),
        ("pip", ("Could not find a version that satisfies", "No matching distribution found", "ResolutionImpossible",
                 "pip install")),
        ("cargo", ("failed to select a version", "no matching package named", "failed to download",
                   "failed to get 200")),
        ("go mod", ("verifying module:",)),
        ("gradle", ("Could not resolve all",)),
        ("maven", ("Could not resolve dependencies", "Could not transfer artifact")),
        ("bundler", ("Bundler::GemNotFound", "Could not find gem")),
        ("composer", ("Your requirements could not be resolved",)),
        ("nuget", ("NU1101", "NU1102", "Unable to find package")),
    ),
    "docker_build": (("docker build", ("failed to solve", "ERROR [", "did not complete successfully")),),
    "gate": (
        ("size-limit", ("limit has exceeded", "Size limit", "Size Limit")),
        ("pytest-cov", ("Required test coverage of",)),
        ("coverage.py", ("Coverage failure:",)),
        ("jest", ("coverage threshold for",)),
        ("nyc", ("does not meet global threshold",)),
    ),
    "script_error": (
        ("python", ("Traceback (most recent call last)",)),
        ("node", ("Node.js v", "node:internal")),
        ("bash", ("command not found", "syntax error near")),
    ),
    "out_of_memory": (
        ("node (V8 heap)", ("JavaScript heap out of memory",)),
        ("JVM", ("OutOfMemoryError",)),
        ("python", ("MemoryError",)),
        ("OOM killer (SIGKILL, exit 137)", ("exit code 137", "Killed", "Out of memory: Killed process")),
        ("go", ("signal: killed", "runtime: out of memory")),
    ),
    "timeout": (
        ("GitHub Actions", ("xceeded the maximum execution time", "##[error]")),
        ("go test", ("panic: test timed out",)),
    ),
    "cancelled": (("GitHub Actions", ("operation was canceled", "received a shutdown signal", "was cancelled by")),),
}
_BY_EXT = {".rs": "rustc", ".ts": "tsc", ".tsx": "tsc", ".swift": "swiftc", ".java": "javac", ".kt": "kotlinc",
           ".kts": "kotlinc", ".scala": "scalac", ".go": "go build", ".cs": "dotnet build (C#)"}

# The first word(s) of a step's command → the tool, for kinds whose lines look alike across tools.
_COMMANDS = (
    ("ruff format", ("ruff format",)), ("ruff", ("ruff",)), ("flake8", ("flake8",)), ("pylint", ("pylint",)),
    ("black", ("black",)), ("isort", ("isort",)), ("mypy", ("mypy",)), ("pyright", ("pyright",)),
    ("eslint", ("eslint", "npx eslint", "npm run lint", "yarn lint", "pnpm lint")), ("prettier", ("prettier",)),
    ("golangci-lint", ("golangci-lint",)), ("go vet", ("go vet",)), ("staticcheck", ("staticcheck",)),
    ("clippy", ("cargo clippy",)), ("rustfmt", ("cargo fmt", "rustfmt")), ("rubocop", ("rubocop",)),
    ("shellcheck", ("shellcheck",)), ("tsc", ("tsc", "npx tsc")), ("size-limit", ("size-limit", "npx size-limit")),
)


def _ext_tool(line: str) -> str | None:
    m = _LOC_ERR_RE.match(line.lstrip())
    if m is None:
        return None
    ext = m.group(1).lower()
    if ext in _C_EXT:
        return "clang" if "clang" in line else "gcc/clang"
    return _BY_EXT.get(ext)


def tool_of(kind: str, lines: Iterable[str]) -> str | None:
    """The tool the first line that names one names, for a failure of ``kind``; None when none does."""
    rules = _MARKS.get(kind, ())
    for raw in lines:
        line = raw[:512]
        if kind == "compile_error":
            found = _ext_tool(line)
            if found:
                return found
            if "--> " in line and ".rs:" in line:
                return "rustc"
            if line.startswith("e: ") and ".kt" in line:
                return "kotlinc"
            if _GO_ERR_RE.match(line.lstrip()):
                return "go build"
        if kind == "lint":
            m = _GO_LINT_RE.match(line.lstrip())
            if m is not None:
                return "staticcheck" if m.group(1)[:2] in ("SA", "ST") or m.group(1)[:1] == "S" else "golangci-lint"
            if _PY_LINT_RE.match(line.lstrip()) and "Found " not in line:
                continue  # ruff and flake8 print the same finding: a later line or the step's command says which
        if kind == "dependency_install":
            m2 = _NPM_CODE_RE.search(line)
            if m2 is not None:
                return f"npm {m2.group(1)}"
        if "Failed to execute goal " in line:  # Maven names the plugin that broke the build
            m3 = _MVN_GOAL_RE.match(line)
            if m3 is not None:
                return m3.group(1)
        if "Execution failed for task '" in line:  # and Gradle the task
            m4 = _GRADLE_TASK_RE.match(line)
            if m4 is not None:
                return f"gradle {m4.group(1)}"
        for tool, marks in rules:
            if any(mark in line for mark in marks):
                return tool
    return None


def refine(kind: str, lines: list[str], command: str) -> str:
    """A compile error that a linter reported is a lint failure: ``clippy::`` in its lines (``cargo clippy
    -D warnings`` stops the build), or every located line ending in ``(linter)`` the way golangci-lint and
    staticcheck end theirs."""
    if kind != "compile_error":
        return kind
    if any("clippy::" in t for t in lines) or "clippy" in command:
        return "lint"
    located = [t.strip() for t in lines if _GO_ERR_RE.match(t.strip())]
    if located and all(_GO_LINT_RE.match(t) for t in located):
        return "lint"
    return kind


def tool_of_command(command: str) -> str | None:
    """The tool a step's command runs (``ruff check .`` → ruff), from its first words; None for others."""
    words = command.strip().split()
    for skip in ("poetry run", "uv run", "pipx run", "npx", "pnpm exec", "yarn", "bundle exec", "python -m"):
        parts = skip.split()
        if words[: len(parts)] == parts and len(words) > len(parts):
            inner = tool_of_command(" ".join(words[len(parts):]))
            if inner:
                return inner
    text = " ".join(words)
    for tool, starts in _COMMANDS:
        if any(text == s or text.startswith(s + " ") for s in starts):
            return tool
    return None
