"""What is ranked: paragraph level or finer, never a multi-paragraph article; long units become chunks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lexcite.catalog import Catalog
from lexcite.index.chunks import candidate, chunk_id, chunk_texts, passages, unit_key

from .conftest import AI, ai_act, parsed, store


@pytest.fixture
def records(tmp_path):
    with Catalog(tmp_path / "c.sqlite") as c:
        store(c, ai_act())
        store(c, parsed("32099R0003", "2022-01-01", [
            ("art_1", "article", "This Regulation shall enter into force on the twentieth day. It shall apply from "
             "2 August 2099. However: (a) Chapter I shall apply from 2 February 2099; (b) Chapter III shall apply "
             "from 2 August 2100.", None, "Article 1 — Entry into force"),
            ("art_1.pnt_a", "point", "(a) Chapter I shall apply from 2 February 2099;", "art_1",
             "Article 1, point (a)"),
            ("art_1.pnt_b", "point", "(b) Chapter III shall apply from 2 August 2100.", "art_1",
             "Article 1, point (b)"),
            ("art_2", "article", "For the purposes of this Regulation, the following definitions apply: (1) 'system' "
             "means a machine; (2) 'provider' means a person.", None, "Article 2 — Definitions"),
            ("art_2.pnt_1", "point", "(1) 'system' means a machine;", "art_2", "Article 2, point (1)"),
            ("art_2.pnt_2", "point", "(2) 'provider' means a person.", "art_2", "Article 2, point (2)"),
        ]))
        yield list(c.records())


def _ids(ps, act=AI):
    return {p.record.unit.unit for p in ps if p.record.unit.act == act}


def test_articles_with_paragraphs_are_never_passages_themselves(records):
    ids = _ids(passages(records, "paragraph"))
    assert "art_2" not in ids and "art_3" not in ids
    assert {"art_2.par_1", "art_2.par_2", "art_3.par_1", "art_3.par_2", "rct_1"} <= ids


def test_article_without_children_is_its_own_passage(records):
    assert {"art_1", "art_5"} <= _ids(passages(records, "paragraph"))


def test_point_granularity_ranks_leaves_instead_of_their_paragraph(records):
    ids = _ids(passages(records, "point"))
    assert {"art_3.par_1.pnt_a", "art_3.par_1.pnt_b", "art_3.par_2"} <= ids
    assert "art_3.par_1" not in ids


def test_points_of_an_article_without_paragraphs_are_paragraph_level(records):
    ids = _ids(passages(records, "paragraph"), "32099R0003")
    assert {"art_1.pnt_a", "art_1.pnt_b", "art_2.pnt_1", "art_2.pnt_2"} <= ids


def test_words_outside_any_point_are_ranked_as_the_article(records):
    # "It shall apply from 2 August 2099" lives in art_1 only (as AI Act art_113 does)
    ps = {p.record.unit.unit: p for p in passages(records, "paragraph") if p.record.unit.act == "32099R0003"}
    assert "apply from 2 August 2099" in ps["art_1"].text
    assert "Chapter I shall apply" not in ps["art_1"].text  # its points are passages of their own
    assert "art_2" not in ps  # "the following definitions apply:" only leads in


def test_points_are_read_with_their_heading_and_lead_in(records):
    p = next(p for p in passages(records, "point") if p.record.unit.unit == "art_3.par_1.pnt_a")
    assert p.context.startswith("Article 3(1), point (a)")
    assert "shall be subject to fines" in p.context


def test_long_unit_is_split_into_overlapping_chunks_that_repeat_its_heading(records):
    p = next(p for p in passages(records) if p.record.unit.unit == "art_4.par_1")
    chunks = chunk_texts(p, max_words=120)
    assert len(chunks) > 2
    assert all(c.startswith(p.context) for c in chunks)
    assert "lighthouse keeper" in chunks[-1] and "lighthouse keeper" not in chunks[0]
    body = p.record.unit.text.split()
    assert sum(len(c.split()) - len(p.context.split()) for c in chunks) >= len(body)  # nothing dropped


def test_short_unit_is_one_chunk(records):
    p = next(p for p in passages(records) if p.record.unit.unit == "art_5")
    assert chunk_texts(p, max_words=120) == [p.text]


def test_an_official_consolidations_marker_names_no_unit_to_cite(records):
    # consolidated Formex marks a changed unit with the amending act only ("32026R1744"): a candidate, no citation
    p = passages(records)[0]
    marked = replace(p, record=replace(p.record, changed_by="32026R1744"))
    assert candidate(marked, 0.5).changed_by is None
    enacted = replace(p, record=replace(p.record, changed_by="32026R1744@2026-07-24#art_1.pnt_5"))
    assert str(candidate(enacted, 0.5).changed_by) == "32026R1744@2026-07-24#art_1.pnt_5"


def test_chunk_ids_map_back_to_their_unit():
    key = "en:32024R1689@2024-07-12#art_6.par_2"
    assert unit_key(chunk_id(key, 3)) == key
