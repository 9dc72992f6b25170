"""Stack discovery's walks up and down a stack: where they stop, and that a stop is said, never silent."""

from __future__ import annotations

from pr_agent.refs import PRRef
from pr_agent.stack import discovery
from pr_agent.stack.model import Pull


def pr(n: int, head: str, base: str, state: str = "OPEN") -> Pull:
    return Pull(PRRef("acme", "widgets", n), f"PR {n}", "", state, head, base, f"{n:040x}", "0" * 40)


class Src:
    """The StackSource surface the walks use; `open` is the prefetched open listing (None: not complete)."""

    def __init__(self, prs: list[Pull], open_listed: bool = False) -> None:
        self.prs, self.notes, self.lookups = prs, [], []
        self.open = [p for p in prs if p.is_open] if open_listed else None

    def children(self, base: str) -> list[Pull]:
        return [p for p in self.prs if p.base_ref == base and p.is_open]

    def by_head(self, head: str) -> list[Pull]:
        self.lookups.append(head)
        return [p for p in self.prs if p.head_ref == head]

    def open_with_head(self, head: str) -> list[Pull] | None:
        return None if self.open is None else [p for p in self.open if p.head_ref == head]


def test_a_fan_of_more_than_30_children_is_cut_and_said() -> None:
    top = pr(1, "top", "main")
    src = Src([top, *(pr(100 + i, f"kid-{i}", "top") for i in range(35))])
    above = discovery.descendants(src, top)  # type: ignore[arg-type]
    assert [c.number for c, _ in above] == list(range(100, 130))
    assert src.notes == ["More than 30 PRs are stacked on #1: only the first 30 (nearest first) are shown and "
                         "restacked; call the tool again for the others once these are done."]


def test_a_stack_of_exactly_30_above_says_nothing_more_was_looked_for_only_when_it_stopped_early() -> None:
    top = pr(1, "top", "main")
    chain = [pr(100 + i, f"b{i}", "top" if i == 0 else f"b{i - 1}") for i in range(30)]
    src = Src([top, *chain])
    assert len(discovery.descendants(src, top)) == 30  # type: ignore[arg-type]
    assert src.notes == ["30 PRs stacked on #1 are shown and restacked; PRs stacked further up on them were not "
                         "looked for."]
    short = Src([top, *chain[:29]])
    assert len(discovery.descendants(short, top)) == 29 and short.notes == []  # type: ignore[arg-type]


def test_the_walk_down_stops_after_ten_levels_and_says_so() -> None:
    chain = [pr(100 + i, f"b{i}", "main" if i == 0 else f"b{i - 1}") for i in range(13)]
    src = Src(chain)
    below = discovery.ancestors(src, chain[-1], "main")  # type: ignore[arg-type]
    assert [p.number for p in below] == list(range(111, 101, -1))
    assert src.notes == ["The stack below #112 was followed down 10 levels only (to #102); PRs further down are "
                         "not shown."]
    whole = Src(chain[:11])
    assert len(discovery.ancestors(whole, chain[10], "main")) == 10 and whole.notes == []  # type: ignore[arg-type]


def test_the_prefetched_open_listing_answers_the_walk_down_without_lookups() -> None:
    a, b, c = pr(1, "a", "main"), pr(2, "b", "a"), pr(3, "c", "b")
    merged = pr(4, "m", "main", "MERGED")
    src = Src([a, b, c, merged, pr(5, "x", "m")], open_listed=True)
    assert [p.number for p in discovery.ancestors(src, c, "main")] == [2, 1]  # type: ignore[arg-type]
    assert src.lookups == []
    # a merged parent is not in the open listing: it is looked up by head
    assert [p.number for p in discovery.ancestors(src, pr(5, "x", "m"), "main")] == [4]  # type: ignore[arg-type]
    assert src.lookups == ["m"]
    # two open PRs with the same head: the lookup decides (most recently updated first), as without a listing
    twin = Src([a, pr(6, "a", "dev"), b], open_listed=True)
    assert [p.number for p in discovery.ancestors(twin, b, "main")] == [1]  # type: ignore[arg-type]
    assert twin.lookups == ["a"]
