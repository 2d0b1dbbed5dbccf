"""A span naming a numbered member of a series without its number ("Usher syndrome, any type") gives way to the
exact name inside it: the family is meant (kgqa.runtime.steps.s2_linking.unnumbered_member)."""

from __future__ import annotations

import pytest

from kgqa.runtime.reader.spelling import Spelling
from kgqa.runtime.steps.s2_linking import Link, unnumbered_member

SPELLING = Spelling({"usher": 9, "syndrome": 50, "type": 40}, fillers=frozenset({"type", "syndrome"}))
UMBRELLA = Link("Usher syndrome", 0, 2, "disease", "u", "Usher syndrome", 1.0)


def member(span: str, name: str = "Usher syndrome, type IE", similarity: float = 0.94) -> Link:
    return Link(span, 0, len(span.split()), "disease", "m", name, similarity)


@pytest.mark.parametrize(
    ("span", "name", "meant"),
    [
        ("Usher syndrome any type", "Usher syndrome, type IE", True),
        ("Usher syndrome types", "Usher syndrome, type IE", True),
        # a number typed names the member
        ("Usher syndrome type 1", "Usher syndrome, type IE", False),
        ("Usher syndrome type I", "Usher syndrome, type IE", False),
        # a word of its own is no filler ("Usher syndrome deafness")
        ("Usher syndrome deafness", "Usher syndrome, type IE", False),
        # a name with no number is no member of a series
        ("Usher syndrome any type", "Usher syndrome deafness", False),
    ],
)
def test_a_member_typed_without_its_number_gives_way_to_the_umbrella(span: str, name: str, meant: bool) -> None:
    link = member(span, name)
    assert unnumbered_member(link, [link, UMBRELLA], SPELLING) is meant


def test_without_an_exact_name_inside_the_member_stays() -> None:
    link = member("Usher syndrome any type")
    near = Link("Usher syndrome", 0, 2, "disease", "u", "Usher syndromes", 0.97)
    assert not unnumbered_member(link, [link, near], SPELLING)
