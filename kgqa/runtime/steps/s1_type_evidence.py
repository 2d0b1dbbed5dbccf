"""Method step 1, settled once the plans are grounded: the answer type the evidence supports.

Step 1 reads the type from the question before any plan exists, and the learned reader may outvote the LLM there
(kgqa.runtime.steps.s1_target_type). A reader sure of the wrong type lost every answer of a correct LLM. A plan is
evidence of its own answer type, and a strong one: an LLM whose vote and plan say the same type, whose constants all
link exactly (by name or alias, :data:`EXACT_LINK`) and whose plan grounds answers in the first round (l = 1, the
graph holds the pattern as written with the first candidate of every constant) read the question right more often
than any reader can guess. A junk LLM's plan names nothing real, so it links nothing exactly and grounds nothing at
l = 1: it never outweighs the reader. Otherwise step 1's type stands, and the plans of another type stay in the
ranking behind it, their weight scaled by their type's prior (:func:`off_type_weight`): none is dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kgqa.runtime.scoring import EXACT_LINK
from kgqa.runtime.steps.s1_target_type import TargetType

FIRST_ROUND = 1
"""The round l a strong plan grounds answers in: every constant at its first candidate."""


@dataclass(frozen=True)
class PlanEvidence:
    """What one grounded plan says of the answer type: whose it is, the type it answers, how each constant linked
    (its search string and best candidate's similarity; 1.0 for an exact name or alias) and the earliest round that
    grounded a target with how many it grounded then (None: it grounded nothing)."""

    source: str
    answers: str | None
    links: tuple[tuple[str, float], ...]
    first: tuple[int, int] | None

    @classmethod
    def of(
        cls, source: str, answers: str | None, links: Sequence[tuple[str, float]], rounds: Sequence[int]
    ) -> PlanEvidence:
        """From each constant's best link and the round l of each target step 5 grounded."""
        first = min(rounds) if rounds else None
        return cls(source, answers, tuple(links), None if first is None else (first, sum(r == first for r in rounds)))

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

    @property
    def changed(self) -> bool:
        return self.detail.startswith("changed")


def decide_type(step1: TargetType, evidence: Sequence[PlanEvidence]) -> TypeDecision:
    """The answer type: the LLM's vote where step 1's reading set it aside by a guess (``step1.read_as`` is not
    ``named``: the learned reader, a subject phrase) but the LLM's own plan answers that type and is
    :attr:`PlanEvidence.strong`; step 1's type otherwise. The detail names the evidence, with numbers."""
    vote = step1.vote
    if vote is None or vote == step1.label:
        return TypeDecision(step1.label)
    if step1.read_as == "named":
        return TypeDecision(step1.label, f"{step1.label} stands: the question names it; no plan overrules its words")
    llm = next((e for e in evidence if e.source == "llm"), None)
    if llm is not None and llm.answers == vote and llm.strong:
        assert llm.first is not None
        links = ", ".join(f"{name!r} {score:.2f}" for name, score in llm.links)
        return TypeDecision(
            vote,
            f"changed to {vote}: the LLM's vote and its plan agree, its constants link exactly ({links}) and it "
            f"grounds {llm.first[1]} answer(s) at l = {llm.first[0]}; that outweighs step 1's {step1.label} "
            f"({step1.detail})",
        )
    return TypeDecision(step1.label, f"{step1.label} stands: the LLM's {vote} {_weak(llm, vote)}")


def _weak(llm: PlanEvidence | None, vote: str) -> str:
    """Why the LLM's plan is no evidence for its vote ``vote``."""
    if llm is None:
        return "has no plan grounded beside it"
    if llm.answers != vote:
        return f"is not what its own plan answers ({llm.answers or 'any node'})"
    if not llm.links:
        return "has a plan that names no constant"
    if llm.inexact:
        shown = ", ".join(f"{name!r} {score:.2f}" for name, score in llm.inexact)
        return f"has a plan whose constants do not all link exactly ({shown} < {EXACT_LINK:g})"
    if llm.first is None:
        return "has a plan that grounds nothing"
    return f"has a plan that grounds nothing before l = {llm.first[0]}"


def off_type_weight(weight: float, answers: str | None, decided: str, prior: Mapping[str, float] | None) -> float:
    """The weight in step 6 of a plan whose answers are not of the ``decided`` type: its own, times its type's prior
    over the decided type's (the learned reader's probabilities, at most 1); its own without a reader. Step 6 also
    counts its rounds one later (kgqa.runtime.steps.s6_graph_ranking.counted_round), so its targets follow the decided
    type's of the same round."""
    if not prior or answers is None:
        return weight
    decided_prior = prior.get(decided, 0.0)
    if decided_prior <= 0:
        return weight
    return weight * min(1.0, prior.get(answers, 0.0) / decided_prior)
