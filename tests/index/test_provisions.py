"""Evidence by provision: ranked units regrouped into their provisions, neighbours in document order, a budget."""

from __future__ import annotations

import numpy as np
import pytest

from lexcite.catalog import Catalog
from lexcite.index.chunks import candidate, passages
from lexcite.index.provisions import Seed, estimate_tokens, group_provisions
from lexcite.index.siblings import Siblings

from .conftest import AI, ai_act, parsed, store

pytestmark = pytest.mark.unit

LIST = "32099R0009"
POINTS = [f"({c}) the {w} shall be recorded in the register kept by the authority;"
          for c, w in zip("abcdefgh", ["name", "address", "date", "system", "purpose", "risk", "owner", "notes"],
                          strict=True)]


def _list_act():
    """An article whose eight points hang from it, like a definitions article."""
    units = [("art_1", "article", "The following shall be recorded: " + " ".join(POINTS), None,
              "Article 1 — Register")]
    units += [(f"art_1.pnt_{c}", "point", text, "art_1", f"Article 1, point ({c})")
              for c, text in zip("abcdefgh", POINTS, strict=True)]
    units += [("art_2", "article", "Member States shall designate the authority keeping the register.", None,
               "Article 2 — Authority")]
    return parsed(LIST, "2023-01-01", units, title="Toy register act")


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("prov") / "catalog.sqlite") as c:
        store(c, ai_act())
        store(c, _list_act())
        ps = passages(list(c.records()))
    return ps, Siblings(ps), {str(p.record.unit.ref): i for i, p in enumerate(ps)}


def _group(index, ranked_units, budget=3000, mask=None, act=AI, version="2022-01-01"):
    ps, sib, pos = index
    seeds = [Seed(pos[f"{act}@{version}#{u}"], candidate(ps[pos[f"{act}@{version}#{u}"]], 1.0 - n / 10))
             for n, u in enumerate(ranked_units)]
    mask = np.ones(len(ps), dtype=bool) if mask is None else mask
    return group_provisions(seeds, ps, sib.group, mask, lambda ref: f"title of {ref.unit}", budget)


def test_ranked_units_come_with_their_siblings_in_document_order_best_provision_first(index):
    ev = _group(index, ["art_3.par_1.pnt_b", "art_2.par_2"])
    assert [str(g.provision) for g in ev.groups] == [f"{AI}@2022-01-01#art_3", f"{AI}@2022-01-01#art_2"]
    art3, art2 = ev.groups
    assert [u.ref.unit for u in art3.units] == ["art_3.par_1.pnt_a", "art_3.par_1.pnt_b", "art_3.par_2"]
    assert [u.via for u in art3.units] == ["context", "retrieved", "context"]
    assert [u.ref.unit for u in art2.ranked] == ["art_2.par_2"] and art2.units[0].ref.unit == "art_2.par_1"
    assert (art3.rank, art2.rank, art3.title) == (1, 2, "title of art_3") and art3.whole and art2.whole
    assert ev.tokens == sum(g.tokens for g in ev.groups) <= ev.budget


def test_a_long_provision_gives_only_its_ranked_units_and_their_neighbours(index):
    whole = sum(estimate_tokens(p) for p in POINTS)
    ev = _group(index, ["art_1.pnt_e"], budget=whole, act=LIST, version="2023-01-01")  # longer than half of it
    (g,) = ev.groups
    assert [u.ref.unit for u in g.units] == ["art_1.pnt_d", "art_1.pnt_e", "art_1.pnt_f"] and not g.whole
    roomy = _group(index, ["art_1.pnt_e"], budget=3 * whole, act=LIST, version="2023-01-01")
    assert len(roomy.groups[0].units) == 8 and roomy.groups[0].whole


def test_the_budget_keeps_the_best_provisions_and_always_the_best_unit(index):
    ps, _, pos = index
    best = estimate_tokens(ps[pos[f"{AI}@2022-01-01#art_4.par_1"]].body)
    tight = _group(index, ["art_4.par_1", "art_2.par_2"], budget=best)
    assert [u.ref.unit for u in tight.units()] == ["art_4.par_1"]
    tiny = _group(index, ["art_4.par_1"], budget=1)  # over budget, but never an empty evidence
    assert [u.ref.unit for u in tiny.units()] == ["art_4.par_1"] and tiny.tokens > tiny.budget


def test_a_unit_outside_the_perimeter_never_joins_as_a_neighbour(index):
    ps, _, pos = index
    mask = np.ones(len(ps), dtype=bool)
    mask[pos[f"{AI}@2022-01-01#art_3.par_1.pnt_a"]] = False
    ev = _group(index, ["art_3.par_1.pnt_b"], mask=mask)
    assert [u.ref.unit for u in ev.units()] == ["art_3.par_1.pnt_b", "art_3.par_2"]


def test_no_seed_no_evidence_and_a_budget_below_one_is_an_error(index):
    assert _group(index, []).groups == ()
    with pytest.raises(ValueError, match="at least 1 token"):
        _group(index, ["art_2.par_2"], budget=0)
