"""Local reproduction commands for failed tests, one runner at a time (pure).

Test names, paths and packages come from CI logs: untrusted text. Every value is shell-quoted with
:func:`shlex.quote`; a value that a runner reads as a regular expression (``go test -run``, ``jest -t``,
``--grep``, ``--filter``) is regex-escaped first; a positional that could pass for an option (leading
``-``) gets a ``./`` prefix; option values are bound with ``--opt=value`` (or start with ``^``), so a name
that looks like an option stays a value. A name we cannot turn into a safe, exact command gives ``None``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

_REGEX_META = re.compile(r"([\\.^$|?*+()\[\]{}])")
_DOTNET_META = re.compile(r"([\\()&|=!~,])")
_PARAMS = re.compile(r"\s*\(.*\)\s*$")
_JS_SEP = " › "
_MAX_LEN = 500


def _q(value: str) -> str:
    return shlex.quote(value)


def _path(value: str) -> str:
    """A positional path/node id, quoted, never mistaken for an option."""
    return _q("./" + value if value.startswith("-") else value)


def _rx(value: str) -> str:
    return _REGEX_META.sub(r"\\\1", value)


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not value or "\n" in value or "\r" in value or "\x00" in value or len(value) > _MAX_LEN:
        return None
    return value


def pytest_command(test_name: str, file_path: str | None) -> str | None:
    if "::" in test_name or test_name.endswith(".py"):
        return f"pytest {_path(test_name)}"
    if file_path and file_path.endswith(".py") and not test_name.startswith("-"):
        return f"pytest {_path(file_path)} -k {_q(test_name)}"
    return None


def unittest_command(test_name: str) -> str | None:
    name = _PARAMS.sub("", test_name)
    return None if name.startswith("-") else f"python -m unittest {_q(name)}"


def go_command(test_name: str, suite: str | None) -> str:
    pattern = "/".join(f"^{_rx(part)}$" for part in test_name.split("/"))
    package = _path(suite) if suite else "./..."
    return f"go test {package} -run {_q(pattern)}"


def _js_full_name(test_name: str, sep: str = _JS_SEP) -> str:
    """The full name ``-t`` matches: the titles joined by spaces (jest ids use " › ", vitest's " > ")."""
    return " ".join(part.strip() for part in test_name.split(sep))


def jest_command(test_name: str, suite: str | None, file_path: str | None) -> str:
    target = suite or file_path
    if target and test_name in (suite, file_path):  # a suite that failed to run: the file only
        return f"npx jest {_path(target)}"
    where = f" {_path(target)}" if target else ""
    return f"npx jest{where} -t {_q('^' + _rx(_js_full_name(test_name)) + '$')}"


def vitest_command(test_name: str, suite: str | None, file_path: str | None) -> str:
    target = suite or file_path
    if target and test_name in (suite, file_path):
        return f"npx vitest run {_path(target)}"
    where = f" {_path(target)}" if target else ""
    return f"npx vitest run{where} -t {_q('^' + _rx(_js_full_name(test_name, ' > ')) + '$')}"


def mocha_command(test_name: str, file_path: str | None) -> str:
    where = f" {_path(file_path)}" if file_path else ""
    return f"npx mocha{where} {_q('--grep=' + _rx(test_name))}"


def cargo_command(test_name: str, suite: str | None) -> str | None:
    if test_name.startswith("-"):
        return None
    target = ""
    if suite:
        if suite in ("src/lib.rs", "src/main.rs"):
            target = " --lib" if suite == "src/lib.rs" else " --bins"
        elif suite.startswith("tests/") and suite.endswith(".rs"):
            target = f" --test {_q(suite[len('tests/'):-len('.rs')])}"
    return f"cargo test{target} -- --exact {_q(test_name)}"


def nextest_command(test_name: str) -> str | None:
    if re.fullmatch(r"\w[\w:]*", test_name):  # a filterset `test(=NAME)` needs a plain Rust path
        return f"cargo nextest run -E {_q(f'test(={test_name})')}"
    return None


def rspec_command(test_name: str, file_path: str | None) -> str:
    where = f" {_path(file_path)}" if file_path and file_path.endswith("_spec.rb") else ""
    return f"bundle exec rspec{where} {_q('--example=' + test_name)}"


def phpunit_command(test_name: str) -> str:
    name = _rx(re.sub(r" with data set .*$", "", test_name))
    return f"vendor/bin/phpunit {_q('--filter=' + name)}"


def dotnet_command(test_name: str) -> str:
    name = _DOTNET_META.sub(r"\\\1", _PARAMS.sub("", test_name))
    return f"dotnet test --filter {_q('FullyQualifiedName=' + name)}"


def _jvm_class_method(test_name: str, suite: str | None) -> tuple[str, str | None]:
    if suite and test_name.startswith(suite + "."):
        return suite, test_name[len(suite) + 1 :]
    cls, _, method = test_name.rpartition(".")
    return (cls, method) if cls else (test_name, None)


def gradle_command(test_name: str, suite: str | None) -> str:
    cls, method = _jvm_class_method(test_name, suite)
    method = method.split(" > ")[0].strip() if method else None
    pattern = f"{cls}.{method}" if method else cls
    pattern = re.sub(r"[^\w.$]", "*", pattern)  # --tests takes wildcards; spaces and brackets become *
    return f"./gradlew test --tests {_q(pattern)}"


def maven_command(test_name: str, suite: str | None) -> str:
    cls, method = _jvm_class_method(test_name, suite)
    simple = cls.rsplit(".", 1)[-1]
    spec = f"{simple}#{method}" if method and re.fullmatch(r"[\w$]+", method) else simple
    return f"mvn test -Dtest={_q(spec)}"


def junit_command(test_name: str, suite: str | None, file_path: str | None,
                  runners: Iterable[str] = ()) -> str | None:
    """JUnit XML names the test ``Class.method``; the build tool comes from the rest of the log."""
    seen = set(runners)
    if file_path and file_path.endswith(".py"):
        cls, method = _jvm_class_method(test_name, suite)
        parts = cls.split(".")
        module_path = "/".join(parts[: len(file_path[:-3].split("/"))])
        if module_path + ".py" == file_path and method:
            inner = parts[len(file_path[:-3].split("/")) :]
            return f"pytest {_path('::'.join([file_path, *inner, method]))}"
        return None
    if "gradle" in seen:
        return gradle_command(test_name, suite)
    if "maven" in seen or (file_path or "").endswith((".java", ".kt")):
        return maven_command(test_name, suite)
    return None


def reproduce_command(runner: str, test_name: str, *, suite: str | None = None, file_path: str | None = None,
                      runners: Iterable[str] = ()) -> str | None:
    """The shell command that reruns one failed test locally, or None when no exact command exists."""
    name, suite, file_path = _clean(test_name), _clean(suite), _clean(file_path)
    if name is None:
        return None
    if runner == "pytest":
        return pytest_command(name, file_path)
    if runner == "unittest":
        return unittest_command(name)
    if runner == "go":
        return go_command(name, suite)
    if runner == "jest":
        return jest_command(name, suite, file_path)
    if runner == "vitest":
        return vitest_command(name, suite, file_path)
    if runner == "mocha":
        return mocha_command(name, file_path)
    if runner == "cargo":
        return cargo_command(name, suite)
    if runner == "nextest":
        return nextest_command(name)
    if runner == "rspec":
        return rspec_command(name, file_path)
    if runner == "phpunit":
        return phpunit_command(name)
    if runner == "dotnet":
        return dotnet_command(name)
    if runner == "gradle":
        return gradle_command(name, suite)
    if runner == "maven":
        return maven_command(name, suite)
    if runner == "junit":
        return junit_command(name, suite, file_path, runners)
    return None
