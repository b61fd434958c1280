"""Invariant 1: every consumer of a Perimeter admits what `Perimeter.admits` admits, and nothing else.

Properties, on random units and random perimeters: the BM25 mask, the set Chroma returns
for `where`, and `Perimeter.admits` are one and the same set; and over a real catalog,
`Catalog.outside` (what the verifier, the conflict finder, the amendment notes and the
citation-validity metric ask), `Perimeter.admits_version` (the trace's versions in scope)
and `Perimeter.admits` on the stored records agree.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexcite.catalog import Catalog, Source, UnitRecord
from lexcite.contract import CitationRef, ParsedAct, Perimeter, Unit
from lexcite.index.chunks import Passage
from lexcite.index.dense import DenseStore, metadata
from lexcite.index.perimeter import RecordMask, where

ACTS = ("32099R0001", "32099R0002", "52099XC0001")
DATES = ("2019-01-01", "2020-06-30", "2021-03-15", "2024-07-12", "2026-12-02")
TAGS = ("eu-staff", "member-state", "public-beta")


@st.composite
def records(draw):
    n = draw(st.integers(min_value=1, max_value=14))
    out = []
    for i in range(n):
        start = draw(st.sampled_from(DATES))
        end = draw(st.one_of(st.none(), st.sampled_from([d for d in DATES if d > start] or [None])))
        u = Unit(act=draw(st.sampled_from(ACTS)), version=start, unit=f"art_{i + 1}",
                 kind=draw(st.sampled_from(("article", "paragraph", "recital", "point"))), title=f"Unit {i}",
                 text=f"text {i}", parent=None, position=i, language=draw(st.sampled_from(("en", "it", "nl"))),
                 binding=draw(st.booleans()))
        out.append(UnitRecord(unit=u, status=draw(st.sampled_from(("current", "superseded", "draft"))),
                              valid_from=start, valid_to=end,
                              access_tags=tuple(draw(st.lists(st.sampled_from(TAGS), max_size=2, unique=True)))))
    return out


perimeters = st.builds(
    Perimeter,
    acts=st.lists(st.sampled_from(ACTS), max_size=2, unique=True).map(tuple),
    language=st.sampled_from(("en", "it", None)),
    include_superseded=st.booleans(),
    binding_only=st.booleans(),
    as_of=st.one_of(st.none(), st.sampled_from(DATES + ("2022-01-01", "2030-01-01"))),
    access_tags=st.lists(st.sampled_from(TAGS), max_size=2, unique=True).map(tuple),
    kinds=st.one_of(st.just(()), st.lists(st.sampled_from(("article", "paragraph", "recital")), min_size=1,
                                          max_size=2, unique=True).map(tuple)),
)


@pytest.fixture(scope="module")
def client():
    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(recs=records(), p=perimeters)
def test_mask_where_and_admits_agree(client, recs, p):
    passages = [Passage(f"{r.unit.language}:{r.unit.ref}#{i}", r, "") for i, r in enumerate(recs)]
    expected = {ps.key for ps in passages if p.admits(ps.record)}

    mask = RecordMask(recs)(p)
    assert {ps.key for ps, m in zip(passages, mask, strict=True) if m} == expected

    store = DenseStore(client, f"prop-{uuid.uuid4().hex[:12]}")
    try:
        vecs = np.random.default_rng(0).normal(size=(len(passages), 4)).astype(np.float32)
        store.upsert([ps.key for ps in passages], vecs, [metadata(ps) for ps in passages])
        got = set(store.col.get(where=where(p))["ids"])
        assert got == expected
        # and the nearest-neighbour query never returns a unit outside, whatever the vector
        if expected:
            found = store.col.query(query_embeddings=vecs[:1], n_results=len(passages), where=where(p))
            assert set(found["ids"][0]) <= expected
    finally:
        DenseStore.drop(client, store.name)


def _version(act, version, language="en", binding=True, n=2):
    units = tuple(Unit(act=act, version=version, unit=f"art_{i}", kind=("article", "recital")[i % 2],
                       title=f"Article {i}", text=f"Text {i} of {act} {version}.", parent=None, position=i,
                       language=language, binding=binding) for i in range(1, n + 1))
    return ParsedAct(act=act, version=version, language=language, format="oj", title=act, units=units,
                     binding=binding, doc_kind="regulation" if binding else "guidance")


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """Versions of every status, two languages, guidance and a tagged act, in a real catalog."""
    with Catalog(tmp_path_factory.mktemp("perimeter") / "catalog.sqlite") as c:
        for parsed, kw in [
            (_version(ACTS[0], "2020-06-30"), {}),
            (_version(ACTS[0], "2024-07-12"), {}),  # supersedes 2020-06-30
            (_version(ACTS[0], "2026-12-02"), {"status": "draft"}),
            (_version(ACTS[0], "2024-07-12", language="it"), {}),
            (_version(ACTS[1], "2021-03-15"), {"access_tags": ("eu-staff",)}),
            (_version(ACTS[2], "2019-01-01", binding=False), {}),
        ]:
            c.store(parsed, Source(f"test:{parsed.act}@{parsed.version}", sha256=repr(parsed)[:64]), **kw)
        yield c


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(p=perimeters)
def test_the_catalog_judge_and_the_versions_in_scope_follow_the_rule(stored, p):
    records = list(stored.records())
    assert len(records) == 12
    for rec in records:
        if p.language not in (None, rec.unit.language):
            continue  # a reference names no language: it is judged in the perimeter's language
        assert (stored.outside(rec.unit.ref, p) is None) == p.admits(rec)
    in_scope = {(v.act, v.version, v.language) for v in stored.versions() if p.admits_version(v)}
    # a version is in scope when a unit of it of any kind is admitted, kinds aside
    anykind = replace(p, kinds=())
    assert in_scope == {(r.unit.act, r.unit.version, r.unit.language) for r in records if anykind.admits(r)}


def test_a_reference_to_nothing_stored_is_outside(stored):
    assert stored.outside(CitationRef.parse(f"{ACTS[0]}@2024-07-12#art_99"), Perimeter()) == "not in the catalog"


def _rec(status="current", valid_from="2024-07-12", valid_to=None, tags=(), binding=True):
    u = Unit(act=ACTS[0], version=valid_from, unit="art_1", kind="article", title="t", text="x", parent=None,
             position=0, language="en", binding=binding)
    return UnitRecord(unit=u, status=status, valid_from=valid_from, valid_to=valid_to, access_tags=tags)


class TestRule:
    def test_superseded_version_is_out_by_default(self):
        assert not Perimeter(as_of=None).admits(_rec("superseded", "2020-01-01", "2024-07-12"))

    def test_as_of_date_admits_the_version_in_force_then(self):
        old = _rec("superseded", "2020-01-01", "2024-07-12")
        new = _rec("current", "2024-07-12")
        p = Perimeter(as_of="2022-01-01")
        assert p.admits(old) and not p.admits(new)

    def test_validity_end_is_exclusive(self):
        old = _rec("superseded", "2020-01-01", "2024-07-12")
        assert not Perimeter(as_of="2024-07-12").admits(old)

    def test_include_superseded_without_date_admits_every_version(self):
        assert Perimeter(include_superseded=True).admits(_rec("superseded", "2020-01-01", "2021-01-01"))

    def test_drafts_are_never_admitted(self):
        assert not Perimeter(include_superseded=True).admits(_rec("draft"))

    def test_tagged_unit_needs_a_held_tag(self):
        tagged = _rec(tags=("eu-staff",))
        assert not Perimeter().admits(tagged)
        assert Perimeter(access_tags=("eu-staff",)).admits(tagged)

    def test_binding_only_drops_guidance(self):
        assert not Perimeter(binding_only=True).admits(_rec(binding=False))
