"""Discovery through Cellar's SPARQL endpoint: consolidated versions and amending acts of an act.

Same HTTP policy as the REST client (`fetch.http_pool`): retries with backoff on
429/5xx, Retry-After, timeouts, User-Agent, throttle. Queries are POSTed as a form
(`query=`) with `Accept: application/sparql-results+json`; the CELEX put into a
query is validated first, so nothing else can reach the query text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date

from lexcite import config
from lexcite.config import Settings
from lexcite.contract import is_celex
from lexcite.errors import FetchError
from lexcite.ingest.fetch import (
    DEFAULT_BACKOFF,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_RETRIES,
    DEFAULT_THROTTLE,
    DEFAULT_TIMEOUT,
    RETRY_STATUSES,
    Throttle,
    check_celex,
    http_pool,
    request,
)

__all__ = ["SparqlClient", "ConsolidatedVersion", "AmendingAct", "CDM"]

CDM = "http://publications.europa.eu/ontology/cdm#"
_PREFIXES = f"PREFIX cdm: <{CDM}>\nPREFIX owl: <http://www.w3.org/2002/07/owl#>\n"
_CELEX_URI = "http://publications.europa.eu/resource/celex/{celex}"

_CONSOLIDATED = (
    _PREFIXES
    + """SELECT DISTINCT ?cons ?celex ?date WHERE {{
  ?base owl:sameAs <{uri}> .
  ?cons cdm:act_consolidated_based_on_resource_legal ?base ;
        cdm:resource_legal_id_celex ?celex ;
        cdm:act_consolidated_date ?date .
}} ORDER BY DESC(?date)
"""
)

_AMENDING = (
    _PREFIXES
    + """SELECT DISTINCT ?act ?celex ?date WHERE {{
  ?base owl:sameAs <{uri}> .
  {{ ?base cdm:resource_legal_amended_by_resource_legal ?act }}
  UNION
  {{ ?act cdm:resource_legal_amends_resource_legal ?base }}
  ?act cdm:resource_legal_id_celex ?celex .
  OPTIONAL {{ ?act cdm:work_date_document ?date }}
}} ORDER BY ?date
"""
)


@dataclass(frozen=True, order=True)
class ConsolidatedVersion:
    celex: str  # e.g. "02024R1689-20240712"
    date: str  # ISO date: cdm:act_consolidated_date

    @property
    def valid_from(self) -> str | None:
        """The start of validity encoded in the CELEX suffix (may differ from `date`)."""
        _, _, suffix = self.celex.partition("-")
        return f"{suffix[:4]}-{suffix[4:6]}-{suffix[6:8]}" if len(suffix) == 8 else None


@dataclass(frozen=True, order=True)
class AmendingAct:
    celex: str  # e.g. "32026R1744"
    date: str | None  # ISO date: cdm:work_date_document, when Cellar has one


class SparqlClient:
    """`consolidated_versions(celex)` and `amending_acts(celex)`, plus `select(query)` for anything else."""

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff_factor: float = DEFAULT_BACKOFF,
        throttle_s: float = DEFAULT_THROTTLE,
        settings: Settings | None = None,
    ) -> None:
        self.endpoint = endpoint or config.settings(settings).sparql_url
        self._pool = http_pool(
            timeout=timeout, connect_timeout=connect_timeout, retries=retries, backoff_factor=backoff_factor
        )
        self._throttle = Throttle(throttle_s)
        self.deadline: float | None = None  # time.monotonic() after which no request starts

    def consolidated_versions(self, celex: str) -> list[ConsolidatedVersion]:
        """Consolidated versions of a base act, oldest first."""
        uri = _CELEX_URI.format(celex=check_celex(celex))
        rows = self.select(_CONSOLIDATED.format(uri=uri))
        found = {ConsolidatedVersion(self._celex(r, "celex"), self._date(r, "date")) for r in rows}
        return sorted(found, key=lambda v: (v.date, v.celex))

    def amending_acts(self, celex: str) -> list[AmendingAct]:
        """Acts that amend `celex`, by document date (undated last)."""
        uri = _CELEX_URI.format(celex=check_celex(celex))
        rows = self.select(_AMENDING.format(uri=uri))
        found = {AmendingAct(self._celex(r, "celex"), self._date(r, "date", optional=True)) for r in rows}
        return sorted(found, key=lambda a: (a.date is None, a.date or "", a.celex))

    def select(self, query: str) -> list[dict[str, str]]:
        """Run a SELECT query -> one dict per solution, variable -> value (unbound variables absent)."""
        resp, attempts = request(
            self._pool,
            self._throttle,
            "POST",
            self.endpoint,
            {"Accept": "application/sparql-results+json"},
            deadline=self.deadline,
            fields={"query": query},
            encode_multipart=False,
        )
        if resp.status != 200:
            text = " ".join(resp.data[:300].decode("utf-8", "replace").split())
            kept = "the SPARQL endpoint kept failing: " if resp.status in RETRY_STATUSES else ""
            raise FetchError(self.endpoint, f"{kept}{resp.reason or 'error'}: {text}", resp.status, attempts)
        try:
            bindings = json.loads(resp.data)["results"]["bindings"]
            if not isinstance(bindings, list):
                raise TypeError("results.bindings is not a list")
            return [{var: cell["value"] for var, cell in row.items()} for row in bindings]
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise FetchError(
                self.endpoint,
                f"the answer is not SPARQL JSON results ({type(e).__name__}: {e}); starts with {resp.data[:80]!r}",
                resp.status,
                attempts,
            ) from None

    def _celex(self, row: dict[str, str], var: str) -> str:
        value = row.get(var, "").strip()
        if not is_celex(value):
            raise FetchError(self.endpoint, f"?{var} {value!r} in the SPARQL answer is not a CELEX number")
        return value

    def _date(self, row: dict[str, str], var: str, optional: bool = False) -> str | None:
        value = row.get(var, "").strip()
        if not value and optional:
            return None
        try:
            return date.fromisoformat(value[:10]).isoformat()  # xsd:date may carry a timezone
        except ValueError:
            raise FetchError(self.endpoint, f"?{var} {value!r} in the SPARQL answer is not a date") from None
