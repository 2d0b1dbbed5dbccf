"""Exact STaRK documents of the fixture SKBs (tests/helpers/stark_fixture.py write_{prime,mag,amazon}_real).

Expected strings: derived by hand from STaRK's get_doc_info/get_rel_info/compact_text (snap-stanford/stark master =
stark-qa 0.1.3 for every rendered line), not from kgqa; then checked by running stark-qa 0.1.3 on these fixtures.
"""

from __future__ import annotations

import pickletools
from pathlib import Path

import pytest

from kgqa.loaders.model import SkbData
from kgqa.loaders.stark import read_stark
from tests.helpers.stark_fixture import write_amazon_real, write_mag_real, write_prime_real


@pytest.fixture(scope="module")
def prime(tmp_path_factory: pytest.TempPathFactory) -> SkbData:
    return read_stark("prime", write_prime_real(tmp_path_factory.mktemp("prime")))


@pytest.fixture(scope="module")
def mag(tmp_path_factory: pytest.TempPathFactory) -> SkbData:
    return read_stark("mag", write_mag_real(tmp_path_factory.mktemp("mag")))


@pytest.fixture(scope="module")
def amazon(tmp_path_factory: pytest.TempPathFactory) -> SkbData:
    return read_stark("amazon", write_amazon_real(tmp_path_factory.mktemp("amazon")))


def check(data: SkbData, idx: int, doc: str, relations: str) -> None:
    node = data.nodes[idx]
    assert node.id == idx
    assert node.doc == doc  # get_doc_info(idx, add_rel=False, compact=False)
    assert node.relations is not None
    assert node.doc + node.relations == doc + relations  # get_doc_info(idx, add_rel=True, compact=False)


# ---------------------------------------------------------------------------------------------------------------------
# PRIME: clean_dict drops '' / 'nan' values (also in nested dicts, not in lists); details keys starting with '_' or
# containing '_id' are skipped; gene/protein keys get a gloss. Relations: '- relations:' (no newline: the text of each
# relation type starts with '\n  '), types in edge_type_dict order, node types in `set(node_types.tolist())` order.
# ---------------------------------------------------------------------------------------------------------------------

PRIME_CASES = [
    pytest.param(
        0,
        "- name: strongyloidiasis\n"
        "- type: disease\n"
        "- source: MONDO\n"
        "- details:\n"
        "  - mondo_name: strongyloidiasis\n"
        "  - mondo_definition: An intestinal infection caused by Strongyloides stercoralis.\n"
        "  - mayo_causes: Walking barefoot on contaminated soil.\n",
        "- relations:\n  indication: {drug: (Ivermectin),}",
        id="disease-nan-and-ids-dropped",
    ),
    pytest.param(
        1,
        "- name: Benzo(a)pyrene\n- type: exposure\n- source: CTD\n",
        "- relations:\n  interacts_with: {gene/protein: (CYP3A4),biological_process: (xenobiotic metabolic process),}",
        id="exposure-no-details-nan-id",
    ),
    pytest.param(
        2,
        "- name: CYP3A4\n"
        "- type: gene/protein\n"
        "- source: NCBI\n"
        "- details:\n"
        "  - alias (other gene names): ['CP33', 'CP34', 'CYP3A', 'CYP3A3', 'CYPIIIA3', 'CYPIIIA4', 'HLP', 'NF-25',"
        " 'P450C3', 'P450PCN1']\n"
        "  - genomic_pos (genomic position): {'chr': '7', 'end': 99381888, 'ensemblgene': 'ENSG00000160868',"
        " 'start': 99354604, 'strand': -1}\n"
        "  - generif (PubMed text): CYP3A4 activity is decreased by grapefruit juice.; Polymorphisms  of CYP3A4 alter"
        "   midazolam clearance.; Induced by rifampicin via PXR.\n"
        "  - interpro (protein family and classification information): ['Cytochrome P450',"
        " 'Cytochrome P450, E-class, group II']\n"
        "  - MIM: 124010\n"
        "  - name (gene name): cytochrome P450 family 3 subfamily A member 4\n"
        "  - other_names (extended other gene names): []\n"
        "  - summary (protein summary text): This gene encodes a member of the cytochrome P450 superfamily of"
        " enzymes.\n"
        "  - symbol: CYP3A4\n"
        "  - taxid: 9606\n"
        "  - type_of_gene (gene types): protein-coding\n",
        "- relations:\n"
        "  ppi: {gene/protein: (HTR1B),}\n"
        "  enzyme: {drug: (Ivermectin),}\n"
        "  interacts_with: {exposure: (Benzo(a)pyrene),molecular_function: (oxygen binding),pathway: (Xenobiotics),"
        "biological_process: (xenobiotic metabolic process),}\n"
        "  expression_present: {anatomy: (liver),}",
        id="gene-list-interpro-set-order-9-2-4-7",
    ),
    pytest.param(
        3,
        "- name: HTR1B\n"
        "- type: gene/protein\n"
        "- source: NCBI\n"
        "- details:\n"
        "  - alias (other gene names): 5-HT1B\n"
        "  - genomic_pos (genomic position): {'chr': '6', 'end': 77464022, 'ensemblgene': 'ENSG00000135312',"
        " 'start': 77461407, 'strand': -1}\n"
        "  - generif (PubMed text): HTR1B variants are associated with migraine.\n"
        "  - interpro (protein family and classification information): ['5-hydroxytryptamine 1B receptor']\n"
        "  - map_location: 6q14.1\n"
        "  - name (gene name): 5-hydroxytryptamine receptor 1B\n"
        "  - type_of_gene (gene types): protein-coding\n"
        "  - uniprot: {'Swiss-Prot': 'P28222'}\n",
        "- relations:\n"
        "  ppi: {gene/protein: (CYP3A4),}\n"
        "  target: {drug: (Sumatriptan),}\n"
        "  associated_with: {disease: (migraine disorder),}\n"
        "  interacts_with: {cellular_component: (endoplasmic reticulum membrane),"
        "biological_process: (xenobiotic metabolic process),}",
        id="gene-dict-interpro-genomic-list-set-order-8-7",
    ),
    pytest.param(
        4,
        "- name: Ivermectin\n"
        "- type: drug\n"
        "- source: DrugBank\n"
        "- details:\n"
        "  - description: Ivermectin is a broad-spectrum anti-parasite medication.\n"
        "  - half_life: 18 hours\n"
        "  - indication: For the treatment of intestinal strongyloidiasis.\n"
        "  - protein_binding: 93%\n"
        "  - state: solid\n"
        "  - atc_1: Antiparasitic products, insecticides and repellents\n"
        "  - category: Anthelmintics; Antiparasitic Agents\n"
        "  - group: approved | vet_approved\n"
        "  - molecular_weight: 875.1\n",
        "- relations:\n"
        "  enzyme: {gene/protein: (CYP3A4),}\n"
        "  indication: {disease: (strongyloidiasis),}\n"
        "  synergistic_interaction: {drug: (Sumatriptan),}",
        id="drug",
    ),
    pytest.param(
        5,
        "- name: Sumatriptan\n- type: drug\n- source: DrugBank\n",
        "- relations:\n"
        "  target: {gene/protein: (HTR1B),}\n"
        "  indication: {disease: (migraine disorder),}\n"
        "  off-label_use: {disease: (migraine disorder),}\n"
        "  synergistic_interaction: {drug: (Ivermectin),}\n"
        "  side_effect: {effect/phenotype: (Headache),}",
        id="drug-details-all-dropped-pair-with-two-relations",
    ),
    pytest.param(
        6,
        "- name: xenobiotic metabolic process\n- type: biological_process\n- source: GO\n",
        "- relations:\n  interacts_with: {exposure: (Benzo(a)pyrene),gene/protein: (CYP3A4, HTR1B),}",
        id="set-order-9-before-1",
    ),
    pytest.param(
        7,
        "- name: Headache\n- type: effect/phenotype\n- source: HPO\n",
        "- relations:\n  phenotype_present: {disease: (migraine disorder),}\n  side_effect: {drug: (Sumatriptan),}",
        id="phenotype",
    ),
    pytest.param(
        9,
        "- name: migraine disorder\n"
        "- type: disease\n"
        "- source: MONDO\n"
        "- details:\n"
        "  - mondo_name: migraine disorder\n"
        "  - group_name_bert: migraine\n"
        "  - orphanet_prevalence: 0.12\n"
        "  - mayo_see_doc: See a doctor if headaches change.\n",
        "- relations:\n"
        "  indication: {drug: (Sumatriptan),}\n"
        "  off-label_use: {drug: (Sumatriptan),}\n"
        "  associated_with: {gene/protein: (HTR1B),}\n"
        "  phenotype_present: {effect/phenotype: (Headache),}",
        id="disease-group-id-bert-skipped",
    ),
    pytest.param(
        10,
        "- name: Xenobiotics\n"
        "- type: pathway\n"
        "- source: REACTOME\n"
        "- details:\n"
        "  - dbId: 211981\n"
        "  - name: ['Xenobiotics']\n"
        "  - speciesName: Homo sapiens\n"
        "  - stId: R-HSA-211981\n"
        "  - stIdVersion: R-HSA-211981.2\n",
        "- relations:\n  interacts_with: {gene/protein: (CYP3A4),}",
        id="pathway-name-list-not-glossed",
    ),
    pytest.param(
        12,
        "- name: endoplasmic reticulum membrane\n- type: cellular_component\n- source: GO\n",
        "- relations:\n  interacts_with: {gene/protein: (HTR1B),}",
        id="cellular-component",
    ),
]


@pytest.mark.parametrize(("idx", "doc", "relations"), PRIME_CASES)
def test_prime_documents(prime: SkbData, idx: int, doc: str, relations: str) -> None:
    check(prime, idx, doc, relations)


@pytest.mark.parametrize(
    ("idx", "type_", "name"),
    [
        (0, "disease", "strongyloidiasis"),
        (1, "exposure", "Benzo(a)pyrene"),
        (2, "gene/protein", "CYP3A4"),
        (4, "drug", "Ivermectin"),
        (6, "biological_process", "xenobiotic metabolic process"),
        (8, "anatomy", "liver"),
        (10, "pathway", "Xenobiotics"),
        (11, "molecular_function", "oxygen binding"),
    ],
)
def test_prime_names(prime: SkbData, idx: int, type_: str, name: str) -> None:
    assert (prime.nodes[idx].type, prime.nodes[idx].name) == (type_, name)


# ---------------------------------------------------------------------------------------------------------------------
# MAG: per-type templates (paper and institution/field lines start with ' - ', author and count lines with '- ');
# author/institution/field documents get .replace('-1', 'Unknown') (also inside names), paper documents do not; the
# graph is made undirected by STaRK, so 'cites' lists citing and cited papers; relations only for papers, every
# relation type line is '\n<type with ___ as spaces>: (...),' after '- relations:\n'.
# ---------------------------------------------------------------------------------------------------------------------

PAPER_11 = (
    " - paper title: Deep Residual Learning for Image Recognition\n"
    " - abstract: Deeper neural networks are more difficult to train.\nWe present a residual learning framework. \n"
    " - publication date: 2016-06-27\n"
    " - venue: computer vision and pattern recognition\n"
)
PAPER_11_RELATIONS = (
    "- relations:\n"
    '\npaper cites paper: ("Insulin resistance in Type-1 diabetes", "Attention Is All You Need",'
    ' "Batch Normalization"),'
    "\npaper has_topic field_of_study: (Computer vision, Deep learning),"
    "\nauthor writes paper: (lei wang (Tsinghua University, Microsoft), wei zhang (Tsinghua University)),"
)

MAG_CASES = [
    pytest.param(
        0, "- author name: lei wang\n- author paper count: 120\n- author citation count: 1345\n", "", id="author"
    ),
    pytest.param(
        1,
        "- author name: Unknown\n- author paper count: 7\n- author citation count: 40\n",
        "",
        id="author-name-minus-one",
    ),
    pytest.param(2, "- author name: john smith\n- author paper count: 3\n", "", id="author-citations-minus-one"),
    pytest.param(
        3, "- author name: a. kumar\n- author paper count: 0\n- author citation count: 0\n", "", id="author-zero"
    ),
    pytest.param(4, "- author name: wei zhang\n- author citation count: 21\n", "", id="author-papers-minus-one"),
    pytest.param(
        5,
        " - institution: Tsinghua University\n- institution paper count: 201458\n"
        "- institution citation count: 2849521\n",
        "",
        id="institution",
    ),
    pytest.param(6, " - institution: Microsoft\n", "", id="institution-counts-minus-one"),
    pytest.param(
        7,
        " - institution: Unknown\n- institution paper count: 12\n- institution citation count: 310\n",
        "",
        id="institution-name-minus-one-string",
    ),
    pytest.param(
        8,
        " - field of study: Computer vision\n- field paper count: 1432110\n- field citation count: 12934857\n",
        "",
        id="field",
    ),
    pytest.param(
        9, " - field of study: TypeUnknown diabetes\n- field paper count: 1001\n", "", id="field-minus-one-in-name"
    ),
    pytest.param(11, PAPER_11, PAPER_11_RELATIONS, id="paper-venue-abstract-cr"),
    pytest.param(
        12,
        " - paper title: Insulin resistance in Type-1 diabetes\n"
        " - abstract: We study the L-1 regularised model of insulin response.\n"
        " - journal: Nature\n",
        "- relations:\n"
        '\npaper cites paper: ("Deep Residual Learning for Image Recognition", "Attention Is All You Need"),'
        "\npaper has_topic field_of_study: (Type-1 diabetes),"
        "\nauthor writes paper: (john smith),",
        id="paper-no-date-journal",
    ),
    pytest.param(
        13,
        " - paper title: Attention Is All You Need\n"
        " - abstract: The dominant sequence transduction models are based on recurrent networks.\n"
        " - publication date: 2017-12-04\n"
        " - conference: Neural Information Processing Systems\n",
        "- relations:\n"
        '\npaper cites paper: ("Deep Residual Learning for Image Recognition",'
        ' "Insulin resistance in Type-1 diabetes"),'
        "\npaper has_topic field_of_study: (Deep learning),"
        "\nauthor writes paper: (a. kumar),",
        id="paper-conference-series",
    ),
    pytest.param(
        14,
        " - paper title: Batch Normalization\n"
        " - abstract: Training deep networks is complicated.\n"
        " - publication date: 2015-07-06\n"
        " - conference: ICML 2015\n",
        "- relations:\n"
        '\npaper cites paper: ("Deep Residual Learning for Image Recognition"),'
        "\nauthor writes paper: (),",
        id="paper-conference-instance-unnamed-author",
    ),
    pytest.param(
        15,
        " - paper title: An orphan paper\n - abstract: No links.\n - publication date: 1998-01-01\n",
        "",
        id="paper-no-venue-no-edges",
    ),
]


@pytest.mark.parametrize(("idx", "doc", "relations"), MAG_CASES)
def test_mag_documents(mag: SkbData, idx: int, doc: str, relations: str) -> None:
    check(mag, idx, doc, relations)


@pytest.mark.parametrize(
    ("idx", "type_", "name"),
    [
        (0, "author", "lei wang"),
        (5, "institution", "Tsinghua University"),
        (9, "field_of_study", "Type-1 diabetes"),
        (11, "paper", "Deep Residual Learning for Image Recognition"),
        (15, "paper", "An orphan paper"),
    ],
)
def test_mag_names(mag: SkbData, idx: int, type_: str, name: str) -> None:
    assert (mag.nodes[idx].type, mag.nodes[idx].name) == (type_, name)


# ---------------------------------------------------------------------------------------------------------------------
# AMAZON: the dimensions/weight line reads node.details.dictionary.product_dimensions; node.details is a Node whose
# .dictionary is the raw dict, and a dict has no attribute product_dimensions: the bare except swallows the
# AttributeError, so STaRK (GitHub master, stark-qa <= 0.1.3) never renders it. stark-qa 1.1.0 (PyPI) reads
# node.details.product_dimensions and renders it: swap in the commented strings to follow 1.1.0.
# Reviews: ranked by np.argsort(-votes) (nan -> 0, '1,203' -> 1203), numbered by their position in the list, and
# the loop breaks after index 26 (> max_entries=25): 27 shown; Q&A likewise. Features keep their list position and
# skip '' and any containing 'asin' (also 'basin'). Relations: also_buy/also_view neighbours of the undirected graph
# (the pair 0-2 is both also_buy and also_view: the mean-reduced type 0.5 -> 0 makes it also_buy only), then brand.
# ---------------------------------------------------------------------------------------------------------------------

TENT_DIMENSIONS = ""  # stark-qa 1.1.0: "- dimensions: 8 x 5 x 2 inches\n- weight: 1.6 ounces\n"
FLASK_DIMENSIONS = ""  # stark-qa 1.1.0: "- dimensions: 3.6 x 3.6 x 9.4 inches\n- weight: 15.2 ounces\n"

TENT_DOC = (
    "- product: Coleman Sundome 4-Person Tent\n"
    "- brand: Coleman\n"
    + TENT_DIMENSIONS
    + "- description: The Coleman Sundome sets up in 10 minutes. Includes rainfly.\n"
    "- features: \n"
    "#1: Sleeps 4 adults\n"
    "#5: WeatherTec system with welded floors\n"
    "- reviews: \n"
    '#18:\nsummary: Best tent ever \ntext: "Text of tent review 18."\n'
    '#3:\nsummary: Tent review 3\ntext: "Survived a "real" storm.\nStill dry inside."\n'
    '#9:\nsummary: Tent review 9\ntext: "Text of tent review 9."\n'
    '#13:\nsummary: Tent review 13\ntext: "Text of tent review 13."\n'
    '#30:\nsummary: Tent review 30\ntext: "Text of tent review 30."\n'
    '#29:\nsummary: Tent review 29\ntext: "Text of tent review 29."\n'
    '#28:\nsummary: Tent review 28\ntext: "Text of tent review 28."\n'
    '#27:\nsummary: Tent review 27\ntext: "Text of tent review 27."\n'
    '#26:\nsummary: Tent review 26\ntext: "Text of tent review 26."\n'
    '#25:\nsummary: Tent review 25\ntext: "Text of tent review 25."\n'
    '#24:\nsummary: Tent review 24\ntext: "Text of tent review 24."\n'
    '#23:\nsummary: Tent review 23\ntext: "Text of tent review 23."\n'
    '#22:\nsummary: Tent review 22\ntext: "Text of tent review 22."\n'
    '#21:\nsummary: Tent review 21\ntext: "Text of tent review 21."\n'
    '#20:\nsummary: Tent review 20\ntext: "Text of tent review 20."\n'
    '#19:\nsummary: Tent review 19\ntext: "Text of tent review 19."\n'
    '#4:\nsummary: Tent review 4\ntext: "Text of tent review 4."\n'
    '#17:\nsummary: Tent review 17\ntext: "Text of tent review 17."\n'
    '#6:\nsummary: Tent review 6\ntext: "Text of tent review 6."\n'
    '#7:\nsummary: Tent review 7\ntext: "Text of tent review 7."\n'
    '#16:\nsummary: Tent review 16\ntext: "Text of tent review 16."\n'
    '#15:\nsummary: Tent review 15\ntext: "Text of tent review 15."\n'
    '#14:\nsummary: Tent review 14\ntext: "Text of tent review 14."\n'
    '#1:\nsummary: Tent review 1\ntext: "Text of tent review 1."\n'
    '#10:\nsummary: Tent review 10\ntext: "Text of tent review 10."\n'
    '#11:\nsummary: Tent review 11\ntext: "Text of tent review 11."\n'
    '#5:\nsummary: Tent review 5\ntext: "Text of tent review 5."\n'
    "- Q&A: \n"
    '#1:\nquestion: "Is it waterproof?"\nanswer: "Yes."\n'
    '#2:\nquestion: "How tall is it?"\nanswer: "About 5 feet."\n'
    '#3:\nquestion: "Does it include stakes?"\nanswer: "No"\n'
)
BOTTLE_DOC = (
    "- product: Stanley Classic Vacuum Bottle\n"
    "- description: Keeps drinks hot for 24 hours.\n"
    "- features: \n"
    "- Q&A: \n"
    '#1:\nquestion: "Question 1?"\nanswer: "Answer 1."\n'
    '#2:\nquestion: "Question 2?"\nanswer: "Answer 2."\n'
    '#3:\nquestion: "Question 3?"\nanswer: "Answer 3."\n'
    '#4:\nquestion: "Question 4?"\nanswer: "Answer 4."\n'
    '#5:\nquestion: "Question 5?"\nanswer: "Answer 5."\n'
    '#6:\nquestion: "Question 6?"\nanswer: "Answer 6."\n'
    '#7:\nquestion: "Question 7?"\nanswer: "Answer 7."\n'
    '#8:\nquestion: "Question 8?"\nanswer: "Answer 8."\n'
    '#9:\nquestion: "Question 9?"\nanswer: "Answer 9."\n'
    '#10:\nquestion: "Question 10?"\nanswer: "Answer 10."\n'
    '#11:\nquestion: "Question 11?"\nanswer: "Answer 11."\n'
    '#12:\nquestion: "Question 12?"\nanswer: "Answer 12."\n'
    '#13:\nquestion: "Question 13?"\nanswer: "Answer 13."\n'
    '#14:\nquestion: "Question 14?"\nanswer: "Answer 14."\n'
    '#15:\nquestion: "Question 15?"\nanswer: "Answer 15."\n'
    '#16:\nquestion: "Question 16?"\nanswer: "Answer 16."\n'
    '#17:\nquestion: "Question 17?"\nanswer: "Answer 17."\n'
    '#18:\nquestion: "Question 18?"\nanswer: "Answer 18."\n'
    '#19:\nquestion: "Question 19?"\nanswer: "Answer 19."\n'
    '#20:\nquestion: "Question 20?"\nanswer: "Answer 20."\n'
    '#21:\nquestion: "Question 21?"\nanswer: "Answer 21."\n'
    '#22:\nquestion: "Question 22?"\nanswer: "Answer 22."\n'
    '#23:\nquestion: "Question 23?"\nanswer: "Answer 23."\n'
    '#24:\nquestion: "Question 24?"\nanswer: "Answer 24."\n'
    '#25:\nquestion: "Question 25?"\nanswer: "Answer 25."\n'
    '#26:\nquestion: "Question 26?"\nanswer: "Answer 26."\n'
    '#27:\nquestion: "Question 27?"\nanswer: "Answer 27."\n'
)
LANTERN_DOC = (
    "- product: Coleman Northstar Propane Lantern\n"
    "- brand: Coleman\n"
    "- reviews: \n"
    '#3:\nsummary: Bright\ntext: "Very bright lantern."\n'
    '#1:\nsummary: OK\ntext: "Does the job."\n'
    '#2:\nsummary: Meh\ntext: "nan"\n'
)
LANTERN_RELATIONS = (
    "- relations:\n"
    "  products also purchased: \n#1: Coleman Sundome 4-Person Tent\n"
    "  products also viewed: \n#1: Coleman Brazos Sleeping Bag\n"
    "  brand: Coleman\n"
)

AMAZON_CASES = [
    pytest.param(
        0,
        TENT_DOC,
        "- relations:\n"
        "  products also purchased: \n"
        "#1: Coleman Northstar Propane Lantern\n"
        "#2: Stanley Classic Vacuum Bottle\n"
        "#3: Coleman Brazos Sleeping Bag\n"
        "  products also viewed: \n"
        "#1: Hydro Flask 32 oz Wide Mouth\n"
        "  brand: Coleman\n",
        id="product-reviews-cut-off-features-asin",
    ),
    pytest.param(1, LANTERN_DOC, LANTERN_RELATIONS, id="product-nan-vote-nan-text-no-features"),
    pytest.param(
        2,
        BOTTLE_DOC,
        "- relations:\n"
        "  products also purchased: \n#1: Coleman Sundome 4-Person Tent\n"
        "  products also viewed: \n#1: Hydro Flask 32 oz Wide Mouth\n",
        id="product-no-brand-qa-cut-off-all-features-skipped",
    ),
    pytest.param(
        3,
        "- product: Hydro Flask 32 oz Wide Mouth\n"
        "- brand: Hydro Flask\n" + FLASK_DIMENSIONS + "- features: \n"
        "#1: Double-wall vacuum insulation\n"
        "- reviews: \n"
        '#1:\nsummary: Keeps ice\ntext: "Ice lasts two days."\n'
        "- Q&A: \n"
        '#1:\nquestion: "Is it waterproof?"\nanswer: "Yes."\n',
        "- relations:\n"
        "  products also viewed: \n#1: Coleman Sundome 4-Person Tent\n#2: Stanley Classic Vacuum Bottle\n"
        "  brand: Hydro Flask\n",
        id="product-empty-description",
    ),
    pytest.param(
        4,
        "- product: Coleman Brazos Sleeping Bag\n"
        "- brand: Coleman\n"
        "- description: Rated to 30 degrees.\n"
        "- features: \n"
        "#1: Fits adults up to 5 ft 11 in\n",
        "- relations:\n"
        "  products also purchased: \n#1: Coleman Sundome 4-Person Tent\n"
        "  products also viewed: \n#1: Coleman Northstar Propane Lantern\n"
        "  brand: Coleman\n",
        id="product-plain",
    ),
    pytest.param(5, "brand name: Coleman", "", id="brand"),
    pytest.param(6, "brand name: Hydro Flask", "", id="brand-2"),
    pytest.param(7, "category name: camping & hiking", "", id="category"),
    pytest.param(10, "category name: tents", "", id="category-2"),
    pytest.param(12, "color name: black", "", id="color"),
    pytest.param(14, "color name: green", "", id="color-2"),
]


@pytest.mark.parametrize(("idx", "doc", "relations"), AMAZON_CASES)
def test_amazon_documents(amazon: SkbData, idx: int, doc: str, relations: str) -> None:
    check(amazon, idx, doc, relations)


@pytest.mark.parametrize(
    ("idx", "type_", "name"),
    [
        (0, "product", "Coleman Sundome 4-Person Tent"),
        (2, "product", "Stanley Classic Vacuum Bottle"),
        (5, "brand", "Coleman"),
        (6, "brand", "Hydro Flask"),
        (7, "category", "camping & hiking"),
        (11, "category", "thermoses"),
        (13, "color", "blue"),
    ],
)
def test_amazon_names(amazon: SkbData, idx: int, type_: str, name: str) -> None:
    node = amazon.nodes[idx]
    assert (node.type, node.name) == (type_, name)
    assert type(node.name) is str  # not numpy.str_


def test_amazon_pickles_reference_numpy1_scalars(tmp_path: Path) -> None:
    """The fixture itself: numpy scalars pickled as numpy 1.x wrote them (what a loader must accept)."""
    root = write_amazon_real(tmp_path)
    for path in (root / "processed" / "node_info.pkl", root / "processed/cache/brand-category-color/node_info.pkl"):
        strings = [arg for op, arg, _ in pickletools.genops(path.read_bytes()) if op.name == "SHORT_BINUNICODE"]
        assert "numpy.core.multiarray" in strings and "scalar" in strings and "dtype" in strings
        assert "numpy._core.multiarray" not in strings


# ---------------------------------------------------------------------------------------------------------------------
# compact_text (get_doc_info(..., compact=True)): '\n' -> '. ', drop '\r', drop '- ', ': .'/':.' -> ':', runs of
# whitespace -> ' ', '.. ' -> '. '.
# ---------------------------------------------------------------------------------------------------------------------

COMPACT_CASES = [
    pytest.param(
        PAPER_11 + PAPER_11_RELATIONS,
        " paper title: Deep Residual Learning for Image Recognition. abstract: Deeper neural networks are more"
        " difficult to train. We present a residual learning framework. . publication date: 2016-06-27. venue:"
        " computer vision and pattern recognition. relations: . paper cites paper:"
        ' ("Insulin resistance in Type-1 diabetes", "Attention Is All You Need", "Batch Normalization"),.'
        " paper has_topic field_of_study: (Computer vision, Deep learning),."
        " author writes paper: (lei wang (Tsinghua University, Microsoft), wei zhang (Tsinghua University)),",
        id="mag-paper",
    ),
    pytest.param(
        "- name: xenobiotic metabolic process\n- type: biological_process\n- source: GO\n"
        "- relations:\n  interacts_with: {exposure: (Benzo(a)pyrene),gene/protein: (CYP3A4, HTR1B),}",
        "name: xenobiotic metabolic process. type: biological_process. source: GO. relations: interacts_with:"
        " {exposure: (Benzo(a)pyrene),gene/protein: (CYP3A4, HTR1B),}",
        id="prime",
    ),
    pytest.param(
        LANTERN_DOC + LANTERN_RELATIONS,
        'product: Coleman Northstar Propane Lantern. brand: Coleman. reviews: #3: summary: Bright. text: "Very bright'
        ' lantern.". #1: summary: OK. text: "Does the job.". #2: summary: Meh. text: "nan". relations: products also'
        " purchased: #1: Coleman Sundome 4-Person Tent. products also viewed: #1: Coleman Brazos Sleeping Bag."
        " brand: Coleman. ",
        id="amazon-product",
    ),
]


@pytest.mark.parametrize(("text", "compacted"), COMPACT_CASES)
def test_compact_text(text: str, compacted: str) -> None:
    from kgqa.loaders.stark_documents import compact_text  # being written alongside this test

    assert compact_text(text) == compacted


def test_compact_text_of_loaded_document(mag: SkbData) -> None:
    from kgqa.loaders.stark_documents import compact_text

    node = mag.nodes[11]
    assert node.relations is not None
    assert compact_text(node.doc + node.relations) == COMPACT_CASES[0].values[1]
