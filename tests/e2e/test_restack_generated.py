"""Issue 12: generated stack histories in real git (tests/e2e/restack_gen.py), each built as a bare origin with
refs/pull/N/head and served through fakehub with the matching timeline events (tests/e2e/restack_hub.py). The CLI
runs in a clone with the real gh binary (`gh pr-agent stack 11 12`, `stack 10 12` across a middle PR merged into
the PR below, or `rebase-after-squash 12`; one fakehub server for all the histories of a worker); for `stack` the
same analysis run in-process on the same facts must give the same commands; the plan runs verbatim in the clone and
an oracle that knows the dependent's own commits judges the pushed result. CI runs the fixed seeds below;
`scripts/restack-fuzz --seeds N [--via-fakehub]` runs any number more."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import gh_binaries
from tests.e2e import restack_hub
from tests.e2e.restack_gen import build

SEEDS = range(150)


@pytest.fixture(scope="module")
def shared_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[restack_hub.SharedHub]:
    found = gh_binaries()
    assert found, "no gh binary"
    hub = restack_hub.SharedHub(found[-1][0], tmp_path_factory.mktemp("restack-hub"))
    yield hub
    hub.stop()


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_history_restacks_exactly_the_dependents_commits(shared_hub: restack_hub.SharedHub,
                                                                    tmp_path: Path, seed: int) -> None:
    """The history served by fakehub (PRs, commits, force-push before/after, base changes, the landed commit, fork
    fields); the CLI with the real gh answers; its plan runs verbatim in the clone; the oracle judges the remotes (a
    stop on a conflict passes only when #12's own commits alone conflict on the new base)."""
    restack_hub.check(shared_hub, build(tmp_path, seed, restack_hub.HOST))
