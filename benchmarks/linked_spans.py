"""How often a span the no-LLM linker links is a true constant of the question (issue 30, item 2).

Reads the records of ``benchmarks/families_hpo.py``'s default grid point (each answer's step 2 and 3 details: the
links, and the links the plan did not join) and the question metadata (each question's anchor and textual
condition), and sorts every link into:

- ``anchor``: the linked node is the question's anchor (a true constant);
- ``condition``: the span lies in the words of the textual condition (the answers' own text, not a node to join);
- ``other``: anything else (a relation or framing word that names an HPO term, 'Right', 'Prolonged'; a part of a
  described anchor).

and counts, per family and kind of span, how many links there were and how many the plan joined (the rest were
dropped as unreachable). Writes benchmarks/results/linked_spans.json and the table between the ``linked_spans``
markers in docs/results.md.

    python benchmarks/linked_spans.py
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from kgqa.lab.evaluate import load_records
from kgqa.provenance import allow_dirty_flag, provenance, replace_block, require_committed

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
RECORDS = RESULTS / "families_hpo_default.json"
META = RESULTS / "families_hpo_questions.meta.json"
OUT = RESULTS / "linked_spans.json"
DOC = ROOT / "docs" / "results.md"
LINK = re.compile(r"'(.+?)' -> ([\w/]+) '(.+?)'(?: via alias '(.+?)')? \((\d\.\d\d)\)")
KINDS = ("anchor", "condition", "other")


def kind_of(span: str, name: str, alias: str, question: dict[str, Any]) -> str:
    """Which kind of span a link is (see the module docstring)."""
    if question["anchor_name"].lower() in (name.lower(), alias.lower()):
        return "anchor"
    condition = {w.lower() for w in re.findall(r"\w+", str(question.get("word") or ""))}
    if condition and {w.lower() for w in re.findall(r"\w+", span)} <= condition:
        return "condition"
    return "other"


def count() -> dict[str, dict[str, dict[str, int]]]:
    """family -> kind -> {"links": n, "joined": n} over every answered question."""
    meta = {str(q["id"]): q for q in json.loads(META.read_text(encoding="utf-8"))["questions"]}
    table: dict[str, dict[str, Counter[str]]] = {}
    for record in load_records(RECORDS):
        question = meta[record.id]
        details = {step["step"]: str(step.get("detail", "")) for step in record.steps}
        links = LINK.findall(details.get(2, "").split("; relation types:")[0])
        dropped = Counter(span for span, *_ in LINK.findall(details.get(3, "").split("not joined:", 1)[-1]))
        if "not joined:" not in details.get(3, ""):
            dropped.clear()
        for span, _label, name, alias, _similarity in links:
            kind = kind_of(span, name, alias, question)
            for family in (question["family"], "all"):
                counts = table.setdefault(family, {k: Counter() for k in KINDS})[kind]
                counts["links"] += 1
                counts["joined"] += 0 if dropped[span] > 0 else 1
            if dropped[span] > 0:
                dropped[span] -= 1
    return {family: {k: dict(c) for k, c in kinds.items()} for family, kinds in table.items()}


def render(doc: dict[str, Any]) -> str:
    lines = [
        f"Links of the no-LLM linker on `families_hpo_questions.csv` (default grid point, commit "
        f"{str(doc['provenance'].get('commit'))[:7]}): per family, how many links of each kind, and in brackets how "
        "many the plan joined (the others no answer reaches).",
        "",
        "| family | links | anchor (true constant) | condition words | other |",
        "|---|---|---|---|---|",
    ]
    for family, kinds in doc["families"].items():
        total = sum(k.get("links", 0) for k in kinds.values())
        cells = [
            f"{k.get('links', 0)} = {k.get('links', 0) / total:.0%} ({k.get('joined', 0)})" if total else "-"
            for k in (kinds[name] for name in KINDS)
        ]
        lines.append(f"| {family} | {total} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    allow_dirty_flag(parser)
    require_committed(parser.parse_args().allow_dirty)
    families = count()
    order = [f for f in json.loads(META.read_text(encoding="utf-8"))["families"] if f in families] + ["all"]
    doc = {"provenance": provenance(), "records": str(RECORDS.name), "families": {f: families[f] for f in order}}
    OUT.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    title = "## How often a linked span is a true constant (`benchmarks/linked_spans.py`)"
    DOC.write_text(replace_block(DOC.read_text(encoding="utf-8"), "linked_spans", render(doc), title), encoding="utf-8")
    print(render(doc))


if __name__ == "__main__":
    main()
