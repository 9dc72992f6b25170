"""Which paths a conflict leaves unmerged, named as the user's own merge names them (pure).

The merge-tree outputs are git 2.39's own (``git merge-tree --write-tree -z --messages BASE HEAD`` on small
repositories: a rename/rename and a file/directory conflict), with the two commits' ids as git's side labels."""

from __future__ import annotations

from pr_agent.gitsafe import pathspec
from pr_agent.merge.conflicts import group_conflicts, parse_merge_tree, relabel_sides

BASE, HEAD = "b" * 40, "a" * 40
RENAME_RENAME = "\0".join([
    "44c33491688e2bc765e72844456fabe2a503eefd",
    "100644 ce013625030ba8dba906f756967f9e9ca394464a 1\ta",
    "100644 ce013625030ba8dba906f756967f9e9ca394464a 3\tb",
    "100644 ce013625030ba8dba906f756967f9e9ca394464a 2\tc", "",
    "3", "a", "c", "b", "CONFLICT (rename/rename)", f"CONFLICT (rename/rename): a renamed to c in {BASE} and to b "
    f"in {HEAD}.\n", ""])
FILE_DIRECTORY = "\0".join([
    "90770b3bbfa9983cfcc26058a2dd182b53c10052",
    f"100644 1be11a8c542aa6c211e80e0ddddf9ec5c8328138 3\td~{HEAD}", "",
    "2", f"d~{HEAD}", "d", "CONFLICT (file/directory)",
    f"CONFLICT (file/directory): directory in the way of d from {HEAD}; moving it to d~{HEAD} instead.\n", ""])


def test_rename_rename_leaves_all_three_paths_unmerged() -> None:
    [fc] = group_conflicts(parse_merge_tree(RENAME_RENAME, 1))
    assert (fc.path, fc.paths, fc.conflict_type) == ("a", ["a", "b", "c"], "rename")
    assert (fc.stage(2).path, fc.stage(3).path) == ("c", "b")  # type: ignore[union-attr]


def test_side_copies_get_the_names_of_the_users_merge() -> None:
    files = group_conflicts(parse_merge_tree(FILE_DIRECTORY, 1))
    relabel_sides(files, {HEAD: "HEAD", BASE: "refs_remotes_origin_main"})
    [fc] = files
    assert (fc.path, fc.paths, fc.conflict_type) == ("d~HEAD", ["d~HEAD"], "file/directory")
    assert fc.messages == ["CONFLICT (file/directory): directory in the way of d from " + HEAD
                           + "; moving it to d~HEAD instead."]


def test_a_side_copy_name_that_is_taken_gets_gits_suffix() -> None:
    """merge-ort's unique_path: `d~HEAD` is a path of the merge already, so git writes `d~HEAD_0` (then `_1`, …)."""
    files = group_conflicts(parse_merge_tree(FILE_DIRECTORY, 1))
    relabel_sides(files, {HEAD: "HEAD", BASE: "refs_remotes_origin_main"}, {"d", "d~HEAD", "d~HEAD_0", "e~HEAD"})
    [fc] = files
    assert (fc.path, fc.paths) == ("d~HEAD_1", ["d~HEAD_1"])
    assert fc.messages[0].endswith("moving it to d~HEAD_1 instead.")


def test_two_symlink_targets_are_a_symlink_conflict() -> None:
    link = "\0".join(["90770b3bbfa9983cfcc26058a2dd182b53c10052",
                      "120000 1be11a8c542aa6c211e80e0ddddf9ec5c8328138 1\tlink",
                      "120000 2be11a8c542aa6c211e80e0ddddf9ec5c8328138 2\tlink",
                      "120000 3be11a8c542aa6c211e80e0ddddf9ec5c8328138 3\tlink", "",
                      "1", "link", "CONFLICT (contents)", "CONFLICT (content): Merge conflict in link\n", ""])
    [fc] = group_conflicts(parse_merge_tree(link, 1))
    assert fc.conflict_type == "symlink"


def test_pathspecs_name_exactly_one_path() -> None:
    assert [pathspec(p) for p in ("a.txt", "star*.txt", "q?.md", "[x].py", "back\\slash", ":magic", "a:b")] == [
        "a.txt", ":(literal)star*.txt", ":(literal)q?.md", ":(literal)[x].py", ":(literal)back\\slash",
        ":(literal):magic", "a:b"]
