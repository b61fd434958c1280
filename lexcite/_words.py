"""Words that carry no meaning for matching, in one home (the question reader and BM25 add their own)."""

from __future__ import annotations

__all__ = ["ENGLISH_STOPWORDS"]

# English function words (the NLTK list, lower case), plus "also" and "within".
ENGLISH_STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not of off
on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when
where which while who whom why will with within would you your yours yourself yourselves
""".split())
