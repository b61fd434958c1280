"""Traces: what an answer was built from, written once, verifiable later, replayable."""

from __future__ import annotations

import sqlite3

import pytest
from answer_helpers import FixedSearcher, ai_act, store

from lexcite.answer import ask, replay
from lexcite.answer.generate_extractive import MODEL as EXTRACTIVE_MODEL
from lexcite.answer.trace import MIGRATIONS, TraceStore, catalog_problems
from lexcite.errors import ConfigError

pytestmark = pytest.mark.unit

Q = "What is the maximum fine for prohibited AI practices?"


@pytest.fixture
def answered(catalog, searcher):
    return ask(Q, searcher=searcher, generator="extractive")


class TestSchema:
    def test_migrations_are_named_and_recorded(self, tmp_path):
        with TraceStore(tmp_path / "t.sqlite") as s:
            assert s.applied_migrations() == MIGRATIONS.names

    def test_migrating_twice_is_a_noop(self, tmp_path):
        with TraceStore(tmp_path / "t.sqlite") as s:
            assert s.migrate() == []
        with TraceStore(tmp_path / "t.sqlite") as s:
            assert s.migrate() == []

    def test_the_default_store_lives_in_lexcite_home(self, lexcite_home, answered):
        assert (lexcite_home / "traces.sqlite").exists()


class TestWhatIsRecorded:
    def test_a_trace_records_the_inputs_the_retrieval_the_evidence_and_the_outcome(self, answered, catalog):
        with TraceStore() as s:
            trace = s.get(answered.trace_id)
        doc, raw = trace.doc, trace.doc["trace"]
        assert trace.question == Q and trace.perimeter.language == "en" and trace.as_of
        assert trace.generator == "extractive" and trace.model == EXTRACTIVE_MODEL
        assert raw["params"]["generator_choice"] == "offline extractive (chosen)"
        assert trace.lexcite_version and raw["catalog_state"] == catalog.state()
        assert {(v.act, v.sha256) for v in trace.versions} == {(v.act, v.sha256) for v in catalog.versions()}
        assert trace.hits and all(h.stage and h.rank >= 1 and h.ref for h in trace.hits)
        assert doc["ranked"] and doc["ranked"][0]["admitted"] == 1
        assert trace.threshold == 0.25
        assert [e.sid for e in trace.evidence] == [e.sid for e in answered.evidence]
        assert trace.evidence and all(len(e.text_sha256) == 64 and e.text for e in trace.evidence)
        assert raw["prompt"] and raw["raw_output"].endswith("[S1]")
        assert [v.ok for v in trace.verdicts] == [True]
        assert trace.answer_text == answered.text and not trace.refused
        assert [s.refs for s in trace.sentences] == [tuple(map(str, s.refs)) for s in answered.sentences]
        assert {"search", "generate", "verify", "total"} <= set(trace.timings)

    def test_a_refusal_is_traced_with_its_reason(self, searcher):
        a = ask("pizza dough recipe", searcher=searcher, generator="extractive")
        with TraceStore() as s:
            t = s.get(a.trace_id)
        assert t.refused and "no_evidence" in t.flags and "Searched:" in t.refusal_reason

    def test_no_text_keeps_ids_hashes_and_flags_only(self, catalog, searcher):
        a = ask(Q, searcher=searcher, generator="extractive", store_text=False)
        with TraceStore() as s:
            t = s.get(a.trace_id)
        assert t.question is None and len(t.question_sha256) == 64
        assert t.doc["trace"]["prompt"] is None and t.doc["trace"]["raw_output"] is None
        assert t.evidence and all(e.text is None and e.title is None and e.text_sha256 for e in t.evidence)
        assert t.verdicts and all(v.sentence is None for v in t.verdicts)
        assert t.answer_text is None and all(s.text is None for s in t.sentences)
        assert "no_text" in t.flags and not t.store_text
        raw = sqlite3.connect(TraceStore().path).execute("SELECT * FROM traces").fetchall()
        assert not any("EUR 35 000 000" in str(v) for row in raw for v in row)

    def test_no_trace_writes_nothing(self, lexcite_home, searcher):
        ask(Q, searcher=searcher, generator="extractive", trace=False)
        with TraceStore() as s:
            assert s.list() == []

    def test_list_shows_the_newest_first(self, searcher):
        first = ask(Q, searcher=searcher, generator="extractive")
        second = ask("What is an AI system?", searcher=searcher, generator="extractive")
        with TraceStore() as s:
            rows = s.list()
        assert [r.id for r in rows] == [second.trace_id, first.trace_id]
        assert rows[0].question == "What is an AI system?" and rows[0].n_evidence >= 1 and not rows[1].refused

    def test_a_unique_prefix_finds_a_trace(self, answered):
        with TraceStore() as s:
            assert s.get(answered.trace_id[:12]).id == answered.trace_id
            with pytest.raises(ConfigError, match="no trace"):
                s.get("zzzz")


class TestVerification:
    def test_a_fresh_trace_verifies(self, answered, catalog):
        with TraceStore() as s:
            trace = s.get(answered.trace_id)
        assert trace.content_ok
        assert catalog_problems(trace, catalog) == []

    def test_editing_the_trace_after_logging_breaks_verify(self, answered):
        with TraceStore() as s:
            s.conn.execute("UPDATE traces SET refusal_reason='edited' WHERE id=?", (answered.trace_id,))
            assert not s.get(answered.trace_id).content_ok

    def test_a_newer_version_in_the_catalog_is_reported(self, answered, catalog):
        store(catalog, ai_act(version="2026-07-27"))
        with TraceStore() as s:
            problems = catalog_problems(s.get(answered.trace_id), catalog)
        assert any("now superseded" in p for p in problems)
        assert any("newer current version" in p for p in problems)

    def test_a_changed_cited_text_is_reported(self, answered, catalog):
        changed = ai_act()
        store(catalog, changed.__class__(**{**changed.__dict__, "units": tuple(
            u.__class__(**{**u.__dict__, "text": u.text.replace("35 000 000", "36 000 000")}) for u in changed.units)}))
        with TraceStore() as s:
            problems = catalog_problems(s.get(answered.trace_id), catalog)
        assert any("stored text changed" in p for p in problems)
        assert any("re-ingested" in p for p in problems)


class TestReplay:
    def test_replaying_an_unchanged_question_reports_no_difference(self, answered, searcher):
        report = replay(answered.trace_id, searcher=searcher)
        assert report.differences == () and report.content_ok and report.catalog_problems == ()
        assert report.answer.text == answered.text

    def test_replaying_after_a_new_version_reports_the_differences(self, answered, catalog, searcher):
        store(catalog, ai_act(version="2026-07-27"))
        report = replay(answered.trace_id, searcher=searcher)
        assert any("evidence changed" in d for d in report.differences)
        assert any("citations" in d and "2026-07-27" in d for d in report.differences)
        assert report.catalog_problems

    def test_a_no_text_trace_cannot_be_replayed(self, searcher):
        a = ask(Q, searcher=searcher, generator="extractive", store_text=False)
        with pytest.raises(ConfigError, match="no-text"):
            replay(a.trace_id, searcher=searcher)

    def test_replay_does_not_write_a_new_trace(self, answered, searcher):
        replay(answered.trace_id, searcher=searcher)
        with TraceStore() as s:
            assert len(s.list()) == 1

    def test_replay_reruns_with_the_recorded_generator(self, answered, searcher):
        assert replay(answered.trace_id, searcher=searcher).answer.generator == "extractive"


def test_fixed_searcher_is_available_for_other_suites(catalog):
    assert FixedSearcher(catalog, ["32024R1689@2024-07-12#art_113"]).search("x").admitted
