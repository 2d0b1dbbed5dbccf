"""The question generator's textual conditions: only words specific to the answer type (``kgqa questions`` on the
loaded fixture: tests/integration/test_questions.py)."""

from __future__ import annotations

from kgqa.questions import document_frequencies, specific_words


def test_generic_words_are_never_the_textual_condition() -> None:
    docs = [
        "The protein binds calcium.",
        "A protein of the kinesin family.",
        "Protein with zinc fingers.",
        "Membrane protein, calcium channel.",
        "Kinesin motor protein.",
    ]
    frequencies = document_frequencies(docs)
    assert frequencies["protein"] == 5 and frequencies["calcium"] == 2 and frequencies["kinesin"] == 2
    # 'protein' (in 5 of 5 documents) is too generic; 'calcium' (2 of 5) passes at a 40% share, not at 20%
    assert specific_words(docs[3], frequencies, len(docs), 0.4) == ["Membrane", "calcium", "channel"]
    assert specific_words(docs[3], frequencies, len(docs), 0.2) == ["Membrane", "channel"]
    assert specific_words(docs[0], frequencies, len(docs), 1.0) == ["calcium", "protein"]
