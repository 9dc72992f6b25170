"""The hostile corpus (fixtures/hostile/corpus.json) plus generated monsters, and a recording stub."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS: dict[str, Any] = json.loads((ROOT / "fixtures" / "hostile" / "corpus.json").read_text(encoding="utf-8"))
TEXTS: list[str] = CORPUS["texts"]
BRANCHES: list[str] = CORPUS["branch_names"]
PATHS: list[str] = CORPUS["paths"]


def huge_body(megabytes: int = 5) -> str:
    line = "Please fix `x` $(id) ‹details› — " * 3 + "\n"
    return line * (megabytes * 1024 * 1024 // len(line.encode()))


def nested_markdown(levels: int = 1000) -> str:
    return "<details><summary>x</summary>\n\n> " * levels + "deep **finding**" + "\n</details>" * levels


def recording_stub(directory: Path, name: str, record: Path) -> Path:
    """An executable called ``name`` that appends its argv (as JSON) to ``record`` and exits 0."""
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / name
    exe.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"with open({str(record)!r}, 'a', encoding='utf-8') as fh:\n"
        "    fh.write(json.dumps(sys.argv[1:]) + '\\n')\n",
        encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def recorded(record: Path) -> list[list[str]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines() if line]



# ------------------------------------------------------------------ running generated commands for real
TEST_NAMES: list[str] = CORPUS["test_names"]
STUB_PROGRAMS = ("gh", "git", "pytest", "go", "npx", "cargo", "bundle", "python", "dotnet", "mvn", "resolve", "mix",
                 "node", "dart", "ruby", "swift", "ctest", "sbt", "bun", "deno")
UNSAFE_ON_TERMINAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def named_recording_stubs(directory: Path, record: Path, names: tuple[str, ...] = STUB_PROGRAMS) -> Path:
    """Executables ``names`` in ``directory`` that append ``[their name, *argv]`` (JSON) to ``record``."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        exe = directory / name
        exe.write_text(
            f"#!{sys.executable}\n"
            "import json, os, sys\n"
            f"with open({str(record)!r}, 'a', encoding='utf-8') as fh:\n"
            f"    fh.write(json.dumps([{name!r}, *sys.argv[1:]]) + '\\n')\n",
            encoding="utf-8")
        exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return directory


def run_pasted(command: str, stubs: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Paste ``command`` into bash with the stubs first on PATH (and HOME in the sandbox)."""
    env = {"PATH": f"{stubs}{os.pathsep}{os.environ['PATH']}", "HOME": str(cwd), "LC_ALL": "C.UTF-8"}
    return subprocess.run(["bash", "-c", command], env=env, cwd=cwd, capture_output=True, text=True, timeout=30,
                          check=False)


def intended_argvs(command: str) -> list[list[str]]:
    """What a POSIX shell runs for ``command`` when every program succeeds, read by a minimal shell word
    splitter independent of bash: quotes and backslashes removed, simple commands split at ``&&``/``;`` (the
    right side of ``||`` skipped: its left side succeeded), a ``#`` comment dropped. Generated commands are
    plain data, so anything the shell would expand or reinterpret outside quotes — ``$``, backticks, globs,
    ``~``, braces, pipes, redirections, subshells, a newline — fails the assertion."""
    segments: list[tuple[str, list[str]]] = [(";", [])]
    word: str | None = None
    i, n = 0, len(command)

    def fail(why: str) -> AssertionError:
        return AssertionError(f"{why} at {i} in a generated command: {command!r}")

    while i < n:
        c = command[i]
        if c in " \t":
            if word is not None:
                segments[-1][1].append(word)
            word, i = None, i + 1
        elif c == "#" and word is None:
            break
        elif c == "'":
            j = command.find("'", i + 1)
            if j < 0:
                raise fail("unterminated quote")
            word, i = (word or "") + command[i + 1 : j], j + 1
        elif c == '"':
            j, text = i + 1, []
            while j < n and command[j] != '"':
                if command[j] == "\\" and j + 1 < n and command[j + 1] in '$`"\\':
                    text.append(command[j + 1])
                    j += 2
                    continue
                if command[j] in "$`":
                    raise fail("expansion inside double quotes")
                text.append(command[j])
                j += 1
            if j >= n:
                raise fail("unterminated double quote")
            word, i = (word or "") + "".join(text), j + 1
        elif c == "\\":
            if i + 1 >= n or command[i + 1] == "\n":
                raise fail("dangling backslash")
            word, i = (word or "") + command[i + 1], i + 2
        elif c in "&|;":
            op = command[i : i + 2] if command[i : i + 2] in ("&&", "||") else c
            if op not in ("&&", "||", ";"):
                raise fail(f"shell operator {op!r}")
            if word is not None:
                segments[-1][1].append(word)
            word, i = None, i + len(op)
            segments.append((op, []))
        elif c in "$`()<>*?[{}\n\r" or (c == "~" and word is None):
            raise fail(f"unquoted {c!r}")
        else:
            word, i = (word or "") + c, i + 1
    if word is not None:
        segments[-1][1].append(word)
    return [argv for op, argv in segments if argv and op != "||"]


def sandbox(tmp: Path) -> Path:
    """A working directory with a canary file (``rm -rf ~`` would take it) and no pwned files."""
    box = tmp / "sandbox"
    box.mkdir(parents=True, exist_ok=True)
    (box / "canary").write_text("still here\n", encoding="utf-8")
    return box


def assert_nothing_ran(*dirs: Path) -> None:
    for d in dirs:
        found = [p for p in d.rglob("*") if p.name.lower().startswith("pwned")]  # what the payloads create
        assert not found, f"a payload ran: {found}"
        if (d / "canary").parent == d and d.name == "sandbox":
            assert (d / "canary").exists(), "rm -rf ~ ran"
    assert not list(Path("/tmp").glob("pwned*")), "a payload ran in /tmp"


def gh_sanitised(text: str) -> str:
    """What gh makes of text in an API answer: C0 and C1 control characters (not \\t \\n \\r) in caret notation
    (ESC -> ^[, CSI U+009B -> ^[)."""
    out = []
    for c in text:
        code = ord(c)
        if code < 0x20 and c not in "\t\n\r":
            out.append("^" + chr(code + 0x40))
        elif 0x80 <= code <= 0x9F:
            out.append("^" + chr(code - 0x40))
        else:
            out.append(c)
    return "".join(out)
