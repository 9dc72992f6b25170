"""Local reproduction commands for failed tests, one runner at a time (pure).

Test names, paths and packages come from CI logs: untrusted text. Each runner gives an argv list
(``*_argv``) and :func:`pr_agent.shellcmd.command` quotes every word of it (no string is joined into a
command here); a value that a runner reads as a regular expression (``go test -run``, ``jest -t``,
``--grep``, ``--filter``) is regex-escaped first; a positional that could pass for an option (leading
``-``) gets a ``./`` prefix; option values are bound with ``--opt=value`` (or start with ``^``), so a name
that looks like an option stays a value. A name we cannot turn into a safe, exact command gives ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from pr_agent.shellcmd import command

_REGEX_META = re.compile(r"([\\.^$|?*+()\[\]{}])")
_DOTNET_META = re.compile(r"([\\()&|=!~,])")
_PARAMS = re.compile(r"\s*\(.*\)\s*$")
_JS_SEP = " › "
_MAX_LEN = 500


def _path(value: str) -> str:
    """A positional path/node id, never mistaken for an option."""
    return "./" + value if value.startswith("-") else value


def _rx(value: str) -> str:
    return _REGEX_META.sub(r"\\\1", value)


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not value or "\n" in value or "\r" in value or "\x00" in value or len(value) > _MAX_LEN:
        return None
    return value


Argv = list[str]


def pytest_argv(test_name: str, file_path: str | None) -> Argv | None:
    if "::" in test_name or test_name.endswith(".py"):
        return ["pytest", _path(test_name)]
    if file_path and file_path.endswith(".py") and not test_name.startswith("-"):
        return ["pytest", _path(file_path), "-k", test_name]
    return None


def unittest_argv(test_name: str) -> Argv | None:
    name = _PARAMS.sub("", test_name)
    return None if name.startswith("-") else ["python", "-m", "unittest", name]


def go_argv(test_name: str, suite: str | None) -> Argv:
    pattern = "/".join(f"^{_rx(part)}$" for part in test_name.split("/"))
    package = _path(suite) if suite else "./..."
    return ["go", "test", package, "-run", pattern]


def _js_full_name(test_name: str, sep: str = _JS_SEP) -> str:
    """The full name ``-t`` matches: the titles joined by spaces (jest ids use " › ", vitest's " > ")."""
    return " ".join(part.strip() for part in test_name.split(sep))


def _js_argv(base: Argv, test_name: str, suite: str | None, file_path: str | None, sep: str) -> Argv:
    target = suite or file_path
    if target and test_name in (suite, file_path):  # a suite that failed to run: the file only
        return [*base, _path(target)]
    where = [_path(target)] if target else []
    return [*base, *where, "-t", "^" + _rx(_js_full_name(test_name, sep)) + "$"]


def jest_argv(test_name: str, suite: str | None, file_path: str | None) -> Argv:
    return _js_argv(["npx", "jest"], test_name, suite, file_path, _JS_SEP)


def vitest_argv(test_name: str, suite: str | None, file_path: str | None) -> Argv:
    return _js_argv(["npx", "vitest", "run"], test_name, suite, file_path, " > ")


def mocha_argv(test_name: str, file_path: str | None) -> Argv:
    where = [_path(file_path)] if file_path else []
    return ["npx", "mocha", *where, "--grep=" + _rx(test_name)]


def cargo_argv(test_name: str, suite: str | None) -> Argv | None:
    if test_name.startswith("-"):
        return None
    target: Argv = []
    if suite:
        if suite in ("src/lib.rs", "src/main.rs"):
            target = ["--lib"] if suite == "src/lib.rs" else ["--bins"]
        elif suite.startswith("tests/") and suite.endswith(".rs"):
            target = ["--test", suite[len("tests/"):-len(".rs")]]
    return ["cargo", "test", *target, "--", "--exact", test_name]


def nextest_argv(test_name: str) -> Argv | None:
    if re.fullmatch(r"\w[\w:]*", test_name):  # a filterset `test(=NAME)` needs a plain Rust path
        return ["cargo", "nextest", "run", "-E", f"test(={test_name})"]
    return None


def rspec_argv(test_name: str, file_path: str | None) -> Argv:
    where = [_path(file_path)] if file_path and file_path.endswith("_spec.rb") else []
    return ["bundle", "exec", "rspec", *where, "--example=" + test_name]


def phpunit_argv(test_name: str) -> Argv:
    name = _rx(re.sub(r" with data set .*$", "", test_name))
    return ["vendor/bin/phpunit", "--filter=" + name]


def dotnet_argv(test_name: str) -> Argv:
    name = _DOTNET_META.sub(r"\\\1", _PARAMS.sub("", test_name))
    return ["dotnet", "test", "--filter", "FullyQualifiedName=" + name]


def _jvm_class_method(test_name: str, suite: str | None) -> tuple[str, str | None]:
    if suite and test_name.startswith(suite + "."):
        return suite, test_name[len(suite) + 1 :]
    cls, _, method = test_name.rpartition(".")
    return (cls, method) if cls else (test_name, None)


def gradle_argv(test_name: str, suite: str | None) -> Argv:
    cls, method = _jvm_class_method(test_name, suite)
    method = method.split(" > ")[0].strip() if method else None
    pattern = f"{cls}.{method}" if method else cls
    pattern = re.sub(r"[^\w.$]", "*", pattern)  # --tests takes wildcards; spaces and brackets become *
    return ["./gradlew", "test", "--tests", pattern]


def maven_argv(test_name: str, suite: str | None) -> Argv:
    cls, method = _jvm_class_method(test_name, suite)
    simple = cls.rsplit(".", 1)[-1]
    spec = f"{simple}#{method}" if method and re.fullmatch(r"[\w$]+", method) else simple
    return ["mvn", "test", "-Dtest=" + spec]


def junit_argv(test_name: str, suite: str | None, file_path: str | None,
               runners: Iterable[str] = ()) -> Argv | None:
    """JUnit XML names the test ``Class.method``; the build tool comes from the rest of the log."""
    seen = set(runners)
    if file_path and file_path.endswith(".py"):
        cls, method = _jvm_class_method(test_name, suite)
        parts = cls.split(".")
        module_path = "/".join(parts[: len(file_path[:-3].split("/"))])
        if module_path + ".py" == file_path and method:
            inner = parts[len(file_path[:-3].split("/")) :]
            return ["pytest", _path("::".join([file_path, *inner, method]))]
        return None
    if "gradle" in seen:
        return gradle_argv(test_name, suite)
    if "maven" in seen or (file_path or "").endswith((".java", ".kt")):
        return maven_argv(test_name, suite)
    return None


def playwright_argv(test_name: str) -> Argv | None:
    """``npx playwright test <file>:<line> --project=<p>``: the id's own file and line select the test
    (Playwright reads the file part as a regular expression: escaped)."""
    parts = test_name.split(" › ")
    project = parts[0][1:-1] if parts[0].startswith("[") and parts[0].endswith("]") else None
    where = parts[1] if project is not None and len(parts) > 2 else parts[0]
    path, _, rest = where.rpartition(":")
    path, _, line = path.rpartition(":")
    if not (path and line.isdigit() and rest.isdigit()) or path.startswith("-") or (project or "x").startswith("-"):
        return None
    return ["npx", "playwright", "test", f"{_rx(path)}:{line}", *([f"--project={project}"] if project else [])]


def exunit_argv(test_name: str, file_path: str | None) -> Argv | None:
    """``mix test <file> --only=test:<name>``: ExUnit tags every test with its own name."""
    if not test_name.startswith(("test ", "doctest ", "property ")):
        return None  # a module's setup_all failure: its file reruns it
    return ["mix", "test", *([_path(file_path)] if file_path else []), "--only=test:" + test_name]


def tap_argv(test_name: str, suite: str | None, file_path: str | None) -> Argv | None:
    """node:test only (the other TAP producers have no name filter): ``--test-name-pattern`` is a regular
    expression matched against the name, alone or after its ancestors' names."""
    if suite != "node:test" or not file_path:
        return None
    return ["node", "--test", "--test-name-pattern=(?:^| )" + _rx(test_name) + "$", _path(file_path)]


def swift_testing_argv(test_name: str) -> Argv | None:
    """``swift test --filter=<name>$`` for a test printed by its function name (``loadsConfig()``); a display
    name (``"rejects a trailing comma"``) is no filter ``swift test`` knows: None."""
    if not re.fullmatch(r"[A-Za-z_]\w*\([\w:]*\)", test_name):
        return None
    return ["swift", "test", "--filter=" + _rx(test_name) + "$"]


def dart_argv(test_name: str, suite: str | None) -> Argv | None:
    """``dart test <file> --plain-name=<name>`` (what Flutter itself prints to rerun a failed test)."""
    if not suite or not suite.endswith(".dart"):
        return None
    return ["dart", "test", _path(suite), "--plain-name=" + test_name]


def minitest_argv(test_name: str, file_path: str | None) -> Argv | None:
    """``ruby -Itest <file> --name=<method>``: minitest's own ``Klass#method`` selects the method exactly
    (``--name=/^…$/``, a regular expression, anchored)."""
    _cls, sep, method = test_name.partition("#")
    if not sep or not method or not file_path or not file_path.endswith(".rb"):
        return None
    return ["ruby", "-Itest", _path(file_path), "--name=/^" + _rx(method) + "$/"]


def stestr_argv(test_name: str) -> Argv | None:
    """``stestr run '^<id>(\\[|$)'``: stestr selects tests by a regular expression over their ids, which
    may carry ``[tags]``."""
    if not re.fullmatch(r"[\w.]+", test_name):
        return None
    return ["stestr", "run", "^" + _rx(test_name) + r"(\[|$)"]


def ctest_argv(test_name: str) -> Argv:
    """``ctest -R '^<name>$' --output-on-failure``, run in the build directory: ``-R`` is a regular
    expression over the test names, anchored and escaped."""
    return ["ctest", "--output-on-failure", "-R", "^" + _rx(test_name) + "$"]


def sbt_argv(test_name: str, suite: str | None, runners: Iterable[str] = ()) -> Argv | None:
    """``sbt 'testOnly <suite> -- -z "<text>"'``: sbt reads the one command word itself (``-z`` selects the
    tests whose name contains the text); a suite-level failure reruns the suite. ScalaTest's output printed by
    Maven (its scalatest-maven-plugin) has no sbt command: None."""
    if "maven" in set(runners) or not suite or not re.fullmatch(r"[\w$.]+", suite):
        return None
    selector = suite if "." in suite else "*" + suite  # a simple name: any package
    if test_name == suite:
        return ["sbt", f"testOnly {selector}"]
    if re.search(r'["\\]', test_name):  # sbt's own quoting has no escape we can rely on: the suite only
        return ["sbt", f"testOnly {selector}"]
    return ["sbt", f'testOnly {selector} -- -z "{test_name}"']


def kotest_argv(suite: str | None) -> Argv | None:
    """``./gradlew test --tests <Spec>``: Gradle's filter selects Kotest specs, not tests inside them (Kotest
    5; Kotest 6 also reads ``Spec.test`` paths, older versions do not). A Kotlin Multiplatform JVM target
    (``Spec[jvm]``) runs as ``jvmTest``."""
    if not suite:
        return None
    task = "test"
    if suite.endswith("[jvm]"):
        suite, task = suite[: -len("[jvm]")], "jvmTest"
    if not re.fullmatch(r"[A-Za-z_$][\w$.]*", suite):
        return None
    return ["./gradlew", task, "--tests", suite]


def _ava_prefix(file_path: str) -> str:
    """The last part of the title prefix AVA derives from a test file (its ``prefixTitle``: without the
    extension, ``.spec`` / ``.test`` and ``test-``): ``test/users.test.js`` → ``users``."""
    stem = file_path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return stem.replace(".spec", "", 1).replace(".test", "", 1).replace("test-", "")


def ava_argv(test_name: str, file_path: str | None) -> Argv | None:
    """``npx ava <file> --match=<title>``: AVA matches the whole title (not the ``file ›`` prefix it prints
    before it when several files ran); ``*`` is its wildcard and a leading ``!`` negates, neither escapable:
    such a title gives None, as does a prefixed id whose file is not known. A file that crashed: the file."""
    if file_path and (test_name == file_path or file_path.endswith("/" + test_name)):
        return ["npx", "ava", _path(file_path)]
    title = test_name
    if " › " in test_name:
        prefix, title = test_name.rsplit(" › ", 1)
        if not file_path or prefix.rsplit(" › ", 1)[-1] != _ava_prefix(file_path):
            return None
    if not title or "*" in title or title.startswith("!"):
        return None
    return ["npx", "ava", *([_path(file_path)] if file_path else []), "--match=" + title]


def bun_argv(test_name: str, suite: str | None, file_path: str | None) -> Argv:
    """``bun test <file> -t '^Suite name$'``: bun matches the regular expression against the test's full name,
    its ancestors' names and its own joined by spaces (the ids print them joined by `` > ``)."""
    target = suite or file_path
    full = " ".join(part.strip() for part in test_name.split(" > "))
    return ["bun", "test", *([_path(target)] if target else []), "-t", "^" + _rx(full) + "$"]


def deno_argv(test_name: str, file_path: str | None) -> Argv:
    """``deno test <file> --filter=/^name$/``: a filter between slashes is a regular expression over the names
    of the top-level tests; a step (``parent ... step``) runs with its parent. The job's permission flags
    (``-A``, ``--allow-read``) are not in the log: add them if the test needs them."""
    top = test_name.split(" ... ", 1)[0]
    return ["deno", "test", *([_path(file_path)] if file_path else []), "--filter=/^" + _rx(top) + "$/"]


def reproduce_argv(runner: str, test_name: str, *, suite: str | None = None, file_path: str | None = None,
                   runners: Iterable[str] = ()) -> Argv | None:
    """The argv that reruns one failed test locally, or None when no exact command exists."""
    name, suite, file_path = _clean(test_name), _clean(suite), _clean(file_path)
    if name is None:
        return None
    make = _ARGV.get(runner)
    return make(name, suite, file_path, runners) if make is not None else None


def reproduce_command(runner: str, test_name: str, *, suite: str | None = None, file_path: str | None = None,
                      runners: Iterable[str] = ()) -> str | None:
    """The shell command that reruns one failed test locally, or None when no exact command exists."""
    argv = reproduce_argv(runner, test_name, suite=suite, file_path=file_path, runners=runners)
    return command(argv) if argv else None


# runner -> argv from (test name, suite, file path, the job's runners), for the runners with an exact command.
# Not karma: no command line filter selects one spec (karma-jasmine's --grep needs `karma run`).
_ARGV: dict[str, Callable[[str, str | None, str | None, Iterable[str]], Argv | None]] = {
    "pytest": lambda n, s, f, r: pytest_argv(n, f),
    "unittest": lambda n, s, f, r: unittest_argv(n),
    "go": lambda n, s, f, r: go_argv(n, s),
    "jest": lambda n, s, f, r: jest_argv(n, s, f),
    "vitest": lambda n, s, f, r: vitest_argv(n, s, f),
    "mocha": lambda n, s, f, r: mocha_argv(n, f),
    "cargo": lambda n, s, f, r: cargo_argv(n, s),
    "nextest": lambda n, s, f, r: nextest_argv(n),
    "rspec": lambda n, s, f, r: rspec_argv(n, f),
    "phpunit": lambda n, s, f, r: phpunit_argv(n),
    "dotnet": lambda n, s, f, r: dotnet_argv(n),
    "gradle": lambda n, s, f, r: gradle_argv(n, s),
    "maven": lambda n, s, f, r: maven_argv(n, s),
    "junit": junit_argv,
    "playwright": lambda n, s, f, r: playwright_argv(n),
    "exunit": lambda n, s, f, r: exunit_argv(n, f),
    "tap": lambda n, s, f, r: tap_argv(n, s, f),
    "swift-testing": lambda n, s, f, r: swift_testing_argv(n),
    "dart": lambda n, s, f, r: dart_argv(n, s),
    "minitest": lambda n, s, f, r: minitest_argv(n, f),
    "stestr": lambda n, s, f, r: stestr_argv(n),
    "ctest": lambda n, s, f, r: ctest_argv(n),
    "sbt": lambda n, s, f, r: sbt_argv(n, s, r),
    "kotest": lambda n, s, f, r: kotest_argv(s),
    "ava": lambda n, s, f, r: ava_argv(n, f),
    "bun": lambda n, s, f, r: bun_argv(n, s, f),
    "deno": lambda n, s, f, r: deno_argv(n, f),
}
