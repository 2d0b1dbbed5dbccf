"""The one reading of a question that steps 1-3 and step 6 share (kgqa.runtime.reading, issue 51: "read the question
once"): it must hold what each step used to split from the string itself, at the same positions."""

from __future__ import annotations

import dataclasses

import pytest

from kgqa.runtime.reader.types import asking_sentence
from kgqa.runtime.reading import NO_QUESTION, read_question
from kgqa.runtime.text import quotations, quoted_runs, words_of

LEAD_IN = "My son's exome came back. "
ASKING = "Which genes whose symbol begins with 'MYO' are linked to \"Chilblain lesions\"?"


def test_a_question_with_a_lead_in_and_quotations_is_read_once_with_every_part() -> None:
    reading = read_question(LEAD_IN + ASKING)
    assert reading.text == LEAD_IN + ASKING
    # the linker's words keep an apostrophe inside a word and a closing quote; positions count from the lead-in
    assert reading.words[:3] == ("My", "son's", "exome")
    assert reading.words[11] == "MYO'" and reading.words[15:] == ("Chilblain", "lesions")
    assert reading.lowered == tuple(word.lower() for word in reading.words)
    assert reading.quotations == ((range(11, 12), "MYO"), (range(15, 17), "Chilblain lesions"))
    assert reading.quoted_runs == (range(11, 12), range(15, 17))
    # the sentence that asks, without the lead-in; step 1's words split at an apostrophe and drop the quotes
    assert reading.asking == ASKING
    assert reading.lower_words[:4] == ("my", "son", "s", "exome")
    assert " ".join(reading.asking_words) == "which genes whose symbol begins with myo are linked to chilblain lesions"


@pytest.mark.parametrize(
    "question",
    [
        LEAD_IN + ASKING,
        "Which diseases lack seizures?",
        "all hpo terms child terms of Impaired executive functioning (syn. \u201cImpaired task shifting\u201d)",
        "",
    ],
)
def test_the_reading_is_what_the_text_helpers_make_of_the_string(question: str) -> None:
    reading = read_question(question)
    assert list(reading.words) == words_of(question)
    assert list(reading.quotations) == quotations(question)
    assert list(reading.quoted_runs) == quoted_runs(question)
    assert reading.asking == asking_sentence(question)


def test_a_one_sentence_question_asks_in_all_its_words_and_no_question_reads_nothing() -> None:
    reading = read_question("Which diseases lack seizures?")
    assert reading.asking == reading.text and reading.asking_words == reading.lower_words
    assert read_question("") == NO_QUESTION and NO_QUESTION.words == () and NO_QUESTION.quoted_runs == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        reading.text = "another question"  # type: ignore[misc]
