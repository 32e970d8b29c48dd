"""The claims register (research/claims.yaml) and the documents stay in step.

Every sentence of notebooks 03-09 and of the theory file that states a general effect is an entry
of ``claims``: the sentence as printed, the knobs it depends on with the ranges tried, the table
that shows them, the property test that pins it and the exhaustive test that draws the knobs at
random from a wider space. A sentence with one of the universal words (every, always, never,
only, holds) is either such a claim or listed under ``not_claims`` with its kind and the reason it
states no general effect (a definition, a measurement over the range it names, a question, a
paper's finding, a statement about the course itself, a hedge, a summary of the section).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
REGISTER = ROOT / "research" / "claims.yaml"
THEORY = ROOT / "research" / "03-isotropy-anisotropy.md"
DOCUMENTS = {p.stem[:2]: p for p in sorted((ROOT / "notebooks").glob("0[3-9]_*.ipynb"))} | {"theory": THEORY}
UNIVERSAL = re.compile(r"\b(every|always|never|only|holds?)\b", re.I)
KINDS = {
    "definition": "says what a construction, a meter or a method is, or what follows from it by algebra",
    "measurement": "reports figures the notebook prints, over the seeds, sizes or splits it names",
    "question": "a prompt, a prediction or an exercise's options",
    "literature": "reports a paper's finding or method",
    "course": "about the course itself: its files, its cells, what it ships or runs",
    "hedge": "says what is not tested or not shown",
    "summary": "restates in words a measurement or claim of the same section, over the same range",
}
BLOCK_START = re.compile(r"^(#{1,6} |\* |- |\d+\. |\| |\|)")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z*(\"$“])")


def markdown_of(document: str) -> str:
    """The prose of a document: a notebook's markdown cells, or the theory file without code blocks."""
    path = DOCUMENTS[document]
    if path.suffix == ".ipynb":
        return "\n\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
    return re.sub(r"```.*?```", "\n\n", path.read_text(encoding="utf-8"), flags=re.S)


def sentences(markdown: str) -> list[str]:
    """The sentences of ``markdown``: blocks are paragraphs, headings, list items and table rows;
    each block's lines are joined and cut after a full stop, question or exclamation mark that is
    followed by a capital, a bold or a formula."""
    blocks, current = [], []
    for line in markdown.splitlines():
        if not line.strip() or BLOCK_START.match(line.lstrip()):
            if current:
                blocks.append(" ".join(current))
            current = [line.strip()] if line.strip() else []
            if line.lstrip().startswith("#"):  # a heading is a block of one line
                blocks.append(current.pop())
        else:
            current.append(line.strip())
    if current:
        blocks.append(" ".join(current))
    out = []
    for block in blocks:
        out.extend(s.strip() for s in SENTENCE_END.split(re.sub(r"\s+", " ", block)) if s.strip())
    return out


def universal_sentences(document: str) -> list[str]:
    return [s for s in sentences(markdown_of(document)) if UNIVERSAL.search(s)]


@pytest.fixture(scope="module")
def register() -> dict:
    return yaml.safe_load(REGISTER.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def printed() -> dict[str, set[str]]:
    return {document: set(sentences(markdown_of(document))) for document in DOCUMENTS}


def _test_exists(node: str) -> ast.FunctionDef:
    """The function a node id ``tests/file.py::name`` names (parsed, not imported)."""
    file, _, name = node.partition("::")
    path = ROOT / file
    assert path.is_file(), node
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == name]
    assert found, f"{node}: no such test function"
    return found[0]


def _marked_exhaustive(function: ast.FunctionDef) -> bool:
    return any("exhaustive" in ast.unparse(d) for d in function.decorator_list)


def test_the_sentence_splitter_reads_blocks_and_sentences():
    text = "# Title\nOne line\ngoes on. Two holds.\n* **Bold.** Item $x$. Next\n\n| a | b |"
    assert sentences(text) == ["# Title", "One line goes on.", "Two holds.", "* **Bold.** Item $x$.", "Next",
                               "| a | b |"]


def test_every_entry_is_complete_and_ids_are_unique(register):
    ids = [c["id"] for c in register["claims"]]
    assert len(ids) == len(set(ids)), "duplicate claim ids"
    for claim in register["claims"]:
        for field in ("id", "document", "sentence", "knobs", "table", "tests", "random", "tried"):
            assert claim.get(field), f"{claim.get('id')}: no {field}"
        assert claim["document"] in DOCUMENTS, claim["id"]
        assert isinstance(claim["knobs"], dict) and all(isinstance(v, str) and v for v in claim["knobs"].values())
    for entry in register["not_claims"]:
        assert entry["kind"] in KINDS, entry
        assert entry["document"] in DOCUMENTS and entry.get("reason"), entry


def test_every_listed_sentence_is_printed_in_its_document(register, printed):
    for entry in register["claims"] + register["not_claims"]:
        assert entry["sentence"] in printed[entry["document"]], (
            f"{entry.get('id', entry['document'])}: not a sentence of {DOCUMENTS[entry['document']].name}:"
            f" {entry['sentence'][:120]!r}")


def test_every_sentence_with_a_universal_word_is_a_claim_or_says_why_not(register):
    listed = {(e["document"], e["sentence"]) for e in register["claims"] + register["not_claims"]}
    missing = [(document, s[:100]) for document in DOCUMENTS for s in universal_sentences(document)
               if (document, s) not in listed]
    assert not missing, f"{len(missing)} sentences neither claimed nor explained, first: {missing[:5]}"


def test_each_kind_is_consistent_with_its_sentence(register):
    for entry in register["not_claims"]:
        s = entry["sentence"]
        if entry["kind"] == "measurement":
            assert re.search(r"\d", s), f"a measurement with no figure: {s[:100]!r}"
        if entry["kind"] == "literature":
            assert re.search(r"et al\.|\b(19|20)\d\d\b|&|paper|abstract|[A-Z][a-z]+ and [A-Z]", s), f"no paper named: {s[:100]!r}"
        if entry["kind"] == "question":
            assert "?" in s or re.search(r"\(a\)|\*\*\d\d\.\d|Answer first|Try this", s), s[:100]


def test_every_claim_names_property_tests_and_an_exhaustive_random_draw(register):
    for claim in register["claims"]:
        for node in claim["tests"]:
            _test_exists(node)
        function = _test_exists(claim["random"])
        assert _marked_exhaustive(function), f"{claim['random']}: not marked exhaustive"
