"""Work an interrupted run left undone is done by the next one (issue 16, item 5)."""

from __future__ import annotations

import pytest

from lexcite.catalog import Catalog
from lexcite.ingest.fetch import CellarClient
from lexcite.ingest.load import ingest_document, ingest_paths
from lexcite.ingest.refresh import refresh
from lexcite.ingest.sparql import SparqlClient

pytestmark = pytest.mark.integration

AMENDED = ("32024R1689", "2026-07-27")


def _versions(catalog):
    return {(v.act, v.version): v.format for v in catalog.versions()}


def test_the_ai_act_from_formex_with_the_omnibus_gets_its_amended_version(corpus):
    with Catalog() as catalog:
        ingest_paths(catalog, [corpus / "fmx4/32024R1689.fmx4.zip", corpus / "32026R1744.oj.xhtml"])
        assert _versions(catalog)[AMENDED] == "amended"
        assert catalog.resolve("32024R1689#art_113").unit.version == AMENDED[1]


def test_an_amending_act_stored_but_not_applied_is_applied_by_the_next_refresh(corpus, cellar):
    for kind in ("consolidated", "amending"):
        cellar.set_sparql(kind, "32024R2977", [])
    clients = dict(cellar=CellarClient(throttle_s=0, backoff_factor=0), sparql=SparqlClient(throttle_s=0))
    with Catalog() as catalog:
        refresh(catalog, ["32024R2977"], ("en",), **clients)
        # A run killed right after storing the amending act: both acts stored, nothing applied.
        ingest_document(catalog, corpus / "32024R1689.oj.xhtml")
        ingest_document(catalog, corpus / "32026R1744.oj.xhtml")
        assert AMENDED not in _versions(catalog)
        report = refresh(catalog, ["32024R2977"], ("en",), **clients)
        assert [i.action for i in report.items if i.role == "act"] == ["not_modified"]
        assert _versions(catalog)[AMENDED] == "amended"
        assert [i.role for i in report.items if i.role == "amended"] == ["amended"]
