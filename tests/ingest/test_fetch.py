"""CellarClient against the replay Cellar (tests/replay_server.py): negotiation, cache, faults."""

from __future__ import annotations

import hashlib
import io
import socket
import time
import zipfile
from pathlib import Path

import pytest
import urllib3

from lexcite.config import USER_AGENT
from lexcite.errors import ConfigError, FetchError
from lexcite.ingest.fetch import CellarClient, Fetched, zip_members_sha256

SMALL = "32099R0042"  # not a real act: a small synthetic document for fault tests
SMALL_BODY = (
    b'<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><body>'
    + (b'<p class="oj-normal">Article 1</p>' * 200)
    + b"</body></html>"
)
WORK = f"/resource/celex/{SMALL}"


def client(cellar, **kw) -> CellarClient:
    opts = {"timeout": 5.0, "retries": 3, "backoff_factor": 0.0, "throttle_s": 0.0}
    return CellarClient(cellar.url, **{**opts, **kw})


@pytest.fixture
def small(cellar):
    """The synthetic act, served as xhtml in English."""
    return cellar.add_document(SMALL, "eng", "xhtml", SMALL_BODY)


def raw_files(home: Path) -> list[Path]:
    raw = home / "raw"
    return sorted(p for p in raw.rglob("*") if p.is_file()) if raw.exists() else []


# ------------------------------------------------------------------------------------------------


class TestContentNegotiation:
    @pytest.mark.integration
    def test_the_303_is_followed_to_the_item_and_the_bytes_equal_the_real_file(self, cellar, corpus):
        got = client(cellar).fetch("32024R1689", "en")

        assert got.path.read_bytes() == (corpus / "32024R1689.oj.xhtml").read_bytes()
        assert got.final_url == cellar.url + "/resource/cellar/dc8116a1-3fe6-11ef-865a-01aa75ed71a1.0006.03/DOC_1"
        assert got.url == cellar.url + "/resource/celex/32024R1689"
        assert (got.status, got.format, got.language, got.not_modified) == (200, "xhtml", "en", False)
        assert got.content_type.startswith("application/xhtml+xml")
        first = cellar.requests[0]
        assert first.headers["Accept"] == "application/xhtml+xml"
        assert first.headers["Accept-Language"] == "eng"
        assert first.headers["User-Agent"] == USER_AGENT

    @pytest.mark.integration
    @pytest.mark.parametrize(
        "celex, language, name, fmt",
        [
            ("32026R1744", "en", "32026R1744.oj.xhtml", "xhtml"),
            ("32016R0679", "en", "32016R0679.oj.html", "html"),
            ("32024R2977", "en", "32024R2977.oj.html", "html"),
            ("32024R1689", "nl", "32024R1689.oj.nl.html", "html"),
            ("02024R1689-20240712", "nl", "02024R1689-20240712.consolidated.nl.html", "html"),
        ],
    )
    def test_each_saved_document_comes_back_byte_for_byte_in_the_first_format_cellar_has(
        self, cellar, corpus, celex, language, name, fmt
    ):
        got = client(cellar).fetch(celex, language)

        assert got.path.read_bytes() == (corpus / name).read_bytes()
        assert got.format == fmt
        assert got.celex == celex

    @pytest.mark.integration
    def test_dutch_is_asked_as_nld_and_falls_back_from_xhtml_to_html(self, cellar, corpus):
        got = client(cellar).fetch("32024R1689", "nl")

        asked = [(r.headers["Accept"], r.headers["Accept-Language"]) for r in cellar.requests if "/celex/" in r.path]
        assert asked == [("application/xhtml+xml", "nld"), ("text/html", "nld")]
        assert got.format == "html" and got.language == "nl"

    def test_a_404_behind_the_303_moves_on_to_the_next_format(self, cellar):
        cellar.add_document(SMALL, "eng", "xhtml", SMALL_BODY)
        cellar.add_document(SMALL, "eng", "html", b"<html><body>html manifestation</body></html>")
        cellar.script(cellar.item_path(SMALL, "eng", "xhtml"), [404])

        got = client(cellar).fetch(SMALL)

        assert got.format == "html"
        assert got.path.read_bytes() == b"<html><body>html manifestation</body></html>"

    def test_no_asked_format_available_raises_naming_the_formats(self, cellar, small, lexcite_home):
        with pytest.raises(FetchError, match=r"no html or fmx4 manifestation of 32099R0042 in eng"):
            client(cellar).fetch(SMALL, formats=("html", "fmx4"))
        assert raw_files(lexcite_home) == []

    def test_a_three_letter_language_code_is_accepted(self, cellar, small):
        assert client(cellar).fetch(SMALL, "eng").language == "en"

    def test_the_default_base_url_comes_from_the_environment(self, cellar, small):
        got = CellarClient(throttle_s=0, backoff_factor=0).fetch(SMALL)

        assert got.url.startswith(cellar.url)


class TestRawCache:
    def test_the_body_is_stored_under_raw_by_its_sha256(self, cellar, small, lexcite_home):
        got = client(cellar).fetch(SMALL)

        sha = hashlib.sha256(SMALL_BODY).hexdigest()
        assert got.sha256 == sha
        assert got.path == lexcite_home / "raw" / sha[:2] / f"{sha}.xhtml"
        assert got.path.read_bytes() == SMALL_BODY
        assert raw_files(lexcite_home) == [got.path]  # no temp file left behind

    def test_fetching_unchanged_bytes_again_keeps_one_file(self, cellar, small, lexcite_home):
        first = client(cellar).fetch(SMALL)
        second = client(cellar).fetch(SMALL)

        assert first.path == second.path
        assert raw_files(lexcite_home) == [first.path]

    def test_the_result_records_validators_headers_and_time(self, cellar, small):
        got = client(cellar).fetch(SMALL)

        assert got.etag == '"' + hashlib.sha256(SMALL_BODY).hexdigest() + '"'
        assert got.last_modified == "Fri, 12 Jul 2024 00:00:00 GMT"
        assert got.headers["content-type"].startswith("application/xhtml+xml")
        assert got.fetched_at.endswith("Z") and got.fetched_at[:4].isdigit()
        assert isinstance(got, Fetched) and got.attempts == 1


class TestMultipleChoices:
    def test_a_300_picks_the_main_act_doc_1_not_the_annex(self, cellar, small):
        cellar.script(WORK, [300])

        got = client(cellar).fetch(SMALL)

        assert got.final_url.endswith(".0006.03/DOC_1")
        assert got.path.read_bytes() == SMALL_BODY
        assert cellar.count(small.item_path(2)) == 0  # the annex, listed first, was never asked for

    def test_a_300_naming_the_item_only_in_a_link_header_is_followed(self, cellar, small):
        item = cellar.url + small.item_path(1)
        cellar.script(WORK, [(300, {"Link": f'<{item}>; rel="alternate"; type="application/xhtml+xml"'}, "")])

        assert client(cellar).fetch(SMALL).final_url == item

    def test_a_300_without_a_doc_1_raises(self, cellar, small):
        body = f'<ul><li><a href="{cellar.url}{small.item_path(2)}">annex</a></li></ul>'
        cellar.script(WORK, [(300, {}, body)])

        with pytest.raises(FetchError, match="without a DOC_1"):
            client(cellar).fetch(SMALL)


class TestRefusals:
    def test_an_unknown_celex_raises_saying_cellar_does_not_know_it(self, cellar, lexcite_home):
        with pytest.raises(FetchError, match="CELEX 32099R9999 is unknown to Cellar") as err:
            client(cellar).fetch("32099R9999")
        assert err.value.status == 404
        assert cellar.count() == 1  # no point asking for another format
        assert raw_files(lexcite_home) == []

    @pytest.mark.parametrize("language", ["", "pt", "english", None])
    def test_a_missing_or_unsupported_language_is_refused_before_any_request(self, cellar, small, language):
        with pytest.raises(ConfigError, match="language"):
            client(cellar).fetch(SMALL, language)
        assert cellar.count() == 0

    @pytest.mark.parametrize("celex", ["3202XR1689", "32024R1689> } DROP", "", "32024R1689/../x"])
    def test_a_malformed_celex_is_refused_before_any_request(self, cellar, celex):
        with pytest.raises(ConfigError, match="CELEX"):
            client(cellar).fetch(celex)
        assert cellar.count() == 0

    def test_cellar_itself_refuses_a_request_without_a_language(self, cellar, small):
        resp = urllib3.request("GET", cellar.url + WORK, headers={"Accept": "application/xhtml+xml"}, redirect=False)

        assert resp.status == 400
        assert b"without language" in resp.data

    def test_a_cellar_error_is_reported_with_its_message(self, cellar, small):
        cellar.script(WORK, [(400, {}, "<p>Invalid content type CONTENT_STREAM for WORK without language</p>")])

        with pytest.raises(FetchError, match="HTTP 400 .*without language") as err:
            client(cellar).fetch(SMALL)
        assert err.value.status == 400


class TestConditionalRequests:
    def test_a_matching_etag_gives_not_modified_and_no_new_file(self, cellar, small, lexcite_home):
        first = client(cellar).fetch(SMALL)
        before = raw_files(lexcite_home)

        again = client(cellar).fetch(SMALL, etag=first.etag)

        assert again.not_modified and again.status == 304
        assert again.path is None and again.sha256 == ""
        assert raw_files(lexcite_home) == before
        assert cellar.requests[-1].headers["If-None-Match"] == first.etag

    def test_an_unchanged_last_modified_gives_not_modified(self, cellar, small):
        first = client(cellar).fetch(SMALL)

        again = client(cellar).fetch(SMALL, last_modified=first.last_modified)

        assert again.not_modified
        assert cellar.requests[-1].headers["If-Modified-Since"] == first.last_modified

    def test_a_stale_etag_gets_the_new_document_in_full(self, cellar, small):
        first = client(cellar).fetch(SMALL)
        cellar.add_document(SMALL, "eng", "xhtml", SMALL_BODY + b"<!-- corrigendum -->")

        again = client(cellar).fetch(SMALL, etag=first.etag)

        assert not again.not_modified and again.sha256 != first.sha256
        assert again.path.read_bytes().endswith(b"<!-- corrigendum -->")


class TestRetries:
    def test_a_429_with_retry_after_is_waited_out_then_the_fetch_succeeds(self, cellar, small):
        cellar.script(WORK, [(429, {"Retry-After": "1"}), "ok"])

        started = time.monotonic()
        got = client(cellar).fetch(SMALL)

        assert time.monotonic() - started >= 0.9  # Retry-After: 1, although the backoff factor is 0
        assert got.path.read_bytes() == SMALL_BODY
        assert got.attempts == 1  # the item answered at once
        assert cellar.count(WORK) == 2

    def test_a_500_then_success_counts_two_attempts(self, cellar, small):
        cellar.script(small.item_path(1), [500, "ok"])

        got = client(cellar).fetch(SMALL)

        assert got.attempts == 2
        assert got.path.read_bytes() == SMALL_BODY

    def test_a_persistent_500_raises_after_all_tries_and_says_so(self, cellar, small, lexcite_home):
        cellar.script(WORK, [500] * 10)

        with pytest.raises(FetchError, match="after 4 tries with backoff; nothing was stored") as err:
            client(cellar, retries=3).fetch(SMALL)
        assert (err.value.status, err.value.attempts) == (500, 4)
        assert cellar.count(WORK) == 4
        assert raw_files(lexcite_home) == []

    def test_backoff_grows_between_tries(self, cellar, small):
        cellar.script(WORK, [503, 503, "ok"])

        started = time.monotonic()
        client(cellar, backoff_factor=0.05).fetch(SMALL)

        assert time.monotonic() - started >= 0.1  # 0 then 0.05 * 2

    def test_a_truncated_body_raises_and_nothing_is_written(self, cellar, small, lexcite_home):
        cellar.script(small.item_path(1), ["truncate", "truncate"])

        with pytest.raises(FetchError, match="truncated") as err:
            client(cellar, retries=1).fetch(SMALL)
        assert err.value.attempts == 2
        assert raw_files(lexcite_home) == []

    def test_a_truncated_body_once_is_retried_and_stored_whole(self, cellar, small):
        cellar.script(small.item_path(1), ["truncate"])

        got = client(cellar).fetch(SMALL)

        assert got.path.read_bytes() == SMALL_BODY
        assert got.attempts == 2

    def test_a_dropped_connection_is_retried(self, cellar, small):
        cellar.script(WORK, ["drop"])

        assert client(cellar).fetch(SMALL).path.read_bytes() == SMALL_BODY

    def test_a_slow_answer_raises_a_timeout(self, cellar, small, lexcite_home):
        cellar.script(WORK, ["slow"])

        started = time.monotonic()
        with pytest.raises(FetchError, match="timed out"):
            client(cellar, timeout=0.2, retries=0).fetch(SMALL)
        assert time.monotonic() - started < 1.5
        assert raw_files(lexcite_home) == []

    def test_an_unreachable_cellar_raises_after_all_tries(self, lexcite_home):
        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]

        with pytest.raises(FetchError, match="could not connect.*after 2 tries") as err:
            CellarClient(f"http://127.0.0.1:{port}", retries=1, backoff_factor=0, throttle_s=0).fetch(SMALL)
        assert err.value.attempts == 2
        assert raw_files(lexcite_home) == []

    def test_the_throttle_spaces_requests_to_one_host(self, cellar, small):
        started = time.monotonic()
        client(cellar, throttle_s=0.15).fetch(SMALL)  # two requests: the work, then the item

        assert time.monotonic() - started >= 0.15


class TestFormex:
    @pytest.mark.integration
    def test_the_zip_is_stored_as_is_and_named_by_its_members(self, cellar, corpus, lexcite_home):
        saved = (corpus / "fmx4" / "32024R1689.fmx4.zip").read_bytes()

        first = client(cellar).fetch("32024R1689", formats=("fmx4", "xhtml"))
        second = client(cellar).fetch("32024R1689", formats=("fmx4", "xhtml"))

        assert first.format == "fmx4" and first.final_url.endswith(".0006.02/DOC_1")
        assert first.path.suffix == ".zip" and first.path.read_bytes()[:2] == b"PK"
        assert first.sha256 == zip_members_sha256(saved)  # same members as the saved package
        assert second.sha256 == first.sha256 and second.path == first.path  # rebuilt zip, same content
        assert len(raw_files(lexcite_home)) == 1

    def test_a_non_zip_answer_to_a_formex_request_raises(self, cellar, lexcite_home):
        cellar.add_document(SMALL, "eng", "fmx4", b"<html>not a zip</html>")

        with pytest.raises(FetchError, match="PK magic"):
            client(cellar).fetch(SMALL, formats=("fmx4",))
        assert raw_files(lexcite_home) == []

    def test_the_member_sha_ignores_timestamps_and_member_order(self):
        def pack(members, stamp):
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
                for name, data in members:
                    zf.writestr(zipfile.ZipInfo(name, stamp), data)
            return out.getvalue()

        members = [("a.doc.fmx.xml", b"<DOC/>"), ("a.000101.fmx.xml", b"<ACT/>")]
        one = pack(members, (2024, 10, 17, 13, 33, 52))
        two = pack(members[::-1], (2026, 1, 1, 0, 0, 0))

        assert one != two
        assert zip_members_sha256(one) == zip_members_sha256(two)
        fewer = pack(members[:1], (2024, 10, 17, 13, 33, 52))
        assert zip_members_sha256(one) != zip_members_sha256(fewer)
