"""Invariant 1, for the two translations of a Perimeter: the BM25 mask and the Chroma `where`.

Property: on random units and random perimeters, the set of units the mask lets
through, the set Chroma returns for `where`, and the set `predicate` accepts
are one and the same set.
"""

from __future__ import annotations

import uuid

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexcite.catalog import UnitRecord
from lexcite.contract import Perimeter, Unit
from lexcite.index.chunks import Passage
from lexcite.index.dense import DenseStore, metadata
from lexcite.index.perimeter import RecordMask, predicate, where

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
def test_mask_where_and_predicate_admit_the_same_units(client, recs, p):
    passages = [Passage(f"{r.unit.language}:{r.unit.ref}#{i}", r, "") for i, r in enumerate(recs)]
    expected = {ps.key for ps in passages if predicate(p, ps.record)}

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


def _rec(status="current", valid_from="2024-07-12", valid_to=None, tags=(), binding=True):
    u = Unit(act=ACTS[0], version=valid_from, unit="art_1", kind="article", title="t", text="x", parent=None,
             position=0, language="en", binding=binding)
    return UnitRecord(unit=u, status=status, valid_from=valid_from, valid_to=valid_to, access_tags=tags)


class TestRule:
    def test_superseded_version_is_out_by_default(self):
        assert not predicate(Perimeter(as_of=None), _rec("superseded", "2020-01-01", "2024-07-12"))

    def test_as_of_date_admits_the_version_in_force_then(self):
        old = _rec("superseded", "2020-01-01", "2024-07-12")
        new = _rec("current", "2024-07-12")
        p = Perimeter(as_of="2022-01-01")
        assert predicate(p, old) and not predicate(p, new)

    def test_validity_end_is_exclusive(self):
        old = _rec("superseded", "2020-01-01", "2024-07-12")
        assert not predicate(Perimeter(as_of="2024-07-12"), old)

    def test_include_superseded_without_date_admits_every_version(self):
        assert predicate(Perimeter(include_superseded=True), _rec("superseded", "2020-01-01", "2021-01-01"))

    def test_drafts_are_never_admitted(self):
        assert not predicate(Perimeter(include_superseded=True), _rec("draft"))

    def test_tagged_unit_needs_a_held_tag(self):
        tagged = _rec(tags=("eu-staff",))
        assert not predicate(Perimeter(), tagged)
        assert predicate(Perimeter(access_tags=("eu-staff",)), tagged)

    def test_binding_only_drops_guidance(self):
        assert not predicate(Perimeter(binding_only=True), _rec(binding=False))
