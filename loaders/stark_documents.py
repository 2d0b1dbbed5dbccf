"""Node documents exactly as STaRK's SKB classes render them (``get_doc_info``/``get_rel_info``, compact=False).

The reference is stark-qa 0.1.3, identical to STaRK's GitHub master in every line that reaches a document (older
commits put a blank line after PRIME's "- relations:"; stark-qa 1.1.0 changed AMAZON's dimensions line).

Every published STaRK figure embeds these texts, so kgqa reproduces them character for character, quirks included:
PRIME prints Python ``str()`` of detail values after STaRK's ``clean_dict`` and skips ``_*``/``*_id*`` keys, MAG's
author template replaces every '-1' in the text with 'Unknown' and only papers list relations, AMAZON sorts reviews
with ``np.argsort`` and never shows dimensions/weight (STaRK reads them from ``details.dictionary``, the raw dict,
so that branch always raises and is skipped). Where STaRK itself would raise on a missing field, kgqa renders the
field as absent (MAG/AMAZON) instead of failing the load.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from .stark_graph import Adjacency

Info = Mapping[str, Any]
MAX_ENTRIES = 25
"""AmazonSKB's default max_entries: reviews and Q&A stop after the entry at index max_entries + 1."""
GENE_GLOSSES = {
    "name": "gene name",
    "type_of_gene": "gene types",
    "alias": "other gene names",
    "other_names": "extended other gene names",
    "genomic_pos": "genomic position",
    "generif": "PubMed text",
    "interpro": "protein family and classification information",
    "summary": "protein summary text",
}


def compact_text(text: str) -> str:
    """STaRK's compact_text: the form its published document embeddings were computed from."""
    text = text.replace("\n", ". ").replace("\r", "")
    text = text.replace("- ", "")
    text = text.replace(": .", ":").replace(":.", ":")
    text = re.sub(r"\s{2,}", " ", text)
    return text.replace(".. ", ". ")


def clean_dict(info: Mapping[Any, Any]) -> dict[Any, Any]:
    """STaRK's clean_dict: drop values that print as '' or 'nan', recursing into dicts."""
    out: dict[Any, Any] = {}
    for key, value in info.items():
        if isinstance(value, Mapping):
            out[key] = clean_dict(value)
        elif str(value) not in ("", "nan"):
            out[key] = value
    return out


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or str(value) in ("", "-1", "nan")


def node_name(info: Info, keys: tuple[str, ...], fallback: str) -> str:
    """The first usable name field, stripped; ``fallback`` when none is set (MAG writes -1 for missing)."""
    for key in keys:
        value = info.get(key)
        if not _missing(value) and str(value).strip():
            return str(value).strip()
    return fallback


class PrimeDocuments:
    def __init__(self, node_type_dict: Mapping[int, str], edge_type_dict: Mapping[int, str]) -> None:
        self.node_type_dict = node_type_dict
        self.edge_type_dict = edge_type_dict

    def document(self, info: Info) -> str:
        node = clean_dict(info)
        doc = f"- name: {node.get('name')}\n- type: {node.get('type')}\n- source: {node.get('source')}\n"
        features = ""
        details = node.get("details")
        for key, value in details.items() if isinstance(details, Mapping) else ():
            if str(value) in ("", "nan") or key.startswith("_") or "_id" in key:
                continue
            if node.get("type") == "gene/protein" and key in GENE_GLOSSES:
                if "interpro" in key:
                    value = [v["desc"] for v in ([value] if isinstance(value, Mapping) else value)]
                if "generif" in key:
                    value = "; ".join(v["text"] for v in value)
                    value = " ".join(value.split(" ")[:50000])
                if "genomic_pos" in key and isinstance(value, list):
                    value = value[0]
                features += f"  - {key} ({GENE_GLOSSES[key]}): {value}\n"
            else:
                features += f"  - {key}: {value}\n"
        return doc + ("- details:\n" + features if features else "")

    def relations(self, node: int, adjacency: Adjacency, codes: np.ndarray, names: list[str]) -> str:
        doc = ""
        for type_id, edge_type in self.edge_type_dict.items():
            neighbours = adjacency.neighbours_of(node, type_id)
            if not neighbours:
                continue
            doc += f"\n  {edge_type.replace(' ', '_')}: " + "{"
            neighbour_types = codes[neighbours].tolist()
            for node_type in set(neighbour_types):
                shown = [names[n] for n, t in zip(neighbours, neighbour_types, strict=True) if t == node_type]
                doc += f"{self.node_type_dict[node_type]}: " + "(" + ", ".join(shown) + "),"
            doc += "}"
        return "- relations:" + doc if doc else ""


class MagDocuments:
    def __init__(self, node_type_dict: Mapping[int, str], edge_type_dict: Mapping[int, str]) -> None:
        self.edge_type_dict = edge_type_dict
        affiliated = (k for k, v in edge_type_dict.items() if v.endswith("affiliated_with___institution"))
        self.affiliated = next(affiliated, -1)

    @staticmethod
    def document(info: Info) -> str:
        kind = info.get("type")
        if kind == "paper":
            abstract = info.get("abstract", "")
            abstract = abstract if isinstance(abstract, str) else str(abstract)
            doc = f" - paper title: {info.get('title')}\n"
            doc += " - abstract: " + abstract.replace("\r", "").rstrip("\n") + "\n"
            if str(info.get("Date", -1)) != "-1":
                doc += f" - publication date: {info['Date']}\n"
            for key, label in (
                ("OriginalVenue", "venue"),
                ("JournalDisplayName", "journal"),
                ("ConferenceSeriesDisplayName", "conference"),
                ("ConferenceInstancesDisplayName", "conference"),
            ):
                if str(info.get(key, -1)) != "-1":
                    doc += f" - {label}: {info[key]}\n"
                    break
            return doc
        heads = {
            "author": ("- author name", "- author paper count", "- author citation count"),
            "field_of_study": (" - field of study", "- field paper count", "- field citation count"),
            "institution": (" - institution", "- institution paper count", "- institution citation count"),
        }
        if kind not in heads:
            return ""
        name, papers, citations = heads[kind]
        doc = f"{name}: {info.get('DisplayName')}\n"
        if info.get("PaperCount", -1) != -1:
            doc += f"{papers}: {info['PaperCount']}\n"
        if info.get("CitationCount", -1) != -1:
            doc += f"{citations}: {info['CitationCount']}\n"
        return doc.replace("-1", "Unknown")

    def relations(self, node: int, info: Mapping[int, Info], adjacency: Adjacency) -> str:
        if info[node].get("type") != "paper":
            return ""
        doc = ""
        for type_id, edge_type in self.edge_type_dict.items():
            neighbours = adjacency.neighbours_of(node, type_id)
            if not neighbours:
                continue
            doc += f"\n{edge_type.replace('___', ' ')}: "
            shown = []
            for i in neighbours:
                other = info[i]
                if other.get("type") == "paper":
                    shown.append(f'"{other.get("title")}"')
                elif str(other.get("DisplayName", -1)) == "-1":
                    continue
                elif other.get("type") == "author":
                    places = [
                        str(info[j].get("DisplayName"))
                        for j in adjacency.neighbours_of(i, self.affiliated)
                        if str(info[j].get("DisplayName", -1)) != "-1"
                    ]
                    author = f"{other['DisplayName']}"
                    shown.append(f"{author} ({', '.join(places)})" if places else author)
                else:
                    shown.append(f"{other['DisplayName']}")
            doc += "(" + ", ".join(shown) + "),"
        return "- relations:\n" + doc if doc else ""


def _vote(review: Info) -> int:
    vote = review.get("vote")
    if vote is None or (isinstance(vote, float) and math.isnan(vote)):
        return 0
    return int(vote.replace(",", "")) if isinstance(vote, str) else int(vote)


class AmazonDocuments:
    LINKS: ClassVar[dict[str, str]] = {"brand": "brand_name", "category": "category_name", "color": "color_name"}

    def __init__(self, node_type_dict: Mapping[int, str], edge_type_dict: Mapping[int, str]) -> None:
        self.node_type_dict = node_type_dict
        self.edge_ids = {name: type_id for type_id, name in reversed(list(edge_type_dict.items()))}

    def document(self, info: Info, node_type: str) -> str:
        if node_type in self.LINKS:
            return f"{node_type} name: {info.get(self.LINKS[node_type])}"
        doc = f"- product: {info.get('title')}\n"
        if "brand" in info:
            doc += f"- brand: {info['brand']}\n"
        if info.get("description") and isinstance(info["description"], list | tuple | str):
            description = " ".join(str(d) for d in info["description"]).strip(" ")
            if description:
                doc += f"- description: {description}\n"
        features = ""
        if info.get("feature") and isinstance(info["feature"], list | tuple):
            features = "- features: \n"
            for index, feature in enumerate(info["feature"]):
                if feature and "asin" not in str(feature).lower():
                    features += f"#{index + 1}: {feature}\n"
        reviews = ""
        if info.get("review") and isinstance(info["review"], list | tuple):
            reviews = "- reviews: \n"
            ranks = np.argsort(-np.array([_vote(r) for r in info["review"]]))
            for i, index in enumerate(ranks.tolist()):
                review = info["review"][index]
                reviews += f'#{index + 1}:\nsummary: {review.get("summary")}\ntext: "{review.get("reviewText")}"\n'
                if i > MAX_ENTRIES:
                    break
        answers = ""
        if info.get("qa") and isinstance(info["qa"], list | tuple):
            answers = "- Q&A: \n"
            for index, qa in enumerate(info["qa"]):
                answers += f'#{index + 1}:\nquestion: "{qa.get("question")}"\nanswer: "{qa.get("answer")}"\n'
                if index > MAX_ENTRIES:
                    break
        return doc + features + reviews + answers

    def relations(self, node: int, node_type: str, info: Mapping[int, Info], adjacency: Adjacency) -> str:
        if node_type in self.LINKS:
            return ""

        def neighbours(name: str) -> list[int]:
            return adjacency.neighbours_of(node, self.edge_ids[name]) if name in self.edge_ids else []

        doc = ""
        for name, title in (("also_buy", "products also purchased"), ("also_view", "products also viewed")):
            listed = "".join(f"#{k + 1}: {info[i].get('title')}\n" for k, i in enumerate(neighbours(name)))
            if listed:
                doc += f"  {title}: \n{listed}"
        brands = neighbours("has_brand")
        if brands:
            doc += f"  brand: {info[brands[0]].get('brand_name')}\n"
        return "- relations:\n" + doc if doc else ""
