"""``kgqa export --format neo4j-admin``: files checked the way neo4j-admin reads them (headers, ID spaces, arrays)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgqa.cli import main
from kgqa.runtime.export import ALIAS_HEADER, id_space
from tests.helpers import neo4j_lint
from tests.helpers.stark_fixture import EDGES, NODES


def check_neo4j_admin_files(directory: Path, command: str, dimension: int) -> tuple[int, int]:
    """A header/row checker: every file the command names exists; rows match their header; ids are unique per ID
    space; relationships point at existing ids; float[] cells hold ``dimension`` floats. Returns (nodes, edges)."""
    spaces: dict[str, set[str]] = {}
    node_pairs = re.findall(r"--nodes=([^,\s]+),([^\s]+)", command)
    edge_pairs = re.findall(r"--relationships=([^,\s]+),([^\s]+)", command)
    assert node_pairs and edge_pairs and "--array-delimiter=';'" in command
    aliases: list[list[str]] = []
    for header_name, data_name in node_pairs:
        header = next(csv.reader((directory / header_name).open()))
        if header == ALIAS_HEADER:  # the alias nodes: no id, they point at their node by (of_label, of)
            aliases += [row for row in csv.reader((directory / data_name).open())]
            continue
        space = re.fullmatch(r"id:ID\((.+)\)", header[0])
        vectors = ["name_emb:float[]", "doc_emb:float[]", "plain_emb:float[]"]
        assert space and header[1:] == ["name", "name_key", "doc", "rel_doc", *vectors, ":LABEL"], header
        ids = spaces.setdefault(space[1], set())
        for row in csv.reader((directory / data_name).open()):
            assert len(row) == len(header), row
            assert row[0] not in ids, f"duplicate id {row[0]} in {space[1]}"
            assert row[2] == row[1].lower(), row
            ids.add(row[0])
            for cell in row[5:8]:
                assert len([float(x) for x in cell.split(";")]) == dimension
    edges = 0
    for header_name, data_name in edge_pairs:
        header = next(csv.reader((directory / header_name).open()))
        start, end = (re.fullmatch(r":(?:START|END)_ID\((.+)\)", h) for h in header[:2])
        assert start and end and header[2] == ":TYPE", header
        for row in csv.reader((directory / data_name).open()):
            assert len(row) == 3 and row[0] in spaces[start[1]] and row[1] in spaces[end[1]], row
            edges += 1
    for row in aliases:
        assert len(row) == len(ALIAS_HEADER) and row[-1] == "_KgqaAlias", row
        assert row[0] in spaces[id_space(row[1])] and row[4] == row[3].strip().lower(), row
        assert len([float(x) for x in row[5].split(";")]) == dimension
    return sum(map(len, spaces.values())), edges


def test_export_writes_what_neo4j_admin_reads(cli_env: dict[str, str], prime_dir: Path, tmp_path: Path) -> None:
    loaded = CliRunner().invoke(main, ["load", "stark", "--name", "prime", "--dir", str(prime_dir)], env=cli_env)
    assert loaded.exit_code == 0, loaded.stderr
    out = tmp_path / "import"
    result = CliRunner().invoke(
        main, ["export", "--skb", "prime", "--format", "neo4j-admin", "--out", str(out)], env=cli_env
    )
    assert result.exit_code == 0, result.output
    command = result.stdout.splitlines()[0].removeprefix("1. ")
    assert command.startswith(f"cd {out} && neo4j-admin database import full neo4j")
    assert check_neo4j_admin_files(out, command, dimension=32) == (len(NODES), len(EDGES))
    post = (out / "post_import.cypher").read_text()
    assert "CREATE CONSTRAINT" in post and "CREATE VECTOR INDEX" in post and ":param name => 'prime'" in post
    assert "FOR (n:`_KgqaAlias`) ON (n.`name_emb`)" in post
    written = list(csv.reader((out / "aliases.csv").open()))
    gene_names = ["cytochrome P450 family 3 subfamily A member 4", "5-hydroxytryptamine receptor 1B"]
    assert [row[:5] for row in written] == [
        [node, "gene/protein", symbol, alias, alias.strip().lower()]
        for node, symbol, alias in zip(["4", "5"], ["CYP3A4", "HTR1B"], gene_names, strict=True)
    ]
    if (reason := neo4j_lint.missing()) is not None:
        pytest.skip(reason)
    statements = [
        {"name": str(i), "query": line.rstrip(";"), "parameters": {"name": "", "json": ""}}
        for i, line in enumerate(post.splitlines())
        if line and not line.startswith(("//", ":param"))
    ]
    schema = {
        "labels": ["disease", "drug", "gene/protein", "effect/phenotype", "_KgqaMeta", "_KgqaAlias"],
        "relationshipTypes": [],
        "propertyKeys": ["id", "name_emb", "doc_emb", "plain_emb", "json", "name", "name_key", "of", "key"],
    }
    assert {k: v for k, v in neo4j_lint.lint(statements, schema).items() if v} == {}
