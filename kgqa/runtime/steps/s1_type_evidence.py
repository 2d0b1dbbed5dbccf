"""Method step 1, settled once the plans are grounded: the answer type the evidence supports.

Step 1 reads the type from the question before any plan exists, and its reading may outvote the LLM there
(kgqa.runtime.steps.s1_target_type): a reader sure of the wrong type lost every answer of a correct LLM. A plan is
evidence of its own answer type, and a strong one (:attr:`PlanEvidence.strong`) names real nodes exactly (by name or
alias, :data:`EXACT_LINK`) and grounds answers in the first round (l = 1: the graph holds the pattern as written, every
constant at its first candidate). An LLM whose vote and strong plan say the same type settles the type where the
question's own entities back it (the linked entities' plan for that type grounds some of the same answers at l = 1),
or where no plan of step 1's type is strong. A junk LLM's plan names nothing real, so it is never strong; one whose
words happen to name a node (three words of the question that are a phenotype's name) is not backed where the
question's entities read another type. Where the evidence is split, step 1's type stands and both types' plans are
ranked; a plan of another type is never dropped (:data:`OffType`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kgqa.runtime.scoring import EXACT_LINK, OffType
from kgqa.runtime.steps.s1_target_type import SURE_LINK, TargetType

FIRST_ROUND = 1
"""The round l a strong plan grounds answers in: every constant at its first candidate."""


@dataclass(frozen=True)
class PlanEvidence:
    """What one grounded plan says of the answer type: whose it is, the type it answers, how each constant linked
    (its best candidate's name and similarity; 1.0 for an exact name or alias), the earliest round that grounded a
    target with how many it grounded then (None: it grounded nothing), and the targets of round l = 1."""

    source: str
    answers: str | None
    links: tuple[tuple[str, float], ...]
    first: tuple[int, int] | None
    at_first: frozenset[str] = frozenset()
    given: bool = False
    """Step 3 gave the answer the type the LLM was asked for (it wrote ``(y:trait)``, no label of the schema): the
    plan's answer type is the prompt's, no evidence of the LLM's reading."""
    matches: int | None = None
    """How many of its l = 1 answers hold the words of the textual condition the question states (None: not read,
    the question states none)."""
    walks: bool = False
    """Its constants join its answers only through a hierarchy (HPO's parent-child), and the question says none
    (:attr:`TargetType.unwalked`): such a plan is the schema's only way from the constants' type to itself, not what
    the question asks ("which inborn errors cause hepatosplenomegaly?" is no question about hepatosplenomegaly's
    parents)."""

    @classmethod
    def of(
        cls,
        source: str,
        answers: str | None,
        links: Sequence[tuple[str, float]],
        targets: Sequence[tuple[str, int]],
        *,
        given: bool = False,
        matches: int | None = None,
        walks: bool = False,
    ) -> PlanEvidence:
        """From each constant's best link and each target step 5 grounded, with its round l."""
        first = min((round_l for _, round_l in targets), default=None)
        at_first = frozenset(t for t, round_l in targets if round_l <= FIRST_ROUND)
        count = None if first is None else (first, sum(round_l == first for _, round_l in targets))
        return cls(source, answers, tuple(links), count, at_first, given, matches, walks)

    @property
    def inexact(self) -> tuple[tuple[str, float], ...]:
        """The constants that do not link exactly."""
        return tuple((name, score) for name, score in self.links if score < EXACT_LINK)

    @property
    def strong(self) -> bool:
        """Whether the plan names real nodes exactly and the graph holds it as written (see the module)."""
        return bool(self.links) and not self.inexact and self.first is not None and self.first[0] <= FIRST_ROUND


@dataclass(frozen=True)
class TypeDecision:
    """The ask's answer type after grounding, and what decided it (empty where step 1's type was never in doubt:
    no LLM, or the LLM voted step 1's type)."""

    label: str
    detail: str = ""
    changed: bool = False
    """The evidence set step 1's type aside for the LLM's."""


def decide_type(step1: TargetType, evidence: Sequence[PlanEvidence]) -> TypeDecision:
    """The answer type: the LLM's vote where step 1 set it aside (``step1.vote``), if the LLM's own plan answers that
    type by a label it wrote (not :attr:`PlanEvidence.given`), is :attr:`PlanEvidence.strong`, and either the
    question's own entities back it (the linked entities' plan for that type, strong too, grounds some of its l = 1
    answers) or no plan of step 1's type is strong; unless step 1 is :attr:`TargetType.firm` (the question names its
    type and the learned reader reads it too: an LLM sure of the wrong type writes a coherent plan for it, which the
    question's entities back as well, for they join that type too). Step 1's type otherwise: where a strong plan of
    each type stands and the LLM's is unbacked, the evidence is split, and step 6 ranks both. A type word alone is a
    vote like the LLM's: "genes with symbols of the form CDH... link to *disorders*" names a type that is not the
    answer's. Where no LLM plan is evidence (no LLM, or a weak plan) and step 1 is in doubt
    (:attr:`TargetType.rivals`), the linked entities' plans of each type settle it (:func:`_by_grounding`). The detail
    names the evidence, with numbers."""
    vote, label = step1.vote, step1.label
    llm = next((e for e in evidence if e.source == "llm"), None)
    weak = llm is None or llm.answers != vote or llm.given or not llm.strong
    if vote is None or vote == label:
        return _by_grounding(step1, evidence) if step1.rivals and weak else TypeDecision(label)
    if step1.firm:
        reader = " and the learned reader reads it too" if step1.prior else ""
        return TypeDecision(label, f"{label} stands: the question names it{reader}; no LLM plan overrules both")
    if weak:
        stands = TypeDecision(label, f"{label} stands: the LLM's {vote} {_weak(llm, vote)}")
        return _by_grounding(step1, evidence, stands) if step1.rivals else stands
    assert llm is not None
    assert llm.first is not None
    links = ", ".join(f"{name!r} {score:.2f}" for name, score in llm.links)
    strong = (
        f"the LLM's vote and its plan agree, its constants link exactly ({links}) and it grounds {llm.first[1]} "
        f"answer(s) at l = {llm.first[0]}"
    )
    backing = [e for e in evidence if e is not llm and e.answers == vote and e.strong and e.at_first & llm.at_first]
    rivals = [e for e in evidence if e.answers == label and e.strong]
    if backing:
        shared = len(backing[0].at_first & llm.at_first)
        why = f"{backing[0].source} grounds {shared} of them at l = 1 too"
    elif not rivals:
        why = f"no plan of {label} grounds at l = 1 through exact names"
    else:
        return TypeDecision(
            label,
            f"{label} stands, the evidence split: {strong}, but {rivals[0].source} for {label} is as strong and the "
            f"question's entities do not back {vote}: both ranked, {vote}'s by its probability",
        )
    outweighed = f"that outweighs step 1's {label} ({step1.detail})"
    return TypeDecision(vote, f"changed to {vote}: {strong}, and {why}; {outweighed}", changed=True)


UNSURE_READ = 0.8
"""Without an LLM, a type the learned reader reads below this is in doubt (:func:`rivals_of`): on set 2 at bfe42f0,
5 of 11 such reads were wrong, 3 of 32 above it."""


def rivals_of(
    step1: TargetType, types: Sequence[str], walked: str | None = None, own_only: bool = False
) -> tuple[str, ...]:
    """The types the grounded plans weigh against step 1's where the question's own reading (apart from an LLM's
    vote: :attr:`TargetType.read`) neither names its type nor walks a hierarchy of it (``walked``: the label whose
    hierarchy a step word walks from a linked entity, "which *specialisations* of neurodevelopmental delay ..."):
    the reader reads it below :data:`UNSURE_READ`, or only the subject phrase or the type names say it ("which
    *entities* whose label includes 'facies' list X among their manifestations?"), or, beside an LLM's vote, nothing
    does. A sure reader is in doubt too where every surely linked entity is of the type it reads (``own_only``) and
    the question walks no hierarchy: the reader reads the question's frame ("hepatosplenomegaly and a cherry-red spot,
    what should I be thinking of?"), not what its entities are, and only the grounded plans tell whether anything but
    a hierarchy joins them to that type (:attr:`PlanEvidence.walks`); and so is one where a step word walks the
    hierarchy of another type ("which *specialisations of* autoimmune antibody positivity ... belong to Systemic
    sclerosis?", read as diseases at 0.95). They settle the type only where no LLM plan is evidence
    (:func:`decide_type`): a junk LLM's vote adds nothing to a reading in doubt."""
    if _own_reading(step1) in ("only", "given", "named", "hierarchy", "family") or walked == step1.label:
        return ()
    if _reader_sure(step1) and walked is None and not own_only:
        return ()
    return tuple(t for t in types if t != step1.label)


def _own_reading(step1: TargetType) -> str | None:
    """How the question's own reading chose step 1's type, apart from an LLM's vote (:attr:`TargetType.read`)."""
    return step1.read if step1.vote is not None else step1.method


def _reader_sure(step1: TargetType) -> bool:
    """Whether the learned reader chose step 1's type, at :data:`UNSURE_READ` or more."""
    return _own_reading(step1) == "reader" and (step1.prior or {}).get(step1.label, 0.0) >= UNSURE_READ


def support(evidence: PlanEvidence) -> tuple[int, int, int]:
    """How well a linked entities' plan answers the question, as the graph says: the linked entities it joins that
    link surely (:data:`SURE_LINK`: "diseases titled with 'Charcot-Marie-Tooth'" as the disease 'Charcot-marie-tooth
    disease, type 4H' at 0.91 is a textual condition read as a name) where it grounds answers at l = 1 (none
    otherwise, nor where it only :attr:`PlanEvidence.walks` a hierarchy), then whether some of those answers hold the
    stated textual condition (:attr:`PlanEvidence.matches`), then whether it grounds anything at all, in any round
    (a plan of phenotypes that grounds nothing against one of diseases that grounds at l = 2, where one finding
    linked loosely)."""
    grounded = evidence.first is not None and not evidence.walks
    first = grounded and evidence.first is not None and evidence.first[0] <= FIRST_ROUND
    return (_sure(evidence) if first else 0, int(bool(evidence.matches)), int(grounded))


NONE = (0, 0, 0)
"""The :func:`support` of a plan that grounds nothing."""


def _sure(evidence: PlanEvidence) -> int:
    """The plan's constants that link surely (:data:`SURE_LINK`)."""
    return sum(score >= SURE_LINK for _, score in evidence.links)


def _by_grounding(
    step1: TargetType, evidence: Sequence[PlanEvidence], otherwise: TypeDecision | None = None
) -> TypeDecision:
    """Where step 1 is in doubt (:attr:`TargetType.rivals`) and no LLM plan is evidence: the type of the linked
    entities' plan of another type with the most :func:`support`, where it has strictly more than step 1's own
    plan (or as much, and some, where its label is the one whose hierarchy the question walks:
    :attr:`TargetType.walked`), the learned reader's likelier type (:attr:`TargetType.prior`) among equals;
    ``otherwise`` (step 1's type) else."""
    label = step1.label
    own = next((e for e in evidence if e.source == "linked"), None)
    if _reader_sure(step1) and step1.unwalked and not (own is not None and own.walks):
        return otherwise or TypeDecision(label)  # a sure reader in doubt of its own plan's walk, and of nothing else
    floor = support(own) if own is not None else NONE
    linked = [e for e in evidence if e.source not in ("linked", "llm") and e.answers in step1.rivals]
    # a tie goes to the plan that takes the hierarchy step the question says ("more specific terms for X")
    rivals = [e for e in linked if support(e) > floor or (support(e) == floor > NONE and e.answers == step1.walked)]
    if not rivals:
        return otherwise or TypeDecision(label)
    prior = step1.prior or {}
    best = max(rivals, key=lambda e: (support(e), prior.get(e.answers or "", 0.0)))
    assert best.answers is not None and best.first is not None
    said = f", {best.matches} of them with the stated words" if best.matches else ""
    if own is None:
        mine = "no linked plan answers it"
    else:
        grounds = _at(own) if own.first is not None else "nothing"
        mine = f"its plan joins {_sure(own)} and grounds {grounds}"
        mine += " (it joins them only through a hierarchy the question does not walk)" * own.walks
        mine += ", none with them" * (own.matches == 0)
    why = (
        f"changed to {best.answers}: {best.source} joins {_sure(best)} surely linked entit(ies) and grounds "
        f"{_at(best)}{said}; step 1's {label} was in doubt ({step1.detail}), and {mine}"
    )
    return TypeDecision(best.answers, why, changed=True)


def _at(evidence: PlanEvidence) -> str:
    """The answers a plan grounded in its first round, as the trace says them."""
    assert evidence.first is not None
    return f"{evidence.first[1]} answer(s) at l = {evidence.first[0]}"


def _weak(llm: PlanEvidence | None, vote: str) -> str:
    """Why the LLM's plan is no evidence for its vote ``vote``."""
    if llm is None:
        return "has no plan grounded beside it"
    if llm.answers != vote:
        return f"is not what its own plan answers ({llm.answers or 'any node'})"
    if llm.given:
        return "has a plan whose answer label is the type it was asked for, not one it wrote"
    if not llm.links:
        return "has a plan that names no constant"
    if llm.inexact:
        shown = ", ".join(f"{name!r} {score:.2f}" for name, score in llm.inexact)
        return f"has a plan whose constants do not all link exactly ({shown} < {EXACT_LINK:g})"
    if llm.first is None:
        return "has a plan that grounds nothing"
    return f"has a plan that grounds nothing before l = {llm.first[0]}"


def off_type(evidence: PlanEvidence, decided: str) -> OffType:
    """How step 6 ranks the plan of ``evidence`` once the type is ``decided`` (:data:`OffType`)."""
    if evidence.answers == decided:
        return ""
    return "split" if evidence.strong else "behind"


def off_type_weight(weight: float, answers: str | None, decided: str, prior: Mapping[str, float] | None) -> float:
    """The weight in step 6 of a strong plan whose answers are not of the ``decided`` type (the evidence split): its
    own times its type's probability among the two in doubt, by the learned reader's probabilities (``prior``), even
    without a reader. Under its own weight, its targets follow the settled type's of the same round."""
    if answers is None:
        return weight / 2
    mine, theirs = (prior.get(answers, 0.0), prior.get(decided, 0.0)) if prior else (1.0, 1.0)
    return weight * (mine / (mine + theirs) if mine + theirs > 0 else 0.5)
