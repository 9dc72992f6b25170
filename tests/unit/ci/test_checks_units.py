"""Pure parts of get_failing_tests: reproduction commands (quoting untrusted names), which annotations name a
test, the overall status, job-log resource URIs."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from pr_agent.ci.analyze import Analysis, is_test_annotation
from pr_agent.ci.github import Snapshot
from pr_agent.ci.report import job_log_uri, status_of
from pr_agent.ci.repro import reproduce_command
from pr_agent.ci.rollup import Check, Rollup
from pr_agent.ci.watch import Outcome
from pr_agent.refs import PRRef
from pr_agent.tools.checks_view import parse_job_log_uri

HOSTILE = ["$(touch /tmp/pwned)", "a'b\"c", "`id`", "x; rm -rf ~", "-rf", "sp ace", "ünï\\code", "back\\slash"]


@pytest.mark.parametrize(("runner", "name", "kw", "want"), [
    ("pytest", "tests/test_x.py::test_y[a - b]", {}, ["pytest", "tests/test_x.py::test_y[a - b]"]),
    ("go", "TestGet/missing_key", {"suite": "github.com/acme/store"},
     ["go", "test", "github.com/acme/store", "-run", "^TestGet$/^missing_key$"]),
    ("go", "TestA.b", {}, ["go", "test", "./...", "-run", r"^TestA\.b$"]),
    ("jest", "Ledger › balance › sums (x)", {"suite": "src/l.test.js"},
     ["npx", "jest", "src/l.test.js", "-t", r"^Ledger balance sums \(x\)$"]),
    ("jest", "src/report/pdf.test.js", {"suite": "src/report/pdf.test.js"}, ["npx", "jest", "src/report/pdf.test.js"]),
    ("vitest", "a > b", {"suite": "s.test.ts"}, ["npx", "vitest", "run", "s.test.ts", "-t", "^a b$"]),
    ("mocha", "Calc #add() adds", {"file_path": "test/c.spec.js"},
     ["npx", "mocha", "test/c.spec.js", r"--grep=Calc #add\(\) adds"]),
    ("unittest", "pkg.tests.T.test_a (x=1)", {}, ["python", "-m", "unittest", "pkg.tests.T.test_a"]),
    ("cargo", "vec2::tests::zero", {"suite": "src/lib.rs"},
     ["cargo", "test", "--lib", "--", "--exact", "vec2::tests::zero"]),
    ("cargo", "seg", {"suite": "tests/inter.rs"}, ["cargo", "test", "--test", "inter", "--", "--exact", "seg"]),
    ("nextest", "m::t", {}, ["cargo", "nextest", "run", "-E", "test(=m::t)"]),
    ("rspec", "Invoice#total adds tax", {"file_path": "spec/models/invoice_spec.rb"},
     ["bundle", "exec", "rspec", "spec/models/invoice_spec.rb", "--example=Invoice#total adds tax"]),
    ("phpunit", 'Tests\\Unit\\PriceTest::test_d with data set "ten"', {},
     ["vendor/bin/phpunit", "--filter=Tests\\\\Unit\\\\PriceTest::test_d"]),
    ("dotnet", "Ns.C.M(requested: 5)", {}, ["dotnet", "test", "--filter", "FullyQualifiedName=Ns.C.M"]),
    ("gradle", "com.a.T.applies discount > [2] 1", {"suite": "com.a.T"},
     ["./gradlew", "test", "--tests", "com.a.T.applies*discount"]),
    ("maven", "com.a.SkuTest.parses", {"suite": "com.a.SkuTest"}, ["mvn", "test", "-Dtest=SkuTest#parses"]),
    ("junit", "tests.test_api.TestP.test_s[500]", {"suite": "tests.test_api.TestP", "file_path": "tests/test_api.py"},
     ["pytest", "tests/test_api.py::TestP::test_s[500]"]),
    ("playwright", "[chromium] › tests/login.spec.ts:12:5 › login › rejects (x)", {"suite": "tests/login.spec.ts"},
     ["npx", "playwright", "test", r"tests/login\.spec\.ts:12", "--project=chromium"]),
    ("playwright", "e2e/a.spec.ts:9:3 › finds", {}, ["npx", "playwright", "test", r"e2e/a\.spec\.ts:9"]),
    ("exunit", "test Index updates ticket in listing", {"file_path": "test/lineup_web/live/ticket_live_test.exs"},
     ["mix", "test", "test/lineup_web/live/ticket_live_test.exs", "--only=test:test Index updates ticket in listing"]),
    ("swift-testing", "roundTrips(value:)", {}, ["swift", "test", r"--filter=roundTrips\(value:\)$"]),
    ("dart", "Cart removes an item", {"suite": "test/cart_test.dart"},
     ["dart", "test", "test/cart_test.dart", "--plain-name=Cart removes an item"]),
    ("minitest", "InvoiceTest#test_total_includes_tax", {"file_path": "test/models/invoice_test.rb"},
     ["ruby", "-Itest", "test/models/invoice_test.rb", "--name=/^test_total_includes_tax$/"]),
    ("stestr", "myproj.tests.unit.test_db.DBTest.test_migrate", {},
     ["stestr", "run", r"^myproj\.tests\.unit\.test_db\.DBTest\.test_migrate(\[|$)"]),
    ("tap", "rejects a bad port (8080)", {"suite": "node:test", "file_path": "test/config.test.mjs"},
     ["node", "--test", r"--test-name-pattern=(?:^| )rejects a bad port \(8080\)$", "test/config.test.mjs"]),
    ("ctest", "unit.vector (x2)", {}, ["ctest", "--output-on-failure", "-R", r"^unit\.vector \(x2\)$"]),
    ("sbt", "A Cart should add an item", {"suite": "shop.CartSpec"},
     ["sbt", 'testOnly shop.CartSpec -- -z "A Cart should add an item"']),
    ("sbt", "[SPARK-3353] parent stage", {"suite": "DAGSchedulerSuite"},
     ["sbt", 'testOnly *DAGSchedulerSuite -- -z "[SPARK-3353] parent stage"']),
    ("kotest", "io.a.CartSpec > adds (one)", {"suite": "io.a.CartSpec"},
     ["./gradlew", "test", "--tests", "io.a.CartSpec"]),
    # AVA matches the title without the "file ›" prefix it prints (derived from the file: no .test, no ext)
    ("ava", "users › creates a user (v2)", {"file_path": "test/users.test.js"},
     ["npx", "ava", "test/users.test.js", "--match=creates a user (v2)"]),
    ("ava", "5.4 Get /budgetbalance/:category", {"file_path": "test/b_test.js"},
     ["npx", "ava", "test/b_test.js", "--match=5.4 Get /budgetbalance/:category"]),
    ("ava", "db.test.js", {"file_path": "test/db.test.js"}, ["npx", "ava", "test/db.test.js"]),  # a crashed file
    ("bun", "Cart > totals > applies tax (10%)", {"suite": "test/cart.test.ts"},
     ["bun", "test", "test/cart.test.ts", "-t", r"^Cart totals applies tax \(10%\)$"]),
    ("deno", "order totals ... applies a discount", {"file_path": "tests/order_test.ts"},
     ["deno", "test", "tests/order_test.ts", "--filter=/^order totals$/"]),
    ("deno", "1 + 1 は 2 である", {"file_path": "sample.test.js"},
     ["deno", "test", "sample.test.js", r"--filter=/^1 \+ 1 は 2 である$/"]),
])
def test_reproduction_commands(runner: str, name: str, kw: dict, want: list[str]) -> None:
    cmd = reproduce_command(runner, name, **kw)
    assert cmd is not None and shlex.split(cmd) == want


@pytest.mark.parametrize("runner", ["pytest", "go", "jest", "vitest", "mocha", "unittest", "cargo", "nextest",
                                    "rspec", "phpunit", "dotnet", "gradle", "maven", "playwright", "exunit", "tap",
                                    "dart", "minitest", "ctest", "sbt", "kotest", "ava", "bun", "deno"])
@pytest.mark.parametrize("evil", HOSTILE)
def test_untrusted_names_stay_one_inert_argument(runner: str, evil: str) -> None:
    def command(word: str) -> str | None:
        name = {"pytest": f"tests/t.py::test_{word}", "go": f"Test{word}", "exunit": f"test {word}",
                "minitest": f"T#test_{word}",
                "playwright": f"[chromium] › tests/t.spec.ts:3:5 › {word}"}.get(runner, word)
        suite = {"tap": "node:test", "dart": "test/t_test.dart", "sbt": "shop.TSpec",
                 "kotest": "io.a.TSpec"}.get(runner)
        path = "test/t_test.rb" if runner == "minitest" else "tests/t.py"
        return reproduce_command(runner, name, suite=suite, file_path=path)

    cmd, benign = command(evil), command("safe")
    if cmd is None:
        return
    assert benign is not None
    argv = shlex.split(cmd)
    # bash sees exactly the same words: nothing expands, nothing runs
    echoed = subprocess.run(["bash", "-c", f"printf '%s\\0' {cmd}"], capture_output=True, check=True).stdout
    assert echoed.split(b"\0")[:-1] == [w.encode() for w in argv]
    # and the name never adds an option of its own (nor drops one)
    def options(words: list[str]) -> list[str]:
        return [w.split("=", 1)[0] for w in words if w.startswith("-")]

    assert options(argv) == options(shlex.split(benign)) and len(argv) == len(shlex.split(benign))


def test_no_command_for_unusable_names() -> None:
    assert reproduce_command("pytest", "line1\nline2") is None
    assert reproduce_command("pytest", "") is None
    assert reproduce_command("unknown-runner", "x") is None
    assert reproduce_command("junit", "a.B.c") is None  # no build tool known
    assert reproduce_command("exunit", "MyApp.RepoTest", file_path="test/r_test.exs") is None  # setup_all
    assert reproduce_command("tap", "t", file_path="test/t.js") is None  # tape: no name filter
    assert reproduce_command("catch2", "a test case") is None  # the test binary is not in the log
    assert reproduce_command("swift-testing", "rejects a trailing comma") is None  # a display name
    assert reproduce_command("karma", "Cart adds an item", file_path="src/cart.spec.ts") is None  # no CLI filter
    assert reproduce_command("ava", "parses * globs", file_path="test/a.js") is None  # "*" is AVA's wildcard
    assert reproduce_command("ava", "!negated", file_path="test/a.js") is None
    assert reproduce_command("ava", "other › t", file_path="test/a.js") is None  # the prefix is not this file's


def test_only_per_test_annotations_count() -> None:
    assert is_test_annotation({"path": "tests/test_a.py", "title": "test_a", "message": "assert 1 == 2",
                               "annotation_level": "failure"})
    assert is_test_annotation({"path": "src/App.test.tsx", "title": "App › renders", "message": "expect()"})
    assert not is_test_annotation({"path": ".github", "title": "", "message": "Process completed with exit code 1."})
    assert not is_test_annotation({"path": "src/a.ts", "title": "", "message": "TS2322: Type 'x'"})  # problem matcher
    assert not is_test_annotation({"path": "tests/test_a.py", "title": "test_a", "message": "x",
                                   "annotation_level": "warning"})


def _outcome(*checks: Check) -> Outcome:
    snap = Snapshot(head_sha="a" * 40, committed_at=None, pr_state="OPEN", base_ref="main",
                    rollup=Rollup(list(checks)), rollup_state=None)
    return Outcome(snap, [Analysis(c) for c in checks if c.bucket == "failed"], "immediate")


def _check(name: str, state: str, bucket: str) -> Check:
    return Check(name=name, kind="check_run", state=state, bucket=bucket)  # type: ignore[arg-type]


def test_overall_status() -> None:
    assert status_of(_outcome()) == "unknown"
    assert status_of(_outcome(_check("a", "SUCCESS", "passed"))) == "passed"
    assert status_of(_outcome(_check("a", "QUEUED", "pending"))) == "pending"
    assert status_of(_outcome(_check("a", "IN_PROGRESS", "pending"), _check("b", "SUCCESS", "passed"))) == "running"
    assert status_of(_outcome(_check("a", "CANCELLED", "cancelled"), _check("b", "SUCCESS", "passed"))) == "cancelled"
    assert status_of(_outcome(_check("a", "FAILURE", "failed"), _check("b", "IN_PROGRESS", "pending"))) == "failed"
    missing = Check(name="req", kind="missing", state="EXPECTED", bucket="pending", required=True)
    assert status_of(_outcome(_check("b", "SUCCESS", "passed"), missing)) == "pending"


def test_job_log_uris_round_trip() -> None:
    for ref in (PRRef("acme", "widgets", 7), PRRef("acme", "widgets", 7, "ghe.example.com")):
        uri = job_log_uri(ref, 123)
        assert parse_job_log_uri(uri) == ("acme", "widgets", 123, ref.host)
    assert job_log_uri(PRRef("acme", "w", 1, "github.com"), 5) == "pr-agent://job-log/acme/w/5"
    for bad in ("pr-agent://job-log/acme/widgets", "pr-agent://job-log/acme/widgets/0", "pr-agent://job-log/../x/1",
                "pr-agent://job-log/acme/widgets/12/extra"):
        assert parse_job_log_uri(bad) is None
