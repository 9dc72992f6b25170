"""One command builder, enforced (issue 18): outside ``pr_agent/shellcmd.py`` no f-string, ``+``, ``%``,
``.format`` or ``" ".join`` pastes data into a shell command.

An AST walk over every module of ``pr_agent/`` flattens each string expression into its literal parts and its
computed parts. Wherever a command starts — at the start of the string, after a backtick, after ``(`` — a known
program word (git, gh, npx, pytest, go, cargo, …) followed by a space starts a command; that command runs to the
closing backtick / parenthesis (or to the end of the string). A computed part inside it is a command built by
hand, unless it is a call of the builder itself (``command(...)``, ``chain(...)``, …), which quotes every word.

Error-message prose that merely names the program first ("gh could not be started: …") is not a command; those
few strings are listed below by their exact literal text, and the list must stay exact (a stale entry fails too)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "pr_agent"
PROGRAMS = ("git", "gh", "npx", "npm", "yarn", "pnpm", "node", "pytest", "python", "python3", "pip", "uv", "go",
            "cargo", "rustc", "mvn", "gradle", "./gradlew", "bundle", "rspec", "ruby", "dotnet", "vendor/bin/phpunit",
            "phpunit", "make", "tox", "jest", "vitest", "mocha", "ctest", "swift", "xcodebuild", "bazel", "sh", "bash",
            "#")  # a hand-built shell comment too: pr_agent.shellcmd.comment is the one that keeps it one inert line
BUILDERS = {"command", "chain", "comment", "join", "quote", "show", "_unset"}
_PROGRAM = re.compile(r"(?:\$ )?(?:" + "|".join(map(re.escape, PROGRAMS)) + r")(?= |$)")
_CLOSE = {"`": "`", "(": ")", "": None}

# (module, the string's literal skeleton, computed parts shown as {}): prose that names a program first, not a
# command (each reviewed by hand)
PROSE = {
    ("ci/parsers/causes.py", "gradle {}"),  # the tool a non-test cause names ("gradle :app:test"), shown as data
    ("ci/parsers/causes.py", "npm {}"),  # the same, with npm's error code ("npm E404")
    ("ci/parsers/engine.py", "go test: package {} failed outside any test: {}"),
    ("gh.py", "gh {} is too old; gh-pr-agent needs gh {} or newer."),
    ("gh.py", "gh could not be started: {}."),
    ("gh.py", "gh has no valid login for {} (its token was missing or rejected)."),
    ("ghwire.py", "gh could not parse the address of {}: {}"),
    ("ghwire.py", "gh could not reach GitHub for {}{}"),
    ("ghwire.py", "gh failed for {} (exit {}): {}"),
    ("git.py", "git {} failed: {}"),
    ("git.py", "git {} is too old for {}; it needs git {}+."),
    ("merge/conflicts.py", "git merge-tree exited {} without a merge result"),
    ("merge/local.py", "git fetch from {} failed: {}"),
    ("merge/local.py", "git merge-tree failed (exit {}): {}"),
    ("stack/shell.py", "git refuses branch names containing {}"),
    # the `tool` label of a non-test failure (which tool reported it: "npm E404", "gradle :app:compileJava"),
    # shown as data, never offered as a command
    ("ci/parsers/causes.py", "npm {}"),
    ("ci/parsers/causes.py", "gradle {}"),
}

Part = tuple[str | None, ast.AST]  # (literal text, node) or (None, computed node)


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _flatten(node: ast.AST) -> list[Part] | None:
    """The parts of a string-building expression, or None when ``node`` builds no string from parts."""
    if isinstance(node, ast.JoinedStr):
        out: list[Part] = []
        for v in node.values:
            out += [(v.value, v)] if _is_str(v) else [(None, v.value if isinstance(v, ast.FormattedValue) else v)]
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _flatten(node.left), _flatten(node.right)
        if left is None and right is None:
            return None
        return (left or [(None, node.left)]) + (right or [(None, node.right)])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_str(node.left):
        text = node.left.value  # type: ignore[attr-defined]
        pieces = re.split(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdirfx]", text)
        return [p for i, piece in enumerate(pieces) for p in ([(piece, node.left)] +
                ([(None, node.right)] if i < len(pieces) - 1 else []))]
    if _is_str(node):
        return [(node.value, node)]  # type: ignore[attr-defined]
    return None


def _format_call(node: ast.Call) -> list[Part] | None:
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "format" and _is_str(func.value):
        pieces = re.split(r"\{[^{}]*\}", func.value.value)  # type: ignore[attr-defined]
        return [p for i, piece in enumerate(pieces) for p in ([(piece, func.value)] +
                ([(None, node)] if i < len(pieces) - 1 else []))]
    return None


def _built_by_builder(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    return name in BUILDERS and not (isinstance(node.func, ast.Attribute) and _is_str(node.func.value))


def skeleton(parts: list[Part]) -> str:
    return "".join(p if p is not None else "{}" for p, _ in parts)


def _chain(node: ast.AST) -> list[ast.AST]:
    """The nodes :func:`_flatten` consumed below ``node`` (a ``+`` chain's operands and f-strings)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [node.left, node.right, *_chain(node.left), *_chain(node.right)]
    return []


def hand_built(parts: list[Part], module: str) -> str | None:
    """The opening of a command pasted together from ``parts``, or None."""
    text = "".join(p if p is not None else "\0" for p, _ in parts)
    nodes = [n for p, n in parts if p is None]
    for m in re.finditer(r"(?:^|(?<=[`(]))", text):
        start = m.start()
        opener = text[start - 1] if start else ""
        prog = _PROGRAM.match(text, start)
        if not prog:
            continue
        close = _CLOSE[opener]
        end = text.find(close, prog.end()) if close else -1
        body = text[start:end if end >= 0 else len(text)]
        before = text[:start].count("\0")
        computed = nodes[before:before + body.count("\0")]
        if not computed or all(_built_by_builder(n) for n in computed):
            continue
        if not opener and (module, skeleton(parts)) in PROSE:
            continue
        return body.replace("\0", "{…}")
    return None


def violations(source: str, module: str) -> list[str]:
    found = []
    tree = ast.parse(source)
    inner: set[int] = set()  # parts of a bigger expression already checked as a whole
    for node in ast.walk(tree):
        if id(node) in inner:
            continue
        parts = _format_call(node) if isinstance(node, ast.Call) else _flatten(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
                and _is_str(node.func.value) and node.func.value.value.strip() == "" and node.args \
                and isinstance(node.args[0], (ast.List, ast.Tuple)) and node.args[0].elts \
                and _is_str(node.args[0].elts[0]) and _PROGRAM.fullmatch(node.args[0].elts[0].value):
            found.append(f"{module}:{node.lineno}: {ast.unparse(node)[:100]}")
            continue
        if parts is None or all(p is not None for p, _ in parts):
            continue
        inner.update(id(n) for n in _chain(node))
        bad = hand_built(parts, module)
        if bad:
            found.append(f"{module}:{node.lineno}: {bad[:100]}")
    return found


def _modules() -> list[tuple[str, str]]:
    return [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in sorted(ROOT.rglob("*.py"))
            if p.name != "shellcmd.py"]


def test_no_module_builds_a_command_by_hand() -> None:
    found = [v for module, source in _modules() for v in violations(source, module)]
    assert not found, "build these with pr_agent.shellcmd.command(argv):\n" + "\n".join(found)


def test_every_prose_exemption_is_still_needed() -> None:
    sources = dict(_modules())
    for module, text in PROSE:
        assert module in sources, module
        found = {skeleton(parts) for node in ast.walk(ast.parse(sources[module])) if (parts := _flatten(node))}
        assert text in found, (module, text)


@pytest.mark.parametrize("source", [
    'x = f"git fetch {remote} {branch}"',
    'x = "gh auth login --hostname " + host',
    'x = "git log %s" % rev',
    'x = "pytest {} -k {}".format(path, name)',
    'x = " ".join(["npx", "jest", path])',
    'x = f"Run `gh pr view {n} --repo {repo}` to see it."',
    'x = f"Add one (git remote add upstream {url}) or not."',
    'x = "Check `git ls-remote " + remote + "`."',
    'x = f"$ cargo test {name}"',
    'x = f"gh could not be started: {exc}."',  # prose only where listed, and not in this module
    'x = f"# fix the tests on {branch}"',
])
def test_the_walk_catches_hand_built_commands(source: str) -> None:
    assert violations(source, "sample.py"), source


@pytest.mark.parametrize("source", [
    'x = command(["git", "fetch", remote])',
    'x = f"Run `{command([\'gh\', \'pr\', \'view\', n])}` to see it."',
    'x = f"Then `git rebase --continue`; {what} is {n}."',  # a literal command next to prose data
    'x = f"{name} is not a branch name git accepts"',
    'x = "the git " + word',  # not at a command start
    'x = f"See `{_unset(key)}` or `gh pr-agent config set`."',
])
def test_the_walk_leaves_builder_calls_and_prose_alone(source: str) -> None:
    assert not violations(source, "sample.py"), source
