"""Stored preferences: the 💾 defaults of the spec (design §7).

Precedence: explicit argument > stored preference > built-in default. Keys are
``<tool>.<field>`` (e.g. ``find_unresolved_comments.sort``); values are validated with the same
input model that validates tool calls, so a bad value is an error, never a silent fallback. The
file is ``$GH_PR_AGENT_CONFIG_DIR/preferences.json`` or ``$XDG_CONFIG_HOME/gh-pr-agent/…``
(``~/.config/gh-pr-agent/…`` by default). Updates are atomic under concurrency: a lock file beside it
(``preferences.json.lock``), the file read again under the lock, written to a temporary file and renamed over it.
A symlinked ``preferences.json`` is followed (the link stays, its target is updated); a FIFO, directory or device
there is ``preferences_corrupt`` (never opened for reading, so it cannot hang a tool).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pr_agent import cli_table, surface
from pr_agent.errors import PrAgentError, command_repair
from pr_agent.shellcmd import command

if TYPE_CHECKING:
    from pydantic import BaseModel

    from pr_agent.tooldef import Tool

FILENAME = "preferences.json"


def config_dir(env: Mapping[str, str]) -> Path:
    if env.get("GH_PR_AGENT_CONFIG_DIR"):
        return Path(env["GH_PR_AGENT_CONFIG_DIR"])
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "gh-pr-agent"


def stored_keys() -> dict[str, Any]:
    """Every storable key -> its built-in default, from the generated table (pr_agent/cli_table.py, derived
    from :func:`known_keys` and checked by tests/unit/test_docs.py): listing, reading and unsetting
    preferences never import the registry, pydantic or a tool module."""
    return cli_table.PREFERENCES


def known_keys() -> dict[str, tuple[Tool, str, Any]]:
    """Every storable key -> (tool, field, built-in default), from the registry."""
    from pr_agent.registry import all_tools

    keys = {}
    for tool in all_tools().values():
        for name, default in tool.stored_fields().items():
            keys[f"{tool.name}.{name}"] = (tool, name, default)
    return keys


def _config_list_step() -> surface.Step | None:
    """`gh pr-agent config list` on the CLI; over MCP there is no tool for it (the user's file)."""
    return command_repair(["gh", "pr-agent", "config", "list"]) if surface.current() == "cli" else None


def _unset(key: str) -> str:
    return command(["gh", "pr-agent", "config", "unset", key])


def _unknown_key(key: str) -> PrAgentError:
    keys = sorted(stored_keys())
    return PrAgentError("invalid_preference", f"{key!r} is not a stored preference.",
                        suggestion="Use one of: " + ", ".join(keys) + ".",
                        details={"field": "key", "value": key, "reason": "unknown key", "known_keys": keys},
                        repair=_config_list_step())


def validate_value(key: str, value: Any) -> Any:
    from pydantic import TypeAdapter, ValidationError

    keys = known_keys()
    if key not in keys:
        raise _unknown_key(key)
    tool, name, _ = keys[key]
    annotation = tool.input_model.model_fields[name].annotation
    try:
        checked = TypeAdapter(annotation).validate_python(value, strict=True)
    except ValidationError as exc:
        from pr_agent.registry import plain_reason  # the same plain words as argument errors

        reason = plain_reason(tool, exc.errors(include_url=False)[0])
        raise PrAgentError("invalid_preference", f"{value!r} is not a valid value for {key}: {reason}.",
                           suggestion=surface.text("See ", surface.arg(tool.name, name), " of ",
                                                   surface.tool(tool.name),
                                                   surface.face(cli=" --help", mcp=" in tools/list"),
                                                    " for the allowed values."),
                           details={"field": key, "value": value, "reason": reason}) from None
    if checked is None:
        raise PrAgentError("invalid_preference", f"{key} cannot be stored as null.",
                           suggestion=surface.text(surface.face(cli=f"Use `{_unset(key)}`", mcp="Unset it"),
                                                    " to go back to the built-in default."),
                           details={"field": key, "value": None, "reason": "null"})
    return checked


def parse_cli_value(text: str) -> Any:
    """`config set` values: JSON when it parses (true, 3, ["a"]), else the plain string."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


def _corrupt(path: Path, why: str, suggestion: str) -> PrAgentError:
    return PrAgentError("preferences_corrupt", f"The preferences file {path} {why}.", suggestion=suggestion,
                        details={"path": str(path), "reason": why})


def _read(path: Path) -> dict[str, Any]:
    """The stored values ({} when there is no file). Follows a symlink; anything but a regular file is refused
    before it is opened (a FIFO would block the reader)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise _corrupt(path, f"cannot be read: {exc.strerror or exc}",
                       "Fix its permissions, or move it away to start from defaults.") from None
    if not stat.S_ISREG(info.st_mode):
        raise _corrupt(path, "is not a regular file", f"Remove {path} (or point it at a JSON file).")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # swapped after the check
                raise _corrupt(path, "is not a regular file", f"Remove {path} (or point it at a JSON file).")
            raw = fh.read()
    except OSError as exc:
        raise _corrupt(path, f"cannot be read: {exc.strerror or exc}",
                       "Fix its permissions, or move it away to start from defaults.") from None
    try:
        data = orjson.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("top level is not an object")
    except (orjson.JSONDecodeError, ValueError) as exc:
        raise _corrupt(path, f"is not valid JSON ({exc})",
                       f"Fix or delete {path}; nothing was reset automatically.") from None
    return data


@contextmanager
def _locked(lock: Path) -> Iterator[None]:
    """An exclusive lock held on ``lock`` (created if needed) by this process."""
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for ~10 s, then raises OSError
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


@dataclass
class Preferences:
    path: Path
    values: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, env: Mapping[str, str]) -> Preferences:
        path = config_dir(env) / FILENAME
        return cls(path, _read(path))

    def get(self, key: str) -> Any:
        if key not in stored_keys():
            raise _unknown_key(key)
        return self.values.get(key)

    def set(self, key: str, value: Any) -> Any:
        checked = validate_value(key, value)
        self._update(lambda values: values.__setitem__(key, checked))
        return checked

    def unset(self, key: str) -> bool:
        if key not in stored_keys():
            raise _unknown_key(key)
        removed: list[bool] = []
        self._update(lambda values: removed.append(values.pop(key, None) is not None))
        return removed[0]

    def listing(self) -> list[dict[str, Any]]:
        rows = []
        for key, default in sorted(stored_keys().items()):
            stored = key in self.values
            rows.append({"key": key, "value": self.values[key] if stored else default,
                         "source": "stored" if stored else "default", "default": default})
        return rows

    def apply(self, tool: Tool, params: BaseModel) -> BaseModel:
        """Fill every omitted 💾 field: stored preference, else the built-in default."""
        updates = {}
        for name, default in tool.stored_fields().items():
            if getattr(params, name) is None:
                key = f"{tool.name}.{name}"
                updates[name] = self._stored_value(key) if key in self.values else default
        return params.model_copy(update=updates) if updates else params

    def _stored_value(self, key: str) -> Any:
        """A stored value, validated; an invalid one says it came from the preferences file."""
        try:
            return validate_value(key, self.values[key])
        except PrAgentError as err:
            err.message = f"Stored preference {err.message.rstrip('.')} (stored in {self.path})."
            err.details["source"] = str(self.path)
            err.suggestion = surface.text(surface.face(cli=f"Fix it with `{_unset(key)}` or `gh pr-agent config set`.",
                                                       mcp=f"Ask the user to fix or remove {key} in {self.path}."))
            raise

    def _update(self, change: Callable[[dict[str, Any]], Any]) -> None:
        """Apply ``change`` to the values on disk, under the lock: concurrent updates of other keys are kept."""
        import tempfile  # only a write needs it

        target = Path(os.path.realpath(self.path))  # a symlink is followed: the link stays, its target is updated
        directory = target.parent
        try:
            directory.mkdir(parents=True, exist_ok=True)
            with _locked(directory / f"{target.name}.lock"):
                values = _read(target)
                change(values)
                fd, tmp = tempfile.mkstemp(prefix=".preferences.", dir=directory)
                try:
                    with os.fdopen(fd, "wb") as fh:
                        fh.write(orjson.dumps(values, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
                        fh.flush()
                        os.fsync(fh.fileno())
                    os.replace(tmp, target)
                except BaseException:
                    Path(tmp).unlink(missing_ok=True)
                    raise
                self.values = values
        except OSError as exc:
            raise PrAgentError("preferences_unwritable", f"Cannot write {self.path}: {exc.strerror or exc}.",
                               suggestion="Make the config directory writable or set GH_PR_AGENT_CONFIG_DIR.",
                               details={"path": str(self.path)}) from None
