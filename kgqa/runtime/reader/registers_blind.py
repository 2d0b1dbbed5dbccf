"""The words of the families written blind, apart from the linker: student (its misses since read), counselor and esl
(never read) (:mod:`kgqa.runtime.reader.families`)."""

from __future__ import annotations

from kgqa.loaders.hpo import ABSENT, ASSOCIATED, PRESENT
from kgqa.runtime.reader.family_words import ConditionWords, D, FamilyWords, G, H, P, Shape, _n, _w
from kgqa.runtime.reader.phrasing import (
    Noun,
)

# ---------------------------------------------------------------------------------------------------------------------
# student: a biology or medical student (or a science writer) asking a study question or drafting notes
# ---------------------------------------------------------------------------------------------------------------------

STUDENT = FamilyWords(
    types={
        D: _n("disorder", "genetic disease", "syndrome", "condition"),
        P: _n("trait", "clinical sign", "characteristic", "phenotypic abnormality"),
        G: (*_n("gene", "human gene"), Noun("locus", "loci")),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            [
                "exhibit",
                "display",
                "are annotated with",
                "have {obj} as part of their clinical picture",
                "include {obj} in their phenotypic spectrum",
            ],
            [
                "exhibiting",
                "displaying",
                "annotated with",
                "whose phenotype includes",
                "whose clinical picture takes in",
            ],
        ),
        (PRESENT, P, D, ""): _w(
            [
                "are exhibited in",
                "are annotated to",
                "form part of the phenotype of",
                "are observed in individuals with",
                "belong to the clinical picture of",
            ],
            [
                "exhibited in",
                "annotated to",
                "forming part of the phenotype of",
                "observed in individuals affected by",
                "belonging to the clinical picture of",
            ],
        ),
        (ABSENT, D, P, ""): _w(
            [
                "are explicitly annotated as not exhibiting",
                "carry an explicit NOT annotation for",
                "have {obj} excluded in their annotations",
            ],
            [
                "explicitly annotated as not exhibiting",
                "with a NOT annotation for",
                "recorded in the annotations as lacking",
                "in which {obj} is annotated as not occurring",
            ],
        ),
        (ABSENT, P, D, ""): _w(
            [
                "are explicitly excluded from the phenotype of",
                "are annotated as not occurring in",
                "carry a NOT annotation in",
                "are marked as not part of the phenotype of",
            ],
            [
                "explicitly excluded from the phenotype of",
                "annotated as not occurring in",
                "marked as not seen in",
                "that the annotations exclude for",
            ],
        ),
        (ASSOCIATED, G, P, ""): _w(
            [
                "have a documented association with",
                "are genetically associated with",
                "are connected in the annotations to",
            ],
            ["with a documented association to", "genetically associated with", "known to be associated with"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            [
                "are genetically associated with",
                "are mapped to",
                "have been reported for",
                "are on record as genes for",
            ],
            ["genetically associated with", "mapped to", "reported for", "on record for"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["map to", "are genetically associated with", "have been attributed to variation in"],
            [
                "mapping to",
                "genetically associated with",
                "attributed to variation in",
                "with a documented association to",
            ],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["are genetically associated with", "have a documented association with", "are attributed to variation in"],
            ["genetically associated with", "with a documented association to", "connected in the annotations to"],
        ),
        (H, P, P, "to_anchor"): _w(
            [
                "are each a direct subclass of",
                "are nested immediately beneath",
                "sit one rung down the ontology from",
                "are child classes of",
            ],
            [
                "nested immediately beneath",
                "one rung down the ontology from",
                "classed directly beneath",
                "that are child classes of",
            ],
        ),
        (H, P, P, "from_anchor"): _w(
            ["are the immediate parent classes of", "sit one rung up the ontology from", "are direct superclasses of"],
            [
                "one rung up the ontology from",
                "that are immediate parent classes of",
                "serving as direct superclasses of",
            ],
        ),
        (H, P, P, ""): _w(
            [
                "are one rung up or down the ontology from",
                "are immediate parent or child classes of",
                "are direct superclasses or subclasses of",
            ],
            [
                "one rung up or down the ontology from",
                "that are immediate parent or child classes of",
                "one rung either way in the ontology from",
            ],
        ),
    },
    shapes=(
        Shape("For my genetics coursework: which {subj} {pred}{cond}?", "verb", "post"),
        Shape("Name the {subj} that {pred}{cond}.", "verb", "post"),
        Shape("For my notes, I need the {subj} {pred}{cond}.", "modifier", "post"),
        Shape("List the {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Study question: which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("Revision check - which {cond} {subj} {pred}?", "verb", "lead"),
        Shape("Drafting a review: what {subj} {pred}{cond}?", "verb", "post"),
        Shape("Quiz prep: name all {cond} {subj} {pred}.", "modifier", "lead"),
        Shape("In the HPO, which {subj} {pred}{cond}?", "verb", "post"),
        Shape("According to the ontology, what are the {subj} {cond} {pred}?", "modifier", "pre"),
        Shape("Give the complete set of {subj} {pred}{cond}.", "modifier", "post"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("whose ontology entry contains the word {w}", "with {w} appearing in their entry"),
            (" and have an entry that contains {w}", " and contain {w} in their entry text"),
            (", with the word {w} in their entry", ", whose entry text includes {w}"),
        ),
        "name-word": ConditionWords(
            ("whose label contains {w}", "with {w} as a word of their label"),
            (" and carry the word {w} in their label", " and have labels containing {w}"),
            (", labelled with the word {w}", ", whose labels include {w}"),
        ),
        "synonym": ConditionWords(
            ("with {w} listed among their synonyms", "having {w} as a synonym"),
            (" and have {w} as one of their synonyms", " and list {w} as an alternative name"),
            (", with {w} as a recorded synonym", ", which also appear under the synonym {w}"),
        ),
        "definition": ConditionWords(
            ("whose formal definition contains {w}", "whose ontology definition uses the phrase {w}"),
            (" and have the phrase {w} in their formal definition", " and carry a definition that uses {w}"),
            (", with {w} in the wording of their definition", ", whose formal definition contains {w}"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose symbol opens with {w}", "with symbols that begin {w}"),
            (" and have symbols opening with {w}",),
            (", their symbols opening with {w}", ", symbol prefix {w}"),
            ("{w}-prefixed",),
        ),
        "onset": ConditionWords(
            ("whose onset is classed as {w}", "annotated with {w} onset or a narrower onset class"),
            (" and have their onset classed as {w}", " and carry an onset annotation of {w} or a narrower class"),
            (", with onset classed as {w}", ", their onset falling within the {w} category"),
        ),
        "inheritance": ConditionWords(
            (
                "transmitted in {a} {w} fashion",
                "that follow {a} {w} pattern of inheritance",
                "whose mode of inheritance is {w}",
            ),
            (" and are transmitted in {a} {w} fashion", " and follow {a} {w} pattern of inheritance"),
            (
                ", transmitted in {a} {w} fashion",
                ", following {a} {w} inheritance pattern",
                ", whose mode of inheritance is classed as {w}",
            ),
            ("{w}",),
        ),
    },
    quotes=("'{w}'", '"{w}"', "'{w}'", '"{w}"', "{w}"),
    named=("{m}", "{m}", "{m}", "the {noun} {m}", "the {noun} referred to as {m}"),
    described=("the {noun} whose definition opens with '{m}'", 'the {noun} the HPO defines as "{m}"'),
)

# ---------------------------------------------------------------------------------------------------------------------
# counselor: a genetic counsellor writing to colleagues or preparing for a family session (blind)
# ---------------------------------------------------------------------------------------------------------------------

COUNSELOR = FamilyWords(
    types={
        D: (*_n("condition", "genetic condition", "disorder"), Noun("diagnosis", "diagnoses")),
        P: _n("feature", "clinical feature", "finding", "sign"),
        G: _n("gene", "candidate gene"),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            [
                "can present with",
                "list {obj} among their recognised features",
                "are known to involve",
                "have {obj} as a recognised feature",
            ],
            [
                "that can present with",
                "where {obj} is a recognised feature",
                "known to involve",
                "in which affected relatives may show",
            ],
        ),
        (PRESENT, P, D, ""): _w(
            [
                "are a recognised part of",
                "might be noticed by a family in someone with",
                "can be seen in people affected by",
                "belong to the clinical spectrum of",
            ],
            [
                "that a family might notice in someone with",
                "seen in people affected by",
                "recognised as part of",
                "known to occur in",
            ],
        ),
        (ABSENT, D, P, ""): _w(
            [
                "have {obj} recorded as absent",
                "have had {obj} specifically ruled out",
                "list {obj} as an excluded feature",
                "have {obj} documented as not part of the picture",
            ],
            [
                "in which {obj} has been specifically excluded",
                "where {obj} is documented as not part of the picture",
                "with {obj} ruled out on examination",
                "with a documented absence of",
            ],
        ),
        (ABSENT, P, D, ""): _w(
            [
                "are documented as not a feature of",
                "have been ruled out in",
                "are recorded as absent in",
                "are explicitly excluded in people with",
            ],
            [
                "documented as not part of the picture in",
                "ruled out on examination in people with",
                "recorded as absent in",
                "specifically excluded in",
            ],
        ),
        (ASSOCIATED, G, P, ""): _w(
            [
                "have been reported in connection with",
                "are known to be connected with",
                "have a reported association with",
            ],
            ["reported in connection with", "known to be connected with", "with a reported link to"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["would belong on a gene panel for", "are recognised genes for", "have a reported link to"],
            ["on a panel for", "that would go on a testing panel for", "with a recognised role in"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["have been linked to changes in", "have a known genetic link to", "are linked to variants in"],
            ["linked to changes in", "with a known genetic link to", "that a positive result in {obj} would point to"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["have been reported with changes in", "are seen with variants in", "have a reported link to"],
            ["reported with changes in", "seen with variants in", "with a reported link to"],
        ),
        (H, P, P, "to_anchor"): _w(
            ["are the immediate subtypes of", "are filed one level beneath", "are direct, more specific forms of"],
            ["exactly one level more specific than", "sitting directly beneath", "that count as immediate subtypes of"],
        ),
        (H, P, P, "from_anchor"): _w(
            [
                "are the immediate broader terms for",
                "are filed one level above",
                "are exactly one step more general than",
            ],
            [
                "exactly one step more general than",
                "sitting directly above",
                "that are the immediate broader terms for",
            ],
        ),
        (H, P, P, ""): _w(
            ["sit one level above or below", "are one step more general or more specific than"],
            ["exactly one level above or below", "immediately broader or more specific than"],
        ),
    },
    shapes=(
        Shape("Preparing for a family session: which {subj} {pred}{cond}?", "verb", "post"),
        Shape("For a referral letter - which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("Could a colleague point me to the {subj} that {pred}{cond}?", "verb", "post"),
        Shape("Note to self: check {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Before we discuss testing, I need the {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Which {cond} {subj} {pred}? Asking ahead of clinic.", "verb", "lead"),
        Shape("Pre-clinic prep - list the {cond} {subj} {pred}.", "modifier", "lead"),
        Shape("Quick question for the team: what {subj} {pred}{cond}?", "verb", "post"),
        Shape("For the family letter, please list {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Can anyone confirm which {subj} {cond} {pred}?", "verb", "pre"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("whose record mentions {w}", "with {w} mentioned in their entry"),
            (" and mention {w} in their record", " and have {w} in their entry"),
            (", each with a record that mentions {w}", " - ones whose entry mentions {w}"),
        ),
        "name-word": ConditionWords(
            ("with {w} as part of their name", "whose name includes the word {w}"),
            (" and include {w} in their name",),
            (", each named with the word {w}", " - ones with {w} in the name"),
        ),
        "synonym": ConditionWords(
            ("also referred to as {w}", "listed with the alternative name {w}"),
            (" and are also referred to as {w}", " and have {w} as an alternative name"),
            (", each also referred to as {w}", " - ones with the alternative name {w}"),
        ),
        "definition": ConditionWords(
            ("whose definition includes the words {w}", "whose formal definition reads in part {w}"),
            (" and use the words {w} in their definition",),
            (", each with a definition that includes the phrase {w}", " - ones defined with the words {w}"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose symbol begins with {w}", "with a gene symbol starting {w}"),
            (" and have symbols beginning with {w}",),
            (", each with a symbol beginning {w}", " - ones whose symbol starts {w}"),
        ),
        "onset": ConditionWords(
            ("where onset is given as {w}", "whose onset is recorded as {w}"),
            (" and have an onset given as {w}", " and have their onset recorded as {w}"),
            (", each with an onset given as {w}", " - ones with onset recorded as {w}"),
            ("{w}-onset",),
        ),
        "inheritance": ConditionWords(
            ("that run in families in {a} {w} pattern", "passed on as {a} {w} trait", "showing {w} inheritance"),
            (" and run in families in {a} {w} pattern", " and are passed on as {a} {w} trait"),
            (", each running in families in {a} {w} pattern", " - ones with {w} inheritance"),
            ("{w}",),
        ),
    },
    quotes=("'{w}'", "{w}", '"{w}"'),
    named=("{m}", "{m}", "{m}", "the {noun} {m}", "the {noun} called {m}"),
    described=('the {noun} HPO explains as "{m}"', "the {noun} summarised as '{m}'"),
)

# ---------------------------------------------------------------------------------------------------------------------
# esl: a researcher whose first language is not English, typing into a search tool (blind)
# ---------------------------------------------------------------------------------------------------------------------

ESL = FamilyWords(
    types={
        D: _n("disease", "illness", "pathology"),
        P: _n("symptom", "phenotype", "clinical sign"),
        G: _n("gene"),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            ["are having", "are presenting", "are coming with", "are manifesting"],
            ["having", "which have", "with presence of", "what are presenting"],
        ),
        (PRESENT, P, D, ""): _w(
            ["are present at patients with", "appear in", "are found at patients of", "are manifested in"],
            ["present at patients with", "appearing in", "which one observe in", "what one can find in"],
        ),
        (ABSENT, D, P, ""): _w(
            [
                "have {obj} marked like absent",
                "have annotation that {obj} is not present",
                "are annotated with absence of",
            ],
            [
                "where {obj} is noted absent",
                "for which is written that {obj} is not present",
                "with annotated absence of",
                "in which {obj} is excluded explicitly",
            ],
        ),
        (ABSENT, P, D, ""): _w(
            ["are marked absent for", "are excluded explicitly in", "are noted like not present at"],
            [
                "which {obj} don't have according to the annotation",
                "marked absent for",
                "excluded explicitly in",
                "noted like not present at",
            ],
        ),
        (ASSOCIATED, G, P, ""): _w(
            ["are related with", "have relation with", "are in connection with"],
            ["related with", "what are related with", "having relation with"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["are related with", "are implied in", "have association with"],
            ["related with", "implied in", "what have association with"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["are related with", "come from mutations in", "have association with"],
            ["related with", "caused from mutations in", "which have association with"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["are related with", "are associated to", "have link with"],
            ["related with", "associated to", "which have link with"],
        ),
        (H, P, P, "to_anchor"): _w(
            [
                "are direct children of",
                "are one level more deep than {obj} in the tree",
                "stay immediately under",
                "are in the level directly under",
            ],
            [
                "immediately under",
                "one level more deep than",
                "which are the direct children from",
                "what stay one level below",
            ],
        ),
        (H, P, P, "from_anchor"): _w(
            [
                "are the parents direct of",
                "are one level more high than {obj} in the tree",
                "stay immediately above",
                "are in the level directly above",
            ],
            [
                "in the level immediately above",
                "one level more high than",
                "which are the direct parents from",
                "what stay one level above",
            ],
        ),
        (H, P, P, ""): _w(
            [
                "are one level more high or more deep than",
                "are direct parent or child of",
                "stay one level above or under",
            ],
            [
                "at distance of one level (up or down) from",
                "directly above or under",
                "which are direct parent or child from",
            ],
        ),
    },
    shapes=(
        Shape("Please give me {subj} {pred}{cond}.", "modifier", "post"),
        Shape("give me all {subj} {pred}{cond}", "modifier", "post"),
        Shape("Which are the {subj} that {pred}{cond}?", "verb", "post"),
        Shape("I search {subj} {pred}{cond}.", "modifier", "post"),
        Shape("I am searching which {subj} {cond} {pred}.", "verb", "pre"),
        Shape("Which {subj} {pred}{cond}, please?", "verb", "post"),
        Shape("Is possible to have the list of {subj} {pred}{cond}?", "modifier", "post"),
        Shape("What {cond} {subj} {pred}?", "verb", "lead"),
        Shape("I need to know the {cond} {subj} {pred}.", "modifier", "lead"),
        Shape("Which {subj} {cond} {pred}, I want to know.", "verb", "pre"),
        Shape("Tell me please what {subj} {pred}{cond}.", "verb", "post"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("which have word {w} in the description", "where description contains {w}"),
            (" and are mentioning {w}", " and have in description the word {w}"),
            (", with word {w} in their description", " (their description is containing {w})"),
        ),
        "name-word": ConditionWords(
            ("with {w} inside the name", "which name contain {w}"),
            (" and have {w} in the name",),
            (", with word {w} in their name", " (their name contains {w})"),
        ),
        "synonym": ConditionWords(
            ("known also as {w}", "which have other name {w}"),
            (" and are called also {w}", " and have other name {w}"),
            (", they are called also {w}", " (their other name: {w})"),
        ),
        "definition": ConditionWords(
            ("which definition say {w}", "with definition containing {w}"),
            (" and in their definition is written {w}",),
            (", with their definition containing {w}", " (in their definition: {w})"),
        ),
        "symbol-prefix": ConditionWords(
            ("which symbol start with {w}", "with symbol beginning from {w}"),
            (" and their symbol start with {w}",),
            (", with their symbol beginning from {w}", " (their symbol begin {w})"),
        ),
        "onset": ConditionWords(
            ("with onset {w}", "with the onset of type {w}"),
            (" and have the onset {w}", " and their onset is {w}"),
            (", with their onset {w}", " (their onset: {w})"),
            ("{w} onset",),
        ),
        "inheritance": ConditionWords(
            ("with inheritance {w}", "which inherit in {w} way", "transmitted in {w} mode"),
            (" and are inherited in {w} way", " and have inheritance of type {w}"),
            (", they are inherited in {w} way", " (their inheritance: {w})"),
            ("{w}",),
        ),
    },
    quotes=("{w}", '"{w}"', "'{w}'"),
    named=("{m}", "{m}", "the {noun} {m}", "{noun} {m}", "the {noun} with name {m}", "{noun} named {m}"),
    described=("the {noun} which definition is '{m}'", '{noun} with the definition "{m}"'),
    inner="some {noun} {mod}",
    lower_start=0.15,
)
