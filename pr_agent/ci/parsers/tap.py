"""TAP: ``node --test`` (its TAP reporter), tape, node-tap and any TAP 13/14 producer.

A failure is ``not ok 3 - name`` (``not ok 3 name`` for tape), indented for a subtest, then an optional
YAML block between ``---`` and ``...``: node:test puts the test's own ``location: 'path:line:col'``,
``error:`` and ``failureType:`` there, tape its ``operator``/``expected``/``actual`` and ``at:``. A parent
whose only failure is its subtests' (``failureType: 'subtestsFailed'``) is not reported: its subtests are.
``not ok … # TODO`` / ``# SKIP`` are not failures. Totals are the ``# pass N`` / ``# fail N`` comments.
The id is the name as printed after the number; ``suite`` is ``node:test`` when the YAML block is
node:test's (its ``failureType`` key), so a repro command can use ``node --test --test-name-pattern``.
"""

from __future__ import annotations

import re

from .base import MAX_BLOCK_LINES, BaseParser, Draft, dedent, rel_path, split_location, trim_message

_NOT_OK_RE = re.compile(r"not ok \d+(?: - | |$)(.*)$")
_COUNT_RE = re.compile(r"# (pass|fail) +(\d+)$")


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1].replace("\\'", "'")
    return v


def _yaml_fields(lines: list[str]) -> dict[str, str]:
    """The top-level ``key: value`` pairs of a TAP YAML block; a block scalar (``error: |-``) is its text,
    a nested map is left out."""
    fields: dict[str, str] = {}
    base = min((len(r) - len(r.lstrip()) for r in lines if r.strip()), default=0)
    key: str | None = None
    block: list[str] = []
    for raw in lines:
        indent = len(raw) - len(raw.lstrip())
        if raw.strip() and indent == base:
            if key is not None:
                fields[key] = "\n".join(dedent(block)).strip()
            key = None
            name, sep, value = raw.strip().partition(":")
            if not sep or " " in name or name in fields:
                continue
            value = value.strip()
            if value in ("|", "|-", "|+", ">", ">-"):
                key, block = name, []
            elif value:
                fields[name] = _unquote(value)
        elif key is not None:
            block.append(raw)
    if key is not None:
        fields[key] = "\n".join(dedent(block)).strip()
    return fields


class TapParser(BaseParser):
    runner = "tap"
    first_chars = "#"
    words = ("not ok ",)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.name: str | None = None
        self.indent = 0
        self.yaml: list[str] | None = None
        self.evidence = False  # a YAML block or a "# pass/# fail" total: this is TAP
        self.parents: list[tuple[int, str]] = []

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.name is not None:
            if self.yaml is None:
                if s == "---":
                    self.yaml = []
                    return
                self._close()
            elif s == "...":
                self._close()
                return
            elif len(self.yaml) < MAX_BLOCK_LINES:
                self.yaml.append(line)
                return
            else:
                self._close()
        if s.startswith("not ok "):
            m = _NOT_OK_RE.match(s)
            if m is None:
                return
            name = m.group(1)
            head, sep, directive = name.partition(" # ")
            if sep and directive.strip().upper().startswith(("TODO", "SKIP")):
                return
            self.name = (head if sep else name).strip() or f"#{s.split()[2]}"
            self.indent = len(line) - len(line.lstrip())
            self.yaml = None
            self.capture()
            return
        if s.startswith("# ") and s[2:6] in ("pass", "fail"):
            m2 = _COUNT_RE.match(s)
            if m2 is not None:
                self.evidence = True
                if m2.group(1) == "pass":
                    self.add_counts(passed=int(m2.group(2)))
                else:
                    self.add_counts(failed=int(m2.group(2)))

    def _close(self) -> None:
        name, yaml = self.name, self.yaml
        self.name, self.yaml = None, None
        self.release()
        if name is None:
            return
        fields = _yaml_fields(yaml or [])
        path = ln = None
        for key in ("location", "at"):
            where = fields.get(key)
            if where and path is None:
                if key == "at":  # "Test.<anonymous> (/path/test.js:5:5)": the last word, unbracketed
                    where = where.rsplit(" ", 1)[-1].strip("()")
                loc = split_location(where)
                if loc is not None:
                    path, ln = rel_path(loc[0]), loc[1]
        if fields.get("error"):
            msg = [fields["error"]]
        else:
            msg = [f"{k}: {fields[k]}" for k in ("message", "operator", "expected", "actual") if fields.get(k)]
        self.evidence = self.evidence or yaml is not None
        if fields.get("failureType") == "subtestsFailed":
            return
        self.add(f"{self.ctx.lineno}:{name}" if name in self.drafts else name, name,
                 message=trim_message(msg) or None, file_path=path, line=ln,
                 suite="node:test" if "failureType" in fields else None)

    def finish(self) -> list[Draft]:
        self._close()
        if not self.evidence:  # "not ok" in text that is not TAP
            self.first_seen = None
            self.passed = self.failed = None
            return []
        return super().finish()
