"""JVM build tools: Gradle test output and Maven Surefire/Failsafe output."""

from __future__ import annotations

import re

from .base import BaseParser, Draft, split_location, trim_message

_JVM_FILE = r"([\w$.-]+\.(?:java|kt|scala|groovy))"
_JAVA_FRAME_RE = re.compile(r"\s*at (?:[\w.$/-]+//)?([^()]+)\.([^.()]+)\(" + _JVM_FILE + r":(\d+)\)")
_JVM_FILE_RE = re.compile(_JVM_FILE)
_KMP_CLASS_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_EXCEPTION_RE = re.compile(r"[A-Za-z_$][\w$.]*(?:Error|Exception|Throwable)\b")
_JUNIT5_METHOD_RE = re.compile(r"[\w$]+\([\w$.,\[\] ]*\)(?:\[\w+\])?")  # removes(), parses(String)[jvm]
_GRADLE_COUNT_RE = re.compile(r"(?<!\d)(\d+) tests? completed, (\d+) failed")
_MVN_OLD_NAME_RE = re.compile(r"([\w$]+)\(([\w.$]+)\)$")
_MVN_TOTAL_RE = re.compile(r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)\s*$")
_MVN_ENTRY_LOC_RE = re.compile(r"(\S+?):(\d+)(?:->\S+)?(?:\s+(.*))?$")
_MVN_OLD_ENTRY_RE = re.compile(r"([\w$]+)\(([\w.$]+)\)(?::\s*(.*))?$")


def pick_frame(lines: list[str], cls: str, method: str | None) -> tuple[str | None, int | None]:
    """The stack frame of the test class (and method), else the first frame of a class with that name."""
    simple = cls.rsplit(".", 1)[-1]
    fallback: tuple[str, int] | None = None
    for s in lines:
        m = _JAVA_FRAME_RE.match(s)
        if m is None:
            continue
        frame_cls, frame_method, file, line = m.group(1), m.group(2), m.group(3), int(m.group(4))
        frame_simple = frame_cls.rsplit(".", 1)[-1].split("$", 1)[0]
        if frame_simple == simple and (method is None or frame_method == method):
            return file, line
        if fallback is None and frame_simple == simple:
            fallback = (file, line)
    return fallback or (None, None)


def exception_message(lines: list[str]) -> list[str]:
    out: list[str] = []
    for s in lines:
        t = s.strip()
        if t.startswith(("at ", "...")) and (_JAVA_FRAME_RE.match(s) or t.startswith("...")):
            break
        out.append(s)
    causes = [i for i, s in enumerate(out) if s.lstrip().startswith("Caused by:")]
    if len(causes) > 1:  # a chain of wrappers: the exception and its root cause say it all
        out = out[: causes[0]] + out[causes[-1] :]
    return out


class _JvmParser(BaseParser):
    """Shared state of the JVM parsers: the failing test whose indented detail block is being read."""

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.key: str | None = None
        self.cls = ""
        self.method: str | None = None
        self.lines: list[str] = []

    def finish(self) -> list[Draft]:
        self._close()
        return super().finish()

    def _close(self) -> None:
        raise NotImplementedError


class GradleParser(_JvmParser):
    runner = "gradle"
    words = (" FAILED", "tests completed")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.heads: dict[str, str] = {}  # key -> the event's own "Class > test" text
        self.kotest: set[str] = set()  # keys whose detail shows Kotest (``jvm_kotest``)
        self.native = False  # the event being read is a Kotlin/Native or JS one ("Class.test FAILED")

    def feed(self, line: str) -> None:
        if self.key is not None:
            # the detail is indented, its blank lines too (an empty line ends it)
            if line.startswith((" ", "\t")) and len(self.lines) < 80:
                self.lines.append(line)
                return
            self._close()
        s = line.rstrip()
        if s.endswith(" FAILED") and " > " in s and not s.startswith(">"):
            head = s[: -len(" FAILED")].strip()
            parts = [p.strip() for p in head.split(" > ")]
            cls, rest = parts[0], parts[1:]
            if " " in cls or not rest:
                return
            method = rest[0][: rest[0].index("(")] if rest[0].endswith(")") and "(" in rest[0] else rest[0]
            name = f"{cls}.{method}" + ("".join(f" > {p}" for p in rest[1:]) if len(rest) > 1 else "")
            self.key, self.cls, self.method, self.lines = name, cls, method, []
            self.heads.setdefault(name, head)
            self.add(name, name, suite=cls)
            self.capture()
            return
        if s.endswith(" FAILED") and not s.startswith(">"):  # Kotlin/Native and JS targets: "Class.test FAILED"
            head = s[: -len(" FAILED")].strip()
            cls, dot, _ = head.split(" ", 1)[0].rpartition(".")
            if dot and _KMP_CLASS_RE.fullmatch(cls) and len(head) > len(cls) + 1:
                self.key, self.cls, self.method, self.lines = head, cls, head[len(cls) + 1 :], []
                self.native = True  # a test only if an exception follows (``_close``)
                self.capture()
            return
        if "tests completed" in s:
            m = _GRADLE_COUNT_RE.search(s)
            if m:
                self.add_total(int(m.group(1)), int(m.group(2)), s, "skipped")
        elif s.startswith("> Task :") and s.endswith(("test FAILED", "Test FAILED")):
            self.detect()

    def _close(self) -> None:
        key, lines = self.key, self.lines
        self.key, self.lines = None, []
        self.release()
        if self.native:
            self.native = False
            if not key or not lines or not _EXCEPTION_RE.match(lines[0].strip()):
                return  # "X.y FAILED" without an exception under it: not a Gradle test event
            self.heads.setdefault(key, key)
            self.add(key, key, suite=self.cls)
        d = self.drafts.get(key) if key else None
        if d is None or not lines:
            return
        if key and any("io.kotest." in s for s in lines) and not self._junit_method(key, lines):
            self.kotest.add(key)  # a Kotest spec's test (Kotest's assertions in a JUnit method stay Gradle's)
        exc, _, where = lines[0].strip().rpartition(" at ")
        loc = split_location(where) if exc and " " not in exc else None
        if loc is not None and _JVM_FILE_RE.fullmatch(loc[0]):
            d.message = d.message or exc
            d.file_path, d.line_number = loc[0], loc[1]
            return
        d.message = d.message or trim_message(exception_message(lines)) or None
        cls = self.cls[: self.cls.index("[")] if self.cls.endswith("]") and "[" in self.cls else self.cls  # KMP: X[jvm]
        path, line = pick_frame(lines, cls, self.method if self.method and " " not in self.method else None)
        if path:
            d.file_path, d.line_number = path, line


    def _junit_method(self, key: str, lines: list[str]) -> bool:
        """Whether the failed test is a JVM method (a JUnit or kotlin.test test, maybe using Kotest's
        assertions): Gradle prints it as ``name()`` (JUnit 5), or a frame of the class names the method."""
        head = self.heads.get(key, "")
        test = head.split(" > ", 1)[1] if " > " in head else (self.method or "")
        if _JUNIT5_METHOD_RE.fullmatch(test):
            return True
        simple = self.cls.rsplit(".", 1)[-1].split("[", 1)[0]
        for s in lines:
            m = _JAVA_FRAME_RE.match(s)
            if m and m.group(2) == test and m.group(1).rsplit(".", 1)[-1] == simple:
                return True
        return False


class MavenParser(_JvmParser):
    runner = "maven"
    first_chars = "[FT"
    words = ("<<< ", "Tests run:")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.summary: str | None = None  # "new" ([ERROR] Failures:) | "old" (Failed tests:)
        self.last_class = ""  # from "Tests run: … - in com.x.FooTest" (Surefire 2.22 then names methods only)

    def feed(self, line: str) -> None:
        if self.key is not None:
            if line.strip() and not line.startswith("[") and len(self.lines) < 80:
                self.lines.append(line)
                return
            self._close()
        s = line.strip()
        body = s[7:].strip() if s.startswith(("[ERROR]", "[INFO] ")) else s
        if "<<< " in s and "Time elapsed" in s and not body.startswith("Tests run:"):
            if s.endswith(("<<< FAILURE!", "<<< ERROR!")):
                name = body[: body.find("Time elapsed")].strip().removesuffix("--").strip()
                if name and " " not in name.split("(", 1)[0]:
                    self._detail(name)
            return
        if s.startswith(("[ERROR] Failures:", "[ERROR] Errors:", "Failed tests:", "Tests in error:")):
            self.detect()
            self.summary = "old" if not s.startswith("[") else "new"
            self.capture()
            if self.summary == "old":
                self._old_entry(s.split(":", 1)[1].strip())
            return
        if "Tests run:" in s:
            self.detect()
            if "<<< " in s and "- in " in s:  # a class with failures: its methods may follow unqualified
                self.last_class = s.rsplit(" in ", 1)[1].strip()
            m2 = _MVN_TOTAL_RE.search(s) if "Time elapsed" not in s else None
            if m2:  # module totals; per-class lines end with "Time elapsed …"
                run, fail, err, skip = (int(g) for g in m2.groups())
                self.add_counts(run - fail - err - skip, fail + err)
            self._end_summary()
            return
        if self.summary == "new":
            if s.startswith("[ERROR]   ") or s.startswith("[ERROR]  "):
                self._new_entry(s[7:].strip())
            elif not s.startswith("[ERROR]") or s.startswith(("[INFO]", "[WARNING]")):
                self._end_summary()
        elif self.summary == "old":
            if s:
                self._old_entry(s)
            else:
                self._end_summary()

    def _end_summary(self) -> None:
        if self.summary is not None:
            self.summary = None
            self.release()

    def _detail(self, name: str) -> None:
        old = _MVN_OLD_NAME_RE.match(name)
        if old:
            method, cls = old.group(1), old.group(2)
        else:
            base = name.split("(", 1)[0].split("[", 1)[0]
            cls, _, method = base.rpartition(".")
            cls = cls or self.last_class
        full = f"{cls}.{method}" if cls else method
        key = f"{cls.rsplit('.', 1)[-1]}.{method}"
        self.add(key, full, suite=cls or None)
        self.key, self.cls, self.method, self.lines = key, cls, method, []
        self.capture()

    def _close(self) -> None:
        key, lines = self.key, self.lines
        self.key, self.lines = None, []
        if self.summary is None:
            self.release()
        d = self.drafts.get(key) if key else None
        if d is None:
            return
        if not d.message:
            d.message = trim_message(exception_message(lines)) or None
        path, line = pick_frame(lines, self.cls, self.method)
        if path and not d.file_path:
            d.file_path, d.line_number = path, line

    def _new_entry(self, body: str) -> None:
        if body.startswith("Run ") and ":" in body[:8]:
            return  # flaky rerun detail ("Run 1: FooTest.testBar:12 …")
        m = _MVN_ENTRY_LOC_RE.match(body)
        if m:
            name, line, msg = m.group(1), int(m.group(2)), (m.group(3) or "").strip()
        else:
            name, _, msg = body.partition(" ")
            line = None
        name = name.split("(", 1)[0] if name.endswith(")") else name
        msg = msg.lstrip("» ").strip()
        cls, _, method = name.rpartition(".")
        simple = cls.rsplit(".", 1)[-1]
        self.add(f"{simple}.{method}", name, message=msg or None, line=line)

    def _old_entry(self, body: str) -> None:
        m = _MVN_OLD_ENTRY_RE.match(body.strip())
        if m:
            method, cls, msg = m.group(1), m.group(2), (m.group(3) or "").strip()
            self.add(f"{cls.rsplit('.', 1)[-1]}.{method}", f"{cls}.{method}", message=msg or None)

    def finish(self) -> list[Draft]:
        self._close()
        self._end_summary()
        self.release()
        return BaseParser.finish(self)
