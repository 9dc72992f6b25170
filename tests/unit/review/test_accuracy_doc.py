"""docs/review-parsers.md's accuracy table is what scripts/review-accuracy measures now."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _script():  # type: ignore[no-untyped-def]
    loader = importlib.machinery.SourceFileLoader("review_accuracy", str(ROOT / "scripts" / "review-accuracy"))
    spec = importlib.util.spec_from_loader("review_accuracy", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_docs_table_matches_the_measurement() -> None:
    script = _script()
    m = script.measure()
    doc = (ROOT / "docs" / "review-parsers.md").read_text(encoding="utf-8")
    table = doc.split("<!-- review-accuracy:begin -->\n", 1)[1].split("<!-- review-accuracy:end -->", 1)[0]
    assert table == script.markdown(m), "run scripts/review-accuracy --markdown and paste it into the doc"
    assert m["bots"] >= 11 and m["recall"] >= script.GOAL_RECALL and m["precision"] >= script.GOAL_PRECISION


class _Case:
    """A real-fixture stand-in whose parser output lost one labelled finding and invented another."""

    real, bot_dir, name, id = True, "copilot", "99-made-up", "real/copilot/99-made-up"

    def expected(self) -> dict:
        return {"items": [{"file_path": "a.py", "start_line": 1, "title": "kept"},
                          {"file_path": "a.py", "start_line": 9, "title": "lost"}]}

    def actual(self) -> dict:
        return {"items": [{"file_path": "a.py", "start_line": 1, "title": "kept"},
                          {"file_path": "b.py", "start_line": 2, "title": "invented"}]}

    def body(self) -> str:
        return "<summary>Comments suppressed due to low confidence (3)</summary>"

    def source(self) -> dict:
        return {"notes": ""}


def test_a_lost_or_invented_finding_lowers_the_figures() -> None:
    script = _script()
    script.cases = lambda: [_Case()]
    m = script.measure()
    assert (m["recall"], m["precision"]) == (0.5, 0.5)
    assert (m["declared"], m["declared_recall"], m["declared_precision"]) == (3, 2 / 3, 1.0)
    assert script.main(["--check"]) == 1


def test_docs_generic_table_matches_the_held_out_measurement() -> None:
    script = _script()
    real, both = script.measure_generic(True), script.measure_generic(False)
    doc = (ROOT / "docs" / "review-parsers.md").read_text(encoding="utf-8")
    table = doc.split("<!-- review-generic:begin -->\n", 1)[1].split("<!-- review-generic:end -->", 1)[0]
    assert table == script.generic_markdown(real, both), "run scripts/review-accuracy --generic --markdown"
    # the generic reader on real bodies of known bots, their own parsers disabled
    assert real["recall"] >= script.GOAL_RECALL and real["precision"] >= script.GOAL_PRECISION


def test_generic_measurement_counts_a_lost_and_an_invented_finding() -> None:
    script = _script()

    class _Body(_Case):
        def expected(self) -> dict:
            return {"items": [{"file_path": "a.py", "start_line": 3, "end_line": 3, "title": "kept",
                               "actionable": True},
                              {"file_path": "c.py", "start_line": 7, "end_line": 7, "title": "lost",
                               "actionable": True}]}

        def body(self) -> str:
            return "- 🟠 **Major** `a.py:3` the kept one breaks\n- 🔴 **Critical** `b.py:2` made up here\n"

    script.cases = lambda: [_Body()]
    m = script.measure_generic(True)
    assert (m["recall"], m["precision"]) == (0.5, 0.5)
