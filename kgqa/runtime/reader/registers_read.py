"""The words of the families whose misses development has read: clinical, conversational, terse and lay
(:mod:`kgqa.runtime.reader.families`)."""

from __future__ import annotations

from kgqa.loaders.hpo import ABSENT, ASSOCIATED, PRESENT
from kgqa.runtime.reader.family_words import ConditionWords, D, FamilyWords, G, H, P, Shape, _n, _w
from kgqa.runtime.reader.phrasing import (
    Noun,
)

# ---------------------------------------------------------------------------------------------------------------------
# clinical: a clinician's or curator's register
# ---------------------------------------------------------------------------------------------------------------------

CLINICAL = FamilyWords(
    types={
        D: (*_n("disorder", "condition", "disease"), Noun("diagnosis", "diagnoses")),
        P: _n("clinical finding", "sign", "manifestation", "phenotypic feature", "HPO term"),
        G: _n("gene", "disease gene"),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            ["present with", "manifest with", "are characterized by", "list {obj} among their features", "feature"],
            ["presenting with", "manifesting with", "featuring", "in which patients present with"],
        ),
        (PRESENT, P, D, ""): _w(
            ["are documented in", "are reported in", "are recognized features of", "occur in patients with"],
            ["documented in", "reported in", "seen in patients with", "described in"],
        ),
        (ABSENT, D, P, ""): _w(
            ["have {obj} documented as absent", "are annotated as lacking", "explicitly exclude"],
            ["in which {obj} has been documented as absent", "with {obj} recorded as explicitly absent"],
        ),
        (ABSENT, P, D, ""): _w(
            ["are documented as absent in", "have been explicitly excluded in", "are recorded as not present in"],
            ["documented as absent in", "explicitly excluded in", "recorded as absent in patients with"],
        ),
        (ASSOCIATED, G, P, ""): _w(
            ["are implicated in", "are associated with", "have been linked to"],
            ["implicated in", "associated with", "linked to"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["are implicated in", "are linked to", "have been associated with"],
            ["implicated in", "associated with", "linked to"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["are caused by variants in", "have been associated with", "are linked to"],
            ["caused by variants in", "associated with", "linked to"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["are associated with variants in", "have been linked to", "are associated with"],
            ["associated with variants in", "linked to", "associated with"],
        ),
        (H, P, P, "to_anchor"): _w(
            ["are direct subclasses of", "are immediate subtypes of", "fall directly under", "are one level below"],
            ["classified directly under", "that are immediate subtypes of", "one level more specific than"],
        ),
        (H, P, P, "from_anchor"): _w(
            ["are the direct parent terms of", "directly subsume", "are one level more general than"],
            ["directly subsuming", "one level more general than", "immediately above"],
        ),
        (H, P, P, ""): _w(
            ["are directly above or below", "are one step above or below"],
            ["directly above or below", "one step above or below"],
        ),
    },
    shapes=(
        Shape("Which {subj} {pred}{cond}?", "verb", "post"),
        Shape("Which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("Identify the {subj} that {pred}{cond}.", "verb", "post"),
        Shape("Please list all {subj} {pred}{cond}.", "modifier", "post"),
        Shape("What are the {subj} {pred}{cond}?", "modifier", "post"),
        Shape("Retrieve {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Which {cond} {subj} {pred}?", "verb", "lead"),
        Shape("Looking for {cond} {subj} {pred}.", "modifier", "lead"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("whose entry mentions {w}", "documented with the term {w}"),
            (" and reference {w} in their description", " and mention {w}"),
            (", with {w} mentioned in their description", ", whose descriptions reference {w}"),
        ),
        "name-word": ConditionWords(
            ("whose name contains the word {w}", "with {w} in the name"),
            (" and carry {w} in their name", " and have {w} in their name"),
            (", with {w} in their names", ", whose names contain the word {w}"),
        ),
        "synonym": ConditionWords(
            ("also termed {w}", "also known as {w}"),
            (" and are also termed {w}", " and are also known as {w}"),
            (", also termed {w}", ", synonym {w}"),
        ),
        "definition": ConditionWords(
            ("whose definition mentions {w}", "whose HPO definition includes {w}"),
            (" and include {w} in their definition", " and have {w} in their definition"),
            (", whose definitions mention {w}", ", with {w} in their definition"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose symbol starts with {w}", "with gene symbols beginning with {w}"),
            (" and have a symbol beginning with {w}",),
            (", whose symbols start with {w}", ", symbol beginning with {w}"),
        ),
        "onset": ConditionWords(
            ("with {w} onset", "with onset recorded as {w}"),
            (" and have {w} onset", " and have onset recorded as {w}"),
            (", with {w} onset", ", with onset recorded as {w}"),
            ("{w}-onset",),
        ),
        "inheritance": ConditionWords(
            ("inherited in {a} {w} manner", "with {w} inheritance", "inherited as {w}"),
            (" and are inherited in {a} {w} manner", " and show {w} inheritance"),
            (", inherited in {a} {w} manner", ", with {w} inheritance", ", inherited as {w}"),
            ("{w}",),
        ),
    },
    quotes=("'{w}'", "{w}"),
    named=("{m}", "{m}", "the {noun} {m}", "the {noun} '{m}'"),
    described=("the {noun} defined as '{m}'", "the {noun} whose definition reads '{m}'"),
)

# ---------------------------------------------------------------------------------------------------------------------
# conversational: a casual user typing to an assistant
# ---------------------------------------------------------------------------------------------------------------------

CONVERSATIONAL = FamilyWords(
    types={
        D: _n("condition", "illness", "disease", "disorder"),
        P: _n("symptom", "sign", "feature", "trait"),
        G: _n(
            "gene",
        ),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            ["come with", "cause", "involve", "show up with", "have"],
            ["with", "involving", "causing", "that can come with"],
        ),
        (PRESENT, P, D, ""): _w(
            ["show up in", "happen in", "are part of", "come with", "go along with"],
            ["you see in", "showing up in", "seen in people with", "that can show up in"],
        ),
        (ABSENT, D, P, ""): _w(
            ["are known not to come with", "have {obj} listed as absent", "definitely don't involve"],
            ["where {obj} was ruled out", "where {obj} is listed as absent", "known not to involve"],
        ),
        (ABSENT, P, D, ""): _w(
            ["are ruled out in", "are listed as absent in", "are known not to happen in"],
            ["ruled out in", "listed as absent in", "known not to happen in"],
        ),
        (ASSOCIATED, G, P, ""): _w(
            ["are tied to", "are connected to", "have been linked to"], ["tied to", "connected to", "linked to"]
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["are tied to", "are behind", "have been linked to"], ["tied to", "connected to", "linked to"]
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["come from changes in", "are tied to", "have been linked to"],
            ["caused by changes in", "tied to", "linked to"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["are tied to", "are connected to", "have been linked to"], ["tied to", "connected to", "linked to"]
        ),
        (H, P, P, "to_anchor"): _w(
            ["sit right under", "are the direct sub-types of", "are one level down from"],
            ["right under", "one level down from", "directly under"],
        ),
        (H, P, P, "from_anchor"): _w(
            ["sit right above", "are one level up from", "are the direct parent categories of"],
            ["right above", "one level up from", "directly above"],
        ),
        (H, P, P, ""): _w(
            ["are one level up or down from", "sit right above or right below"],
            ["one level up or down from", "right above or right below"],
        ),
    },
    shapes=(
        Shape("I'm trying to find {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Can you list the {subj} that {pred}{cond}?", "verb", "post"),
        Shape("Which {subj} {pred}{cond}, do you know?", "verb", "post"),
        Shape("Do you know which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("What {subj} {pred}{cond}?", "verb", "post"),
        Shape("Got a list of {subj} {pred}{cond}?", "modifier", "post"),
        Shape("So which {cond} {subj} {pred}?", "verb", "lead"),
        Shape("Hi! Looking for {subj} {pred}{cond}, thanks.", "modifier", "post"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("that mention {w}", "with {w} in the description"),
            (" and mention {w}", " and have {w} somewhere in their description"),
            (" - the ones that mention {w}", ", ones that mention {w}"),
        ),
        "name-word": ConditionWords(
            ("with {w} in their name", "that have {w} in the name"),
            (" and have {w} in their name",),
            (", ones with {w} in the name", " - the ones with {w} in their names"),
        ),
        "synonym": ConditionWords(
            ("also called {w}", "that also go by {w}"),
            (" and also go by {w}", " and are also called {w}"),
            (", also called {w}", " - they're also known as {w}"),
        ),
        "definition": ConditionWords(
            ("whose definition says {w}", "defined with the words {w}"),
            (" and whose definition mentions {w}", " and are defined with the phrase {w}"),
            (", ones whose definition mentions {w}", " - their definitions say {w}"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose symbol starts with {w}", "with symbols beginning {w}"),
            (" and have symbols starting with {w}",),
            (", ones whose symbol starts with {w}", " - symbols starting with {w}"),
        ),
        "onset": ConditionWords(
            ("with {w} onset", "where onset is listed as {w}"),
            (" and have {w} onset", " and have their onset listed as {w}"),
            (", ones with {w} onset", " - onset listed as {w}"),
            ("{w}-onset",),
        ),
        "inheritance": ConditionWords(
            ("that are inherited in {a} {w} way", "passed down in {a} {w} pattern"),
            (" and are inherited in {a} {w} way", " and get passed down in {a} {w} pattern"),
            (", ones inherited in {a} {w} pattern", " - {w} ones"),
            ("{w}",),
        ),
    },
    quotes=('"{w}"', "{w}"),
    named=("{m}", "{m}", '"{m}"', "something called {m}", "the {noun} {m}"),
    described=('the {noun} described as "{m}"', 'the one that\'s described as "{m}"'),
    lower_start=0.15,
)

# ---------------------------------------------------------------------------------------------------------------------
# terse: keywords typed into a search box
# ---------------------------------------------------------------------------------------------------------------------

TERSE = FamilyWords(
    types={D: _n("disease", "disorder", "condition"), P: _n("phenotype", "symptom", "hpo term"), G: _n("gene")},
    relations={
        (PRESENT, D, P, ""): _w([], ["with", "presenting", "w/", "featuring"]),
        (PRESENT, P, D, ""): _w([], ["in", "of", "seen in"]),
        (ABSENT, D, P, ""): _w([], ["absent", "explicitly absent", "with absent", "negative for"]),
        (ABSENT, P, D, ""): _w([], ["absent in", "excluded in", "annotated absent in"]),
        (ASSOCIATED, G, P, ""): _w([], ["assoc", "associated", "linked"]),
        (ASSOCIATED, G, D, ""): _w([], ["assoc", "for", "linked"]),
        (ASSOCIATED, D, G, ""): _w([], ["assoc", "linked", "caused by"]),
        (ASSOCIATED, P, G, ""): _w([], ["assoc", "linked"]),
        (H, P, P, "to_anchor"): _w([], ["children of", "child terms of", "direct subtypes of", "direct subterms of"]),
        (H, P, P, "from_anchor"): _w([], ["parents of", "parent terms of", "direct parents of"]),
        (H, P, P, ""): _w([], ["parents or children of", "parent/child terms of", "one level up/down from"]),
    },
    shapes=(
        Shape("{subj} {pred}{cond}", "modifier", "post"),
        Shape("{subj} {pred}{cond}?", "modifier", "post"),
        Shape("list {subj} {pred}{cond}", "modifier", "post"),
        Shape("all {subj} {pred}{cond}", "modifier", "post"),
        Shape("{subj} {cond} {pred}", "modifier", "pre"),
        Shape("{cond} {subj} {pred}", "modifier", "lead"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("mentioning {w}", "containing {w}"), (), (" mentioning {w}", " containing {w}", " +{w}", ' "{w}"')
        ),
        "name-word": ConditionWords(
            ("named *{w}*", "name:{w}"), (), (" name:{w}", " named *{w}*", " with {w} in name")
        ),
        "synonym": ConditionWords(("aka {w}",), (), (" aka {w}", " a.k.a. {w}", " (syn. {w})")),
        "definition": ConditionWords(('def "{w}"',), (), (' def "{w}"', ' definition: "{w}"')),
        "symbol-prefix": ConditionWords(
            ("symbol {w}*",), (), (" symbol {w}*", " {w}*", " starting {w}"), ("{w}*", "{w}-")
        ),
        "onset": ConditionWords(("{w} onset",), (), (" {w} onset", " onset {w}", " onset: {w}"), ("{w} onset",)),
        "inheritance": ConditionWords(("{w}",), (), (" {w}", " inheritance {w}", " {w} inheritance"), ("{w}",)),
    },
    quotes=("{w}", '"{w}"'),
    named=("{m}", "{m}", '"{m}"'),
    described=('def:"{m}"',),
    inner="{noun} {mod}",
)

# ---------------------------------------------------------------------------------------------------------------------
# lay: a patient or caregiver asking in plain words
# ---------------------------------------------------------------------------------------------------------------------

LAY = FamilyWords(
    types={
        D: _n("health problem", "illness", "medical condition", "disease"),
        P: (
            *_n("symptom", "warning sign"),
            Noun("thing you might notice", "things you might notice"),
            Noun("sign or symptom", "signs or symptoms"),
        ),
        G: _n("gene", "bit of DNA"),
    },
    relations={
        (PRESENT, D, P, ""): _w(
            [
                "can give you",
                "can bring on",
                "are known to bring about",
                "count {obj} among their symptoms",
                "can lead to",
            ],
            ["that can give you", "that can bring on", "where you might get", "known to bring about"],
        ),
        (PRESENT, P, D, ""): _w(
            ["can be part of", "can happen to people with", "can come along with", "are known to go with"],
            ["that can be part of", "that people with {obj} can get", "that can happen with", "known to go with"],
        ),
        (ABSENT, D, P, ""): _w(
            [
                "have {obj} noted by doctors as not being there",
                "are on record as not including",
                "have {obj} written down as not present",
            ],
            [
                "where doctors have noted that {obj} is not there",
                "where {obj} is on record as not present",
                "on record as not including",
            ],
        ),
        (ABSENT, P, D, ""): _w(
            [
                "are noted by doctors as not happening in",
                "are on record as not part of",
                "are written down as not present in",
            ],
            ["noted by doctors as not happening in", "on record as not part of", "written down as not present in"],
        ),
        (ASSOCIATED, G, P, ""): _w(
            ["have a known link to", "can play a part in", "have something to do with"],
            ["with a known link to", "that can play a part in", "that have something to do with"],
        ),
        (ASSOCIATED, G, D, ""): _w(
            ["can go wrong in", "have a known link to", "can play a part in"],
            ["that can go wrong in", "with a known link to", "that can play a part in"],
        ),
        (ASSOCIATED, D, G, ""): _w(
            ["can come from problems with", "have a known link to", "can be traced back to"],
            ["that can come from problems with", "with a known link to", "traced back to"],
        ),
        (ASSOCIATED, P, G, ""): _w(
            ["have a known link to", "can come from problems with", "can be traced back to"],
            ["with a known link to", "that can come from problems with", "traced back to"],
        ),
        (H, P, P, "to_anchor"): _w(
            [
                "are the more specific kinds filed directly under",
                "are one step more specific than",
                "sit one level below",
            ],
            ["one step more specific than", "filed directly under", "sitting one level below"],
        ),
        (H, P, P, "from_anchor"): _w(
            [
                "are the broader categories {obj} falls directly into",
                "are one step more general than",
                "sit one level above",
            ],
            [
                "one step more general than",
                "that {obj} falls directly into as a broader category",
                "sitting one level above",
            ],
        ),
        (H, P, P, ""): _w(
            ["sit one step above or below", "are one level broader or more specific than"],
            ["one step above or below", "one level broader or more specific than"],
        ),
    },
    shapes=(
        Shape("Asking for my kid: which {subj} {pred}{cond}?", "verb", "post"),
        Shape("Could someone explain which {subj} {pred}{cond}?", "verb", "post"),
        Shape("I'd like to know which {subj} {cond} {pred}.", "verb", "pre"),
        Shape("Please tell me all the {subj} {pred}{cond}.", "modifier", "post"),
        Shape("Just wondering which {subj} {pred}{cond}.", "verb", "post"),
        Shape("Is there a list of {subj} {pred}{cond}?", "modifier", "post"),
        Shape("Sorry if this is basic, but which {subj} {cond} {pred}?", "verb", "pre"),
        Shape("Which {cond} {subj} {pred}, if you know?", "verb", "lead"),
        Shape("In plain words, what {subj} {pred}{cond}?", "verb", "post"),
    ),
    conditions={
        "doc-word": ConditionWords(
            ("whose summary mentions {w}", "where the description uses the word {w}"),
            (" and have {w} in their summary", " and whose description uses the word {w}"),
            (" - ones whose summary mentions {w}", ", and whose description uses the word {w}"),
        ),
        "name-word": ConditionWords(
            ("whose name has the word {w} in it", "that have {w} as part of their name"),
            (" and have the word {w} in their name", " and have {w} as part of their name"),
            (" - ones whose name has {w} in it", ", and with the word {w} in their name"),
        ),
        "synonym": ConditionWords(
            ("that are sometimes called {w}", "that also go by the name {w}", "otherwise known as {w}"),
            (" and are sometimes called {w}", " and also go by the name {w}"),
            (" - ones sometimes called {w}", ", and otherwise known as {w}"),
        ),
        "definition": ConditionWords(
            ("whose explanation includes {w}", "explained using the words {w}"),
            (" and are explained using the words {w}", " and whose explanation includes {w}"),
            (" - ones whose explanation includes {w}", ", and explained using the words {w}"),
        ),
        "symbol-prefix": ConditionWords(
            ("whose short name starts with the letters {w}", "with a short name beginning {w}"),
            (" and have a short name starting with the letters {w}",),
            (" - ones whose short name starts with the letters {w}", ", and with a short name beginning {w}"),
        ),
        "onset": ConditionWords(
            ("with {a} {w} start", "whose start is listed as {w}"),
            (" and have {a} {w} start", " and have their start listed as {w}"),
            (" - ones with {a} {w} start", ", and with the start listed as {w}"),
            ("{w}-onset",),
        ),
        "inheritance": ConditionWords(
            ("that run in families in {a} {w} way", "passed on in families the {w} way"),
            (" and run in families in {a} {w} way", " and are passed on in families the {w} way"),
            (" - ones that run in families in {a} {w} way", ", and passed on in families the {w} way"),
            ("{w}",),
        ),
    },
    quotes=('"{w}"', "{w}", "'{w}'"),
    named=("{m}", "{m}", "{m}", "what doctors call {m}", "the {noun} known as {m}"),
    described=('the {noun} that\'s explained as "{m}"', "the {noun} whose meaning is '{m}'"),
    lower_start=0.1,
)
