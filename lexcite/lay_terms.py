"""The words the acts use for what people say in their own: query expansion for retrieval and the answer stage.

"Do we need someone in the EU to act for us?" shares no word with "providers established in third
countries shall ... appoint an authorised representative", and the small embedder does not bridge
that gap either; with the act's words added to the query, BM25 finds the provision. So a question
that says a thing the way people say it gets the term the acts use for it appended, for BM25 and,
beside the question as written, for the reranker (`Params.lay_rerank`; the dense retriever reads the
question as written: on dev, expanding the dense query ranked worse): "someone to act for us" ->
"authorised representative", "countries" -> "Member States", "money" -> "financial resources".

The list is EU legislative drafting vocabulary (the AI Act's, the GDPR's, and the terms they share
with the product-safety acts), one entry per notion, written from what each term means rather than
from any question. Only what the question lacks is added: a question that already uses the act's
term is left as it is. The extractive generator counts these terms among the question's words when it
matches sentences (the law says "law enforcement" where the question says "police"). Named
provisions, definitions and dates read the question as written. Whether the list earns its place is
measured on the dev split (`Stages.expansion`, bench/RESULTS.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from lexcite._words import ENGLISH_STOPWORDS
from lexcite.question import content_terms

__all__ = ["expand_query", "acts_terms", "said_as", "LAY_TERMS", "abbreviations", "written_out"]

# A breach of these is an infringement; so is "each breach", "AI Act breaches": no personal data breach.
_THE_RULES = r"(?:the |its |our |their )?(?:rules?|law|GDPR|AI Act|Regulation|obligations?|provisions?|requirements?)"
_MANY = "each|every|several|separate|multiple|Act|GDPR"
_NOT_AFTER_MANY = "".join(f"(?<!{w} )" for w in _MANY.split("|"))  # look-behinds must be of fixed width, one each
# a business outside the Union: in a third country, and "not established in the Union" (GDPR Article 3(2))
_BASED_OUTSIDE = r"\b(?:based|established|located) outside (?:the )?(?:EU|Europe|Union)\b"
_FOREIGN_BUSINESS = (r"\b(?:foreign|non-EU|(?-i:US|UK)|American|Chinese|Indian|Swiss|Japanese|Canadian) "
                     r"(?:company|companies|firm|firms|provider|providers|business|businesses|website|app|shop)\b")

# (what people say, as a regex; the term the acts use)
LAY_TERMS: tuple[tuple[str, str], ...] = (
    # who
    (r"\b(?:countries|country's|national governments?|governments?)\b", "Member States"),
    (r"\b(?:act|acts|speak|speaks) (?:for|on behalf of) (?:us|them|it|the company)\b|"
     r"\blocal (?:agent|representative)\b|\brepresent (?:us|them|it)\b", "authorised representative"),
    (r"\b(?:resellers?|retailers?|shops?|marketplaces?)\b", "distributor"),
    (r"\bimport(?:s|ed|ing)?\b", "importer"),
    (r"\b(?:makers?|manufacturers?|developers?|vendors?|builds?|built)\b", "provider"),
    (r"\b(?:watchdogs?|regulators?|enforc(?:e|es|ed|ing|ers?))\b",
     "supervisory authority market surveillance authority"),
    (r"\bpolice\b", "law enforcement"),
    (r"\b(?:delegates?|envoys?)\b", "representative"),
    (r"\b(?:public (?:hospital|school|body|bodies|sector|administration)s?|government (?:agenc(?:y|ies)|departments?)|"
     r"ministr(?:y|ies)|municipalit(?:y|ies)|city council)\b", "public authorities and bodies"),
    (r"\b(?:outside|external) (?:consultant|provider|firm|company|expert)s?\b|\bcontractors?\b|\boutsourc\w*",
     "service contract"),
    (r"\b(?:kids?|children|minors?|teenagers?|under-?age)\b", "child"),
    # people made vulnerable by their means: the prohibitions' "specific social or economic situation"
    (r"\bstruggling (?:financially|to pay|with (?:debts?|bills|money))\b|\b(?:hard[- ]up|low[- ]income|indebted|"
     r"in debt|poverty)\b|\bpoor (?:people|persons|families|households|customers|users|borrowers|consumers)\b|"
     r"\bfinancial(?:ly)? (?:difficult(?:y|ies)|trouble|hardship|distress|vulnerab\w*)\b", "economic situation"),
    (rf"{_FOREIGN_BUSINESS}|"
     r"\b(?:based|established|located) in (?!(?:the )?(?:EU|Europe|Union|Member))(?:the )?(?-i:[A-Z])\w+|"
     rf"{_BASED_OUTSIDE}|"
     r"\b(?:a |one )?(?:country|state) outside (?:the )?(?:EU|EEA|Europe|Union)\b|\bnon-EU (?:country|state)\b",
     "third country"),
    # the GDPR's territorial scope speaks of a controller or processor "not established in the Union"
    (rf"{_FOREIGN_BUSINESS}|{_BASED_OUTSIDE}", "not established in the Union"),
    (r"\b(?:send|sending|sent|move|moving|moved|export\w*|transfer\w*|host\w*|stor(?:e|es|ed|ing)) (?:[\w'’]+ ){0,3}"
     r"(?:there|abroad|overseas|to (?:the )?(?:US|USA|United States|India|China|UK)|"
     r"outside (?:the )?(?:EU|EEA|Union|Europe))\b",
     "transfer of personal data to a third country"),
    (r"\badequacy (?:finding|ruling|status|decisions?)\b", "adequacy decision"),
    (r"\b(?:testing|test|certification|inspection) (?:lab|labs|laborator(?:y|ies)|house|firm|company|centre)\b|"
     r"\bcertifiers?\b", "conformity assessment body"),
    (r"\b(?:decide|decides|deciding|determine|determines) (?:[\w'’]+ ){0,6}together\b|"
     r"\bjointly (?:decide|determine)\w*", "joint controllers"),
    (r"\b(?:bought|buy|buying|purchased?|acquired?|rented) (?:a |the )?(?:[\w'’-]+ ){0,3}(?:list|database|data(?:set)?|"
     r"contacts?|leads)\b|\bdata brokers?\b|\b(?:collect|collected|get|got|obtain|obtained|receive|received) "
     r"(?:[\w'’]+ ){0,3}from (?:a |another |other )?(?:third part(?:y|ies)|partners?|compan(?:y|ies)|someone else)\b",
     "not been obtained from the data subject"),
    (r"\b(?:stop|stops|stopped|halt|freeze|pause) (?:using|processing) (?:that|the|my|our|their|this) "
     r"(?:data|information|figure|details)\b|\bwhile (?:they|you|we) (?:check|verify|look into)\b",
     "restriction of processing"),
    (r"\b(?:stop|stops|stopped|ban|bans|banned|bar|bars|barred|prevent|prevents|forbid|forbids) (?:us|them|a company|"
     r"the company|controllers?|companies) from (?:using|processing|handling)\b", "ban on processing limitation"),
    (r"\bpermanently\b|\bfor good\b|\bforever\b", "definitive"),
    (r"\bemergenc(?:y|ies)\b", "situation of urgency exceptional reasons"),
    (r"\bon (?:a client's|the client's|someone else's|our customers'|their) instructions\b|"
     r"\b(?:for|on behalf of) (?:someone|somebody) else\b|"
     r"\bon behalf of (?:a|the|our|their|its) (?:clients?|customers?)\b",
     "processor on behalf of the controller"),
    (r"\bsub-?(?:contract(?:or|ors|ing)?|process(?:or|ors|ing))\b|\bsubcontract\w*", "another processor"),
    (r"\b(?:who|which) decides? (?:what|how|why|the purposes?)\b|\bthe one who decides\b",
     "controller determines the purposes and means"),  # "who decides whether the code suffices?" is no controller
    # money, people, resources
    (r"\b(?:money|funding|budget|funds)\b", "financial resources"),
    # "enough staff" are human resources; "our staff's personal data" is employees' data
    (r"\b(?:staff|staffing|people to do|headcount|personnel)\b(?!['’]s\b|['’] |\s+(?:personal\s+)?(?:data|information|"
     r"details|records|files)\b)", "human resources"),
    (r"\b(?:staff|workers|employees|personnel|workforce)(?:['’]s?)? (?:personal )?(?:data|information|details|records|"
     r"files)\b|\b(?:HR|employee) (?:data|records|files)\b", "employees' personal data in the employment context"),
    (r"\b(?:enough means|the means)\b", "adequate resources"),
    (r"\b(?:appoint(?:s|ed|ing)?|hire|hires|hired|name|names|named)\b"
     r"(?= (?:an?|one|the|our|their|its|someone|somebody)\b)",
     "designate"),  # the GDPR designates its data protection officer; the AI Act appoints its representative
    # a person's qualifications; the skills a workforce needs to use AI are the AI Act's AI literacy
    (r"\b(?:qualifications?|credentials|expertise|"
     r"(?<!\bAI )skills?(?! (?:in|with|for|around) (?:using )?(?:AI|artificial intelligence)\b))\b",
     "professional qualities expert knowledge"),
    (r"\b(?:AI|artificial intelligence) (?:skills?|know-how|competences?|training)\b|"
     r"\bskills? (?:in|with|for|around) (?:using )?(?:AI|artificial intelligence)\b", "AI literacy"),
    (r"\b(?:permission|approval|permit|sign-off|green light)\b", "authorisation"),
    (r"\b(?:clos(?:e|es|ed|ing)|shut(?:s|ting)?|wind(?:s|ing)?) (?:down|up)\b|\bgo(?:es|ing)? out of business\b|"
     r"\bstop(?:s|ped|ping)? (?:its|their|our|the) (?:business|activities|work)\b", "cease its activities"),
    # documents, records, marks
    (r"\b(?:inventory|register|list|log) of (?:what we do with|our|all (?:the )?|the )?(?:personal )?data\b|"
     r"\bdata (?:inventory|map|mapping)\b|\bwhat we do with (?:people's |customers' |personal )*data\b",
     "record of processing activities"),
    (r"\b(?:company|contact|our|business) details\b|\bour (?:name|brand)\b", "name registered trade name address"),
    (r"\b(?:box|packag\w*|wrapper)\b", "packaging"),
    (r"\b(?:label|sticker|stamp|logo)\b", "CE marking"),
    # a processor's contract: "Processing by a processor shall be governed by a contract" (GDPR Article 28(3))
    (r"\b(?:data processing|processor|processing|outsourcing) (?:agreements?|contracts?|terms)\b",
     "processing by a processor governed by a contract"),
    (r"\b(?:event records|audit trail|activity records?)\b", "logs"),
    # taking someone to court is what the acts call an effective judicial remedy (a decision is "challenged" by an
    # appeal procedure too, Article 44(3) AI Act: no court said, no term added)
    (r"\b(?:take|takes|took|taking|bring|brings|brought|drag)\s+(?:[\w'’-]+\s+){0,3}?to court\b",
     "effective judicial remedy"),
    # what people call someone's details the GDPR calls their personal data ("contact details" are its own words)
    (r"\b(?:their|his|her|your|my|our|people's|customers'?|clients'?|users'?) (?:personal )?details\b",
     "personal data"),
    (r"\bpaperwork\b", "documentation"),
    # what the GDPR calls the information to be provided to the data subject (the headings of Articles 13 and 14; the
    # data subject too, or AI Act Article 45's "Information obligations of notified bodies" reads as near)
    (r"\bprivacy (?:notices?|polic(?:y|ies)|statements?|information)\b",
     "information to be provided to the data subject"),
    # the initials people use for what the acts write out (the acts define no such abbreviation)
    (r"\b(?-i:DPOs?)\b", "data protection officer"),
    (r"\b(?-i:DPIAs?)\b", "data protection impact assessment"),
    (r"\b(?-i:FRIAs?)\b", "fundamental rights impact assessment"),
    (r"\b(?-i:GPAI)\b", "general-purpose AI model"),
    (r"\b(?-i:D?SARs?)\b|\bsubject access requests?\b", "right of access by the data subject"),
    (r"\b(?-i:CCTV)\b(?! (?:footage|images?|recordings?|stills))|\b(?:security|surveillance) cameras?\b|"
     r"\bvideo surveillance\b",
     "systematic monitoring of a publicly accessible area"),
    # data protection notions
    # what people call sensitive data the GDPR calls "special categories of personal data" (Article 9)
    (r"\bsensitive (?:personal )?(?:data|information)\b", "special categories of personal data"),
    # the grounds on which processing is lawful (GDPR Article 6, "Lawfulness of processing")
    (r"\b(?:legal|lawful) (?:basis|bases|grounds?)\b", "lawfulness of processing lawful"),
    # what a person may insist on hearing is what the acts call the right to be informed
    (r"\b(?:be|being|get|getting) told\b|\bkeep (?:me|us) (?:posted|informed|updated|in the loop)\b",
     "right to be informed"),
    (r"\b(?:tell|inform|notify|warn|contact|alert) (?:the |our |their |all )?(?:affected |impacted )?(?:customers|"
     r"clients|users|people|individuals|persons|patients|employees|members)\b", "communicate to the data subject"),
    (r"\b(?:data )?(?:leak|leaks|leaked|hack|hacked|hackers?)\b|"
     rf"{_NOT_AFTER_MANY}\bbreach(?:ed)?\b(?! of {_THE_RULES}\b)", "personal data breach"),
    # "a separate fine for each breach", "AI Act breaches", "a breach of the rules": an infringement, no data breach
    (rf"\b(?:(?:{_MANY}) breach(?:es)?|breach(?:es)? of {_THE_RULES}|(?:breaching|breaks?|breaking|violat\w*) "
     rf"{_THE_RULES})\b", "infringement infringes"),
    (r"\b(?:delete|deleted|deleting|remove|removed|wipe|wiped|erase|erased) (?:[\w'’]+ ){0,2}(?:personal )?"
     r"(?:data|details|information|records|accounts?)\b|"
     r"\bforgotten\b", "erasure"),
    (r"\b(?:correct|fix|update) (?:my|his|her|their|the|wrong|inaccurate) (?:personal )?(?:data|details|records)\b",
     "rectification"),
    (r"\b(?:a copy of|see|view) (?:my|his|her|their|all) (?:personal )?data\b", "right of access"),
    (r"\b(?:take|move|transfer|port) (?:my|his|her|their) data\b", "data portability"),
    (r"\b(?:decided|made|taken) by (?:an? )?(?:algorithm|computer|machine|software)\b|\bautomated decisions?\b|"
     r"\b(?:decid|reject|approv|refus|deny|denie|turn\w* down|screen|rank|select)\w*(?: [\w'’]+){0,3} automatically\b|"
     r"\bwithout (?:a |any )?(?:human|person)(?: being)? (?:ever )?(?:looking|involved|checking|reviewing)\b",
     "automated individual decision-making"),
    # electronic communications (the ePrivacy Directive): a cookie is information stored in, or read from, the
    # "terminal equipment of a subscriber or user" (Article 5(3)); spam is "unsolicited communications for the
    # purposes of direct marketing" (Article 13), which the GDPR's Article 21 calls direct marketing too
    (r"\b(?:cookies?|tracking (?:pixels?|technolog(?:y|ies))|device fingerprint\w*)\b",
     "storing of information terminal equipment"),
    (r"\b(?:spam|junk (?:e-?mail|mail|messages?)|marketing (?:e-?mails?|messages?|calls?|texts?|SMS)|"
     r"cold (?:calls?|calling|e-?mails?))\b", "unsolicited communications direct marketing"),
    # AI Act notions
    (r"\b(?:face|facial) (?:matching|recognition|scan\w*)\b|\brecogni[sz]e faces\b", "biometric identification"),
    (r"(?<!go )(?<!goes )(?<!going )(?<!went )(?<!I )(?<!we )(?<!they )(?<!you )(?<!who )\blive\b", "real-time"),
    # "live face matching", not "goes live" nor "I live in Portugal"
    (r"\b(?:feelings?|moods?)\b", "emotions"),  # "emotions" itself is the act's word
    (r"\bat work\b|\b(?:in|at) the office\b|\bon the job\b|\bwork ?places?\b", "workplace"),
    (r"\b(?:chatbots?|virtual assistants?|talking to an? (?:AI|bot|machine))\b",
     "interact directly with natural persons"),
    (r"\bdeepfakes?\b", "deep fake"),
    (r"\bAI[- ](?:generated|made|created)\b|\b(?:generated|made|created) (?:by|with) (?:an? )?(?:AI|generative)\b|"
     r"\bsynthetic (?:content|images?|videos?|audio|text)\b", "artificially generated or manipulated"),
    (r"\bsocial (?:media|networks?|networking)\b", "information society services"),
    (r"\b(?:sell|sells|selling|sold|on sale|launch|launches|release|releases|bring to market)\b",
     "placing on the market"),
    (r"\b(?:hiring|recruit\w*|job applicants?|candidates for a job|CVs?)\b", "recruitment or selection"),
    (r"\b(?:universit(?:y|ies)|schools?|exams?|admissions?|students?)\b", "education and vocational training"),
    (r"\b(?:gets?|getting|got) (?:into|in)\b|\b(?:admit|admits|admitted|admitting)\b",
     "access or admission"),
    (r"\b(?:credit scor\w*|loans?|lending)\b", "creditworthiness credit score"),
    (r"\b(?:hobby|own use|personal use|(?<!case )(?<!sue )(?<!court )at home|for fun)\b",
     "purely personal non-professional activity"),  # "bring the case at home" is about a court
    # a dataset an AI system learns or is tested on: a public body's or a research dataset is no training data
    (r"\b(?:datasets?|data sets?)\b(?=[^?]*\b(?:train\w*|validat\w*|test(?:s|ed|ing)?|models?|AI)\b)|"
     r"\b(?:train\w*|validat\w*|models?|AI)\b[^?]*\b(?:datasets?|data sets?)\b",
     "training, validation and testing data sets"),
    (r"\bopen[- ]source\b", "free and open-source licence"),
    # a person watching the system; "Who supervises ...?", "the authority that supervises ...?" ask for an authority
    (r"(?<!\bwho )(?<!\bthat )(?<!\bwhich )(?<!\bauthority )(?<!\bbody )\b(?:in charge of|supervis(?:e|es|ed|ing|ion)|"
     r"overseeing|oversees?|keep an eye on|human in the loop)\b", "human oversight"),
    (r"\b(?:results?|outputs?|predictions?)\b", "output"),
    (r"\b(?:certificate|certified|certification)s? (?:is )?(?:good|valid) for\b|\brenew\w*\b",
     "validity of certificates"),
    (r"\b(?:list|catalogue) of (?:high-risk )?(?:uses|use cases|areas|applications)\b|"
     r"\bhigh-risk (?:list|uses|use cases|areas)\b", "Annex III use-cases"),
    (r"\b(?:web|online|cloud) (?:services?|apps?|applications?|platforms?)\b|\bSaaS\b|\bsoftware as a service\b|"
     r"\b(?:sold|delivered|offered|provided|available) (?:only |purely )?(?:online|digitally|as a download)\b|"
     r"\bno (?:box|device|physical (?:product|packaging))\b", "provided digitally"),
    (r"\b(?:self-(?:assess\w*|certif\w*)|in-house (?:checks?|assessments?|procedures?|conformity|certification)|"
     r"(?:check|assess|certify) (?:\w+ ){0,3}ourselves|(?:check|assessment|procedure) we (?:run|do) ourselves|"
     r"without an? (?:outside|external|third-party) (?:certifier|body|auditor|assessor))\b", "internal control"),
    (r"\b(?:standing|permanent|automatic|fixed) (?:seats?|members?|membership|places?)\b", "permanent members"),
    # an office held for a time: the acts' "term of office" (of a chair, of a supervisory authority's members)
    (r"\b(?:the|that|this|her|his|their|its|a|whose) (?:[\w-]+ )?(?:mandate|tenure|stint)\b|"
     r"\b(?:[\w-]+-year|first|second|new) terms?\b(?! of)|\bterms?\b(?= (?:is|lasts?|runs?|ends?)\b)|"
     r"\bserves? in office\b", "term of office"),
    # "Who sits on the Board?": the acts say what a body "shall be composed of"
    (r"\b(?:sits?|sitting|seats?|serves?|serving) on\b|\bwho (?:is|are) on\b", "composed"),
    (r"\b(?:chance|opportunity|time) to (?:fix|correct|remedy|put right|sort out)\b|"
     r"\bfix (?:it|this|that|the problems?|things) first\b", "put an end to the non-compliance"),
    # "tell Brussels", "does Brussels look at": the institutions; "our Brussels office" is a place
    (r"\b(?:at|on) (?:the )?(?:EU|European|Union) level\b|\bEU-level\b|"
     r"(?<!\bour )(?<!\bmy )(?<!\btheir )\bBrussels\b(?! (?:office|branch|headquarters|premises|site|team)s?\b)",
     "Commission AI Office"),
    (r"\b(?:separate|several|multiple) (?:applications?|filings?)\b|\bapply (?:separately|again|twice)\b",
     "single application"),
    (r"\b(?:coach(?:es|ed|ing)?|consult(?:ing|ants?)|advisory services|paid advice)\b", "consultancy services"),
    # data protection notions, continued
    (r"\b(?:take|takes|taking|took) (?:it|that|this|them|their consent|(?:my|our|his|her) consent) back\b|"
     r"\brevok(?:e|es|ed|ing)\b|\bchange (?:their|his|her|my|your|our) minds?\b|\bopt(?:s|ed|ing)? out\b",
     "withdraw consent"),
    (r"\b(?:passed|handed|gave|given|shared|disclosed|sent) (?:[\w'’]+ ){0,3}(?:on )?(?:to|with) (?:[\w'’-]+ ){0,3}"
     r"(?:partners?|compan(?:y|ies)|firms?|third parties|vendors?|suppliers?|affiliates?)\b|"
     r"\b(?:partner|third-party) compan(?:y|ies)\b", "recipients to whom the personal data have been disclosed"),
    (r"\b(?:journalis\w*|news\w*|reporters?|editorial|investigative|media outlets?|the press)\b",
     "journalistic purposes freedom of expression and information"),
    (r"\b(?:paper (?:files?|records?|folders?|forms?|documents?|archives?)|(?:filing )?cabinets?|card index\w*|"
     r"folders?|on paper|not (?:on|in) a computer|none of it is on a computer)\b",
     "filing system other than by automated means"),
    (r"\bhome country\b|\b(?:country|place|state) (?:where )?(?:I|we|they|he|she) li(?:ve|ves)\b|"
     r"\b(?:I|we) live in\b|\b(?:sue|case|claim|court) (?:\w+ ){0,3}at home\b", "habitual residence"),
)
_COMPILED = tuple((re.compile(lay, re.I), legal) for lay, legal in LAY_TERMS)


def said_as(query: str) -> tuple[tuple[str, str], ...]:
    """Each stretch of `query` the acts have a term for, with that term: ("event records", "logs")."""
    return tuple((m[0], legal) for pattern, legal in _COMPILED for m in pattern.finditer(query))


def acts_terms(query: str) -> tuple[str, ...]:
    """The acts' terms for what `query` says in other words, none it already uses."""
    low = query.lower()
    return tuple(dict.fromkeys(legal for _, legal in said_as(query) if legal.lower() not in low))


def expand_query(query: str, terms: Sequence[str] | None = None) -> str:
    """`query` followed by `terms` (default `acts_terms(query)`)."""
    extra = acts_terms(query) if terms is None else terms
    return f"{query} {' '.join(extra)}" if extra else query


# "small mid-cap enterprises (SMCs)", "the European Artificial Intelligence Board (the 'Board')" is not one: the
# abbreviation is found first and the words before it read back from there (a pattern that starts with the words
# tried seven of them at every word of the text: 20 ms an answer)
_PARENTHESISED = re.compile(r"\s\(([A-Z]{2,6})s?\)")
_WORDS_BEFORE = re.compile(r"(?:[\w-]+\s+){1,7}\Z")
_LOOK_BACK = 400  # characters: more than seven words take
# "“small mid-cap enterprise” or “SMC” means"
_DEFINED_PAIR = re.compile(r"[‘'\"“]([^’'\"”]{2,80})[’'\"”]\s+or\s+[‘'\"“]([^’'\"”]{2,12})[’'\"”]"
                           r"\s+(?:means|shall mean)")


def _initials(words: Sequence[str]) -> str:
    """The initials of `words`, function words left out and each part of a hyphenated word counted."""
    return "".join(part[0] for w in words if w.lower() not in ENGLISH_STOPWORDS for part in w.split("-") if part)


def _is_subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(ch in it for ch in short)


def abbreviations(texts: Iterable[str]) -> dict[str, str]:
    """The abbreviations the texts introduce, abbreviation -> its long form: "small mid-cap enterprises (SMCs)"
    and "“small mid-cap enterprise” or “SMC” means" give SMC -> small mid-cap enterprise(s). A parenthesised
    abbreviation counts when its letters are, in order, initials of the words before it, the first word's first
    ("Regulation (EU)" is none)."""
    found: dict[str, str] = {}
    for text in texts:
        for m in _DEFINED_PAIR.finditer(text):
            if m[2].isupper():
                found.setdefault(m[2], m[1])
        for m in _PARENTHESISED.finditer(text):
            before = _WORDS_BEFORE.search(text, max(0, m.start() - _LOOK_BACK), m.start() + 1)
            if before is None:
                continue
            abbr, words = m[1], before[0].split()
            for start in range(len(words) - 1, -1, -1):
                tail = words[start:]
                if tail[0].lower() in ENGLISH_STOPWORDS or tail[0][0].upper() != abbr[0]:
                    continue
                initials = _initials(tail).lower()
                # no more words than letters and one: "European Union in accordance with Regulation (EU)" is not EU
                if len(initials) <= len(abbr) + 1 and _is_subsequence(abbr.lower(), initials):
                    found.setdefault(abbr, " ".join(tail))
                    break
    return found


def written_out(texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each abbreviation the texts introduce, as the term(s) a sentence using it has, -> the terms of its long
    form: {"smc": ("small", "mid-cap", "mid", "cap", "enterpris"), "smcs": (...)}. A sentence that says "SMCs"
    is about small mid-cap enterprises, as a question that writes them out is."""
    out: dict[str, tuple[str, ...]] = {}
    for abbr, long in abbreviations(texts).items():
        for form in (abbr.lower(), abbr.lower() + "s"):
            out[form] = tuple(content_terms(long))
    return out
