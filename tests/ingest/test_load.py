from __future__ import annotations

import pytest

from lexcite.ingest.fetch import zip_members_sha256
from lexcite.ingest.load import read_document


@pytest.mark.integration
def test_a_formex_package_hashes_the_same_as_folder_as_zip_and_as_fetched(corpus):
    zipped = corpus / "fmx4" / "32024R1689.fmx4.zip"
    _, from_folder = read_document(corpus / "fmx4" / "32024R1689")
    _, from_zip = read_document(zipped)
    assert from_folder == from_zip == zip_members_sha256(zipped.read_bytes())
