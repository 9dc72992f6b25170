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
