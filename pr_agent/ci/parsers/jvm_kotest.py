"""Kotest specs run by Gradle (the JUnit Platform runner): Gradle's test events, read as Kotest's.

Gradle prints a Kotest test as any other (``io.acme.CartSpec > adds an item FAILED``, or with Kotlin
Multiplatform ``CartSpec[jvm] > adds an item[jvm] FAILED``), followed by the exception: Kotest's own
(``io.kotest.assertions.AssertionFailedError: expected:<2> but was:<3>``, or, in Gradle's short format,
``io.kotest.assertions.AssertionFailedError at CartSpec.kt:14``) or its frames (``io.kotest.…``). A failure
whose detail shows Kotest is Kotest's, unless the test is a JVM method — Gradle prints JUnit 5's as
``removes()``, or a frame of the class names the method — since Kotest's assertions are used from JUnit
tests too; the others stay Gradle's (a JUnit or kotlin.test test in the same task). The id is Gradle's
event text, verbatim (Kotest test names are free text: spaces, colons, parentheses); the spec class is the
suite, and the location is the spec's own frame (``CartSpec$1$3.invokeSuspend(CartSpec.kt:14)``).
``parse_log`` keeps the Kotest view of those tests (``engine._drop_kotest_echo``).
"""

from __future__ import annotations

from .base import Draft
from .jvm import GradleParser


class KotestParser(GradleParser):
    runner = "kotest"

    def finish(self) -> list[Draft]:
        super().finish()
        out: list[Draft] = []
        for key, d in self.drafts.items():
            if key in self.kotest:
                d.runner = "kotest"
                d.test_name = self.heads.get(key, d.test_name)
                out.append(d)
        if not out:
            self.first_seen = None
        self.passed = self.failed = None  # Gradle's totals count every framework's tests: Gradle's own
        return out
