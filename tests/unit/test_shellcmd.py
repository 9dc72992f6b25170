import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pr_agent.shellcmd import UnsafeWord, chain, command, comment

words = st.text(alphabet=st.characters(blacklist_characters="\0"), min_size=0, max_size=40)


@given(st.lists(words, min_size=1, max_size=8))
def test_command_round_trips_through_shlex(argv):
    assert shlex.split(command(argv)) == argv


def test_hostile_words_stay_single_words():
    argv = ["gh", "auth", "login", "--hostname", "a.b;id>x", "$(rm -rf ~)", "`id`", "+main", "-x", "a\nb"]
    assert shlex.split(command(argv)) == argv


def test_nul_and_non_strings_are_refused():
    with pytest.raises(UnsafeWord):
        command(["git", "a\0b"])
    with pytest.raises(UnsafeWord):
        command(["git", 3])  # type: ignore[list-item]
    with pytest.raises(UnsafeWord):
        command("git status")  # type: ignore[arg-type]
    with pytest.raises(UnsafeWord):
        command([])


def test_chain_and_comment():
    assert chain(command(["a"]), command(["b c"])) == "a && 'b c'"
    assert chain("x", "y", op="||") == "x || y"
    with pytest.raises(UnsafeWord):
        chain("x", "y", op=";")
    assert comment("fix\nrm -rf /") == "# fix rm -rf /"
    assert shlex.split(comment("a\nb"), comments=True) == []


def test_comment_is_one_inert_line_that_hides_nothing():
    # bidi override, zero-width space, a tag character, ESC, a line separator: none reaches the terminal raw
    text = "ok\u202eevil\u200b\U000e0041\x1b[31m\u2028rm -rf ~\r\nnext"
    shown = comment(text)
    assert shown == "# ok\\u202eevil\\u200b\\U000e0041\\x1b[31m rm -rf ~  next"
    assert shlex.split(shown, comments=True) == []
