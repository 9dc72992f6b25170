"""A resolve whose answer was lost tells the agent what to do next (issue 19 mutation survivor of
tools/resolve.py): check the thread, and that calling again is safe. Real gh against fakehub."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.fakehub import Fault
from tests.safety.test_ambiguous_writes import RESOLVE, _agent


def test_a_lost_answer_says_calling_again_is_safe(make_hub, tmp_path: Path) -> None:
    a = _agent(make_hub, tmp_path)
    a.hub.add_fault(Fault(match="graphql:ResolveThread", kind="truncated_json", times=1))
    proc = a.cli(*RESOLVE, "--json")
    err = orjson.loads(proc.stdout)["error"]
    assert err["details"]["maybe_applied"] is True
    assert err["suggestion"] == ("Check the thread on GitHub; calling again is safe — resolving is idempotent and "
                                 "a reply already posted is not posted twice.")
    assert "look at the thread (https://github.com/acme/widgets/pull/7/files) before acting" in err["message"]


def test_a_pending_review_refusal_points_at_the_pr_of_this_repository(agent) -> None:
    from tests.e2e.worlds import feedback_world

    world = feedback_world()
    world["repositories"][0]["pull_requests"][0]["viewer_pending_review"] = True
    proc = agent(world).cli("resolve", "acme/widgets#7", "--thread", "PRRT_human", "--reply", "x", "--json")
    err = orjson.loads(proc.stdout)["error"]
    assert err["code"] == "pending_review_blocks_reply"
    assert "gh pr view 7 --repo acme/widgets --web" in orjson.dumps(err["repair"]).decode()


def test_a_lost_resolve_after_a_posted_reply_says_the_reply_was_posted(make_hub, tmp_path: Path) -> None:
    a = _agent(make_hub, tmp_path)
    a.hub.add_fault(Fault(match="graphql:ResolveThread", kind="truncated_json", times=1))
    proc = a.cli(*RESOLVE, "--reply", "Fixed in abc123.", "--json")
    err = orjson.loads(proc.stdout)["error"]
    assert err["details"]["reply_posted"] is True and err["details"]["maybe_applied"] is True
    assert "(The reply WAS posted; calling again with the same reply will not post it twice.)" in err["message"]
    again = a.json(*RESOLVE, "--reply", "Fixed in abc123.")
    assert again["ok"] is True and again["replied"] is False  # not posted twice
