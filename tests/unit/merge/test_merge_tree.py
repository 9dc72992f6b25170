"""Parsing git merge-tree -z output and describing conflicts (recorded from git 2.39)."""

from __future__ import annotations

import pytest

from pr_agent.merge.conflicts import (
    MergeTreeError,
    apply_renames,
    clip,
    conflict_hunks,
    diff_body,
    group_conflicts,
    parse_merge_tree,
)

TREE = "1ee73743c50e0a13a5cf568a81ba8bf17253ade2"
OID = "e45c9c2666d44e0327c1f9c239a74c508336053e"
RECORDED = "\0".join([
    TREE,
    f"100644 {OID} 2\tadded.txt", f"100644 {OID} 3\tadded.txt",
    f"100644 {OID} 1\td.txt", f"100644 {OID} 3\td.txt",
    f"100644 {OID} 1\tf.txt", f"100644 {OID} 2\tf.txt", f"100644 {OID} 3\tf.txt",
    f"100644 {OID} 1\timg.bin", f"100644 {OID} 2\timg.bin", f"100644 {OID} 3\timg.bin",
    f"120000 {OID} 3\tm.sh", f"100644 {OID} 1\tm.sh~main", f"100755 {OID} 2\tm.sh~main",
    "",
    "1", "added.txt", "Auto-merging", "Auto-merging added.txt\n",
    "1", "added.txt", "CONFLICT (contents)", "CONFLICT (add/add): Merge conflict in added.txt\n",
    "1", "d.txt", "CONFLICT (modify/delete)", "CONFLICT (modify/delete): d.txt deleted in main and modified in feat.\n",
    "1", "f.txt", "CONFLICT (contents)", "CONFLICT (content): Merge conflict in f.txt\n",
    "1", "img.bin", "CONFLICT (binary)", "warning: Cannot merge binary files: img.bin (main vs. feat)\n",
    "1", "img.bin", "CONFLICT (contents)", "CONFLICT (content): Merge conflict in img.bin\n",
    "2", "m.sh", "m.sh~main", "CONFLICT (distinct modes)", "CONFLICT (distinct types): m.sh had different types\n",
    "",
])


def test_recorded_output_groups_into_files_with_types() -> None:
    result = parse_merge_tree(RECORDED, 1)
    assert result.tree == TREE and not result.clean and len(result.stages) == 13
    files = group_conflicts(result)
    assert [(f.path, f.conflict_type) for f in files] == [
        ("added.txt", "add/add"), ("d.txt", "delete"), ("f.txt", "content"), ("img.bin", "binary"),
        ("m.sh", "mode")]
    d = files[1]
    assert d.deleted_in == "base" and d.stage(2) is None and d.stage(3) is not None
    mode = files[4]
    assert {s.path for s in mode.stages} == {"m.sh", "m.sh~main"} and mode.stage(2).mode == "100755"


def test_a_submodule_deleted_on_one_side_and_moved_on_the_other_is_a_submodule_conflict() -> None:
    """git reports it as modify/delete (recorded from git 2.39: `sub` deleted on main, moved by the PR); the steps
    must record the choice with update-index / rm --cached, so it is typed submodule, with the side that deleted."""
    sub1, sub3 = "1" * 40, "3" * 40
    out = "\0".join([TREE, f"160000 {sub1} 1\tsub", f"160000 {sub3} 3\tsub", "",
                     "1", "sub", "CONFLICT (modify/delete)",
                     "CONFLICT (modify/delete): sub deleted in main and modified in feat.  Version feat of sub left "
                     "in tree.\n", ""])
    [f] = group_conflicts(parse_merge_tree(out, 1))
    assert (f.path, f.conflict_type, f.deleted_in, f.kinds) == ("sub", "submodule", "base", ["modify/delete"])
    assert f.stage(3).oid == sub3


def test_clean_and_failed_runs() -> None:
    clean = parse_merge_tree(TREE + "\0", 0)
    assert clean.clean and group_conflicts(clean) == []
    with pytest.raises(MergeTreeError):  # git 2.39 exits 1 for a ref it cannot resolve, with empty stdout
        parse_merge_tree("", 1)
    with pytest.raises(MergeTreeError):  # unrelated histories
        parse_merge_tree("", 128)


def test_renames_turn_a_content_conflict_into_a_rename() -> None:
    result = parse_merge_tree("\0".join([TREE, f"100644 {OID} 1\tnew.txt", f"100644 {OID} 2\tnew.txt",
                                         f"100644 {OID} 3\tnew.txt", "", "1", "new.txt", "CONFLICT (contents)",
                                         "CONFLICT (content): Merge conflict in new.txt", ""]), 1)
    files = group_conflicts(result)
    apply_renames(files, [("old.txt", "new.txt")], [])
    assert (files[0].conflict_type, files[0].renamed_from, files[0].renamed_in) == ("rename", "old.txt", "base")


def test_conflict_hunks_merge_and_diff3_styles() -> None:
    diff3 = "a\n<<<<<<< main\nours 1\nours 2\n||||||| base\nbase\n=======\ntheirs\n>>>>>>> feat\nb\n"
    text = diff3 + "<<<<<<< main\nx\n=======\ny\n>>>>>>> feat\n" * 2
    hunks, total = conflict_hunks(text)
    assert total == 3 and len(hunks) == 3
    assert (hunks[0].line, hunks[0].base, hunks[0].head) == (2, "ours 1\nours 2", "theirs")
    assert hunks[1].base == "x" and hunks[1].head == "y"
    assert conflict_hunks("no markers\n") == ([], 0)


def test_previews_are_clipped() -> None:
    assert clip("\n".join(str(i) for i in range(30))).endswith("11\n…")
    assert len(clip("x" * 5000)) <= 802
    assert diff_body("diff --git a b\nindex 1..2\n--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n") == "@@ -1 +1 @@\n-a\n+b"
