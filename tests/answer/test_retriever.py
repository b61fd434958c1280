"""The seam between retrieval and answering: what `ask` accepts as a searcher is a `Retriever`."""

from __future__ import annotations

import pytest
from answer_helpers import FixedSearcher, TermSearcher

from lexcite.contract import Retriever
from lexcite.index.search import Searcher

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("cls", [Searcher, TermSearcher, FixedSearcher])
def test_the_searcher_and_the_tests_small_searchers_are_retrievers(cls):
    assert issubclass(cls, Retriever)


def test_an_object_without_search_is_not_one():
    assert not isinstance(object(), Retriever)
