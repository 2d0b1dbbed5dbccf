"""The learned question reader (issue 51): the SKB's spelling corrects misspelt names, the type head gives step 1 a
confidence, the reader is saved and read back whole, and step 1 weighs it against the question's type words and an
LLM's vote."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kgqa.errors import ConfigError
from kgqa.runtime.embed import Embedder
from kgqa.runtime.reader import MANIFEST, Reader, find_reader, reader_folder
from kgqa.runtime.reader.examples import HIERARCHY, IMPLICIT, implicit_frames, variants
from kgqa.runtime.reader.questions import GeneratedQuestion
from kgqa.runtime.reader.spelling import (
    Spelling,
    acronyms,
    completions,
    designation,
    designations,
    edit_distance,
    fillers,
    vocabulary,
)
from kgqa.runtime.reader.types import BUCKETS, TypeHead, asking_sentence, hashed_words
from kgqa.runtime.reading import read_question
from kgqa.runtime.steps.s1_target_type import question_type, type_named_in_question
from kgqa.runtime.steps.s2_linking import Link, respellings, word_not_symbol
from kgqa.runtime.steps.s2_spans import ngrams
from kgqa.runtime.text import quoted_runs, words_of
from tests.helpers.meaning_table import MeaningTable

TYPES = ("disease", "gene/protein", "effect/phenotype")
SKB_WORDS = vocabulary(
    ["Marfan syndrome", "Marfan syndrome type 2", "Hypotonia", "Seizure", "Seizures", "Arachnodactyly", "Tie syndrome"]
)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("marfans", "marfan"),  # a letter too many
        ("syndrom", "syndrome"),  # one too few
        ("hypotonai", "hypotonia"),  # neighbours swapped
        ("Siezure", "seizure"),  # swapped, capitalised
        ("arachnodactily", "arachnodactyly"),  # one letter wrong
    ],
)
def test_a_misspelt_word_is_read_as_the_skb_word_it_misspells(typed: str, meant: str) -> None:
    assert Spelling(SKB_WORDS).correct(typed) == meant


def test_known_short_numeric_and_far_words_are_left_as_written() -> None:
    spelling = Spelling(SKB_WORDS | {"ties": 1, "warts": 30}, frozenset({"daughter", "tied"}))
    assert spelling.correct("Marfan") is None  # the SKB's own word
    assert spelling.correct("tied") is None  # known whole to the tokenizer, though one letter from "ties"
    assert spelling.correct("sezr") is None  # too far from any SKB word
    assert spelling.correct("tie") is None  # too short to correct
    assert spelling.correct("HP0001") is None  # digits: an id, never a typo
    assert spelling.correct("whats") is None  # two edits from "warts": too far for a short word


def test_a_rare_skb_word_beside_a_far_more_common_one_is_read_as_both() -> None:
    spelling = Spelling({"syndrom": 1, "syndrome": 500, "hypotonia": 40, "hypotonic": 10})
    assert spelling.correct("syndrom") == "syndrome"
    assert spelling.correct("hypotonic") is None  # not 20 times rarer than its neighbour


def test_an_abbreviation_in_capitals_stands_for_the_run_of_words_its_initials_start_most_often() -> None:
    names = [
        "Prader-Willi syndrome", "Prader-Willi syndrome", "Port-wine stain", "Generalized tonic-clonic seizure",
        "Abnormality of the spinal cord", "Tuberous sclerosis complex", *["Atrophy of the eye"] * 200,
    ]  # fmt: skip
    short = acronyms(names)
    assert short["pws"] == "prader willi syndrome" and short["gtc"] == "generalized tonic clonic"
    assert short["tsc"] == "tuberous sclerosis complex"  # not "the spinal cord": "the" is common in the names
    spelling = Spelling(vocabulary(names), frozenset(), short)
    assert spelling.expand("PWS") == "prader willi syndrome" and spelling.expand("GTCs") is None
    assert spelling.expand("pws") is None  # typed in small letters: a word, not an abbreviation
    assert spelling.variants(words_of("PWS genes and hypotonai?")) == {0: ["prader willi syndrome"]}


def test_a_misspelt_word_may_stand_for_several_skb_words_the_likeliest_first() -> None:
    spelling = Spelling({"zoda": 9, "dazo": 5, "zozo": 9, "zodazzo": 1, "syndrome": 50})
    assert spelling.nearest("zodazo", 5) == ["zodazzo"]  # one edit, before the two-edit words (too short for two)
    assert spelling.nearest("zodaz", 3) == ["zoda"] and spelling.nearest("zozos", 3) == ["zozo"]
    assert spelling.nearest("zdo", 3) == []  # too short to correct
    many = Spelling({"zoda": 9, "zozo": 9, "zodo": 3, "dazo": 5})
    assert many.nearest("zod", 3) == [] and many.nearest("zoxo", 3) == ["zozo", "zodo"]  # nearest, then commonest
    assert many.variants(["zoxo", "syndrome"], 2) == {0: ["zozo", "zodo"]}
    assert many.correct("zoxo") == "zozo"


def test_a_known_word_beside_a_name_s_word_may_misspell_the_name_a_guess_never_alone() -> None:
    spelling = Spelling(
        {"prader": 10, "willi": 11, "syndrome": 500, "will": 3},
        frozenset({"willy", "phenotypes", "of", "prader"}),
        endings={"prader willi": "prader willi syndrome"},
    )
    assert spelling.variants(["phenotypes", "of", "prader", "willy"], 3) == {3: ["willy", "willi", "will"]}
    assert spelling.variants(["phenotypes", "of", "willy"], 3) == {}  # no name's word beside it
    reading = read_question("phenotypes of prader willy")
    grams = [(2, 4, "prader willy"), (3, 4, "willy")]
    respelt = [(grams[r.number][2], r.text, r.likeliest) for r in respellings(grams, reading, spelling)]
    assert ("prader willy", "prader willi syndrome", False) in respelt  # completed, and still a guess
    assert not any(gram == "willy" and text != "willy" for gram, text, _ in respelt)  # never a guess alone


def test_a_dictionary_word_in_small_letters_is_no_symbol() -> None:
    spelling = Spelling({}, frozenset({"son", "was"}))
    assert spelling.dictionary_word("son") and not spelling.dictionary_word("SON")
    assert not spelling.dictionary_word("scn1a") and not spelling.dictionary_word("my son")


def test_a_name_s_beginning_after_a_prefix_verb_is_neither_expanded_nor_respelt() -> None:
    spelling = Spelling(SKB_WORDS, frozenset(), {"pws": "prader willi syndrome"})
    reading = read_question("Which genes with a symbol beginning from PWS are tied to PWS or 'PWS'?")
    words = reading.words
    grams = [(i, i + 1, words[i]) for i in range(len(words))]
    respelt = {grams[r.number][0]: r.text for r in respellings(grams, reading, spelling)}
    assert respelt == {len(words) - 3: "prader willi syndrome"}  # neither after "beginning from" nor quoted


def test_a_common_word_is_dropped_as_a_symbol_only_beside_another_link_and_unquoted() -> None:
    spelling = Spelling({}, frozenset({"son", "sry"}))
    question = "my son has a variant in COL1A1, which diseases?"
    son = Link("son", 1, 2, "gene/protein", "NCBIGene:25949", "SON", 1.0)
    col = Link("COL1A1", 5, 6, "gene/protein", "NCBIGene:1277", "COL1A1", 1.0)
    assert word_not_symbol(son, [son, col], quoted_runs(question), spelling)
    assert not word_not_symbol(col, [son, col], quoted_runs(question), spelling)
    assert not word_not_symbol(son, [son], [], spelling)  # nothing else is named: the word may be the symbol
    quoted = 'which symptoms of "tumor" are linked to "sry"?'
    sry = Link("sry", 7, 8, "gene/protein", "NCBIGene:6736", "SRY", 1.0)
    tumor = Link("tumor", 3, 4, "effect/phenotype", "HP:1", "Tumor", 0.9)
    assert words_of(quoted)[7] == "sry"
    assert not word_not_symbol(sry, [sry, tumor], quoted_runs(quoted), spelling)
    assert word_not_symbol(sry, [sry, tumor], [], spelling)


def test_the_most_common_of_equally_near_words_wins() -> None:
    spelling = Spelling({"seizure": 1, "seizures": 9})
    assert spelling.correct("seizurs") == "seizures"
    assert edit_distance("seizurs", "seizure") == edit_distance("seizurs", "seizures") == 1


def test_only_short_spans_with_a_misspelt_word_are_looked_up_respelled() -> None:
    reading = read_question("marfans syndrom, which genes?")
    grams = [(0, 1, "marfans"), (0, 2, "marfans syndrom"), (3, 4, "genes")]
    respelt = [(0, "marfan", True, False), (1, "marfan syndrome", True, False)]
    assert respellings(grams, reading, Spelling(SKB_WORDS)) == respelt
    assert respellings(grams, reading, None) == []


def test_the_type_head_learns_separable_questions_and_renormalises_over_the_candidates() -> None:
    rng = np.random.default_rng(0)
    centres = np.eye(3, 8)
    vectors = np.vstack([c + 0.05 * rng.standard_normal((20, 8)) for c in centres])
    sentences = ["which disorders"] * 20 + ["which genes"] * 20 + ["which signs"] * 20
    head = TypeHead.fit(sentences, vectors, [t for t in TYPES for _ in range(20)], TYPES)
    p = head.probabilities("which genes", centres[1], TYPES)
    assert max(p, key=lambda t: p[t]) == "gene/protein" and p["gene/protein"] > 0.8
    assert sum(p.values()) == pytest.approx(1.0)
    two = head.probabilities("which genes", centres[1], ["disease", "effect/phenotype"])
    assert set(two) == {"disease", "effect/phenotype"} and sum(two.values()) == pytest.approx(1.0)
    assert head.probabilities("which genes", centres[1], ["drug"]) == {}
    # the words alone tell the types apart where the vectors do not
    words = head.probabilities("which signs", np.zeros(8), TYPES)
    assert max(words, key=lambda t: words[t]) == "effect/phenotype"


def test_hashed_words_are_stable_normalised_counts_of_words_and_pairs() -> None:
    v = hashed_words("Subtypes of GTC seizures")
    assert v.shape == (BUCKETS,) and np.linalg.norm(v) == pytest.approx(1.0)
    assert np.count_nonzero(v) == 7  # 4 words and 3 pairs (no two in one bucket here)
    assert np.array_equal(v, hashed_words("subtypes of gtc seizures"))
    assert not hashed_words("...").any()


def _reader() -> Reader:
    head = TypeHead(TYPES, np.arange((8 + BUCKETS + 1) * 3, dtype=np.float64).reshape(-1, 3) / 1e4)
    return Reader("hpo", Spelling(SKB_WORDS, frozenset({"daughter"})), head, {"trained_at": "t1", "questions": 3})


def test_a_saved_reader_reads_back_whole(tmp_path: Path) -> None:
    saved = _reader()
    saved.save(tmp_path)
    found = find_reader(tmp_path, "hpo")
    assert found is not None and found.key == "hpo@t1" and found.info["questions"] == 3
    assert dict(found.spelling.counts) == dict(SKB_WORDS) and found.spelling.known == {"daughter"}
    assert found.types.labels == TYPES and np.array_equal(found.types.weights, saved.types.weights)
    assert find_reader(tmp_path, "prime") is None


def test_a_damaged_reader_says_how_to_retrain_it(tmp_path: Path) -> None:
    _reader().save(tmp_path)
    manifest = reader_folder(tmp_path, "hpo") / MANIFEST
    raw = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**raw, "vocabulary": None}))
    with pytest.raises(ConfigError, match=r"kgqa train-reader --skb hpo --force"):
        find_reader(tmp_path, "hpo")
    manifest.write_text("{")
    with pytest.raises(ConfigError, match="cannot be read"):
        find_reader(tmp_path, "hpo")


def test_the_named_type_stands_unless_the_reader_all_but_rules_it_out_and_reads_another() -> None:
    question = "Which genes are tied to the disorder my son has?"
    nothing = _meanings({})
    reading = read_question(question)
    assert question_type(reading, TYPES, None, nothing) == ("gene/protein", "named", "the question names it ('genes')")
    sure = {"disease": 0.02, "gene/protein": 0.9, "effect/phenotype": 0.08}
    assert question_type(reading, TYPES, sure, nothing)[:2] == ("gene/protein", "named")
    doubtful = {"disease": 0.95, "gene/protein": 0.03, "effect/phenotype": 0.02}  # above NAMED_FLOOR: it stands
    assert question_type(reading, TYPES, doubtful, nothing)[:2] == ("gene/protein", "named")
    against = {"disease": 0.98, "gene/protein": 0.01, "effect/phenotype": 0.01}
    assert question_type(reading, TYPES, against, nothing)[:2] == ("disease", "reader")
    sure_of_nothing = {"disease": 0.55, "gene/protein": 0.01, "effect/phenotype": 0.44}  # no other type read
    assert question_type(reading, TYPES, sure_of_nothing, nothing)[:2] == ("gene/protein", "named")
    unnamed = read_question("what could she have?")
    assert question_type(unnamed, TYPES, against, nothing)[:2] == ("disease", "reader")
    assert question_type(unnamed, TYPES, None, nothing) is None
    unsure = {"disease": 0.5, "gene/protein": 0.3, "effect/phenotype": 0.2}  # under READ_FLOOR: no reading
    assert question_type(unnamed, TYPES, unsure, nothing) is None


def test_a_type_named_only_in_a_lead_in_gives_way_to_the_reader() -> None:
    nothing = _meanings({})
    lead_in = read_question("My brother was diagnosed with Wilson disease. what causes that?")
    genes = {"disease": 0.06, "gene/protein": 0.89, "effect/phenotype": 0.05}  # disease over NAMED_FLOOR
    assert question_type(lead_in, TYPES, genes, nothing)[:2] == ("gene/protein", "reader")
    unsure = {"disease": 0.3, "gene/protein": 0.5, "effect/phenotype": 0.2}  # under READ_FLOOR: the named type
    assert question_type(lead_in, TYPES, unsure, nothing)[:2] == ("disease", "named")
    assert question_type(lead_in, TYPES, None, nothing)[:2] == ("disease", "named")
    asked = read_question("My brother was tested last year. Which disease fits?")  # the asking sentence names it
    assert question_type(asked, TYPES, genes, nothing)[:2] == ("disease", "named")


def test_the_sentence_that_asks_names_the_type_before_a_lead_in_does() -> None:
    def named(question: str) -> tuple[str, str] | None:
        return type_named_in_question(read_question(question), TYPES)

    lead_in = "A couple came to us after their first child was confirmed to have Kleefstra syndrome type 1. "
    assert named(lead_in + "Which gene is involved in that condition?") == ("gene/protein", "gene")
    assert named("Our gene test came back. What now?") == ("gene/protein", "gene")
    assert named("It came back. What now?") is None


def test_the_subject_phrase_stands_where_the_reader_is_not_sure() -> None:
    question = "What bits of DNA can play a part in Seizure?"
    dna = _meanings({"bits of dna": ("gene/protein", 0.6)})
    leaning = {"disease": 0.7, "gene/protein": 0.2, "effect/phenotype": 0.1}  # under SUBJECT_STANDS
    reading = read_question(question)
    assert question_type(reading, TYPES, leaning, dna)[:2] == ("gene/protein", "subject")
    sure = {"disease": 0.99, "gene/protein": 0.005, "effect/phenotype": 0.005}  # at SUBJECT_STANDS or more
    assert question_type(reading, TYPES, sure, dna)[:2] == ("disease", "reader")
    agreeing = {"disease": 0.2, "gene/protein": 0.7, "effect/phenotype": 0.1}
    assert question_type(reading, TYPES, agreeing, dna)[:2] == ("gene/protein", "reader")
    assert question_type(reading, TYPES, leaning, _meanings({}))[:2] == ("disease", "reader")
    weak = _meanings({"bits of dna": ("gene/protein", 0.42)})  # a reading under SUBJECT_OVER_READER
    assert question_type(reading, TYPES, leaning, weak)[:2] == ("disease", "reader")


def _meanings(table: dict[str, tuple[str, float]]) -> Embedder:
    return MeaningTable(table)  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("question", "asking"),
    [
        ("Which genes cause Marfan syndrome?", "Which genes cause Marfan syndrome?"),
        ("My son has seizures. He is 4. Which disorders fit?", "Which disorders fit?"),
        ("Context: webbed neck and short stature; what is it", "what is it"),
        ("Seizures. Why?", "Seizures. Why?"),  # no sentence of two words but the whole
        ("Which genes cause it? Asking ahead of clinic.", "Which genes cause it?"),  # a trailer asks nothing
        ("Which genes? Which diseases then?", "Which diseases then?"),
        ("Genes of the form CDH... linked to ataxia?", "Genes of the form CDH... linked to ataxia?"),  # a prefix
        ("Genes like CDH... Which diseases?", "Which diseases?"),  # a capital starts a sentence after the dots
    ],
)
def test_the_asking_sentence_is_the_last_of_two_or_more_words(question: str, asking: str) -> None:
    assert asking_sentence(question) == asking


def _question(kind: str, template: str) -> GeneratedQuestion:
    return GeneratedQuestion(
        "0", "Which diseases show Seizure?", ["OMIM:1"], template, "HP:1", "Seizure", "", "OMIM:1", "", False,
        kind, "natural", "name", "Seizure", None, "clinical",
    )  # fmt: skip


def test_training_variants_keep_the_answer_type_and_are_reproducible() -> None:
    questions = [_question("1-hop", "disease / phenotype present effect/phenotype")] * 40
    names = {"disease": ["Marfan syndrome"], "gene/protein": ["FBN1"]}
    made = variants(questions, names, seed=5)
    assert made == variants(questions, names, seed=5) and len(made) == 120  # as made, implicit, varied
    assert {e.target for e in made} == {"disease"}
    assert {e.family for e in made[40:]} == {"implicit", "lead-in", "trailer"}
    implicit = [e.text for e in made if e.family == "implicit"]
    assert len(implicit) == 40 and all("seizure" in t.lower() for t in implicit)
    assert all(not any(w in t.lower() for w in ("disease", "condition")) for t in implicit)
    assert IMPLICIT["disease"]
    # a one-step hierarchy question gets a frame of its own; a two-hop question none
    step = _question("hierarchy", "effect/phenotype / parent-child effect/phenotype")
    assert implicit_frames(step) == HIERARCHY
    assert implicit_frames(_question("2-hop", "disease / a gene/protein / b effect/phenotype")) == ()


KID = frozenset({"kid"})
"""A word the tokenizer holds whole, or the documents write in small letters: no eponym."""


def test_a_name_typed_without_its_common_ending_is_completed_with_the_shortest() -> None:
    names = [
        "Marfan syndrome", "Marfan lipodystrophy syndrome", "Noonan syndrome", "Noonan syndrome 1", "Tay-Sachs disease",
        "Long fingers", "Long toe", *[f"Zeta{i} syndrome" for i in range(300)],
        *[f"Kappa{i} disease" for i in range(40)], *[f"Long thing{i}" for i in range(20)],
        *["Atrophy of the eye"] * 2000,
    ]  # fmt: skip
    ends = completions(names)
    assert ends["marfan"] == "marfan syndrome" and ends["noonan"] == "noonan syndrome"  # the shortest ending
    assert ends["tay sachs"] == "tay sachs disease"  # "disease" ends names often enough, if held by few
    assert "long" not in ends  # a common first word completed would make a name of any phrase
    assert "kid" in completions([*names, "KID syndrome"]) and "kid" not in completions([*names, "KID syndrome"], KID)
    spelling = Spelling(vocabulary(names), frozenset(), {}, ends)
    assert spelling.complete("Tay-Sachs") == "tay sachs disease" and spelling.complete("Marfan syndrome") is None
    reading = read_question("genes for marfan or 'noonan'?")
    grams = [(i, i + 1, word) for i, word in enumerate(reading.words)]
    respelt = {grams[r.number][2]: r.text for r in respellings(grams, reading, spelling)}
    assert respelt == {"marfan": "marfan syndrome"}  # a quoted word is as typed
    typed = read_question("genes for marfan syndrome 1")  # the ending is typed: nothing to complete
    assert respellings([(i, i + 1, w) for i, w in enumerate(typed.words)], typed, spelling) == []


@pytest.mark.parametrize(
    ("typed", "number"),
    [("1", "1"), ("1A", "1a"), ("IIIB", "3b"), ("iv", "4"), ("IX", "9"), ("XII", "12"), ("type", None), ("A1", None)],
)
def test_a_names_number_is_read_whether_arabic_or_roman(typed: str, number: str | None) -> None:
    assert designation(typed) == number


def test_a_numbered_name_is_typed_as_its_eponym_or_initials_and_number() -> None:
    names = [
        "Charcot-Marie-Tooth disease, demyelinating, type 1A", "Charcot-Marie-Tooth disease type 1A",
        "Charcot-Marie-Tooth disease, axonal, type 2A", "Tuberous sclerosis-2", "Osteogenesis imperfecta, type I",
        "Seizures, benign familial infantile, 2", "Intellectual disability, severe 12", "Long QT syndrome 1",
        "Stickler syndrome type 1", "Stickler syndrome, type I",
        *["Seizures"] * 10, *[f"Zeta{i} syndrome" for i in range(300)], *[f"Kappa{i} disease" for i in range(200)],
        *[f"Theta{i} type" for i in range(200)], *["Atrophy of the eye"] * 2000,
    ]  # fmt: skip
    spelling = Spelling(vocabulary(names), frozenset(), {}, {}, designations(names), fillers(names))
    fewest_words = "Charcot-Marie-Tooth disease type 1A"
    for typed in ("CMT1A", "CMT type 1A", "charcot marie tooth 1A", "Charcot-Marie-Tooth disease 1a"):
        assert spelling.designated(typed) == fewest_words, typed
    assert spelling.designated("CMT2A") == "Charcot-Marie-Tooth disease, axonal, type 2A"  # by its first words
    assert spelling.designated("TS2") == "Tuberous sclerosis-2" and spelling.designated("LQT1") == "Long QT syndrome 1"
    assert spelling.designated("OI type I") == spelling.designated("OI 1") == "Osteogenesis imperfecta, type I"
    assert spelling.designated("stickler syndrome type I") == "Stickler syndrome, type I"  # numbered as typed
    assert spelling.designated("Stickler 1") == "Stickler syndrome type 1"
    assert spelling.designated("seizures 2") is None  # first words count only where the first is rare
    assert spelling.designated("ID 12") == "Intellectual disability, severe 12"
    assert spelling.designated("id 12") is None  # initials count typed in capitals: "he is 12" names nothing
    assert spelling.designated("CMT") is None and spelling.designated("1A") is None
    reading = read_question("features of OI type I in my CMT1A son")
    grams = [(4, 7, "OI type I"), (9, 10, "CMT1A")]
    respelt = respellings(grams, reading, spelling)
    assert [(r.text, r.numbered) for r in respelt] == [
        ("Osteogenesis imperfecta, type I", True), (fewest_words, True)
    ]  # fmt: skip


def test_a_roman_number_ends_a_span_where_the_pronoun_does_not() -> None:
    spans = {text for _, _, text in ngrams(read_question("what can I read about OI type I"))}
    assert "OI type I" in spans and "type I" in spans
    assert not any(text.endswith("can I") for text in spans)


CUES = frozenset({"subtypes", "without", "symptoms", "parent", "what", "specific", "genes", "general"})


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("subtyeps", "subtypes"),  # neighbours swapped
        ("withuot", "without"),
        ("simptoms", "symptoms"),  # long: two edits
        ("waht", "what"),
        ("specifc", "specific"),
        ("genez", "genes"),
        ("seizure", None),  # the SKB's own word
        ("tied", None),  # a word the tokenizer knows
        ("parnt", "parent"),
        ("generel", "general"),
        ("gen", None),  # too short
        ("withing", None),  # three edits from "without"
    ],
)
def test_a_misspelt_cue_word_is_read_as_the_one_cue_it_misspells(typed: str, meant: str | None) -> None:
    spelling = Spelling(SKB_WORDS, frozenset({"tied", "daughter"}))
    assert spelling.cue_of(typed, CUES) == meant


def test_two_cues_equally_near_leave_the_word_as_typed() -> None:
    assert Spelling(SKB_WORDS).cue_of("gens", frozenset({"genes", "gents"})) is None


def test_the_reading_reads_misspelt_cues_and_keeps_the_words_as_typed() -> None:
    spelling = Spelling(SKB_WORDS)
    reading = read_question("My son has Hypotonia. waht are its subtyeps?", lambda word: spelling.cue_of(word, CUES))
    assert reading.lowered[-1] == "subtypes" and reading.lower_words[-1] == "subtypes"
    assert reading.asking_words == ("what", "are", "its", "subtypes")
    assert reading.words[-1] == "subtyeps" and reading.text.endswith("subtyeps?")
    assert read_question("Subtyeps of Hypotonia").lowered[0] == "subtyeps"  # no respelling without a reader
