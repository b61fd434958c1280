"""Format detection: decided from the markup of real EUR-Lex files, never from the file name (invariant 6)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lxml import etree

from lexcite.errors import FormatNotRecognised
from lexcite.ingest._markup import read_html
from lexcite.ingest.detect import detect_html_format, detect_xml_format

pytestmark = pytest.mark.integration

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def html_format(path: Path) -> str:
    return detect_html_format(read_html(path.read_bytes(), path), path)


@pytest.mark.parametrize("name, fmt", [
    ("32024R1689.oj.xhtml", "oj"),
    ("32016R0679.oj.html", "oj"),
    ("02016R0679-20160504.consolidated.en.xhtml", "consolidated"),
    ("02024R1689-20240712.consolidated.nl.html", "consolidated"),
])
def test_real_documents_are_told_apart_by_their_markup(corpus, name, fmt):
    assert html_format(corpus / name) == fmt


def test_the_old_oj_markup_is_its_own_format():
    assert html_format(FIXTURES / "old_oj.html") == "oj_old"


def test_the_name_does_not_decide(corpus, tmp_path):
    misnamed = tmp_path / "02016R0679-20160504.consolidated.en.xhtml"
    shutil.copy(corpus / "32024R1689.oj.xhtml", misnamed)
    assert html_format(misnamed) == "oj"


def test_unknown_markup_stops_with_the_markers_looked_for_and_what_was_found(tmp_path):
    page = tmp_path / "blog.html"
    page.write_text("<html><body><p class='post'>Hello</p><p class='post'>again</p></body></html>")
    with pytest.raises(FormatNotRecognised) as e:
        html_format(page)
    assert "p.oj-ti-art" in str(e.value) and "post×2" in str(e.value) and "nothing was stored" in str(e.value)


def test_formex_is_recognised_by_its_root_and_other_xml_is_refused(tmp_path):
    assert detect_xml_format(etree.fromstring(b"<ACT><TITLE/></ACT>"), "act.xml") == "formex"
    with pytest.raises(FormatNotRecognised, match="<ACT>"):
        detect_xml_format(etree.fromstring(b"<rss/>"), tmp_path / "feed.xml")
