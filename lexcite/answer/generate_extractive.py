"""The offline generator: quotes the provision that answers the question, each sentence with its own citation.

Deterministic and model-free, the default when ANTHROPIC_API_KEY is not set.
It never writes a word of its own: every sentence it returns is a sentence (or
one clause of a list) of an evidence unit, quoted verbatim and followed by that
unit's id, so it is verified like any other generator's output, and a sentence
always cites the paragraph or point it was read from, never a neighbour.

Choosing what to quote happens in two steps.

1. Every sentence of every evidence unit is scored:

   - lexical: the share of the question's content terms it contains, weighted by
     inverse frequency among all candidate sentences (rare words matter most;
     the words of the sentence that asks weigh more than those of the sentences
     before it, which describe the asker's situation),
     and at a lower weight those its provision's heading has ("The Board shall
     be composed of ..." is in the article on the European Artificial
     Intelligence Board), and a point those of its list's opening words
     ("providers of general-purpose AI models with systemic risk shall: (c)
     ... report ... serious incidents");
   - what the question asks (`question.cues`): a date, period, amount,
     percentage or power of ten for a value question (more so "shall apply
     from" for "when"); a definition ("'X' means ...") of the term the
     question names or quotes; for a yes/no question the operative sentence
     that decides it (a prohibition, an obligation, a permission, and most of
     all an exception or a "does not apply" clause when it asks whether
     something applies, read from the sentence that asks; and the sentence
     setting a limit of the kind of value the question states: "Is a
     three-year term allowed?" is decided by "no less than four years"); for "who/which
     authority" a sentence naming an actor, for "where do we send ...?" the one
     saying where it goes ("shall submit ... to the notifying authority"); for a
     question about a duty ("When is a company obliged to ...?") the sentence
     that obliges, most of all one whose duty falls on the operator asked about
     ("Deployers shall ...");
   - where it stands: a unit on the branch of a provision the question names
     ("Article 6(2)", `lexcite.references`) is preferred, a recital that
     paraphrases the binding text is not (unless the question asks why), and
     when a recital's sentence still scores best, an operative sentence that
     scores nearly as well (`BINDING_SHARE`) leads the answer in its place
     (unless the question asks why, or what an amending act changed, which
     its recitals say);
   - rank: a small prior for the evidence retrieval ranked higher;
   - meaning: when the index holds sentence vectors (`answer/nearness.py`), the
     embedder's cosine of the sentence with the question, rescaled over this
     question's sentences, for a sentence that shares some word of the question
     (a user's words share few with the sentence that answers).

2. The best sentence's unit is quoted whole when it is short (a point, a
   one-sentence paragraph) or when the question asks for a list ("which
   categories", "what information") and the unit holds one, so that every
   point of the list is there; a long unit gives its best sentence, and the
   list's opening words when the sentence is one point of it. Up to two more
   units are quoted (each its best sentence, or whole when short) when they
   score at least half as well and add question terms those before lack, or
   when retrieval ranked them among its first three (a question in a user's
   words matches the law's loosely, and the paragraph that answers is often
   the second or third best); so is a further sentence of a
   long unit quoted in part, in the unit's order (a question that asks two
   things: the notice to give, and what becomes of the certificates). A
   question that asks a second question ("What permission do we need, and what
   if it is too urgent to wait?", `question.question_parts`) gets, besides, the
   sentence that answers that part best, read with its own words and cues, when
   nothing quoted answers it as well. A quoted definition comes with the
   sentence of the recital on that notion that answers the question best
   ("It does not include physical states, such as pain or fatigue"): what a
   definition leaves out is said in its recital. The answer stays within
   `max_chars`. A list quoted with its opening words reads as the law writes
   it: the opening words, then its points in their order, whichever of them
   was chosen first. A sentence that speaks of what the one before it named
   ("It shall contain ...", "That period may be extended by six weeks") is
   read with that sentence's words, and quoted after it. A sentence of a
   provision quoted is followed by those after it that speak of what it named
   ("That authorisation shall be for a limited period ...", "This shall, in
   particular, apply to consultancy services"), past `max_chars` by at most
   `SEQUEL_CHARS`: they bound the rule it states, and the rule without them
   misleads.

3. When the index holds sentence vectors, the two sentences of the best
   sentence's provision nearest the question in meaning are quoted besides,
   in the law's order among what is quoted of that provision, when not quoted
   yet (`NEAREST_MORE`, within `max_chars` and `NEAREST_CHARS` more): the words
   choose the operative sentence, but a user's words share few with the
   paragraph beside it that answers ("My city's tax office says data
   portability doesn't cover them": "That right shall not apply to processing
   ... in the exercise of official authority", GDPR Article 20(3)).

A question that shares no content term with any sentence gets a refusal,
decided in code, unless it is not written in English: then lexical overlap
says nothing and the top-ranked unit is quoted, retrieval (multilingual) having
chosen it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from lexcite.answer.draft import MARKER, Draft, parse_draft, split_sentences
from lexcite.answer.evidence import instruction_like, own_text
from lexcite.answer.timing import asks_when
from lexcite.answer.verify import MAX_SENTENCES
from lexcite.contract import CitationRef, Evidence
from lexcite.index.named import TERM_QUALIFIER
from lexcite.index.provenance import asks_about_a_change, without_change_words
from lexcite.ingest.amendment_formula import opens_with_formula
from lexcite.lay_terms import acts_terms, written_out
from lexcite.question import (
    Cues,
    asks_for_value,
    content_terms,
    cues,
    in_english,
    question_parts,
    singular,
    stem,
    value_secondary,
)
from lexcite.references import (
    ActNames,
    find_references,
    heading_of,
    provision_of,
    self_and_ancestors,
    without_references,
)
from lexcite.values import counts, read_values, states_no_charge, states_time_standard

__all__ = ["ExtractiveGenerator", "candidate_sentences", "score_sentence", "Shape", "shape_of"]

NAME = "extractive"
MODEL = "extractive-v2"
_NO_ANSWER = "no sentence of the admitted evidence answers the question"
MIN_TERMS = 1
MIN_COVERAGE = 0.0
WHOLE_UNIT = 850  # characters: a unit this short is quoted whole (dev: 700 < 850 = 1000 > 1200)
MAX_CHARS = 1600  # the whole answer
# the sentences of the best sentence's provision nearest the question in meaning, quoted besides when not yet
# quoted, within this many more characters: the words above choose the operative sentence, but a question in a
# user's own words shares few of them with the paragraph beside it that answers ("My city's tax office says data
# portability doesn't cover them": "That right shall not apply to processing ... in the exercise of official
# authority", GDPR Article 20(3)). Dev (stop 37): 0 / 1 / 2 / 3 sentences,
# key facts 0.715 / 0.743 / 0.758 / 0.768, answers 1352 / 1615 / 1819 / 2022 characters on average
NEAREST_MORE = 2
NEAREST_CHARS = 800
# only a sentence in the nearer half of the question's sentences (nearness rescaled, `_rescaled`): 0 / 0.5 gave key
# facts 0.758 / 0.755 and 1841 / 1779 characters
NEAREST_FLOOR = 0.5
# and the one binding sentence of all the evidence nearest the question, when not quoted yet, within this many more
# characters: the two readings' nearness (answer/nearness.py) finds the sentence that answers in another unit than the
# one the question's words chose ("What's the longest they can give us to fix it?": Article 79(2)'s "15 working days").
# Dev (stop 42): without it key facts 0.818; with 400 more characters 0.830 (0 / 800 more, with the nearest sentence
# not yet quoted rather than the nearest one if not quoted: 0.826 / 0.830; that one at 400: 0.832, answers longer)
NEAREST_ANY_CHARS = 400
MAX_QUOTED = 8  # sentences or list clauses quoted for their own sake: verify.py refuses an answer of more
# than 12, and code adds notes (amendments, conflicts) and the points and chapeaus of what is quoted
SECOND = 0.5  # another unit is quoted when its best sentence scores this share of the best (dev: 0.85 -> 0.7
# raised key facts 0.513 -> 0.564; with three units instead of two, 0.7 -> 0.5 raised the fresh dev questions'
# key facts 0.342 -> 0.399 and the others' 0.779 -> 0.786, bench/RESULTS.md "Stop 31")
RETRIEVED = 3  # units retrieval ranked this high are quoted (scoring at least SECOND of the best) even when they
# add no question term (dev: none / 1 / 2 / 3 gave key facts 0.683 / 0.673 / 0.685 / 0.697, ref_exact 0.715 / 0.711 /
# 0.737 / 0.746; the fresh questions' key facts 0.461 / 0.479 / 0.515 / 0.551)
SEQUEL_CHARS = 400  # the length sequels may add to an answer (`_with_sequels`)
FURTHER = 0.7  # a further sentence of a unit quoted in part, at this share of the best: a long list's other points
# share the question's words loosely ("(h) ... publicly accessible spaces" for a question on scraping CCTV footage)

# A sentence that speaks of what the one before it named: "It shall contain ...", "That notification shall ...",
# "Such records ...", "They shall ..."; "This Regulation", "This Article" name the act or provision itself
_CONTINUES = re.compile(r"^(?:It|They|That|These|Those|Such)\b|^This\b(?!\s+(?:Regulation|Directive|Decision|Article|"
                        r"Chapter|Section|Annex|paragraph|subparagraph|point)\b)")
# "‘X’ means", "“X” or “Y” means" (the term and its abbreviation)
_QUOTES = re.compile(r"[‘’'“”\"]")
_DEFINES = re.compile(r"[‘'\"“](?P<term>[^’'\"”]{2,80})[’'\"”](?:\s+or\s+[‘'\"“](?P<alias>[^’'\"”]{2,80})[’'\"”])?"
                      # "‘consent’ of the data subject means ..." (GDPR Article 4(11)): index/named.py
                      + TERM_QUALIFIER + r"\s+(?:means|shall mean|refers to|is defined as)\b", re.I)
# the verb of a definition ("‘AI Office’ means ...") is the law's form, not its content: "enough means" is no match
_DEFINING_VERB = re.compile(r"([’'\"”])\s+(?:means|shall mean)\b")
_APPLY = re.compile(r"\b(?:shall apply|shall be applicable|applies|apply|enter into force|shall enter into force)\b"
                    r"[^.;]{0,40}\b(?:from|on|by)\b", re.I)
# "shall not apply", "shall not affect", "shall not be considered", "shall not preclude": a limit of scope or a
# saving, not a prohibition
_PROHIBIT = re.compile(r"\b(?:shall be prohibited|prohibited|shall not(?! (?:apply|affect|be (?:considered|deemed)|"
                       r"qualify|prejudice|preclude))|may not|is not allowed|are not allowed)\b", re.I)
_OBLIGE = re.compile(r"\b(?:shall|must|are required to|is required to|shall ensure)\b", re.I)
# the power the act gives a body ("The Commission is empowered to adopt delegated acts") answers "Could it ...?"
_PERMIT = re.compile(r"\b(?:may|is allowed|are allowed|is permitted|are permitted|shall be lawful|(?:is|are|shall be) "
                     r"empowered)\b", re.I)
_EXCEPT = re.compile(r"\b(?:does not apply|do not apply|shall not apply|shall not affect|unless|except|exception|"
                     r"by way of derogation|derogat\w*|exempt\w*|without prejudice|shall not be considered|"
                     r"shall not qualify|shall not preclude|(?:does|do|shall) (?:also )?not include|"
                     r"(?:does|do) not cover)\b", re.I)
_IN_SCOPE = re.compile(r"^(?:\d+\.\s*)?This (?:Regulation|Directive) (?:applies|shall apply) to\b", re.I)
_OUT_OF_SCOPE = re.compile(r"^(?:\d+\.\s*)?This (?:Regulation|Directive) (?:does not|shall not) apply\b", re.I)
_ACTOR = re.compile(r"\b(?:providers?|deployers?|importers?|distributors?|authorised representatives?|operators?|"
                    r"(?:the )?Commission|AI Office|Board|Member States?|(?:national |market surveillance |"
                    r"supervisory |competent |notifying )?authorit(?:y|ies)|controllers?|processors?|"
                    r"notified bod(?:y|ies)|data protection officer)\b")
_CLAUSE = re.compile(r"(?<=;)\s+(?=(?:and\s+|or\s+)?\((?:[a-z]{1,3}|[ivx]{1,5}|\d{1,3})\)\s)")
_POINT_START = re.compile(r"^\s*(?:and\s+|or\s+)?\((?:[a-z]{1,3}|[ivx]{1,5}|\d{1,3})\)\s")
_LIST_INTRO = re.compile(r":\s*(?:\((?:a|i|1)\)\s|$)")
# a recital's sentence that only restates the definition ("should be defined as ...") explains nothing more
_RESTATES = re.compile(r"\b(?:should be (?:defined|understood) as|means)\b", re.I)
_QUOTED = re.compile(r"(?<!\w)[‘'\"“]([^’'\"”]{2,60})[’'\"”](?!\w)")  # not the apostrophes of "we're", "can't"
_YES_NO = re.compile(r"^(?:is|are|am|can|could|may|might|must|do|does|did|shall|should|will|would|has|have|"
                     r"need)\b", re.I)
# what a list holds, as a list question names it
_LISTED_THINGS = (r"categories|kinds|types|information|duties|obligations|practices|elements|rights|conditions|cases|"
                  r"requirements|measures|tasks|areas|data|details")
_LIST = re.compile(rf"\b(?:which|what)\s+(?:\w+\s+){{0,3}}(?:{_LISTED_THINGS}|list)\b|"
                   r"\blist\b|\bwhat (?:must|should|has to|have to)\b|\bwhich kinds?\b|"
                   # what a document or a notice is made of: "What does that report have to include, at a minimum?"
                   r"\b(?:what|which)\b[^?.]{0,60}?\b(?:include|contain|comprise|consist of)\b", re.I)
# The things a list question asks for, named by their noun ("What information goes into ...?"): a list whose
# opening words name them ("The following information shall be provided") is that list.
_LISTED = re.compile(rf"\b(?:which|what)\s+(?:\w+\s+){{0,2}}?({_LISTED_THINGS}|"
                     r"documents|criteria|safeguards|principles|grounds|exceptions)\b", re.I)
NAMED_LIST_CHARS = 1200  # the length a named list may add to the answer
# "Give me the full list", "Please list every measure", "all of them": the user wants every point of the list, which
# is quoted whole when it fits in `NAMED_LIST_CHARS` more and the sentences the verifier allows
_COMPLETE = re.compile(r"\b(?:full|complete|whole|entire|exhaustive)\s+list\b|"
                       r"\blist\s+(?:them\s+)?(?:all|every|each)\b|\ball\s+of\s+them\b|"
                       r"\b(?:every|each)\s+(?:single\s+)?(?:one|item|measure|point|category|element|condition|"
                       r"requirement|ground|subject|obligation)\b", re.I)
# The date in an act's citation ("Regulation (EU) 2019/2144 of the European Parliament and of the Council of
# 27 November 2019", "(OJ L 170, 30.6.2009, p. 1)") is when that act was adopted or published, no date it sets.
_CITATION = re.compile(r"\b(?:Council|Commission|Parliament)\s+of\s+\d{1,2}\s+[A-Z][a-z]+\s+\d{4}|\(OJ [^)]{1,60}\)")
_OPERATOR = (r"(?P<actor>provider|deployer|importer|distributor|authorised representative|product manufacturer|"
             r"controller|processor)s?")
# A sentence whose duty falls on an operator: "Deployers shall assign ...", "(b) the provider shall ...".
_BEARER = re.compile(rf"^(?:\(\w{{1,4}}\)\s*)?(?:[^.;:]{{0,80}}?,\s*)?(?:the |each |every |all )?{_OPERATOR}\b"
                     r"[^.;:]{0,200}?\b(?:shall|must)\b", re.I)
_ACTOR_Q = re.compile(rf"\b{_OPERATOR}\b|\b(?P<verb>deploy|import|distribut)(?:s|es|ed|ing|e)?\b", re.I)
_VERB_ACTOR = {"deploy": "deployer", "import": "importer", "distribut": "distributor"}
_DURATION = re.compile(r"\bhow long\b|\bhow many (?:hours|days|weeks|months|years)\b", re.I)
_BOUND = re.compile(r"\b(?:longest|shortest|maximum|minimum|at most|at the latest|upper limit)\b", re.I)
_OBLIGED_Q = re.compile(r"\b(?:obliged|required|obligat\w+|duty|duties|ha(?:ve|s) to|must|should|needs? to|compulsory|"
                        r"mandatory)\b", re.I)
_WHO_DUTY = re.compile(r"^who\s+(?:has to|have to|must|shall|should|needs? to|is (?:required|obliged|responsible) "
                       r"(?:to|for)|are (?:required|obliged|responsible) (?:to|for))\s+([a-z]+)", re.I)
# "Where do we send our application?", "To whom must the breach be reported?": the body something goes to
_RECIPIENT_Q = re.compile(r"\bwhere (?:do|does|did|should|must|can|may|shall|will|would|have|has)\b[^?]{0,60}?\b"
                          r"(?:send|submit|file|lodge|address|apply|report|notify|complain|register)\b|"
                          r"\b(?:to|with) whom\b|\bwho (?:do|does|should|must|can) (?:we|i|they|you) "
                          r"(?:send|submit|report|notify|complain|apply) (?:\w+ ){0,4}to\b", re.I)
_RECIPIENT = re.compile(r"\b(?:submit(?:s|ted|ting)?|send(?:s|ing)?|sent|lodg(?:e|es|ed|ing)|address(?:es|ed)?|"
                        r"notif(?:y|ies|ied)|fil(?:e|es|ed|ing)|report(?:s|ed|ing)?)\b[^.;]{0,120}?\b(?:to|with)\s+"
                        r"(?:the\s+)?(?:[\w-]+\s+)"
                        r"{0,4}(?:authorit(?:y|ies)|Commission|AI Office|Board|bod(?:y|ies)|office|court)\b", re.I)
RECIPIENT = 0.15  # dev: 0.15 = 0.3 (dx05)
# "shall register", "shall, prior to the processing, carry out an assessment"
_SHALL_DO = re.compile(r"\b(?:shall|must)(?:,[^,;.]{1,80},)?\s+((?:[a-z]+\s+){0,3}[a-z]+)")
_WHY = re.compile(r"^why\b|\bwhat (?:is|was) the reason\b|\bwhy (?:did|does|do|is|was)\b", re.I)
_APPLY_Q = re.compile(r"\b(?:apply|applies|applicable|cover(?:ed|s)?|count|obligations?|exempt\w*)\b", re.I)


@dataclass(frozen=True)
class Shape:
    """What kind of answer the question asks for, beyond the value cues."""

    yes_no: bool = False
    listing: bool = False
    why: bool = False
    applies: bool = False  # a yes/no question about whether something applies, is covered or exempt
    quoted: tuple[str, ...] = ()  # terms the question quotes ('AI system')
    actors: tuple[str, ...] = ()  # the operators it asks about ("a company that deploys ...": deployer)
    bound: bool = False  # it asks for the longest, shortest, maximum or minimum of something
    duration: bool = False  # it asks how long ("How long do they have to object?"): a period, more than "without delay"
    obliged: bool = False  # it asks whether or when someone is obliged ("When is a company obliged to ...?")
    duty: str = ""  # the stem of the verb a "who has to ...?" question asks the actor of ("regist")
    recipient: bool = False  # it asks where or to whom something is sent ("Where do we send our application?")
    foreign: bool = False  # not written in English: word overlap with the English text says nothing
    stated: frozenset[str] = frozenset()  # kinds of value the question itself states ("three-year terms": a period)
    # it asks from when a rule applies or is in force: a date answers, a deadline ("before placing it on the
    # market") is what the rule requires once it applies, not when it starts to
    application: bool = False
    # the terms of the thing "What is/are X?" asks about, its head before any "of ...": "What are the principles of
    # data processing?" asks about principles, and the definition of 'processing' does not answer it
    asked: frozenset[str] = frozenset()
    listed: frozenset[str] = frozenset()  # the stems of what a list question asks for ("what information": inform)
    complete: bool = False  # it asks for every item ("Give me the full list", "list every measure")


_STATED_KINDS = frozenset({"date", "month", "period", "amount", "percent"})


def _asking(question: str) -> str:
    """The sentences that ask (those ending in '?'), else the whole question: "Both laws apply to us. Will the
    Commission ...?" asks nothing about whether they apply."""
    asking = [s for s in split_sentences(question) if s.rstrip().endswith("?")]
    return " ".join(asking) or question


def shape_of(question: str) -> Shape:
    q = " ".join(question.split())
    asking = _asking(q)
    yes_no = bool(_YES_NO.search(q)) or any(_YES_NO.search(s.strip()) for s in re.split(r"[.,;:]\s+", q)[1:])
    return Shape(yes_no=yes_no, listing=bool(_LIST.search(q)), why=bool(_WHY.search(q)),
                 applies=yes_no and bool(_APPLY_Q.search(asking)), obliged=bool(_OBLIGED_Q.search(asking)),
                 bound=bool(_BOUND.search(q)), duration=bool(_DURATION.search(asking)),
                 actors=tuple(dict.fromkeys((m["actor"] or _VERB_ACTOR[m["verb"].lower()]).lower()
                                            for m in _ACTOR_Q.finditer(" ".join((q, *acts_terms(q)))))),
                 quoted=tuple(_QUOTED.findall(q)),
                 duty=_duty(q), foreign=not in_english(q),
                 recipient=bool(_RECIPIENT_Q.search(asking)),
                 stated=frozenset(v.kind for v in read_values(q) if v.kind in _STATED_KINDS),
                 application=asks_when(q), asked=_asked_thing(asking),
                 listed=frozenset(t for m in _LISTED.finditer(asking) for t in content_terms(m[1])),
                 complete=bool(_COMPLETE.search(q)))


# "Who has to do a fundamental rights impact assessment?": a verb that only says something is done names no duty;
# the thing done does ("deployers ... shall perform an assessment of the impact on fundamental rights")
_LIGHT_VERBS = frozenset(stem(w) for w in "do carry conduct perform make undertake run complete prepare draw".split())
# Where the head of a phrase ends: at the first word that qualifies it ("an assessment | for our system", "the
# principles | of data processing")
_QUALIFIER = re.compile(r"\b(?:of|for|under|in|to|about|on|relating|regarding|according|by|when|before|after|if|"
                        r"with|and|or)\b", re.I)
_OBJECT_END = re.compile(rf"[?,;]|{_QUALIFIER.pattern}", re.I)


def _duty(question: str) -> str:
    """The stem of what a "Who has to ...?" question asks who must do: its verb ("register"), or for a light verb
    the head of its object ("do a fundamental rights impact assessment": assess); "" for any other question."""
    m = _WHO_DUTY.search(question)
    if not m:
        return ""
    verb = stem(m[1])
    if verb not in _LIGHT_VERBS:
        return verb
    done = content_terms(_OBJECT_END.split(question[m.end():], maxsplit=1)[0])
    return done[-1] if done else verb


# "What are the principles of data processing?": the thing asked about, and its head before what qualifies it; "What
# is the role of the AI Office?", "the meaning of 'provider'": the thing after "of"
_WHAT_IS = re.compile(r"^(?:what (?:is|are) (?:an? |the )?|who is an? )(?P<thing>[^?]+?)\s*\??$", re.I)
_OF_THING = re.compile(r"^(?:role|roles|meaning|definition|notion|concept|purpose|function|scope|task|tasks)\s+of\s+",
                       re.I)


def _asked_thing(asking: str) -> frozenset[str]:
    """The content terms of the head of what "What is/are X?" asks about, and the acts' words for it (see
    `Shape.asked`); empty for any other question."""
    m = _WHAT_IS.match(asking.strip())
    if not m:
        return frozenset()
    head = _QUALIFIER.split(_OF_THING.sub("", m["thing"]), maxsplit=1)[0]
    return frozenset(content_terms(head) + content_terms(" ".join(acts_terms(head))))


def _does_duty(text: str, duty: str) -> bool:
    """True when the sentence obliges someone to do `duty` (a verb's stem): "... shall register ..."."""
    return any(stem(w) == duty for m in _SHALL_DO.finditer(text) for w in m[1].split())


def _nested_point(unit: str, point: str) -> bool:
    """`unit` is a point of `point`, at any depth ("pnt_b.pnt_i" of "pnt_b")."""
    rest = unit.removeprefix(point + ".")
    return rest != unit and all(p.startswith("pnt_") for p in rest.split("."))


def _natural(unit: str) -> list[tuple[int, str]]:
    """A sort key that puts pnt_b before pnt_ba and par_2 before par_10."""
    return [(int(p[4:]), "") if p[4:].isdigit() else (0, p[4:]) for p in unit.split(".")]


def _placed(chosen: list[_Candidate], new: Sequence[_Candidate]) -> list[_Candidate]:
    """`chosen` with `new` (sentences of one provision, in the law's order) right after the sentence of that provision
    it quotes that comes last before them in the law's order ((b) after Annex III point 3's opening words, though
    point 1 was quoted after them), else after the last it quotes (what was chosen first stays first), else last."""
    first = new[0]

    def order(x: _Candidate) -> tuple[list[tuple[int, str]], int]:
        return _natural(x.unit), x.index

    same = [n for n, x in enumerate(chosen) if (x.act, provision_of(x.unit)) == (first.act, provision_of(first.unit))]
    before = [n for n in same if order(chosen[n]) < order(first)]
    at = (max(before, key=lambda n: order(chosen[n])) if before else (same or [len(chosen) - 1])[-1]) + 1
    return [*chosen[:at], *new, *chosen[at:]]


def _opening_words(parent: str, by_sid: Mapping[str, list[_Candidate]]) -> list[_Candidate]:
    """The opening words of the list whose paragraph is `parent` (an evidence id): its first sentence that ends in
    ":" ("Providers ... shall: "), as one candidate, or none; after the sentence before them when they speak of what
    that one named ("Each controller ... shall maintain a record of processing activities ... That record shall
    contain all of the following information:")."""
    head = [x for x in by_sid.get(parent, []) if x.text.rstrip().endswith(":")][:1]
    before = _antecedent(head[0], by_sid) if head else None
    return [before, *head] if before is not None else head


def _with_nearest(out: list[_Candidate], top: _Candidate, by_sid: Mapping[str, list[_Candidate]],
                  max_chars: int) -> list[_Candidate] | None:
    """`out` with `top` quoted besides, in the law's order: a point with its list's opening words, a sentence with
    the one it speaks of; None when that would pass `max_chars` or the sentences the verifier allows."""
    quoted = {x.text for x in out}
    with_it = [*_opening_words(top.parent, by_sid), _antecedent(top, by_sid)]
    more = _placed(out, [*(x for x in with_it if x is not None and x.text not in quoted), top])
    if sum(len(x.text) for x in more) > max_chars or len(parse_draft(_draft_text(more))) > MAX_SENTENCES:
        return None
    return more


def _draft_text(chosen: Sequence[_Candidate]) -> str:
    """The draft the generator returns: each quoted sentence followed by its unit's id."""
    return "\n".join(f"{cand.text} [{cand.sid}]" for cand in chosen)


def _antecedent(x: _Candidate, by_sid: Mapping[str, list[_Candidate]]) -> _Candidate | None:
    """The sentence before `x` in its unit when `x` speaks of what that one named ("It shall contain ...", "This
    obligation shall not apply ..."), else None."""
    if not _CONTINUES.match(x.text) or x.index == 0:
        return None
    return next((y for y in by_sid[x.sid] if y.index == x.index - 1), None)


def _sequels(x: _Candidate, unit: Sequence[_Candidate]) -> list[_Candidate]:
    """The sentences after `x` in its unit that speak of what it named, one after another ("That authorisation
    shall be for a limited period ...", "This shall, in particular, apply to consultancy services"): they bound the
    rule it states."""
    out: list[_Candidate] = []
    for y in unit:
        if y.index == (out[-1] if out else x).index + 1 and _CONTINUES.match(y.text):
            out.append(y)
    return out


@dataclass(frozen=True)
class _Candidate:
    sid: str
    rank: int
    text: str
    terms: frozenset[str]
    recital: bool
    act: str
    unit: str
    index: int  # position of the sentence in its unit
    chapeau: str = ""  # a point's: the opening words of the paragraph it belongs to, when in the evidence
    parent: str = ""  # the evidence id of that paragraph
    heading: frozenset[str] = frozenset()  # the content terms of its provision's heading
    retrieved: bool = False  # its unit was ranked by retrieval (a point: or a point of its paragraph was)
    instruction: bool = False  # its unit is an amending instruction (opens with a drafting formula)


def _plain(sentence: str) -> str:
    """A sentence's words alone: an instruction quotes its new text ("‘5. The AI Office shall ...’;")."""
    return " ".join(_QUOTES.sub(" ", sentence).split()).casefold().strip(" .;:")


def _restated_instructions(evidence: Sequence[Evidence], sentences: Mapping[str, list[str]],
                           instructions: set[str]) -> dict[str, set[str]]:
    """The evidence ids of amending instructions ("(b) paragraph 5 is replaced by the following: ‘5. ...’") whose
    new words the evidence also holds as the provision they enacted, each with the ids of the units that hold
    them: the law as it stands is quoted, once, and the note on its amendment cites the instruction
    (answer/amended.py); the instruction's words would repeat it."""
    enacted: dict[str, set[str]] = {}
    for e in evidence:
        if e.sid not in instructions:
            for s in sentences[e.sid]:
                enacted.setdefault(_plain(s), set()).add(e.sid)
    out: dict[str, set[str]] = {}
    for e in evidence:
        if e.sid in instructions:
            holders = {sid for s in sentences[e.sid] for sid in enacted.get(_plain(s), ())}
            if holders:
                out[e.sid] = holders
    return out


def candidate_sentences(text: str) -> list[str]:
    """Sentences of a unit, and the clauses of a long list ("; (b) ..."), marker-like text removed."""
    out: list[str] = []
    for sentence in split_sentences(MARKER.sub(" ", text)):
        sentence = " ".join(sentence.split())
        if instruction_like(sentence):  # text addressed to a model is never quoted as law
            continue
        clauses = _CLAUSE.split(sentence) if len(sentence) > 250 else [sentence]
        out.extend(c.strip() for c in clauses if len(c.strip()) >= 12)
    return out


def score_sentence(text: str, terms: frozenset[str], q_terms: dict[str, float], c: Cues, rank: int,
                   q_refs: frozenset[str] = frozenset(), shape: Shape = Shape(), recital: bool = False,
                   on_named: bool = False, chapeau: str = "", heading: frozenset[str] = frozenset()) -> float:
    """The answer score of one candidate (see the module docstring)."""
    total = sum(q_terms.values()) or 1.0
    lexical = sum(w for t, w in q_terms.items() if t in terms) / total
    if lexical > 0:
        lexical += HEADING_WEIGHT * sum(w for t, w in q_terms.items() if t in heading and t not in terms) / total
    if lexical <= 0 and not on_named:  # the provision a question names answers "What does Article 17(1) say?"
        return 0.0
    stated = _CITATION.sub(" ", text)
    values = {v.kind for v in read_values(stated)}
    bonus = 0.0
    asks_value = c.date or c.period or c.amount or c.percent or c.power
    # "how quickly?": "without undue delay"; "by when?": "at the latest at the time of the first communication"
    standard = (c.period or c.date) and not shape.application and states_time_standard(text)
    if c.date and ("date" in values or "month" in values):
        bonus += 0.35 + (0.15 if _APPLY.search(text) else 0.0)
    elif c.date and not c.period and standard:
        bonus += STANDARD_OF_TIME
    if c.period and ("period" in values or standard):
        # a standard of time ("without undue delay") answers "how quickly?", but "what's the longest ...?" and "how
        # long ...?" less well
        bonus += 0.35 if "period" in values or not (shape.bound or shape.duration) else STANDARD_OF_TIME
    free = c.amount and c.payment and states_no_charge(text)  # "how much is the fee?": "free of charge"
    if c.amount and ("amount" in values or free):
        bonus += 0.4
    if (c.percent or c.amount) and "percent" in values:  # a fine may be capped at a share of turnover alone
        bonus += 0.25
    if c.power and "power" in values:
        bonus += 0.4
    if asks_value and not values & {"date", "month", "period", "amount", "percent", "power"} and not (standard or free):
        bonus -= 0.25
    defined = _DEFINES.search(text)
    if defined and not asks_value:
        forms = [f.casefold() for f in (defined["term"], defined["alias"]) if f]
        # the term quoted whole, in the plural ('operators', 'third parties'), or its first words ('special
        # categories' for 'special categories of personal data')
        if any(term in (q.casefold(), singular(q)) or term.startswith(q.casefold() + " ")
               for q in shape.quoted for term in forms):
            bonus += 0.6
        elif c.definition and not shape.quoted and set(content_terms(defined["term"])) & (shape.asked or set(q_terms)):
            bonus += 0.5  # a question that quotes its term asks about that term, not one sharing a word with it
        elif c.definition:
            bonus += 0.05
    if (c.permission or shape.yes_no) and not asks_value:
        # "Is a three-year term allowed?": decided by the sentence that sets the limit, a value of that kind
        if values & shape.stated:
            bonus += STATED_VALUE
        if shape.applies and _EXCEPT.search(text):
            # the act's own scope exclusion ("This Regulation does not apply to ...") decides most of all
            bonus += 0.3 + (0.2 if _OUT_OF_SCOPE.search(text) else 0.0)
        elif shape.applies and _POINT_START.match(text) and _IN_SCOPE.search(chapeau):
            bonus += 0.5  # so does its scope: a point of "This Regulation applies to:" ("(c) providers ... in a third
            # country, where the output ... is used in the Union")
        elif _PROHIBIT.search(text) or (_POINT_START.match(text) and _PROHIBIT.search(chapeau)):
            bonus += 0.25  # a point of "The following AI practices shall be prohibited:" prohibits
        elif _OBLIGE.search(text) or _PERMIT.search(text) or _EXCEPT.search(text) or _POINT_START.match(text):
            bonus += 0.15  # a point of a list is operative: its article's opening words oblige or prohibit
    # "When is a company obliged to designate ...?": the sentence that obliges, not one that permits
    if shape.obliged and not asks_value and (
            _OBLIGE.search(text) or (_POINT_START.match(text) and _OBLIGE.search(chapeau))):
        bonus += OBLIGED
    # "Does a company that deploys ... have to ...?": "Deployers shall ...", not a duty of the provider
    if shape.obliged and shape.actors and (bearer := _BEARER.search(text)) and bearer["actor"].lower() in shape.actors:
        bonus += BEARER
    if c.count and counts(stated):  # a point's label "(48)" counts nothing
        bonus += 0.3
    if c.who and _ACTOR.search(text):
        bonus += 0.15
        if shape.duty and _does_duty(text, shape.duty):  # "Who has to register?": the one who "shall register"
            bonus += 0.2
    if shape.recipient and _RECIPIENT.search(text):  # "Where do we send ...?": "shall submit ... to the ... authority"
        bonus += RECIPIENT
    if q_refs:  # the provisions the question names ("Annex I" is not "Annex III")
        refs = {v.value for v in read_values(text) if v.kind == "ref" and v.unit != "rel"}
        bonus += 0.2 * len(q_refs & refs)
    if on_named:
        bonus += 0.3
    if recital:
        bonus += 0.25 if shape.why else -0.2  # a recital gives reasons; the binding text decides
    if len(text) > 700:
        bonus -= 0.1
    # a sentence that shares a term with the question always ranks above one that shares none
    return max(lexical + bonus + 0.1 / rank, 0.01 * lexical)


_MOST = re.compile(r"\b(?:maximum|highest|largest|biggest|most|upper limit|ceiling)\b", re.I)
_LEAST = re.compile(r"\b(?:minimum|lowest|smallest|least)\b", re.I)
# a term the question shares with the heading of the sentence's provision (not with the sentence itself) weighs this
# share of its weight, once the sentence shares a term of its own: "The Board shall be composed of ..." is about the
# European Artificial Intelligence Board its article names (dev: 0.5 / 0.7 / 1.0 raised ref_loose 0.837 -> 0.847 /
# 0.857 / 0.857 and moved key facts 0.819 -> 0.819 / 0.831 / 0.806)
HEADING_WEIGHT = 0.7
OBLIGED = 0.1  # dev: 0.05 to 0.2 alike
STANDARD_OF_TIME = 0.25
STATED_VALUE = 0.15  # a yes/no question stating a value of the kind the sentence states (dev: 0.1 to 0.25 alike)
BEARER = 0.2  # dev: 0.05 < 0.1 < 0.2 = 0.3
PREAMBLE_WEIGHT = 0.75  # a word only the sentences before the asking one use (dev: 0.6 and 0.85 each lose an old
# question that 0.75 keeps; 0.75 gains dz14 and ec12 and loses none)
LAY_WEIGHT = 1.0  # the acts' terms weigh as the question's own (dev: 0.5 -> 1.0 raised ref_loose 0.826 -> 0.837)
EXTREME = 0.15  # "What is the maximum fine?": the sentence stating the highest amount among the evidence (dev)
# the embedder's nearness of a sentence to the question, rescaled over the candidates to [0, 1] (answer/nearness.py):
# dev key facts / ref_exact / ref_loose, the questions no rule was written on (91): 0.602 / 0.653 / 0.853 -> 0.656 /
# 0.707 / 0.893 at 0.3 (the sentence alone: 0.15 / 0.3 / 0.5 / 0.8 gave key facts 0.618 / 0.631 / 0.618 / 0.649,
# the older questions losing up to 0.075; bench/RESULTS.md "Stop 35")
NEARNESS = 0.3
# with the second reading's cosines added (answer/nearness.py SECOND_SHARE) the order is surer and may weigh more:
# dev (stop 42) 0.3 / 0.38 / 0.45 / 0.6 gave key facts 0.799 / 0.800 / 0.815 / 0.804 (e5's alone at 0.45: 0.771)
NEARNESS_TWO_READINGS = 0.45
# a recital paraphrases; the binding text decides: when a recital's sentence scores best, the best sentence of an
# operative provision that scores at least this share of it leads instead ("Does a general-purpose AI model with
# systemic risk need to report serious incidents?": Article 55(1)(c), not recital 115). Dev (stop 38): 0.7 / 0.8 /
# 0.9 alike, four answers change, ref_exact +1
BINDING_SHARE = 0.8


def _extreme_amounts(question: str, candidates: Sequence[_Candidate]) -> set[int]:
    """For "the maximum (minimum) amount": the candidates (by id) stating the highest (lowest) amount in euros of
    all the evidence's sentences; the others state a lesser tier of the same scale."""
    most, least = bool(_MOST.search(question)), bool(_LEAST.search(question))
    if most == least:
        return set()
    amounts = {id(cand): [float(v.value) for v in read_values(cand.text) if v.kind == "amount" and v.unit == "EUR"]
               for cand in candidates}
    stated = {k: (max(v) if most else min(v)) for k, v in amounts.items() if v}
    if len(set(stated.values())) < 2:
        return set()
    best = max(stated.values()) if most else min(stated.values())
    return {k for k, v in stated.items() if v == best}


def _retrieval_ranks(evidence: Sequence[Evidence]) -> tuple[dict[str, int], set[str]]:
    """The rank each unit's sentences take in the choice's prior, 1 for the unit retrieval ranked best, and the
    units whose rank retrieval gave (their own or their list's).

    Evidence comes grouped by provision, each in document order, so its order says little of which paragraph
    retrieval found nearest the question. A point or a list's opening words not ranked themselves take the best
    rank of a ranked point of the same paragraph (a list is read as one); any other unit given only as context
    ranks after every ranked one, in evidence order. (Dev: the fresh questions' key facts 0.378 -> 0.461, the
    others' 0.786 -> 0.763; by evidence order instead of retrieval's, without the lists' shared rank, 0.479 and
    0.740; bench/RESULTS.md "Stop 31".)"""
    ranked = sorted((e for e in evidence if e.rank is not None), key=lambda e: e.rank or 0)
    rank = {e.sid: n for n, e in enumerate(ranked, start=1)}
    listed: dict[tuple[str, str, str], int] = {}
    for e in ranked:
        listed.setdefault(_paragraph(e.ref), rank[e.sid])
    given = {e.sid: rank.get(e.sid) or listed.get(_paragraph(e.ref)) for e in evidence}
    return ({e.sid: given[e.sid] or len(ranked) + n for n, e in enumerate(evidence, start=1)},
            {sid for sid, r in given.items() if r})


def _paragraph(ref: CitationRef) -> tuple[str, str, str]:
    """The paragraph (or other unit) a point belongs to at any depth: `art_5.par_1` for `art_5.par_1.pnt_h.pnt_iii`."""
    parts = ref.unit.split(".")
    while len(parts) > 1 and parts[-1].startswith("pnt_"):
        parts.pop()
    return ref.act, ref.version, ".".join(parts)


def _term_weights(text: str, lay: str, df: Counter[str], n: int) -> dict[str, float]:
    """The content terms of `text` weighted by inverse frequency among the `n` candidate sentences (rare words
    matter most), and the acts' words for what `lay` says in its own ("police": law enforcement)."""
    weights = {t: math.log(1 + n / (1 + df[t])) + 0.1 for t in dict.fromkeys(content_terms(text))}
    # the sentence that asks says what is asked; the ones before it describe the asker's situation ("We're a bank
    # using a vendor's credit-scoring tool. Is the Commission supposed to publish guidance ...?")
    asked = set(content_terms(_asking(text)))
    if asked:
        weights = {t: w if t in asked else PREAMBLE_WEIGHT * w for t, w in weights.items()}
    for t in dict.fromkeys(content_terms(" ".join(acts_terms(lay)))) if lay else ():
        weights.setdefault(t, LAY_WEIGHT * (math.log(1 + n / (1 + df[t])) + 0.1))
    return weights


def in_context(heading: str, sentence: str) -> str:
    """A sentence as read under its provision's heading, the form whose nearness to the question is read beside the
    sentence's own ("Obligations of deployers of high-risk AI systems: Deployers shall ...")."""
    return f"{heading}: {sentence}" if heading else sentence


def _nearness(nearness: Callable[[Sequence[str]], Mapping[str, float]],
              read: Sequence[tuple[str, str]]) -> dict[str, float]:
    """Each sentence's nearness to the question: the mean of its cosine alone and under its provision's heading
    (either alone when only one is stored; a sentence several units say, its best), rescaled over the candidates.
    Dev, the questions no rule was written on: heading alone key facts 0.682 but ref_loose of the older ones 0.831;
    the sentence alone 0.624; the mean 0.662, ref_loose 0.893 (bench/RESULTS.md "Stop 35")."""
    plain = nearness([s for s, _ in read])
    under = nearness([c for _, c in read])
    cos: dict[str, float] = {}
    for s, c in read:
        got = [v for v in (plain.get(s), under.get(c)) if v is not None]
        if got:
            cos[s] = max(cos.get(s, -1.0), sum(got) / len(got))
    return _rescaled(cos)


def _rescaled(cosines: Mapping[str, float]) -> dict[str, float]:
    """Cosines rescaled over the candidates, the nearest 1 and the farthest 0: the embedder's cosines crowd into a
    narrow band whose place differs by question, so only their order among this question's sentences says much."""
    if not cosines:
        return {}
    lo, hi = min(cosines.values()), max(cosines.values())
    return {s: (c - lo) / (hi - lo) if hi > lo else 0.0 for s, c in cosines.items()}


def _list_of(x: _Candidate) -> tuple[str, str] | None:
    """The paragraph or annex whose list a point belongs to, however deep: ('32016R0679', 'art_17.par_1') for
    'art_17.par_1.pnt_b.pnt_i'; None for a unit that is no point."""
    parts = x.unit.split(".")
    first = next((n for n, p in enumerate(parts) if p.startswith("pnt_")), 0)
    return (x.act, ".".join(parts[:first])) if first else None


def _in_list_order(chosen: list[_Candidate]) -> list[_Candidate]:
    """`chosen` with each list quoted with its opening words as one block, where the first of them stands: the
    opening words ("... where one of the following applies:"), then the points in the list's own order ((a),
    (b), (b)(i), (c)), then any closing words; points quoted for their scores and those added to complete the
    list come in any order. Points quoted without their list's opening words (two definitions of Article 3) keep
    the order of their scores, the best first."""
    units = {(x.act, x.unit) for x in chosen}

    def list_key(x: _Candidate) -> tuple[str, str] | None:
        # an annex's point that opens a list of its own ("2. The technical documentation ... shall contain the
        # following: (a) ...") heads its points when the annex itself is not quoted
        top = _list_of(x)
        if top is None or top in units:
            return top
        return next(((x.act, u) for u in reversed(self_and_ancestors(x.unit)[1:]) if (x.act, u) in units),
                    top)  # the outermost quoted

    points: dict[tuple[str, str], list[_Candidate]] = {}
    for x in chosen:
        if (key := list_key(x)) is not None:
            points.setdefault(key, []).append(x)
    heads = units & points.keys()
    out: list[_Candidate] = []
    placed: set[tuple[str, str]] = set()
    for x in chosen:
        key = (x.act, x.unit) if (x.act, x.unit) in heads else list_key(x)
        if key not in heads:
            out.append(x)
        elif key not in placed:
            placed.add(key)
            head = sorted((y for y in chosen if (y.act, y.unit) == key), key=lambda y: y.index)
            opening = next((y.index for y in head if y.text.rstrip().endswith(":")), head[-1].index)
            out += [y for y in head if y.index <= opening]
            out += sorted(points[key], key=lambda y: (_natural(y.unit), y.index))
            out += [y for y in head if y.index > opening]
    return out


def _in_order(chosen: list[_Candidate], cand: _Candidate) -> list[_Candidate]:
    """`chosen` with `cand`, a further sentence of a unit it quotes, among that unit's sentences in their order."""
    same = [n for n, x in enumerate(chosen) if x.sid == cand.sid]
    before = [n for n in same if chosen[n].index < cand.index]
    at = before[-1] + 1 if before else same[0]
    return [*chosen[:at], cand, *chosen[at:]]


class ExtractiveGenerator:
    """Quote-the-evidence generator. `max_units` bounds the units quoted for their own sake (default 3);
    `use_cues=False` scores by word overlap and rank only (the ablation baseline in bench/answer_extractive.py)."""

    name = NAME
    model = MODEL
    reads_nearness = True  # ask passes the sentences' nearness to the question (answer/nearness.py)

    def __init__(self, max_units: int = 3, use_cues: bool = True, min_terms: int = MIN_TERMS,
                 min_coverage: float = MIN_COVERAGE, whole_unit: int = WHOLE_UNIT, max_chars: int = MAX_CHARS):
        self.max_units = max_units
        self.use_cues = use_cues
        self.min_terms = min_terms
        self.min_coverage = min_coverage
        self.whole_unit = whole_unit
        self.max_chars = max_chars

    def _candidates(self, evidence: Sequence[Evidence]) -> list[_Candidate]:
        out = []
        own = {e.sid: own_text(e, evidence) for e in evidence}
        # a sentence that says "SMCs" has the words of "small mid-cap enterprises", as the evidence introduces it
        long_forms = written_out(e.text for e in evidence) if self.use_cues else {}
        units = {(e.ref.act, e.ref.version, e.ref.unit): e.sid for e in evidence}
        rank_of, retrieved = _retrieval_ranks(evidence)
        sentences = {e.sid: candidate_sentences(own[e.sid]) for e in evidence}
        instructions = {e.sid for e in evidence if opens_with_formula(e.text)}
        restated = _restated_instructions(evidence, sentences, instructions)
        for instruction, holders in restated.items():  # the text it enacted takes its place in the ranking
            for sid in holders:
                rank_of[sid] = min(rank_of[sid], rank_of[instruction])
                if instruction in retrieved:
                    retrieved.add(sid)
        for e in evidence:
            if e.sid in restated:
                continue
            rank = rank_of[e.sid]
            head, _, last = e.ref.unit.rpartition(".")
            parent = units.get((e.ref.act, e.ref.version, head)) if last.startswith("pnt_") else None
            heading = frozenset(content_terms(heading_of(e.title)))  # "Article 65(2) — Establishment ..."
            if parent:  # a point is read under its list's opening words too ("providers ... shall: (c) report")
                heading |= frozenset(content_terms(own[parent]))
            before: list[str] = []
            for i, s in enumerate(sentences[e.sid]):
                terms = content_terms(_DEFINING_VERB.sub(r"\1", s))
                terms += [w for t in terms if t in long_forms for w in long_forms[t]]
                if _CONTINUES.match(s):  # "It shall contain, at a minimum, ...": the documentation the one before names
                    terms += before
                before = terms
                out.append(_Candidate(e.sid, rank, s, frozenset(terms), e.ref.unit.startswith("rct_"),
                                      e.ref.act, e.ref.unit, i, own[parent] if parent else "", parent or "",
                                      heading, e.sid in retrieved, e.sid in instructions))
        return out

    def generate(self, question: str, evidence: Sequence[Evidence],
                 nearness: Callable[[Sequence[str]], Mapping[str, float]] | None = None) -> Draft:
        """The answer to `question` quoted from `evidence`; `nearness` gives sentences' cosines with the question
        (`answer/nearness.py`), when the index has them."""
        c = cues(question) if self.use_cues else Cues()
        # "Is X banned, and since when?": the deciding sentence first; "Is our fine capped at the higher or the lower
        # of the amount or the percentage?" mentions values and asks which rule applies
        if value_secondary(question) or not asks_for_value(question):
            c = replace(c, date=False, period=False, amount=False, percent=False, power=False)
        shape = shape_of(question) if self.use_cues else Shape()
        params = {"max_units": self.max_units, "cues": list(c.names()),
                  "shape": [k for k, v in vars(shape).items() if v]}
        candidates = self._candidates(evidence)
        if not candidates:
            return Draft("", refused=True, reason=_NO_ANSWER, model=MODEL, params=params)
        df = Counter(t for cand in candidates for t in cand.terms)
        n = len(candidates)
        q_refs, named, topic = frozenset(), (), question
        if self.use_cues:
            q_refs = frozenset(v.value for v in read_values(question) if v.kind == "ref" and v.unit != "rel")
            refs = find_references(question)
            # an act named by its number ("of Regulation (EU) 2016/679") is that act; a short name is not resolved
            acts = ActNames((a, "") for a in dict.fromkeys(e.ref.act for e in evidence))
            named = tuple((acts.resolve(r.act) if r.act else None, u) for r in refs for u in r.candidates)
            topic = without_references(question, refs)  # "Article 17(1) of …": its numbers are no topic words
            if named and asks_about_a_change(topic):  # "What did the Omnibus change in Article 60?": about Article 60
                topic = without_change_words(topic)
        q_terms = _term_weights(topic, question if self.use_cues else "", df, n)

        def on_named(act: str, unit: str) -> bool:
            return any((a is None or a == act) and (unit == u or unit.startswith(u + ".") or u.startswith(unit + "."))
                       for a, u in named)

        extreme = _extreme_amounts(question, candidates) if self.use_cues and c.amount else set()
        near: dict[str, float] = {}
        if nearness and self.use_cues:
            headings = {e.sid: heading_of(e.title) for e in evidence}
            near = _nearness(nearness, [(x.text, in_context(headings[x.sid], x.text)) for x in candidates])
        params["nearness"] = f"{len(near)} of {len({x.text for x in candidates})} sentences" if nearness else "none"
        near_weight = NEARNESS_TWO_READINGS if getattr(nearness, "readings", 1) > 1 else NEARNESS

        def score(cand: _Candidate) -> float:
            s = score_sentence(cand.text, cand.terms, q_terms, c, cand.rank, q_refs, shape, cand.recital,
                               on_named(cand.act, cand.unit), cand.chapeau, cand.heading)
            if s > 0:  # nearness orders the sentences that answer some of the question, never adds one
                s += near_weight * near.get(cand.text, 0.0)
            return s + (EXTREME if id(cand) in extreme else 0.0)

        scored = sorted(
            ((score(cand), cand) for cand in candidates),
            key=lambda x: (-x[0], x[1].rank, x[1].index),
        )
        best_score, best = scored[0]
        # ... unless it asks why, or what an amending act changed: an amending act's recitals say what it changes
        if best.recital and not shape.why and not asks_about_a_change(question):
            binding = next(((sc, x) for sc, x in scored if not x.recital and sc >= BINDING_SHARE * best_score), None)
            if binding is not None:
                best_score, best = binding
                scored = [binding, *(x for x in scored if x[1] is not best)]
        shared = set(q_terms) & best.terms
        coverage = sum(q_terms[t] for t in shared) / (sum(q_terms.values()) or 1.0)
        params["best"] = {"terms": len(shared), "coverage": round(coverage, 4)}
        need = min(self.min_terms, max(1, len(q_terms) - 1))
        named_best = bool(named) and on_named(best.act, best.unit)  # what the question names needs no shared word
        if best_score <= 0 or (not named_best and (len(shared) < need or coverage < self.min_coverage)):
            if not shape.foreign:
                return Draft("", refused=True, reason=_NO_ANSWER, model=MODEL, params=params)
            # words say nothing across languages, but what is asked does: "Da quando ...?" wants the best-ranked
            # sentence that sets a date
            asked = cues(question)  # as read, whatever `asks_for_value` (English only) made of it
            stating = [x for x in candidates
                       if asked.value_kinds() & {v.kind for v in read_values(_CITATION.sub(" ", x.text))}]
            best_score, best = 1.0, min(stating or candidates, key=lambda cand: (
                not (asked.date and _APPLY.search(cand.text)), cand.rank, cand.index))  # "shall apply from", first
            params["fallback"] = ("best-ranked unit stating the value asked" if stating else "top-ranked unit") + \
                " (question not in English)"
        by_sid: dict[str, list[_Candidate]] = {}
        for cand in candidates:
            by_sid.setdefault(cand.sid, []).append(cand)
        listed = self._list(candidates, by_sid, q_terms, best_score, best, complete=shape.complete) \
            if shape.listing else None
        if listed:  # the list's unit: its opening words' own, or its first point's parent
            first = listed[0].unit
            params["list"] = first.rsplit(".", 1)[0] if first.rpartition(".")[2].startswith("pnt_") else first
        chosen = listed or self._quote(best, by_sid[best.sid], shape)
        covered = set().union(*(x.terms for x in chosen))
        seen = {best.sid}
        for score, cand in scored[1:]:
            if score < SECOND * best_score:
                break
            # a unit retrieval ranked near the top is quoted even when it adds no word of the question, while some
            # word of the question is not yet answered: the words of a question put in a user's own terms say little
            # of which paragraphs answer it ("What is an AI system?" is answered whole by the definition)
            near_top = (cand.retrieved and cand.rank <= RETRIEVED and cand.sid not in seen
                        and bool(set(q_terms) - covered))
            if (not (set(q_terms) & cand.terms) - covered and not near_top) or cand in chosen:
                continue
            if cand.sid in seen:  # another sentence of a unit quoted in part, that answers more of the question
                # (none of the best sentence's unit when a list was quoted instead of it)
                quoted = any(x.sid == cand.sid for x in chosen)
                if (quoted and score >= FURTHER * best_score
                        and sum(len(x.text) for x in (*chosen, cand)) <= self.max_chars):
                    chosen = _in_order(chosen, cand)
                    covered |= cand.terms
                continue
            if len(seen) >= self.max_units:
                continue
            more = self._quote(cand, by_sid[cand.sid], shape)
            if not self._fits(chosen, more):
                more = [cand]
            if not self._fits(chosen, more):
                continue
            chosen += more
            covered |= cand.terms
            seen.add(cand.sid)
        score_of = {id(cand): s for s, cand in scored}
        if self.use_cues:
            chosen = self._explained(best, chosen, candidates, score_of)
            chosen = self._each_part(question, candidates, chosen, df, q_refs, on_named)
        chosen = _in_list_order(self._with_chapeaus(self._with_points(self._with_antecedents(chosen, by_sid),
                                                                      by_sid, score_of), by_sid))
        # a point added with its list's opening words reads as the law writes it too
        chosen = _in_list_order(self._nearest_of_provision(best, chosen, candidates, near, by_sid))
        chosen = _in_list_order(self._nearest_of_all(chosen, candidates, near, by_sid))
        chosen = self._with_sequels(chosen, by_sid)
        if shape.listing and shape.listed and not listed:
            chosen = self._named_list(chosen, candidates, by_sid, q_terms, best, shape.listed)
        text = _draft_text(chosen)
        if len(parse_draft(text)) > MAX_SENTENCES and self.max_units > 1:  # verify would refuse it whole: a unit less
            fewer = ExtractiveGenerator(self.max_units - 1, self.use_cues, self.min_terms, self.min_coverage,
                                        self.whole_unit, self.max_chars)
            return fewer.generate(question, evidence, nearness)
        params["scores"] = [round(score_of[id(cand)], 4) for cand in chosen if id(cand) in score_of]
        return Draft(text, model=MODEL, params=params, prompt=f"question: {question}")

    def _named_list(self, chosen: list[_Candidate], candidates: list[_Candidate], by_sid: dict[str, list[_Candidate]],
                    q_terms: dict[str, float], best: _Candidate, named: frozenset[str]) -> list[_Candidate]:
        """`chosen`, then the list whose opening words name what the question asks for ("What information goes
        into our registration entry?": "The following information shall be provided ..."), whole, when no list was
        quoted and it fits in `NAMED_LIST_CHARS` more and the sentences the verifier allows (the answer's later
        sentences give way to it)."""
        def fits(xs: list[_Candidate]) -> bool:
            return sum(len(x.text) for x in xs) <= self.max_chars + NAMED_LIST_CHARS and \
                len(parse_draft(_draft_text(xs))) <= MAX_SENTENCES

        found = self._list(candidates, by_sid, q_terms, float("-inf"), best, named)
        listed = {x.text for x in found or ()}
        if not found or listed <= {x.text for x in chosen}:
            return chosen
        # the best sentence, the list, then what else was chosen while the answer's length allows
        out = [x for x in chosen[:1] if x.text not in listed] + found
        for x in chosen[1:]:
            if x.text in listed:
                continue
            if not fits([*out, x]):
                break
            out.append(x)
        return out if fits(out) else chosen

    def _nearest_of_provision(self, best: _Candidate, chosen: list[_Candidate], candidates: Sequence[_Candidate],
                              near: Mapping[str, float], by_sid: Mapping[str, list[_Candidate]]) -> list[_Candidate]:
        """`chosen` with the `NEAREST_MORE` sentences of the best sentence's provision (article, annex, recital) nearest
        the question by the embedder (`near`) that it does not quote yet, each after what it quotes of that provision
        in the law's order (a point with its list's opening words, a sentence that speaks of the one before it with
        that one), within `max_chars + NEAREST_CHARS` and the sentences the verifier allows. Without nearness (a
        home without sentence vectors), `chosen` as it is."""
        provision = (best.act, provision_of(best.unit))
        out = list(chosen)
        for _ in range(NEAREST_MORE if near else 0):
            quoted = {x.text for x in out}
            pool = [x for x in candidates if (x.act, provision_of(x.unit)) == provision and x.text not in quoted]
            if not pool:
                break
            top = max(pool, key=lambda x: (near.get(x.text, 0.0), -x.rank, -x.index))
            if near.get(top.text, 0.0) < NEAREST_FLOOR:
                break
            more = _with_nearest(out, top, by_sid, self.max_chars + NEAREST_CHARS)
            if more is None:
                break
            out = more
        return out

    def _nearest_of_all(self, chosen: list[_Candidate], candidates: Sequence[_Candidate], near: Mapping[str, float],
                        by_sid: Mapping[str, list[_Candidate]]) -> list[_Candidate]:
        """`chosen` with the binding sentence of all the evidence nearest the question (`NEAREST_ANY_CHARS`), when
        it does not quote it yet, placed as `_nearest_of_provision` places its sentences."""
        quoted = {x.text for x in chosen}
        pool = [x for x in candidates if not x.recital]  # a recital paraphrases
        if not near or not pool:
            return chosen
        top = max(pool, key=lambda x: (near.get(x.text, 0.0), -x.rank, -x.index))
        if top.text in quoted:
            return chosen
        return _with_nearest(chosen, top, by_sid, self.max_chars + NEAREST_CHARS + NEAREST_ANY_CHARS) or chosen

    def _fits(self, chosen: Sequence[_Candidate], more: Sequence[_Candidate]) -> bool:
        """Whether `more` can be quoted after `chosen` within the answer's length and sentence count."""
        return (sum(len(x.text) for x in (*chosen, *more)) <= self.max_chars
                and len(chosen) + len(more) <= MAX_QUOTED)

    def _explained(self, best: _Candidate, chosen: list[_Candidate], candidates: list[_Candidate],
                   score_of: dict[int, float]) -> list[_Candidate]:
        """`chosen`, and when it quotes a definition ("'emotion recognition system' means ..."), the sentence of
        the recital that explains that notion ("The notion of 'emotion recognition system' ... It does not
        include physical states, such as pain or fatigue") that answers the question best: the recitals say
        what a definition covers and leaves out, which "does that count as ...?" turns on."""
        defined = _DEFINES.search(best.text)
        if not defined or not _DEFINING_VERB.search(best.text) or any(x.recital for x in chosen):
            return chosen
        forms = [f for f in (defined["term"], defined["alias"]) if f]
        notion = re.compile("|".join(rf"[‘'\"“]{re.escape(f)}[’'\"”]" for f in forms), re.I)
        recitals = {x.sid for x in candidates if x.recital and notion.search(x.text)}
        explaining = [x for x in candidates if x.sid in recitals and not _RESTATES.search(x.text)
                      and score_of.get(id(x), 0.0) > 0]
        if not explaining:
            return chosen
        top = max(explaining, key=lambda x: (score_of[id(x)], -x.rank, -x.index))
        if sum(len(x.text) for x in (*chosen, top)) > self.max_chars:
            return chosen
        return [*chosen, top]

    def _each_part(self, question: str, candidates: list[_Candidate], chosen: list[_Candidate], df: Counter[str],
                   q_refs: frozenset[str],
                   on_named: Callable[[str, str], bool]) -> list[_Candidate]:
        """`chosen`, and for each further question the question asks ("..., and what if it is too urgent to
        wait?") the sentence that answers it best, when none of `chosen` does: it is read with that part's own
        words and cues, as a question of its own."""
        parts = question_parts(question)
        n = len(candidates)
        for part in parts[1:]:
            terms = _term_weights(part, part, df, n)
            if not terms:
                continue
            c, shape = cues(part), shape_of(part)
            score_of = {id(x): score_sentence(x.text, x.terms, terms, c, x.rank, q_refs, shape, x.recital,
                                              on_named(x.act, x.unit), x.chapeau, x.heading) for x in candidates}
            best = max(candidates, key=lambda x: (score_of[id(x)], -x.rank, -x.index))
            score = score_of[id(best)]
            if score <= 0 or any(score_of.get(id(x), 0.0) >= score for x in chosen):  # quoted: answered already
                continue
            if sum(len(x.text) for x in (*chosen, best)) > self.max_chars:
                continue
            chosen = _in_order(chosen, best) if best.sid in {x.sid for x in chosen} else [*chosen, best]
        return chosen

    def _list(self, candidates: list[_Candidate], by_sid: dict[str, list[_Candidate]], q_terms: dict[str, float],
              best_score: float, best: _Candidate, named: frozenset[str] = frozenset(),
              complete: bool = False) -> list[_Candidate] | None:
        """For a list question: the points of one list that the evidence holds (siblings under one parent, the
        parent's own words first when given), when together they answer better than the best single sentence;
        given `named`, the best of the lists whose opening words name what the question asks for; `complete`: the
        question asks for every point, so the best sentence's list may be longer (`_COMPLETE`)."""
        total = sum(q_terms.values()) or 1.0
        groups: dict[str, list[str]] = {}
        heads: dict[str, str] = {}
        for cand in candidates:
            parent, _, last = cand.unit.rpartition(".")
            if last.startswith("pnt_") and cand.sid not in groups.get(parent, []):
                groups.setdefault(parent, []).append(cand.sid)
            heads.setdefault(cand.unit, cand.sid)
        best_group, best_value = None, best_score
        # the best sentence is a point of a list, or opens one: that list answers, when it fits whole ("What does
        # that report have to include?": Article 33(3), whose points (a) and (d) scored best and (b) and (c) were
        # left out); a longer one keeps the points that scored (`_with_points`)
        own_list = best.unit.rpartition(".")[0] if best.unit.rpartition(".")[2].startswith("pnt_") else best.unit
        points = groups.get(own_list, [])
        whole = [x for sid in points for x in by_sid[sid]]
        if named:
            best_value = float("-inf")
        elif len(points) >= 2 and not best.instruction and \
                len(whole) < (MAX_SENTENCES if complete else MAX_QUOTED) and \
                sum(len(x.text) for x in whole) <= self.max_chars + (NAMED_LIST_CHARS if complete else 0):
            best_value = float("-inf")
            groups = {own_list: points}
        for parent, sids in groups.items():
            # an amending act's instructions ("(3) in Article 2, the following paragraph is added: ...") are a list
            # of changes, each about another provision: together they share every word, and answer nothing
            if len(sids) < 2 or any(by_sid[sid][0].instruction for sid in sids) or (
                    parent in heads and by_sid[heads[parent]][0].instruction):
                continue
            terms = set().union(*(x.terms for sid in sids for x in by_sid[sid]))
            if parent in heads:  # its opening words say what the list is: "The following AI practices shall be
                terms |= by_sid[heads[parent]][0].terms  # prohibited:" is the list of banned practices
            lexical = sum(w for t, w in q_terms.items() if t in terms) / total
            rank = min(by_sid[sid][0].rank for sid in sids)
            if named and not (parent in heads and named & by_sid[heads[parent]][0].terms):
                continue
            value = lexical + 0.15 + 0.1 / rank  # a list question is answered by the list
            if value > best_value:
                best_group, best_value = parent, value
        if best_group is None:
            return None
        # a point's own points ("(b) ... shall: (i) ...; (ii) contain the elements set out in Annex XII") follow it:
        # without them its words end on "shall:"
        members = {by_sid[sid][0].unit for sid in groups[best_group]}
        nested = [sid for sid, cands in by_sid.items() if sid not in groups[best_group]
                  and any(_nested_point(cands[0].unit, m) for m in members)]
        sids = sorted([*groups[best_group], *nested], key=lambda sid: _natural(by_sid[sid][0].unit))
        if best_group in heads:
            sids.insert(0, heads[best_group])
        out: list[_Candidate] = []
        for sid in sids:
            part = by_sid[sid] if sid != heads.get(best_group) else by_sid[sid][:1]
            if sum(len(x.text) for x in (*out, *part)) > self.max_chars:
                break
            out += part
        return out or None

    def _with_points(self, chosen: list[_Candidate], by_sid: dict[str, list[_Candidate]],
                     score_of: dict[int, float]) -> list[_Candidate]:
        """`chosen`, each sentence that opens a list ("... any of the following:") followed by the points of that
        list the evidence holds as units of their own (and their points), in order, as far as the answer's length
        allows: the opening words alone state nothing. When not all fit, the points that answer the question best
        are kept ("Does the documentation need to say how much energy the model uses?": point (e) of a long list).
        Added last, so that they never push out a unit chosen for itself."""
        out = list(chosen)
        for head in [x for x in chosen if x.text.rstrip().endswith(":")]:
            quoted = {x.sid for x in out}
            # its points, each followed by its own ("(b) ... shall: (i) ...; (ii) ..."), as one block
            points = sorted((sid for sid, cands in by_sid.items() if _nested_point(cands[0].unit, head.unit)
                             and sid not in quoted), key=lambda sid: _natural(by_sid[sid][0].unit))
            blocks: list[list[_Candidate]] = []
            for sid in points:
                if blocks and _nested_point(by_sid[sid][0].unit, blocks[-1][0].unit):
                    blocks[-1] += by_sid[sid]
                else:
                    blocks.append(list(by_sid[sid]))
            size = [sum(len(x.text) for x in b) for b in blocks]
            room = self.max_chars - sum(len(x.text) for x in out)
            if sum(size) > room:
                kept = set()
                for n in sorted(range(len(blocks)), key=lambda n: -max(score_of.get(id(x), 0.0) for x in blocks[n])):
                    if size[n] <= room:
                        kept.add(n)
                        room -= size[n]
                blocks = [b for n, b in enumerate(blocks) if n in kept]
            at = out.index(head) + 1
            for b in blocks:
                out[at:at] = b
                at += len(b)
        return out

    def _with_antecedents(self, chosen: list[_Candidate], by_sid: dict[str, list[_Candidate]]) -> list[_Candidate]:
        """`chosen`, each sentence that speaks of what the one before it named ("It shall contain, at a minimum,
        ...", "That period may be extended by six weeks") preceded by that sentence, when the answer's length
        allows: "it" and "that period" mean nothing to a reader without it."""
        out = list(chosen)
        for x in chosen:
            before = _antecedent(x, by_sid)
            if before is None or any(y is before for y in out) or not self._fits(out, [before]):
                continue
            at = next(n for n, y in enumerate(out) if y is x)
            out[at:at] = [before]
        return out

    def _with_sequels(self, chosen: list[_Candidate], by_sid: dict[str, list[_Candidate]]) -> list[_Candidate]:
        """`chosen`, each sentence followed by its sequels (`_sequels`): they bound the rule it states, so they have
        a length of their own (`SEQUEL_CHARS`) beside the answer's, within the sentences the verifier allows."""
        out, room = list(chosen), SEQUEL_CHARS
        for x in (x for x in chosen if not x.recital):  # a recital explains, it states no rule
            at = next(n for n, y in enumerate(out) if y is x)
            for after in _sequels(x, by_sid[x.sid]):
                if any(y is after for y in out) or len(after.text) > room \
                        or len(parse_draft(_draft_text([*out, after]))) > MAX_SENTENCES:
                    break
                at += 1
                out[at:at] = [after]
                room -= len(after.text)
        return out

    def _with_chapeaus(self, chosen: list[_Candidate], by_sid: dict[str, list[_Candidate]]) -> list[_Candidate]:
        """`chosen`, each point quoted without the opening words of its list ("The following AI practices shall be
        prohibited:") preceded by them, when the evidence holds them and the answer's length allows: a point
        alone does not say whether it is prohibited, required or allowed."""
        out = list(chosen)
        # a definition states itself: "the following definitions apply:" adds nothing to it
        for parent in dict.fromkeys(x.parent for x in chosen if x.parent and not _DEFINES.search(x.text)):
            if parent in {x.sid for x in out} or parent not in by_sid:
                continue
            head = _opening_words(parent, by_sid)
            if not head or sum(len(x.text) for x in (*out, *head)) > self.max_chars:
                continue
            at = next(n for n, x in enumerate(out) if x.parent == parent)
            out[at:at] = head
        return out

    def _quote(self, best: _Candidate, unit: list[_Candidate], shape: Shape) -> list[_Candidate]:
        """What to quote of the best sentence's unit: all of it when short or when it is the list asked for,
        else the best sentence (after the list's opening words when it is one point of a list)."""
        size = sum(len(x.text) for x in unit)
        is_list = any(_LIST_INTRO.search(x.text) for x in unit) or any(_POINT_START.match(x.text) for x in unit[1:])
        if size <= self.whole_unit or (shape.listing and is_list and size <= self.max_chars):
            return list(unit)
        out = [best]
        if best.index > 0 and _POINT_START.match(best.text) and _LIST_INTRO.search(unit[0].text):
            out.insert(0, unit[0])
        elif _LIST_INTRO.search(best.text) and shape.listing:
            out += [x for x in unit if x.index > best.index and _POINT_START.match(x.text)]
            while sum(len(x.text) for x in out) > self.max_chars and len(out) > 1:
                out.pop()
        return out
