"""The public golden set, data/golden/golden.jsonl, checked against the real documents it cites.

Every expected unit must exist in the catalog built from ../shared/corpus/raw,
and every anchor must appear (whitespace-normalised) in the text of one of its
question's expected units, so that a hit by anchor and a hit by reference mean
the same thing. An expected `{act}#{unit}` names the unit in any version
(ingesting the Omnibus adds an amended AI Act version beside the original), so
each is looked up in every stored version; `{act}@{version}#{unit}` in that
one. Questions with anchors but no expected unit need the anchor somewhere in
the acts of their perimeter.
"""

from __future__ import annotations

import pytest

from lexcite.catalog import Catalog
from lexcite.eval.golden import default_golden_path, load_golden
from lexcite.eval.metrics import contains
from lexcite.ingest.load import ingest_paths

# The acts the golden set asks about, as raw files of the shared corpus: the three-act set (English
# OJ texts) and the other acts of data/acts.toml that the cross-act questions (cx…) ask about.
FILES = ("32024R1689.oj.xhtml", "32016R0679.oj.html", "32026R1744.oj.xhtml",
         "32022R2065.oj.xhtml", "32022R1925.oj.xhtml", "32023R2854.oj.xhtml", "32022R0868.oj.xhtml",
         "fmx4/32019R0881", "fmx4/02014R0910-20241018", "02002L0058-20091219.consolidated.en.html",
         "32024R2981.oj.html")

QUESTIONS = load_golden(default_golden_path())
ANSWERABLE = [q for q in QUESTIONS if q.answerable]


def versions(catalog, ref, language):
    """The stored texts of an expected unit: every version, or the one it names."""
    return [r.unit.text for r in catalog.history(ref.act, ref.unit, language)
            if ref.version is None or r.unit.version == ref.version]


@pytest.fixture(scope="module")
def catalog(corpus, tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("golden") / "catalog.sqlite") as cat:
        ingest_paths(cat, [corpus / f for f in FILES])
        yield cat


@pytest.mark.unit
def test_the_set_is_large_enough_with_a_dev_split_no_larger_than_test():
    """Rules are written on dev questions, fresh ones included, so dev grows; test stays the larger split."""
    dev = sum(q.split == "dev" for q in QUESTIONS)
    assert len(QUESTIONS) >= 80
    assert 0.25 <= dev / len(QUESTIONS) < 0.5, f"{dev} dev of {len(QUESTIONS)}"


@pytest.mark.unit
def test_every_answerable_question_has_expected_units_or_anchors():
    assert [q.id for q in ANSWERABLE if not (q.expected or q.anchors)] == []


@pytest.mark.unit
def test_abstain_questions_expect_nothing():
    assert [q.id for q in QUESTIONS if not q.answerable and (q.expected or q.key_facts)] == []


@pytest.mark.integration
def test_every_expected_unit_resolves_in_the_real_documents(catalog):
    missing = [f"{q.id}: {e}" for q in ANSWERABLE for e in q.expected
               if not versions(catalog, e, q.perimeter.language)]
    assert missing == []


@pytest.mark.integration
def test_every_anchor_appears_in_one_of_its_expected_units(catalog):
    wrong = []
    for q in ANSWERABLE:
        if q.expected:
            texts = [t for e in q.expected for t in versions(catalog, e, q.perimeter.language)]
        else:
            acts = q.perimeter.acts or (None,)
            texts = [r.unit.text for act in acts for r in catalog.records(act, q.perimeter.language)]
        wrong += [f"{q.id}: {a!r}" for a in q.anchors if not any(contains(t, a) for t in texts)]
    assert wrong == []
