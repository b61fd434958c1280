"""Sentence nearness for the offline answer: the sentences `lexcite index` embeds are the ones the generator reads,
the vectors file is kept in step (kept, embedded, dropped; another embedder's never read), and the generator orders
by it. Real units of the AI Act, the real minilm model, real files (the command line:
tests/cli/test_nearness_cli.py)."""

from __future__ import annotations

import pytest

from lexcite.answer.generate_extractive import ExtractiveGenerator, in_context
from lexcite.answer.nearness import (
    SECOND_SHARE,
    load_nearness,
    quotable_sentences,
    sentence_id,
    sentence_nearness,
    sentences_path,
    update_sentence_vectors,
)
from lexcite.index.embed import get_embedder
from lexcite.references import heading_of


def _article(units, article: str) -> list:
    return [r for (act, unit), r in units.records.items()
            if act == "32024R1689" and (unit == article or unit.startswith(article + "."))]


def test_every_sentence_the_generator_reads_is_among_those_indexed(units):
    """Article 5(1) read with its points (its own words are then only the opening words) and alone (whole)."""
    records = _article(units, "art_5")
    indexed = set(quotable_sentences(records))
    gen = ExtractiveGenerator()
    for evidence in (units.evidence("art_5.par_1", "art_5.par_1.pnt_a", "art_5.par_1.pnt_h"),
                     units.evidence("art_5.par_1"), units.evidence("art_5.par_2", "art_5.par_3")):
        read = {c.text for c in gen._candidates(evidence)}
        assert read and read <= indexed, read - indexed
        headed = {in_context(heading_of(e.title), c.text) for c in gen._candidates(evidence)
                  for e in evidence if e.sid == c.sid}
        assert headed <= indexed and headed != read, headed - indexed
    # the opening words alone are a sentence of their own, besides the whole paragraph's
    assert any(s.startswith("The following AI practices shall be prohibited:") and len(s) < 80 for s in indexed)


@pytest.mark.slow
def test_the_vectors_file_is_kept_in_step(units, tmp_path):
    minilm = get_embedder("minilm")
    records = _article(units, "art_4") + _article(units, "art_50")
    counts = update_sentence_vectors(tmp_path, records, minilm)
    assert counts["embedded"] == counts["sentences"] > 5 and counts["dropped"] == 0
    stored = load_nearness(tmp_path, "minilm")
    assert stored is not None and len(stored) == counts["sentences"]

    # a cosine as the embedder gives it (stored at half precision)
    s = quotable_sentences(_article(units, "art_4"))[0]
    q = minilm.embed(["Do staff need AI training?"], query=True)[0]
    assert stored.of(q, [s, "a sentence no unit says"]) == pytest.approx({s: float(minilm.embed([s])[0] @ q)},
                                                                         abs=2e-3)

    again = update_sentence_vectors(tmp_path, records, minilm)  # nothing new: nothing embedded
    assert again["embedded"] == 0 and again["kept"] == counts["sentences"]
    fewer = update_sentence_vectors(tmp_path, _article(units, "art_4"), minilm)  # Article 50 left the catalog
    assert fewer["embedded"] == 0 and fewer["dropped"] == counts["sentences"] - fewer["sentences"] > 0
    assert len(load_nearness(tmp_path, "minilm")) == fewer["sentences"]

    assert load_nearness(tmp_path, "e5") is None  # another embedder's vectors are never read
    assert sentence_nearness(tmp_path, "e5", "Do staff need AI training?") is None

    sentences_path(tmp_path).write_bytes(b"PK\x03\x04 cut short")  # damaged: read as absent, then rewritten
    assert load_nearness(tmp_path, "minilm") is None
    rewritten = update_sentence_vectors(tmp_path, _article(units, "art_4"), minilm)
    assert rewritten["embedded"] == fewer["sentences"] and rewritten["damaged"] == 1 and fewer["damaged"] == 0
    assert len(load_nearness(tmp_path, "minilm")) == fewer["sentences"]


@pytest.mark.slow
def test_the_second_readings_cosine_is_added_at_its_share(units, tmp_path):
    """With the second reading's sentence vectors stored beside the index embedder's, a sentence's nearness is the
    index embedder's cosine plus SECOND_SHARE of the second's; the two files are kept apart (e5 stands in for the
    second embedder here: tests/index/test_second.py runs mpnet through `lexcite index`)."""
    minilm, e5 = get_embedder("minilm"), get_embedder("e5")
    records = _article(units, "art_4") + _article(units, "art_26")
    question = "Do staff need AI training?"
    update_sentence_vectors(tmp_path, records, minilm)
    alone = sentence_nearness(tmp_path, "minilm", question, "e5")
    assert alone is not None and alone.readings == 1  # no second vectors stored yet
    counts = update_sentence_vectors(tmp_path, _article(units, "art_4"), e5, second=True)
    assert counts["embedded"] == counts["sentences"] > 0 and load_nearness(tmp_path, "minilm") is not None
    assert load_nearness(tmp_path, "e5") is None and load_nearness(tmp_path, "e5", second=True) is not None
    both = sentence_nearness(tmp_path, "minilm", question, "e5")
    assert both is not None and both.readings == 2
    a4, a26 = quotable_sentences(_article(units, "art_4"))[:2], quotable_sentences(_article(units, "art_26"))[:1]
    q = e5.embed([question], query=True)[0]
    second = {s: float(e5.embed([s])[0] @ q) for s in a4}
    got, first = both([*a4, *a26]), alone([*a4, *a26])
    assert got[a4[0]] == pytest.approx(first[a4[0]] + SECOND_SHARE * second[a4[0]], abs=2e-3)
    # Article 26's sentences have no second vector yet: read at the mean of the others'
    assert got[a26[0]] == pytest.approx(first[a26[0]] + SECOND_SHARE * sum(second.values()) / 2, abs=2e-3)
    assert sentence_nearness(tmp_path, "minilm", question, "none").readings == 1


def test_nearness_orders_sentences_that_answer_part_of_the_question(units):
    """Two sentences sharing the question's words alike: the one nearer the question in meaning is quoted first."""
    evidence = units.evidence("art_26.par_1", "art_26.par_2")
    question = "What must deployers do?"
    gen = ExtractiveGenerator(max_units=1)
    plain = gen.generate(question, evidence)
    assert plain.params["nearness"] == "none"
    first = plain.text.splitlines()[0]
    other = next(c.text for c in gen._candidates(evidence) if c.text not in plain.text and "eployers" in c.text)

    def near(sentences):
        return {s: (1.0 if s == other else 0.0) for s in sentences}

    moved = gen.generate(question, evidence, nearness=near)
    assert moved.text.splitlines()[0].startswith(other) and first not in moved.text.splitlines()[0]
    assert moved.params["nearness"].endswith("sentences") and not moved.params["nearness"].startswith("0 ")

    alone = {c.text for c in gen._candidates(evidence)}

    def under_heading_only(texts):  # only the sentences as read under their provision's heading are stored
        return {t: float(t.endswith(other)) for t in texts if t not in alone}

    assert gen.generate(question, evidence, nearness=under_heading_only).text.splitlines()[0].startswith(other)


def test_sentence_ids_are_the_text_hash():
    assert sentence_id("Deployers shall keep the logs.") == sentence_id("Deployers shall keep the logs.")
    assert sentence_id("Deployers shall keep the logs.") != sentence_id("Providers shall keep the logs.")


def test_the_sentences_of_the_best_provision_nearest_the_question_are_quoted_besides(units):
    """A user's words share none with the paragraph beside the operative one that answers: the best sentence's article
    gives its sentences nearest the question in meaning as well, two at most, in the law's order after what is quoted
    of it; without nearness they are not quoted."""
    evidence = units.evidence("art_33.par_1", "art_33.par_3", "art_33.par_4", "art_34.par_1", act="32016R0679")
    question = "Do we have to tell the regulator about a personal data breach?"
    gen = ExtractiveGenerator()
    candidates = gen._candidates(evidence)
    phases = next(c.text for c in candidates if c.unit == "art_33.par_4")
    other_article = next(c.text for c in candidates if c.unit == "art_34.par_1")
    plain = gen.generate(question, evidence)
    assert phases not in plain.text and plain.text.splitlines()[0].endswith("[S1]")

    def near(sentences):
        return {s: 1.0 if s.endswith(phases) else 0.0 if s.endswith(other_article) else 0.5 for s in sentences}

    lines = gen.generate(question, evidence, nearness=near).text.splitlines()
    assert f"{phases} [S3]" in lines
    assert lines[:len(plain.text.splitlines())] == plain.text.splitlines()  # what the words chose comes first
    added = [line for line in lines if line not in plain.text.splitlines()]
    assert len(added) == 2 and added[-1] == f"{phases} [S3]"  # 33(3) before 33(4): the law's order
    assert not any(line.endswith("[S4]") for line in lines)  # Article 34 is another provision


def test_the_nearest_sentence_of_another_provision_is_quoted_besides_when_not_quoted(units):
    """The question's words choose Article 26; the sentence of all the evidence nearest its meaning is Article 4's,
    quoted besides (the recital beside it is not: nothing made it near)."""
    evidence = units.evidence("art_26.par_1", "art_26.par_2", "art_4", "rct_20")
    question = "What must deployers of high-risk AI systems do?"
    gen = ExtractiveGenerator()
    candidates = gen._candidates(evidence)
    literacy = next(c.text for c in candidates if c.unit == "art_4")
    recital = next(c.text for c in candidates if c.unit == "rct_20")
    plain = gen.generate(question, evidence)
    assert literacy not in plain.text

    def near(sentences):
        return {s: 1.0 if s.endswith(literacy) else 0.0 for s in sentences}

    text = gen.generate(question, evidence, nearness=near).text
    assert literacy in text and recital not in text


def test_a_nearest_sentence_that_speaks_of_the_one_before_comes_with_it(units):
    """"This obligation shall not apply ..." means nothing without the obligation: quoted besides, it comes after the
    sentence it speaks of."""
    evidence = units.evidence("art_50.par_2", "art_50.par_3")
    gen = ExtractiveGenerator()
    obligation, exception = [c.text for c in gen._candidates(evidence) if c.unit == "art_50.par_3"][:2]
    assert exception.startswith("This obligation")

    def near(sentences):
        return {s: float(s.endswith(exception)) for s in sentences}

    lines = gen.generate("Do we have to label AI-generated images?", evidence, nearness=near).text.splitlines()
    assert lines.index(f"{obligation} [S2]") + 1 == lines.index(f"{exception} [S2]")


def test_a_recital_the_embedder_puts_first_gives_way_to_the_binding_text_that_scores_nearly_as_well(units,
                                                                                                   monkeypatch):
    """Recital 115 paraphrases Article 55(1)(c) in words nearer a user's: the binding text leads the answer, and a
    question asking why keeps the recital first."""
    from lexcite.answer import generate_extractive

    evidence = units.evidence("rct_115", "art_55.par_1", "art_55.par_1.pnt_c")
    recital = {c.text for c in ExtractiveGenerator()._candidates(evidence) if c.unit == "rct_115"}

    def near(sentences):
        return {s: 1.0 if any(s.endswith(r) for r in recital) else 0.0 for s in sentences}

    question = "Does a general-purpose AI model with systemic risk need to report serious incidents?"
    lines = ExtractiveGenerator().generate(question, evidence, nearness=near).text.splitlines()
    assert lines[0].endswith("[S2]") and lines[1].startswith("(c) keep track of") and lines[1].endswith("[S3]")
    monkeypatch.setattr(generate_extractive, "BINDING_SHARE", 2.0)  # the rule off: the recital leads
    assert ExtractiveGenerator().generate(question, evidence, nearness=near).text.splitlines()[0].endswith("[S1]")
    monkeypatch.undo()
    why = ExtractiveGenerator().generate("Why must providers of general-purpose AI models with systemic risk report "
                                         "serious incidents?", evidence, nearness=near)
    assert why.text.splitlines()[0].endswith("[S1]")
    changed = "What did the Digital Omnibus change about reporting serious incidents for systemic-risk models?"
    change = ExtractiveGenerator().generate(changed, evidence, nearness=near)
    assert change.text.splitlines()[0].endswith("[S1]")  # an amending act's recitals say what it changes


def test_a_nearest_point_comes_with_its_lists_opening_words_wherever_they_stand_in_the_paragraph(units):
    """AI Act Article 22(3) opens its list in its third sentence ("... to carry out the following tasks:"): a point
    the nearest-sentence step adds comes with that sentence, as `_with_chapeaus` gives it to any quoted point."""
    evidence = units.evidence("art_22.par_1", "art_22.par_3", "art_22.par_3.pnt_b")
    gen = ExtractiveGenerator()
    candidates = gen._candidates(evidence)
    by_sid: dict = {}
    for c in candidates:
        by_sid.setdefault(c.sid, []).append(c)
    first, point = candidates[0], next(c for c in candidates if c.unit == "art_22.par_3.pnt_b")
    paragraph = by_sid["S2"]
    assert len(paragraph) == 3 and paragraph[-1].text.endswith(":") and not paragraph[0].text.endswith(":")

    added = gen._nearest_of_provision(first, [first], candidates, {point.text: 1.0}, by_sid)
    assert [x.text for x in added] == [first.text, paragraph[-1].text, point.text]
