"""The non-test cause of a failed job: the kind, the tool, and the decisive line, each only from a line that
says it. One row per tool (compilers per language, linters and formatters by name, type checkers, package
managers with their error codes, docker build steps, size and coverage gates, cancelled runs, job timeouts,
OOM kills, scripts that crashed), and the old mistakes as rows of their own: a Swift compile error or a
ruff run is not a time limit, a size-limit check is not a dependency install, the decisive line is not the
last line of the log. When nothing says why, the failure is "unrecognised" with the last error-looking lines.
"""

# ruff: noqa: E501  (a table of log lines, each kept whole)
from __future__ import annotations

import pytest

from pr_agent.ci.parsers import parse_log


def _job(command: str, lines: list[str], code: int = 1) -> list[str]:
    body = [f"##[group]Run {command}", command, "##[endgroup]", *lines,
            f"##[error]Process completed with exit code {code}.", "Post job cleanup.",
            "[command]/usr/bin/git version", "git version 2.47.1", "Cleaning up orphan processes"]
    return [f"2026-11-30T10:00:01.{i:07d}Z {line}\n" for i, line in enumerate(body)]


ROWS = [
    # (id, command, lines, kind, tool, decisive line)
    ("rustc", "cargo build", ["   Compiling app v0.1.0", "error[E0425]: cannot find value `x` in this scope",
                              " --> src/main.rs:3:13", "error: could not compile `app` (bin \"app\") due to 1 previous error"],
     "compile_error", "rustc", "error[E0425]: cannot find value `x` in this scope"),
    ("tsc", "npx tsc --noEmit", ["src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."],
     "compile_error", "tsc", "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."),
    ("gcc", "make", ["gcc -O2 -c src/main.c -o build/main.o", "src/main.c:12:5: error: 'y' undeclared (first use in this "
                     "function)", "make: *** [Makefile:8: build/main.o] Error 1"],
     "compile_error", "gcc/clang", "src/main.c:12:5: error: 'y' undeclared (first use in this function)"),
    ("swiftc", "swift build", ["Sources/App/Foo.swift:12:5: error: cannot find 'bar' in scope", "    bar()",
                               "    ^~~", "error: fatalError"],
     "compile_error", "swiftc", "Sources/App/Foo.swift:12:5: error: cannot find 'bar' in scope"),
    ("javac", "javac -d out src/App.java", ["src/App.java:7: error: cannot find symbol", "        Strin x = \"\";",
                                            "1 error"], "compile_error", "javac", "src/App.java:7: error: cannot find symbol"),
    ("go build", "go build ./...", ["# example.com/app", "./main.go:9:2: undefined: helper"],
     "compile_error", "go build", "./main.go:9:2: undefined: helper"),
    ("dotnet", "dotnet build", ["/home/runner/work/a/a/src/Api/Program.cs(14,9): error CS0103: The name 'x' does not "
                                "exist in the current context [/home/runner/work/a/a/src/Api/Api.csproj]"],
     "compile_error", "dotnet build (C#)", None),
    ("ruff", "ruff check .", ["app/models.py:3:1: F401 [*] `os` imported but unused", "Found 1 error.",
                              "[*] 1 fixable with the `--fix` option."], "lint", "ruff", "Found 1 error."),
    ("flake8 by its step", "flake8 app", ["app/models.py:3:1: F401 'os' imported but unused"], "lint", "flake8",
     "app/models.py:3:1: F401 'os' imported but unused"),
    ("eslint", "npx eslint .", ["/home/runner/work/a/a/src/App.tsx", "  12:10  error  'x' is defined but never used  "
                                "no-unused-vars", "", "✖ 1 problem (1 error, 0 warnings)"], "lint", "eslint", None),
    ("clippy", "cargo clippy -- -D warnings", ["error: this `if` has identical blocks", "  --> src/lib.rs:10:5",
                                               "  = note: `-D clippy::if-same-then-else` implied by `-D warnings`",
                                               "error: could not compile `app` (lib) due to 1 previous error"],
     "lint", "clippy", "error: this `if` has identical blocks"),
    ("golangci-lint", "golangci-lint run", ["main.go:14:2: Error return value of `f.Close` is not checked (errcheck)",
                                            "1 issues:", "* errcheck: 1"],
     "lint", "golangci-lint", "main.go:14:2: Error return value of `f.Close` is not checked (errcheck)"),
    ("black", "black --check .", ["would reformat /home/runner/work/a/a/app/views.py", "", "Oh no! 💥 💔 💥",
                                  "1 file would be reformatted, 12 files would be left unchanged."],
     "format", "black", "would reformat /home/runner/work/a/a/app/views.py"),
    ("prettier", "npx prettier --check .", ["Checking formatting...", "[warn] src/App.tsx",
                                            "[warn] Code style issues found in the above file. Run Prettier with --write "
                                            "to fix."], "format", "prettier", None),
    ("mypy", "mypy app", ["app/api.py:12: error: Incompatible return value type (got \"int\", expected \"str\")  "
                          "[return-value]", "Found 1 error in 1 file (checked 8 source files)"],
     "type_check", "mypy", "app/api.py:12: error: Incompatible return value type (got \"int\", expected \"str\")  "
                           "[return-value]"),
    ("pyright", "pyright", ["/home/runner/work/a/a/app/api.py", "  /home/runner/work/a/a/app/api.py:12:12 - error: "
                            "Type \"int\" is not assignable to return type \"str\"", "1 error, 0 warnings, 0 informations "],
     "type_check", "pyright", None),
    ("npm E404", "npm ci", ["npm error code E404", "npm error 404 Not Found - GET https://registry.npmjs.org/left-padd - "
                            "Not found"], "dependency_install", "npm E404", "npm error code E404"),
    ("pip", "pip install -r requirements.txt", ["ERROR: Could not find a version that satisfies the requirement "
                                                "numpy==9.0 (from versions: 1.26.4)",
                                                "ERROR: No matching distribution found for numpy==9.0"],
     "dependency_install", "pip", None),
    ("docker build", "docker build .", ["#8 [build 4/6] RUN npm ci", "#8 ERROR: process \"/bin/sh -c npm ci\" did not "
                                        "complete successfully: exit code: 1", "------", " > [build 4/6] RUN npm ci:",
                                        "ERROR: failed to solve: process \"/bin/sh -c npm ci\" did not complete "
                                        "successfully: exit code: 1"], "docker_build", "docker build", None),
    ("size-limit", "npx size-limit", ["  Package size limit has exceeded by 1.15 kB", "  Size limit: 10 kB",
                                      "  Size:       11.15 kB with all dependencies, minified and brotlied",
                                      "  Try to reduce size or increase limit in \"size-limit\" section of package.json"],
     "gate", "size-limit", "Package size limit has exceeded by 1.15 kB"),
    ("pytest-cov", "pytest --cov=app --cov-fail-under=90", [
        "TOTAL                  210     30    86%", "FAIL Required test coverage of 90% not reached. Total coverage: 85.71%",
        "============================== 12 passed in 1.20s =============================="],
     "gate", "pytest-cov", "FAIL Required test coverage of 90% not reached. Total coverage: 85.71%"),
    ("jest coverage", "npx jest --coverage", ["Test Suites: 3 passed, 3 total", "Tests:       20 passed, 20 total",
                                              "Jest: \"global\" coverage threshold for lines (80%) not met: 72.5%"],
     "gate", "jest", "Jest: \"global\" coverage threshold for lines (80%) not met: 72.5%"),
    ("python script", "python scripts/release.py", ["Preparing release 1.2.3", "Traceback (most recent call last):",
                                                    '  File "/home/runner/work/a/a/scripts/release.py", line 40, in '
                                                    "<module>", "    main()", '  File "/home/runner/work/a/a/scripts/'
                                                    'release.py", line 31, in main', "    raise KeyError(\"VERSION\")",
                                                    "KeyError: 'VERSION'"],
     "script_error", "python", "KeyError: 'VERSION'"),
    ("node script", "node scripts/build.js", ["/home/runner/work/a/a/scripts/build.js:12", "  throw new Error('no dist "
                                              "dir');", "  ^", "", "Error: no dist dir",
                                              "    at Object.<anonymous> (/home/runner/work/a/a/scripts/build.js:12:9)",
                                              "", "Node.js v20.11.0"], "script_error", "node", "Error: no dist dir"),
    ("bash", "./deploy.sh", ["./deploy.sh: line 4: kubectl: command not found"], "script_error", "bash",
     "./deploy.sh: line 4: kubectl: command not found"),
    ("oom 137", "make test", ["Running the suite", "make: *** [Makefile:12: test] Killed"], "out_of_memory",
     "OOM killer (SIGKILL, exit 137)", "make: *** [Makefile:12: test] Killed"),
    ("cancelled", "make e2e", ["##[error]The operation was canceled."], "cancelled", "GitHub Actions", None),
    ("job timeout", "make e2e", ["##[error]The job running on runner GitHub Actions 3 has exceeded the maximum "
                                 "execution time of 10 minutes."], "timeout", "GitHub Actions", None),
    # the old mistakes
    ("a ruff run is not a time limit", "ruff check .", ["app/slow.py:1:1: E501 Line too long (130 > 120)",
                                                        "Found 1 error."], "lint", "ruff", "Found 1 error."),
    ("a size-limit run is not a dependency install", "npm run size", [
        "> app@1.0.0 size", "> size-limit", "", "  Package size limit has exceeded by 3 kB", "  Size limit: 20 kB",
        "npm error Lifecycle script `size` failed with error:", "npm error code 1"],
     "gate", "size-limit", "Package size limit has exceeded by 3 kB"),
    ("the decisive line, not the last", "make", ["src/a.cc:3:10: fatal error: 'b.h' file not found",
                                                 "#include \"b.h\"", "         ^~~~~", "1 error generated.",
                                                 "make[1]: *** [a.o] Error 1", "make: *** [all] Error 2"],
     "compile_error", "gcc/clang", "src/a.cc:3:10: fatal error: 'b.h' file not found"),
]


@pytest.mark.parametrize(("command", "lines", "kind", "tool", "decisive"), [r[1:] for r in ROWS],
                         ids=[r[0] for r in ROWS])
def test_the_cause_names_the_tool_and_its_decisive_line(command: str, lines: list[str], kind: str, tool: str,
                                                        decisive: str | None) -> None:
    got = parse_log(_job(command, lines)).non_test_failure
    assert got is not None
    assert (got.kind, got.tool) == (kind, tool), got
    assert got.summary.startswith(got.summary.split(":", 1)[0]) and f"({tool})" in got.summary
    if decisive is not None:
        assert decisive in got.decisive_lines, got.decisive_lines
        assert got.summary.endswith(decisive) or decisive in got.summary, got.summary
    assert "Post job cleanup." not in got.decisive_lines and "Cleaning up orphan processes" not in got.summary


def test_unsure_says_unrecognised_with_the_last_error_looking_lines() -> None:
    got = parse_log(_job("./check.sh", ["Checking 12 services", "service api: ok", "service db: connection refused",
                                        "service cache: ok", "done checking"])).non_test_failure
    assert got is not None and got.kind == "unknown" and got.tool is None
    assert got.summary == "Unrecognised failure: service db: connection refused"
    assert got.decisive_lines[0] == "service db: connection refused"


def test_no_tool_is_named_without_a_line_that_names_it() -> None:
    got = parse_log(_job("./lint.sh", ["app/models.py:3:1: F401 'os' imported but unused"])).non_test_failure
    assert got is not None and got.kind == "lint" and got.tool is None  # ruff or flake8: nothing says which
    assert got.summary.startswith("Lint or static checks failed: ")
