"""A local stand-in for Cellar: a real HTTP server on 127.0.0.1 that answers like
publications.europa.eu, from the saved documents in ../shared/corpus/raw.

    with ReplayServer(corpus) as cellar:
        client = CellarClient(cellar.url, throttle_s=0, backoff_factor=0)
        cellar.script("/resource/celex/32024R1689", [429, 500, "ok"])   # faults, one per request
        client.fetch("32024R1689")
        assert cellar.count("/resource/celex/32024R1689") == 3

What it answers (unscripted):
  GET /resource/celex/{CELEX}      Accept + Accept-Language (ISO 639-2, e.g. eng) required
      -> 303 See Other, Location {url}/resource/cellar/{uuid}.{expr}.{manif}/DOC_1
      -> 400 without Accept-Language (Cellar's "... without language" message)
      -> 404 unknown CELEX or language; 406 no manifestation in the asked format
  GET /resource/cellar/{uuid}.{expr}.{manif}/DOC_n
      -> 200 the bytes, with ETag (quoted sha256) and Last-Modified; 304 on a matching
         If-None-Match (or, without one, an If-Modified-Since not older than Last-Modified).
         Formex zips are rebuilt per request (new member timestamps), as Cellar does.
  GET|POST /webapi/rdf/sparql      (form or query-string `query=`)
      -> SPARQL JSON results, chosen by the predicate in the query
         ("consolidated": cdm:act_consolidated_based_on_resource_legal,
          "amending": cdm:resource_legal_amended_by_resource_legal / _amends_) and the CELEX in
         its <http://publications.europa.eu/resource/celex/…> URI, from `set_sparql(...)`, else
         tests/fixtures/sparql/{kind}_{CELEX}.json, else an empty result set.

Scripts (`script(path, entries)`): each request to `path` (no query string) takes the next
entry; when they run out the server answers normally again. An entry is
  "ok"                  the normal answer
  300                   Multiple Choices listing the work's items (DOC_2 annex first, DOC_1 main act)
  any other int         that status with a short body (no Retry-After)
  (status, headers)     e.g. (429, {"Retry-After": "1"}); a 3-tuple adds a body (str or bytes)
  "truncate"            the normal answer with a Content-Length larger than what is sent, then close
  "slow"                the normal answer after `slow_s` seconds (default 2)
  "drop"                close the connection without answering
  "malformed"           200 with a body that is not JSON (for the SPARQL endpoint)
  Reply(...)            full control (status, headers, body, fault, delay_s)

`requests` records every request (method, path, query, headers, body); `count(path)` counts them.
`reset()` forgets scripts, SPARQL overrides, added documents and the request log.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
import uuid as uuidlib
import zipfile
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sparql"
SPARQL_PATH = "/webapi/rdf/sparql"
CELEX_PATH = "/resource/celex/"
ITEM_PATH = "/resource/cellar/"

# Expression number per language and manifestation number per format, as in item URLs
# {uuid}.{expr}.{manif}/DOC_1. Only eng=0006 and xhtml=03, fmx4=02 are observed values (NOTES.md);
# the rest are invented (Cellar numbers them per work: never hard-code them in the client).
EXPRESSIONS = {"eng": "0006", "nld": "0018", "fra": "0009", "deu": "0004", "ita": "0014", "spa": "0002"}
MANIFESTATIONS = {"xhtml": "03", "html": "04", "fmx4": "02"}
CONTENT_TYPES = {
    "xhtml": "application/xhtml+xml;charset=UTF-8",
    "html": "text/html;charset=UTF-8",
    "fmx4": "application/zip",
}
# Real Cellar work ids (NOTES.md). 32024R2977 has none on record: one is derived from its CELEX.
WORK_UUIDS = {
    "32024R1689": "dc8116a1-3fe6-11ef-865a-01aa75ed71a1",
    "32016R0679": "3e485e15-11bd-11e6-ba9a-01aa75ed71a1",
    "32026R1744": "b459c07f-86fb-11f1-bf5e-01aa75ed71a1",
    "02024R1689-20260727": "b1730fb2-8f1c-11f1-9262-01aa75ed71a1",
    "02024R1689-20240712": "b93c5306-b410-11f0-b37f-01aa75ed71a1",
}
# (celex, language, format, file in the corpus, Last-Modified date)
CORPUS_DOCUMENTS = [
    ("32024R1689", "eng", "xhtml", "32024R1689.oj.xhtml", "2024-07-12"),
    ("32024R1689", "nld", "html", "32024R1689.oj.nl.html", "2024-07-12"),
    ("32024R1689", "eng", "fmx4", "fmx4/32024R1689.fmx4.zip", "2024-07-12"),
    ("32026R1744", "eng", "xhtml", "32026R1744.oj.xhtml", "2026-07-24"),
    ("32016R0679", "eng", "html", "32016R0679.oj.html", "2016-05-04"),
    ("32024R2977", "eng", "html", "32024R2977.oj.html", "2024-12-04"),
    ("02024R1689-20240712", "nld", "html", "02024R1689-20240712.consolidated.nl.html", "2024-07-12"),
    # The batch-2 acts (SOURCES.md "Batch 2"), each in the formats the corpus holds. A folder is
    # served as the Formex zip Cellar would build from it.
    ("32022R2065", "eng", "xhtml", "32022R2065.oj.xhtml", "2022-10-27"),
    ("32022R2065", "eng", "fmx4", "fmx4/32022R2065.fmx4.zip", "2022-10-27"),
    ("32022R1925", "eng", "xhtml", "32022R1925.oj.xhtml", "2022-10-12"),
    ("32022R1925", "eng", "fmx4", "fmx4/32022R1925.fmx4.zip", "2022-10-12"),
    ("32023R2854", "eng", "xhtml", "32023R2854.oj.xhtml", "2023-12-22"),
    ("32023R2854", "eng", "fmx4", "fmx4/32023R2854.fmx4.zip", "2023-12-22"),
    ("32022R0868", "eng", "xhtml", "32022R0868.oj.xhtml", "2022-06-03"),
    ("32022R0868", "eng", "html", "32022R0868.oj.html", "2022-06-03"),
    ("32019R0881", "eng", "fmx4", "fmx4/32019R0881", "2019-06-07"),
    ("32024R1183", "eng", "fmx4", "fmx4/32024R1183.fmx4.zip", "2024-04-30"),
    ("32024R2981", "eng", "html", "32024R2981.oj.html", "2024-12-04"),
    ("32024R2981", "eng", "fmx4", "fmx4/32024R2981.fmx4.zip", "2024-12-04"),
    ("02014R0910-20241018", "eng", "fmx4", "fmx4/02014R0910-20241018.fmx4.zip", "2025-04-09"),
    ("02002L0058-20091219", "eng", "html", "02002L0058-20091219.consolidated.en.html", "2009-12-19"),
    ("02024R1689-20260727", "eng", "fmx4", "fmx4/02024R1689-20260727", "2026-07-15"),
]
_ACCEPT = [("application/zip", "fmx4"), ("application/xhtml+xml", "xhtml"), ("text/html", "html")]
_QUERY_CELEX = re.compile(r"<http://publications\.europa\.eu/resource/celex/([^>]+)>")
_SPARQL_KINDS = {
    "consolidated": ("act_consolidated_based_on_resource_legal",),
    "amending": ("resource_legal_amended_by_resource_legal", "resource_legal_amends_resource_legal"),
}
_SPARQL_VARS = {"consolidated": ["cons", "celex", "date"], "amending": ["act", "celex", "date"]}


def _zip_folder(folder: Path) -> bytes:
    """A Formex folder of the corpus as the zip Cellar serves (members by name, fixed timestamps)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(folder.iterdir()):
            if f.is_file():
                zf.writestr(zipfile.ZipInfo(f.name, (2026, 1, 1, 0, 0, 0)), f.read_bytes())
    return buf.getvalue()


def work_uuid(celex: str) -> str:
    return WORK_UUIDS.get(celex) or str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"celex:{celex}"))


@dataclass(frozen=True)
class Reply:
    """One scripted answer. `fault`: None, "truncate", "drop", "malformed"; `delay_s` before answering.

    status None means "the normal answer" (possibly delayed or truncated)."""

    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | str | None = None
    fault: str | None = None
    delay_s: float = 0.0


@dataclass(frozen=True)
class Document:
    celex: str
    language: str  # ISO 639-2
    format: str  # xhtml | html | fmx4
    body: bytes
    uuid: str
    last_modified: datetime
    annex: bytes = b"<html><body><p>ANNEX</p></body></html>"  # DOC_2, offered by a 300

    @property
    def etag(self) -> str:
        return '"' + hashlib.sha256(self.body).hexdigest() + '"'

    def item_path(self, n: int = 1) -> str:
        return f"{ITEM_PATH}{self.uuid}.{EXPRESSIONS[self.language]}.{MANIFESTATIONS[self.format]}/DOC_{n}"


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


def sparql_json(kind: str, rows: list[dict[str, str]]) -> dict[str, Any]:
    """SPARQL JSON results (as Virtuoso writes them) from plain rows like {"celex": …, "date": …}."""
    variables = _SPARQL_VARS[kind]
    out = []
    for row in rows:
        binding: dict[str, Any] = {}
        subject = "cons" if kind == "consolidated" else "act"
        if subject not in row and "celex" in row:
            binding[subject] = {
                "type": "uri",
                "value": f"http://publications.europa.eu/resource/cellar/{work_uuid(row['celex'])}",
            }
        for var, value in row.items():
            if var == "date":
                dtype = "http://www.w3.org/2001/XMLSchema#date"
                binding[var] = {"type": "typed-literal", "datatype": dtype, "value": value}
            elif var == "celex":
                dtype = "http://www.w3.org/2001/XMLSchema#string"
                binding[var] = {"type": "typed-literal", "datatype": dtype, "value": value}
            else:
                binding[var] = {"type": "uri", "value": value}
        out.append(binding)
    return {"head": {"link": [], "vars": variables}, "results": {"distinct": False, "ordered": True, "bindings": out}}


class ReplayServer:
    """Cellar on 127.0.0.1:{random port}. Use as a context manager or start()/stop()."""

    def __init__(self, corpus: Path | None = None, fixtures: Path = FIXTURES, slow_s: float = 2.0) -> None:
        self.corpus, self.fixtures, self.slow_s = corpus, fixtures, slow_s
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._builds = 0
        self._corpus_cache: list[tuple[str, str, str, bytes, str]] | None = None
        self.reset()

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the replay server is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def sparql_url(self) -> str:
        return self.url + SPARQL_PATH

    def start(self) -> ReplayServer:
        self._stopping.clear()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.replay = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="replay-cellar", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes "slow" handlers
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- scripting -------------------------------------------------------------------------

    def reset(self) -> None:
        with self._lock:
            self.documents: dict[tuple[str, str, str], Document] = {}
            self._scripts: dict[str, deque[Reply]] = {}
            self._sparql: dict[tuple[str, str], dict[str, Any]] = {}
            self.requests: list[Request] = []
        for celex, lang, fmt, body, day in self._corpus_documents():
            self.add_document(celex, lang, fmt, body, last_modified=day)

    def _corpus_documents(self) -> list[tuple[str, str, str, bytes, str]]:
        """The saved documents that exist in the corpus, read once."""
        if self._corpus_cache is None:
            found = []
            for celex, lang, fmt, name, day in CORPUS_DOCUMENTS:
                path = self.corpus / name if self.corpus is not None else None
                if path is not None and path.is_file():
                    found.append((celex, lang, fmt, path.read_bytes(), day))
                elif path is not None and path.is_dir():
                    found.append((celex, lang, fmt, _zip_folder(path), day))
            self._corpus_cache = found
        return self._corpus_cache

    def add_document(
        self,
        celex: str,
        language: str,
        fmt: str,
        body: bytes | str | Path,
        *,
        uuid: str | None = None,
        last_modified: str = "2024-07-12",
    ) -> Document:
        """Serve `body` (bytes, text or a file) as the `fmt` manifestation of `celex` in `language` (eng…)."""
        if isinstance(body, Path):
            body = body.read_bytes()
        elif isinstance(body, str):
            body = body.encode("utf-8")
        day = datetime.fromisoformat(last_modified).replace(tzinfo=UTC)
        doc = Document(celex, language, fmt, body, uuid or work_uuid(celex), day)
        with self._lock:
            self.documents[(celex, language, fmt)] = doc
        return doc

    def script(self, path: str, entries: list[Any]) -> None:
        """Answers for the next requests to `path` (see the module docstring for the entry forms)."""
        replies = deque(self._reply(e) for e in entries)
        with self._lock:
            self._scripts[path] = replies

    def set_sparql(self, kind: str, celex: str, results: dict[str, Any] | list[dict[str, str]] | None) -> None:
        """What the SPARQL endpoint answers for `kind` ("consolidated" | "amending") about `celex`.

        `results`: SPARQL JSON (a dict), plain rows (e.g. [{"celex": "32026R1744", "date": "2026-07-08"}]),
        or None to go back to the fixture file."""
        if kind not in _SPARQL_KINDS:
            raise ValueError(f"kind must be one of {sorted(_SPARQL_KINDS)}")
        with self._lock:
            if results is None:
                self._sparql.pop((kind, celex), None)
            else:
                self._sparql[(kind, celex)] = results if isinstance(results, dict) else sparql_json(kind, results)

    def count(self, path: str | None = None, method: str | None = None) -> int:
        with self._lock:
            return sum(
                1 for r in self.requests if (path is None or r.path == path) and (method is None or r.method == method)
            )

    def served(self) -> list[Document]:
        """A snapshot of the documents being served."""
        with self._lock:
            return list(self.documents.values())

    def item_path(self, celex: str, language: str = "eng", fmt: str = "xhtml", n: int = 1) -> str:
        return self.documents[(celex, language, fmt)].item_path(n)

    def _reply(self, entry: Any) -> Reply:
        if isinstance(entry, Reply):
            return entry
        if entry == "ok":
            return Reply()
        if entry == "slow":
            return Reply(delay_s=self.slow_s)
        if entry in ("truncate", "drop", "malformed"):
            return Reply(fault=entry)
        if isinstance(entry, int):
            return Reply(status=entry)
        if isinstance(entry, tuple) and len(entry) in (2, 3):
            return Reply(entry[0], dict(entry[1]), entry[2] if len(entry) == 3 else None)
        raise ValueError(f"unknown script entry {entry!r}")

    # --- what the handler asks ---------------------------------------------------------------

    def _record(self, req: Request) -> Reply | None:
        with self._lock:
            self.requests.append(req)
            queue = self._scripts.get(req.path)
            return queue.popleft() if queue else None

    def _sparql_results(self, kind: str, celex: str) -> dict[str, Any]:
        with self._lock:
            if (kind, celex) in self._sparql:
                return self._sparql[(kind, celex)]
        path = self.fixtures / f"{kind}_{celex}.json"
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
        return sparql_json(kind, [])

    def _zip_rebuilt(self, data: bytes) -> bytes:
        """The same members with new timestamps: Cellar rebuilds Formex zips per request."""
        if not zipfile.is_zipfile(io.BytesIO(data)):
            return data  # a test serving something else as "fmx4"
        with self._lock:
            self._builds += 1
            n = self._builds
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                stamp = zipfile.ZipInfo(info.filename, (2026, 11, 29, 12, n % 60, 0))
                dst.writestr(stamp, src.read(info), compress_type=zipfile.ZIP_DEFLATED)
        return out.getvalue()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "replay-cellar/1"
    timeout = 10  # idle keep-alive connections end

    @property
    def replay(self) -> ReplayServer:
        return self.server.replay  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the stderr log
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    # --- dispatch ----------------------------------------------------------------------------

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        req = Request(self.command, parts.path, parts.query, dict(self.headers.items()), body)
        reply = self.replay._record(req) or Reply()
        if reply.delay_s and self.replay._stopping.wait(reply.delay_s):
            return self._drop()
        if reply.fault == "drop":
            return self._drop()
        if reply.fault == "malformed":
            return self._send(
                200,
                b'{"head": {"vars": ["celex"]}, "results": {"bindings": [',
                {"Content-Type": "application/sparql-results+json"},
            )
        if reply.status is not None:
            return self._scripted(req, reply)
        status, headers, payload = self._normal(req)
        self._send(status, payload, headers, truncate=reply.fault == "truncate")

    def _scripted(self, req: Request, reply: Reply) -> None:
        if reply.status == 300 and reply.body is None and req.path.startswith(CELEX_PATH):
            status, headers, body = self._multiple_choices(req)
            return self._send(status, body, headers)
        body = reply.body
        if body is None:
            phrase = self.responses.get(reply.status, ("",))[0]
            body = f"<html><body><h1>{reply.status} {phrase}</h1><p>scripted by the replay server</p></body></html>"
        if isinstance(body, str):
            body = body.encode("utf-8")
        headers = {"Content-Type": "text/html;charset=UTF-8", **reply.headers}
        self._send(reply.status, body, headers, truncate=reply.fault == "truncate")

    def _normal(self, req: Request) -> tuple[int, dict[str, str], bytes]:
        try:
            if req.path.startswith(CELEX_PATH):
                return self._work(req)
            if req.path.startswith(ITEM_PATH):
                return self._item(req)
            if req.path == SPARQL_PATH:
                return self._sparql(req)
            raise _Refusal(404, "Not Found", f"No resource at {req.path}")
        except _Refusal as refusal:
            return refusal.answer()

    # --- Cellar REST ----------------------------------------------------------------------------

    def _lookup(self, req: Request) -> tuple[str, list[Document]]:
        """The CELEX of a work URL and its documents in the asked language, or a _Refusal like Cellar's."""
        celex = req.path[len(CELEX_PATH) :]
        known = [d for d in self.replay.served() if d.celex == celex]
        if not known:
            raise _Refusal(404, "Not Found", f"No work found for celex:{celex}")
        language = self.headers.get("Accept-Language", "").strip().lower()
        if not language:
            # Cellar's own words for a CONTENT_STREAM request without a language
            raise _Refusal(
                400,
                "Bad Request",
                f"Invalid content type CONTENT_STREAM for WORK ['cellar:{known[0].uuid}'] without language",
            )
        in_language = [d for d in known if d.language == language]
        if not in_language:
            raise _Refusal(404, "Not Found", f"No expression of celex:{celex} in language {language}")
        return celex, in_language

    def _work(self, req: Request) -> tuple[int, dict[str, str], bytes]:
        celex, docs = self._lookup(req)
        accept = self.headers.get("Accept", "")
        for mime, fmt in _ACCEPT:
            doc = next((d for d in docs if d.format == fmt), None)
            if mime in accept and doc is not None:
                location = self.replay.url + doc.item_path(1)
                return 303, {"Location": location, "Content-Type": "text/plain"}, f"See Other: {location}".encode()
        raise _Refusal(406, "Not Acceptable", f"No manifestation of celex:{celex} matches Accept: {accept}")

    def _multiple_choices(self, req: Request) -> tuple[int, dict[str, str], bytes]:
        """300 listing the work's items: DOC_2 (an annex) first, then DOC_1 (the main act)."""
        try:
            _, docs = self._lookup(req)
        except _Refusal as refusal:
            return refusal.answer()
        doc = docs[0]
        links = "".join(
            f'<li><a href="{self.replay.url}{doc.item_path(n)}" type="{CONTENT_TYPES[doc.format]}">'
            f"DOC_{n} ({what})</a></li>"
            for n, what in ((2, "annex"), (1, "main act"))
        )
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
            f"<head><title>300 Multiple Choices</title></head><body><h1>Multiple Choices</h1><ul>{links}</ul>"
            "</body></html>"
        )
        return 300, {"Content-Type": "application/xhtml+xml;charset=UTF-8"}, body.encode()

    def _item(self, req: Request) -> tuple[int, dict[str, str], bytes]:
        for doc in self.replay.served():
            if req.path == doc.item_path(2):
                return 200, {"Content-Type": CONTENT_TYPES["html"]}, doc.annex
            if req.path == doc.item_path(1):
                break
        else:
            raise _Refusal(404, "Not Found", f"No item at {req.path}")
        headers = {
            "Content-Type": CONTENT_TYPES[doc.format],
            "ETag": doc.etag,
            "Last-Modified": format_datetime(doc.last_modified, usegmt=True),
        }
        if self._not_modified(doc):
            return 304, headers, b""
        body = self.replay._zip_rebuilt(doc.body) if doc.format == "fmx4" else doc.body
        return 200, headers, body

    def _not_modified(self, doc: Document) -> bool:
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            return doc.etag in [t.strip() for t in if_none_match.split(",")] or if_none_match.strip() == "*"
        since = self.headers.get("If-Modified-Since")
        if since:
            try:
                return parsedate_to_datetime(since) >= doc.last_modified
            except (TypeError, ValueError):
                return False
        return False

    # --- SPARQL ---------------------------------------------------------------------------------

    def _sparql(self, req: Request) -> tuple[int, dict[str, str], bytes]:
        form = parse_qs(req.query) if req.method == "GET" else parse_qs(req.body.decode("utf-8", "replace"))
        query = (form.get("query") or [""])[0]
        if not query:
            raise _Refusal(400, "Bad Request", "Virtuoso 22023 Error: no query")
        kind = next((k for k, preds in _SPARQL_KINDS.items() if any(p in query for p in preds)), None)
        m = _QUERY_CELEX.search(query)
        if kind is None or m is None:
            raise _Refusal(400, "Bad Request", "replay server: a query it has no fixture kind for")
        results = self.replay._sparql_results(kind, m.group(1))
        return 200, {"Content-Type": "application/sparql-results+json"}, json.dumps(results).encode()

    # --- the wire -------------------------------------------------------------------------------

    def _send(self, status: int, body: bytes, headers: dict[str, str], truncate: bool = False) -> None:
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if status != 304:
                self.send_header("Content-Length", str(len(body)))
            if truncate:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            if status != 304 and self.command != "HEAD":
                self.wfile.write(body[: len(body) // 2] if truncate else body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(2)  # socket.SHUT_RDWR
        except OSError:
            pass


class _Refusal(Exception):
    """An error answer in Cellar's style (HTML body with the message)."""

    def __init__(self, status: int, phrase: str, message: str) -> None:
        super().__init__(message)
        self.status, self.phrase, self.message = status, phrase, message

    def answer(self) -> tuple[int, dict[str, str], bytes]:
        body = (
            f"<html><head><title>{self.status} {self.phrase}</title></head>"
            f"<body><h1>{self.phrase}</h1><p>{self.message}</p></body></html>"
        )
        return self.status, {"Content-Type": "text/html;charset=UTF-8"}, body.encode()
