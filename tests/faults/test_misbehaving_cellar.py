"""A misbehaving Cellar (tests/replay_server.py) never gets a wrong or short document stored (issue 16, 4 and 8)."""

from __future__ import annotations

import pytest

from lexcite.catalog import Catalog
from lexcite.ingest.fetch import CellarClient
from lexcite.ingest.refresh import refresh
from lexcite.ingest.sparql import SparqlClient

pytestmark = pytest.mark.integration

SMALL = "32024R2977"  # served as eng html from ../shared/corpus/raw/32024R2977.oj.html
WORK = f"/resource/celex/{SMALL}"


@pytest.fixture
def catalog():
    with Catalog() as c:
        yield c


def _run(catalog, cellar, deadline_s=None):
    for kind in ("consolidated", "amending"):
        cellar.set_sparql(kind, SMALL, [])
    return refresh(catalog, [SMALL], ("en",), cellar=CellarClient(throttle_s=0, backoff_factor=0),
                   sparql=SparqlClient(throttle_s=0, backoff_factor=0), deadline_s=deadline_s)


def _raw_files(home):
    raw = home / "raw"
    return sorted(p.name for p in raw.rglob("*") if p.is_file()) if raw.exists() else []


def _failed(report):
    item = next(i for i in report.items if i.celex == SMALL)
    assert item.action == "failed"
    return item.error


class TestTheDocumentIsTheOneAskedFor:
    def test_another_acts_body_is_not_stored(self, cellar, catalog, corpus, lexcite_home):
        cellar.add_document(SMALL, "eng", "html", corpus / "32026R1744.oj.xhtml")
        error = _failed(_run(catalog, cellar))
        assert f"asked for {SMALL} [en], the document is 32026R1744" in error
        assert catalog.versions() == [] and _raw_files(lexcite_home) == []

    def test_a_document_in_another_language_is_not_stored(self, cellar, catalog, corpus):
        data = (corpus / "32024R2977.oj.html").read_bytes()
        cellar.add_document(SMALL, "eng", "html", data.replace(b'<p class="oj-hd-lg">EN</p>',
                                                               b'<p class="oj-hd-lg">FR</p>'))
        assert "the document is 32024R2977@2024-12-04 [fr]" in _failed(_run(catalog, cellar))
        assert catalog.versions() == []

    def test_a_truncated_body_is_not_stored_over_the_whole_one(self, cellar, catalog, corpus, lexcite_home):
        assert [i.action for i in _run(catalog, cellar).items] == ["new"]
        before = catalog.state()
        data = (corpus / "32024R2977.oj.html").read_bytes()
        cellar.add_document(SMALL, "eng", "html", data[: len(data) // 2], last_modified="2025-01-01")
        assert "truncated" in _failed(_run(catalog, cellar))
        assert catalog.state() == before
        assert len(_raw_files(lexcite_home)) == 1  # the stored version's bytes only

    def test_a_redirect_to_another_origin_is_not_followed(self, cellar, catalog):
        cellar.script(WORK, [(303, {"Location": "http://127.0.0.1:9/resource/cellar/x/DOC_1"})])
        error = _failed(_run(catalog, cellar))
        assert "outside" in error and "LEXCITE_CELLAR_ORIGINS" in error
        assert catalog.versions() == []

    def test_a_mirror_origin_can_be_allowed(self, cellar, catalog, monkeypatch):
        # The replay server under its other name: same server, another origin.
        other = cellar.url.replace("127.0.0.1", "localhost")
        target = other + cellar.item_path(SMALL, "eng", "html")
        cellar.script(WORK, [(303, {"Location": target})])
        assert "outside" in _failed(_run(catalog, cellar))
        cellar.script(WORK, [(303, {"Location": target})])
        monkeypatch.setenv("LEXCITE_CELLAR_ORIGINS", other)
        assert [i.action for i in _run(catalog, cellar).items] == ["new"]

    @pytest.mark.parametrize("body", [b"%PDF-1.7\n%binary", b'{"error": "maintenance"}', b"\x00" * 4096])
    def test_a_body_that_is_not_the_document_is_not_kept(self, cellar, catalog, lexcite_home, body):
        cellar.add_document(SMALL, "eng", "html", body)
        assert "asked for html" in _failed(_run(catalog, cellar))
        assert _raw_files(lexcite_home) == []

    def test_html_that_is_not_an_act_leaves_nothing_in_the_raw_cache(self, cellar, catalog, lexcite_home):
        cellar.add_document(SMALL, "eng", "html", b"<html><body><p>Service unavailable</p></body></html>")
        assert "no known EUR-Lex markup" in _failed(_run(catalog, cellar))
        assert _raw_files(lexcite_home) == []


class TestBoundedWaiting:
    def test_a_long_retry_after_is_reported_not_waited_for(self, cellar, catalog):
        cellar.script(WORK, [(429, {"Retry-After": "3600"})])
        error = _failed(_run(catalog, cellar))
        assert "retry after 3600s" in error and "60s" in error
        assert cellar.count(WORK) == 1

    def test_a_short_retry_after_is_honoured(self, cellar, catalog):
        cellar.script(WORK, [(503, {"Retry-After": "0"}), "ok"])
        assert [i.action for i in _run(catalog, cellar).items] == ["new"]

    def test_a_silent_server_fails_at_the_deadline(self, cellar, catalog):
        cellar.script(WORK, ["slow"] * 8)  # 2 s each
        report = _run(catalog, cellar, deadline_s=0.5)
        error = _failed(report)
        assert "timed out" in error or "deadline" in error
        assert cellar.count(WORK) <= 2
        assert all(i.action == "failed" for i in report.items)

    def test_a_bad_deadline_setting_is_one_clear_error(self, cellar, catalog, monkeypatch):
        from lexcite.errors import ConfigError

        monkeypatch.setenv("LEXCITE_REFRESH_DEADLINE", "soon")
        with pytest.raises(ConfigError, match="LEXCITE_REFRESH_DEADLINE='soon'"):
            _run(catalog, cellar)
