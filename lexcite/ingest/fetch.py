"""Fetch one manifestation of an act from Cellar by REST content negotiation.

    GET {base}/resource/celex/32024R1689      Accept: application/xhtml+xml, Accept-Language: eng
    -> 303 See Other  {base}/resource/cellar/{uuid}.{expr}.{manif}/DOC_1
    -> 200 the document            (or 300 Multiple Choices: pick DOC_1, the main act)

The body is stored in the raw cache `LEXCITE_HOME/raw/ab/abcdef….xhtml`, named by
its sha256, written atomically and only once the whole body has arrived.
Transient failures (429, 5xx, timeouts, truncated bodies) are retried by urllib3
with exponential backoff, honouring Retry-After; what still fails raises
`FetchError` and stores nothing.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import os
import re
import tempfile
import threading
import time
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import unescape
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit

import urllib3
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    ResponseError,
)
from urllib3.util import Retry, Timeout

from lexcite import config
from lexcite.config import Settings
from lexcite.contract import is_celex
from lexcite.errors import ConfigError, FetchError

__all__ = [
    "CellarClient",
    "DEFAULT_TIMEOUT",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_RETRIES",
    "DEFAULT_BACKOFF",
    "DEFAULT_THROTTLE",
    "Fetched",
    "FORMATS",
    "LANGUAGES",
    "Throttle",
    "request",
    "choose_item",
    "RETRY_STATUSES",
    "http_pool",
    "language_code",
    "check_celex",
    "zip_members_sha256",
    "package_sha256",
]

# ISO 639-1 (what the contract carries) -> ISO 639-2 (what Cellar's Accept-Language takes).
LANGUAGES = {"en": "eng", "nl": "nld", "it": "ita", "fr": "fra", "de": "deu", "es": "spa"}
# Manifestation format -> Accept header, cache file suffix.
FORMATS = {
    "xhtml": ("application/xhtml+xml", ".xhtml"),
    "html": ("text/html", ".html"),
    "fmx4": ("application/zip;mtype=fmx4", ".zip"),
}
RETRY_STATUSES = (429, 500, 502, 503, 504)
_REDIRECTS = (301, 302, 303, 307, 308)
_MAX_HOPS = 5
_MAX_ZIP_BYTES = 256 * 1024 * 1024  # uncompressed, all members together
_HREF = re.compile(r"""href\s*=\s*["']([^"']+)["']""", re.I)
_LINK = re.compile(r"<([^>]+)>")
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Fetched:
    """One manifestation as Cellar delivered it (or did not: `not_modified`)."""

    celex: str
    language: str  # ISO 639-1, e.g. "en"
    url: str  # the work URL asked for
    final_url: str  # the item that answered, e.g. …/cellar/{uuid}.0006.03/DOC_1
    status: int  # 200, or 304 when not_modified
    content_type: str
    format: str  # "xhtml" | "html" | "fmx4": the first of the asked formats that worked
    sha256: str  # of the body; of the sorted members for a Formex zip; "" when not_modified
    path: Path | None  # the raw cache file; None when not_modified
    etag: str | None
    last_modified: str | None
    headers: dict[str, str] = field(hash=False)  # final response headers, lower-case names
    fetched_at: str  # ISO 8601 UTC
    not_modified: bool = False
    attempts: int = 1  # tries of the last request, retries included

# The HTTP defaults of every lexcite client (Cellar REST, SPARQL), written once (httpx's DEFAULT_TIMEOUT_CONFIG).
DEFAULT_TIMEOUT = 60.0  # seconds to read
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 1.0  # urllib3 backoff_factor: 0 s, 2 s, 4 s, ...
DEFAULT_THROTTLE = 1.0  # seconds between requests to one service


MAX_RETRY_AFTER_S = 60.0  # a server asking for a longer pause is reported, not waited for


class _WaitRefused(Exception):
    """Raised from inside urllib3's retry loop: waiting as asked would pass a limit."""


class _BoundedRetry(Retry):
    """Retry that waits for Retry-After only up to a cap, and never past a deadline (time.monotonic())."""

    max_wait_s: float = MAX_RETRY_AFTER_S
    deadline: float | None = None

    def new(self, **kw: object) -> _BoundedRetry:
        fresh = super().new(**kw)
        fresh.max_wait_s, fresh.deadline = self.max_wait_s, self.deadline
        return fresh

    def sleep_for_retry(self, response: urllib3.BaseHTTPResponse) -> bool:
        wait = self.get_retry_after(response)
        if wait and wait > self.max_wait_s:
            raise _WaitRefused(f"HTTP {response.status} asking to retry after {wait:.0f}s, longer than the "
                               f"{self.max_wait_s:.0f}s lexcite waits; try again later")
        self._check_deadline(wait or 0)
        return super().sleep_for_retry(response)

    def _sleep_backoff(self) -> None:
        self._check_deadline(self.get_backoff_time())
        super()._sleep_backoff()

    def _check_deadline(self, wait: float) -> None:
        if self.deadline is not None and time.monotonic() + wait > self.deadline:
            raise _WaitRefused("the deadline for this run passed before a retry; try again later")


def http_pool(
    *,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
    backoff_factor: float = DEFAULT_BACKOFF,
) -> urllib3.PoolManager:
    """The one HTTP policy of lexcite (Cellar REST and SPARQL): retries, backoff, timeouts, User-Agent.

    Retries cover connection errors, read timeouts, truncated bodies and 429/5xx answers;
    Retry-After is honoured. Redirects are left to the caller (it records every hop).
    """
    retry = _BoundedRetry(
        total=retries,
        redirect=False,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"GET", "HEAD", "POST"}),  # our POSTs are SPARQL reads
        backoff_factor=backoff_factor,
        respect_retry_after_header=True,
        raise_on_status=False,  # the last answer comes back; the caller turns it into a FetchError
    )
    return urllib3.PoolManager(
        num_pools=4,
        headers={"User-Agent": config.USER_AGENT},
        retries=retry,
        timeout=Timeout(connect=min(connect_timeout, timeout), read=timeout),
    )


class Throttle:
    """A minimum interval between requests to the same host (thread-safe; 0 disables it)."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, url: str) -> None:
        if self.interval_s <= 0:
            return
        host = urlsplit(url).netloc
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next.get(host, 0.0))
            self._next[host] = start + self.interval_s
        if start > now:
            time.sleep(start - now)


def request(
    pool: urllib3.PoolManager,
    throttle: Throttle,
    method: str,
    url: str,
    headers: dict[str, str],
    deadline: float | None = None,
    **kw: object,
) -> tuple[urllib3.BaseHTTPResponse, int]:
    """One request under the shared policy -> (response, attempts). Failures after retries raise.

    `deadline` (time.monotonic()): no try starts, no retry waits and no read lasts past it.
    """
    retry = pool.connection_pool_kw.get("retries")
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise FetchError(url, "the deadline for this run had passed; nothing more was fetched")
        timeout = pool.connection_pool_kw.get("timeout")
        if isinstance(timeout, Timeout):
            kw["timeout"] = Timeout(connect=min(left, timeout.connect_timeout or left),
                                    read=min(left, timeout.read_timeout or left))
        if isinstance(retry, _BoundedRetry):
            retry = retry.new()
            retry.deadline = deadline
            kw["retries"] = retry
    throttle.wait(url)
    try:
        resp = pool.request(
            method,
            url,
            headers={**pool.headers, **headers},
            redirect=False,
            preload_content=True,  # the body is read inside urllib3's retry loop
            enforce_content_length=True,
            **kw,
        )
    except _WaitRefused as e:
        raise FetchError(url, str(e)) from None
    except MaxRetryError as e:
        attempts = (retry.total or 0) + 1 if isinstance(retry, Retry) else 1
        raise FetchError(url, _error_reason(e.reason, pool), None, attempts) from e
    except HTTPError as e:  # raised outside the retry loop (should not happen with a Retry)
        raise FetchError(url, _error_reason(e, pool)) from e
    attempts = len(resp.retries.history) + 1 if resp.retries else 1
    return resp, attempts


def _error_reason(err: BaseException | None, pool: urllib3.PoolManager) -> str:
    timeout = pool.connection_pool_kw.get("timeout")
    if isinstance(err, ReadTimeoutError):
        read = timeout.read_timeout if isinstance(timeout, Timeout) else None
        return f"no answer within the read timeout of {read}s (timed out)"
    if isinstance(err, NewConnectionError):  # before ConnectTimeoutError: urllib3 derives it from that
        return f"could not connect ({err})"
    if isinstance(err, ConnectTimeoutError):
        return f"could not connect within {timeout.connect_timeout if isinstance(timeout, Timeout) else '?'}s"
    if isinstance(err, ProtocolError):
        cause = err.args[1] if len(err.args) > 1 else err
        if isinstance(cause, http.client.IncompleteRead):  # urllib3's IncompleteRead is one too
            got = cause.partial if isinstance(cause.partial, int) else len(cause.partial)
            return f"the body was truncated: {got} bytes arrived, {cause.expected} more were announced"
        return f"the connection broke ({cause})"
    if isinstance(err, ResponseError):
        return str(err)
    return f"request failed ({err})"


def _status_reason(resp: urllib3.BaseHTTPResponse) -> str:
    """The answer's reason phrase plus the start of its text (Cellar explains errors in the body)."""
    text = _TAG.sub(" ", resp.data[:4096].decode("utf-8", "replace"))
    text = " ".join(unescape(text).split())[:300]
    phrase = resp.reason or "error"
    return f"{phrase}: {text}" if text else phrase


def language_code(language: str) -> tuple[str, str]:
    """'en' or 'eng' -> ('en', 'eng'). ConfigError for anything else."""
    lang = (language or "").strip().lower()
    for two, three in LANGUAGES.items():
        if lang in (two, three):
            return two, three
    raise ConfigError(
        f"language {language!r} is not supported; Cellar needs one of "
        f"{', '.join(f'{a} ({b})' for a, b in LANGUAGES.items())}"
    )


def check_celex(celex: str) -> str:
    """Normalise and validate a CELEX number, e.g. '32024R1689', '02024R1689-20240712'."""
    value = (celex or "").strip().upper()
    if not is_celex(value):
        raise ConfigError(
            f"{celex!r} is not a CELEX number (e.g. 32024R1689, consolidated 02024R1689-20240712, "
            "corrigendum 32024R1689R(02))"
        )
    return value


def package_sha256(files: Mapping[str, bytes]) -> str:
    """sha256 over a multi-file package's member file names and contents, in name order.

    The same package gives the same hash as a folder, as a zip, and as a zip rebuilt with
    other timestamps (Cellar rebuilds Formex zips per request).
    """
    by_name = {PurePosixPath(name).name: body for name, body in files.items()}
    if len(by_name) != len(files):
        raise ValueError("two members of the package have the same file name")
    digest = hashlib.sha256()
    for name in sorted(by_name):
        raw = name.encode("utf-8")
        body = by_name[name]
        digest.update(len(raw).to_bytes(4, "big") + raw + len(body).to_bytes(8, "big") + body)
    return digest.hexdigest()


def zip_members_sha256(data: bytes) -> str:
    """`package_sha256` of a zip's members (not of the zip bytes).

    Raises ValueError when `data` is not a usable zip.
    """
    if not data.startswith(b"PK"):
        raise ValueError(f"not a zip: starts with {data[:8]!r}, not the PK magic")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = [i for i in zf.infolist() if not i.is_dir()]
            if not members:
                raise ValueError("the zip has no members")
            if sum(i.file_size for i in members) > _MAX_ZIP_BYTES:
                raise ValueError(f"the zip unpacks to more than {_MAX_ZIP_BYTES} bytes")
            return package_sha256({i.filename: zf.read(i) for i in members})
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, zlib.error, OSError,
            RuntimeError, ValueError) as e:  # a damaged member header: a negative seek, an undecodable name
        raise ValueError(f"not a readable zip ({e})") from e


def choose_item(base_url: str, resp: urllib3.BaseHTTPResponse) -> str | None:
    """From a 300 Multiple Choices answer, the main act's item (DOC_1), not an annex or corrigendum.

    Alternatives are read from the body's links, then the Link and Location headers.
    """
    body = resp.data[: 1 << 20].decode("utf-8", "replace")
    listed = [unescape(h) for h in _HREF.findall(body)]
    listed += _LINK.findall(resp.headers.get("Link", ""))
    listed += [resp.headers["Location"]] if resp.headers.get("Location") else []
    for candidate in listed:
        url = urljoin(base_url, candidate.strip())
        if urlsplit(url).path.rstrip("/").endswith("/DOC_1"):
            return url
    return None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _looks_like_markup(body: bytes) -> bool:
    """An (X)HTML body starts with markup (a PDF, JSON or binary body never does)."""
    head = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<?xml", b"<!doctype html", b"<html", b"<!--"))


class _FormatUnavailable(Exception):
    """Cellar knows the work but has no manifestation of this format (try the next one)."""


class CellarClient:
    """Cellar REST client: `fetch(celex, language, formats)` -> `Fetched` (stored in the raw cache)."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff_factor: float = DEFAULT_BACKOFF,
        throttle_s: float = DEFAULT_THROTTLE,
        cache_dir: Path | None = None,
        settings: Settings | None = None,
    ) -> None:
        settings = config.settings(settings)
        self.base_url = (base_url or settings.cellar_url).rstrip("/")
        self.cache_dir = cache_dir or settings.home / "raw"
        # Where a redirect may lead: Cellar's own origin, plus mirrors named in LEXCITE_CELLAR_ORIGINS.
        self.origins = {_origin(self.base_url), *map(_origin, settings.cellar_origins)}
        self.deadline: float | None = None  # time.monotonic() after which no request starts
        self._pool = http_pool(
            timeout=timeout, connect_timeout=connect_timeout, retries=retries, backoff_factor=backoff_factor
        )
        self._throttle = Throttle(throttle_s)

    def fetch(
        self,
        celex: str,
        language: str = "en",
        formats: Iterable[str] = ("xhtml", "html"),
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> Fetched:
        """The first of `formats` Cellar has for this act and language, stored in the raw cache.

        With `etag` / `last_modified` (from a previous fetch) the request is conditional and an
        unchanged document comes back as `Fetched(not_modified=True, path=None)`.
        """
        celex = check_celex(celex)
        lang2, lang3 = language_code(language)
        formats = tuple(formats)
        unknown = [f for f in formats if f not in FORMATS]
        if not formats or unknown:
            raise ConfigError(f"formats must be among {', '.join(FORMATS)}; got {formats!r}")
        work_url = f"{self.base_url}/resource/celex/{celex}"
        missing: list[str] = []
        for fmt in formats:
            headers = {"Accept": FORMATS[fmt][0], "Accept-Language": lang3}
            if etag:
                headers["If-None-Match"] = etag
            if last_modified:
                headers["If-Modified-Since"] = last_modified
            try:
                return self._fetch_one(celex, lang2, fmt, work_url, headers)
            except _FormatUnavailable as e:
                missing.append(f"{fmt}: {e}")
        raise FetchError(
            work_url,
            f"Cellar has no {' or '.join(formats)} manifestation of {celex} in {lang3} ({'; '.join(missing)})",
        )

    def _fetch_one(self, celex: str, lang2: str, fmt: str, work_url: str, headers: dict[str, str]) -> Fetched:
        url, hops = work_url, 0
        resp, attempts = request(self._pool, self._throttle, "GET", url, headers, self.deadline)
        while resp.status == 300 or resp.status in _REDIRECTS:
            if hops == _MAX_HOPS:
                raise FetchError(work_url, f"more than {_MAX_HOPS} redirects", resp.status)
            if resp.status == 300:
                nxt = choose_item(url, resp)
                if nxt is None:
                    raise FetchError(url, "300 Multiple Choices without a DOC_1 item among the alternatives", 300)
            elif resp.headers.get("Location"):
                nxt = urljoin(url, resp.headers["Location"])
            else:
                raise FetchError(url, "redirect without a Location header", resp.status)
            if _origin(nxt) not in self.origins:
                raise FetchError(url, f"redirected to {nxt}, outside {', '.join(sorted(self.origins))}; not followed "
                                 "(a mirror can be allowed in LEXCITE_CELLAR_ORIGINS)", resp.status)
            url, hops = nxt, hops + 1
            resp, attempts = request(self._pool, self._throttle, "GET", url, headers, self.deadline)

        status = resp.status
        if status == 404 and url == work_url:
            raise FetchError(url, f"CELEX {celex} is unknown to Cellar", 404, attempts)
        if status in (404, 406, 415):
            raise _FormatUnavailable(f"HTTP {status}" + (f" at {url}" if url != work_url else ""))
        common = dict(
            celex=celex,
            language=lang2,
            url=work_url,
            final_url=url,
            status=status,
            content_type=resp.headers.get("Content-Type", ""),
            format=fmt,
            etag=resp.headers.get("ETag"),
            last_modified=resp.headers.get("Last-Modified"),
            headers={k.lower(): v for k, v in resp.headers.items()},
            fetched_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            attempts=attempts,
        )
        if status == 304:
            return Fetched(sha256="", path=None, not_modified=True, **common)
        if status != 200:
            reason = _status_reason(resp)
            if status in RETRY_STATUSES:
                reason = f"Cellar kept failing ({reason})"
            raise FetchError(url, reason, status, attempts)

        body = resp.data
        if not body:
            raise FetchError(url, "200 with an empty body", status, attempts)
        if fmt != "fmx4" and not _looks_like_markup(body):
            kind = resp.headers.get("Content-Type") or "no Content-Type"
            raise FetchError(url, f"asked for {fmt}, got {len(body)} bytes of {kind} starting {body[:16]!r}",
                             status, attempts)
        if fmt == "fmx4":
            try:
                sha = zip_members_sha256(body)
            except ValueError as e:
                raise FetchError(url, f"asked for a Formex zip: {e}", status, attempts) from None
        else:
            sha = hashlib.sha256(body).hexdigest()
        path = self._store(body, sha, FORMATS[fmt][1])
        return Fetched(sha256=sha, path=path, **common)

    def _store(self, body: bytes, sha: str, suffix: str) -> Path:
        """raw/ab/abcdef….suffix, via a temp file and os.replace; an existing file is kept as is."""
        folder = self.cache_dir / sha[:2]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{sha}{suffix}"
        if path.exists():
            return path
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{sha[:12]}.", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(body)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path
