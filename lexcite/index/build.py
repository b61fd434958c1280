"""`lexcite index`: catalog units -> passages -> vectors in Chroma, and the manifest beside them.

Incremental: each passage's embedded text is hashed; after an ingest only the
passages whose text changed are re-embedded, those whose catalog facts changed
(status, validity, tags) get new metadata, and removed ones are deleted.

The BM25 index is saved beside it (LEXCITE_HOME/index/bm25), with the defined
terms of every act (index/terms.json, lexcite/index/named.py), and the
manifest (manifest.py) is written last; `--rebuild` builds new collections beside
the ones searched and switches with the manifest, and an in-place update marks the
manifest first, so an interruption is seen and repaired (interrupted.py). Calibration is a separate step
(calibrate.py) that the caller runs after a build, with its questions.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lexcite import config
from lexcite.catalog import Catalog, catalog_path
from lexcite.config import Settings
from lexcite.errors import ConfigError, IndexMismatch
from lexcite.index.bm25 import BM25_PARAMS, TOKENIZER, BM25Index, fingerprint
from lexcite.index.chunks import DEFAULT_GRANULARITY, Passage, chunk_id, chunk_texts, passages
from lexcite.index.dense import DenseStore, backend_name, metadata, open_client, same_backend
from lexcite.index.embed import DEFAULT_EMBEDDER, EMBEDDER_CHOICES, Embedder, get_embedder, known_embedder
from lexcite.index.interrupted import build_lock, drop_leftovers, mark_building, meta_hash, observed
from lexcite.index.manifest import FIX, MANIFEST_FORMAT, load_manifest, save_manifest
from lexcite.index.named import save_terms, terms_path
from lexcite.index.rerank import load_reranker, parse_spec
from lexcite.index.second import DEFAULT_SECOND, SECOND_CHOICES

__all__ = ["build", "BuildReport", "DEFAULT_RERANKER", "check_choices", "collection_name", "bm25_path",
           "check_store"]

DEFAULT_RERANKER = "embedder:e5"  # = the default embedder: its dense vectors are reused
_EMBED_BATCH = 64


@dataclass(frozen=True)
class BuildReport:
    passages: int
    chunks: int
    embedded: int  # passages (re)embedded
    metadata_updated: int
    removed: int
    unchanged: int
    embedder: str
    reranker: str
    seconds: float
    notes: tuple[str, ...] = field(default_factory=tuple)
    second: str = "none"  # the second embedder (second.py), whose vectors `lexcite index` embeds after the build

    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in ("passages", "chunks", "embedded", "metadata_updated", "removed",
                                            "unchanged", "embedder", "reranker", "second", "seconds")}
        d["notes"] = list(self.notes)
        return d


def bm25_path(home: Path) -> Path:
    return home / "index" / "bm25"


def collection_name(kind: str, model: str, granularity: str) -> str:
    """Chroma collection names allow [a-zA-Z0-9._-], 3-512 chars; a path-like st: name is hashed."""
    slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")[:32] or "model"
    digest = hashlib.sha1(model.encode()).hexdigest()[:6]
    return f"lexcite-{kind}-{slug}-{digest}-{granularity}"


def _sync(store: DenseStore, embedder: Embedder, items: Sequence[Passage], old: dict[str, list[Any]],
          progress: Callable[[int, int], None] | None, before_write: Callable[[], None] = lambda: None,
          ) -> tuple[dict[str, list[Any]], dict[str, int]]:
    """Bring `store` in line with `items`; returns the new {key: [text_hash, meta_hash, chunks]} and counts.

    `before_write` runs once, before the first change to the store, and only if there is one."""
    new: dict[str, list[Any]] = {}
    to_embed: list[tuple[Passage, dict[str, Any], str]] = []
    meta_only: list[tuple[Passage, dict[str, Any], int]] = []
    stats = {"embedded": 0, "metadata_updated": 0, "removed": 0, "unchanged": 0}
    for p in items:
        meta = metadata(p)
        th, mh = p.text_hash(), meta_hash(meta)
        prev = old.get(p.key)
        if prev is None or prev[0] != th:
            to_embed.append((p, meta, mh))
        elif prev[1] != mh:
            meta_only.append((p, meta, prev[2]))
            new[p.key] = [th, mh, prev[2]]
        else:
            new[p.key] = prev
            stats["unchanged"] += 1
    # stale chunks: removed passages, and re-embedded ones whose chunk count may shrink
    keep = {p.key for p in items}
    stale = [chunk_id(k, i) for k, v in old.items() if k not in keep for i in range(v[2])]
    stats["removed"] = sum(1 for k in old if k not in keep)
    for p, _, _ in to_embed:
        if p.key in old:
            stale.extend(chunk_id(p.key, i) for i in range(old[p.key][2]))
    if stale or meta_only or to_embed:
        before_write()
    if stale:
        store.delete(stale)
    for p, meta, n in meta_only:
        store.update_metadata([chunk_id(p.key, i) for i in range(n)], [meta] * n)
    stats["metadata_updated"] = len(meta_only)
    ids, texts, metas = [], [], []
    for p, meta, mh in to_embed:
        pieces = chunk_texts(p, embedder.max_words)
        ids.extend(chunk_id(p.key, i) for i in range(len(pieces)))
        texts.extend(pieces)
        metas.extend([meta] * len(pieces))
        new[p.key] = [p.text_hash(), mh, len(pieces)]
    # Versions of one act share most of their text: embed each distinct text once.
    unique = list(dict.fromkeys(texts))
    vectors: dict[str, Any] = {}
    for start in range(0, len(unique), _EMBED_BATCH):
        batch = unique[start:start + _EMBED_BATCH]
        vectors.update(zip(batch, embedder.embed(batch), strict=True))
        if progress:
            progress(min(start + _EMBED_BATCH, len(unique)), len(unique))
    for start in range(0, len(ids), _EMBED_BATCH):
        end = start + _EMBED_BATCH
        store.upsert(ids[start:end], [vectors[t] for t in texts[start:end]], metas[start:end], texts[start:end])
    stats["embedded"] = len(to_embed)
    return new, stats


def check_choices(embedder: str | None, reranker: str | None, second: str | None) -> None:
    """The names given for the index's models are ones it offers (None: not given). The CLI calls this first, so a
    name none of them offers is a usage mistake said before anything is touched; the build calls it too.

    Raises:
        ConfigError: the option and what it offers.
    """
    if embedder is not None and not known_embedder(embedder):
        raise ConfigError(f"--embedder: unknown embedder {embedder!r}; {EMBEDDER_CHOICES}")
    if reranker is not None:
        try:
            kind, name = parse_spec(reranker)
        except ConfigError as e:
            raise ConfigError(f"--reranker: {e}") from None
        if kind == "embedder" and not known_embedder(name):
            raise ConfigError(f"--reranker: unknown embedder {name!r}; {EMBEDDER_CHOICES}")
    # a threshold's stages name the second reading's stage, not its model: one model
    if second is not None and second not in SECOND_CHOICES:
        raise ConfigError(f"--second: {second!r} is not one of: {', '.join(SECOND_CHOICES)}")


def build(
    catalog: Catalog | None = None,
    *,
    rebuild: bool = False,
    embedder: str | None = None,
    reranker: str | None = None,
    second: str | None = None,
    granularity: str | None = None,
    home: Path | None = None,
    chroma_url: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    settings: Settings | None = None,
) -> BuildReport:
    """Build or update the index from the catalog (calibrate it afterwards: calibrate.py).

    `embedder`, `reranker`, `second` and `granularity` default to what the existing index uses, else the
    module defaults; `second` ("mpnet", or "none") is recorded in the manifest, its vectors are embedded by
    `second.update_second_vectors` (the CLI does it after the build). The new manifest has no thresholds until
    `calibrate` runs.

    One build at a time per home; a build interrupted halfway is completed by the next one, and the
    collections an interrupted build left behind are dropped (lexcite/index/interrupted.py).

    Raises:
        ConfigError: an unknown embedder or reranker, or a model that is not installed.
        IndexMismatch: another build is writing this home's index.
    """
    t0 = time.perf_counter()
    settings = config.settings(settings)
    home = home or settings.home
    url = chroma_url if chroma_url is not None else settings.chroma_url
    own = catalog is None
    catalog = catalog or Catalog(catalog_path(home))
    try:
        with build_lock(home):
            return _build(catalog, home, url, rebuild, embedder, reranker, second, granularity, progress, t0)
    finally:
        if own:
            catalog.close()


def _build(catalog: Catalog, home: Path, url: str | None, rebuild: bool, embedder: str | None,
           reranker: str | None, second: str | None, granularity: str | None,
           progress: Callable[[str, int, int], None] | None, t0: float) -> BuildReport:
    try:
        previous = load_manifest(home)
    except IndexMismatch:
        if not rebuild:
            raise
        previous = None  # a manifest that cannot be read: the rebuild its message names replaces it
    old = None if rebuild else previous
    # A rebuild embeds everything again with what the index uses (the help's "default: the index's").
    emb_name = embedder or (previous or {}).get("embedder") or DEFAULT_EMBEDDER
    rr_spec = reranker or (previous or {}).get("reranker") or DEFAULT_RERANKER
    gran = granularity or (previous or {}).get("granularity") or DEFAULT_GRANULARITY
    second_name = second or (previous or {}).get("second") or DEFAULT_SECOND
    check_choices(emb_name, rr_spec, second_name)  # before any model loads or the index is touched
    kind, rr_arg = parse_spec(rr_spec)
    emb = get_embedder(emb_name)
    reuse = kind == "embedder" and rr_arg == emb_name  # the dense vectors serve the reranker as they are
    rr_emb = get_embedder(rr_arg) if kind == "embedder" and not reuse else None
    if kind == "cross-encoder":
        load_reranker(rr_spec)  # a model that cannot load fails here, before the index is touched
    if second_name != "none":
        get_embedder(second_name)  # likewise
    if not catalog.versions():  # after the options are checked: a bad option is named first
        raise ConfigError("the catalog is empty: nothing to index; store acts first "
                          "(lexcite ingest FILE... or lexcite refresh)")

    client = open_client(home, url)
    backend = backend_name(url)
    notes: list[str] = []
    # The collections the manifest names serve searches; any other lexcite collection in the home's
    # own store is what an interrupted build left (a Chroma server may hold other homes' collections).
    live = {n for n in ((previous or {}).get("collection"), (previous or {}).get("rerank_collection")) if n}
    if url is None and (left := drop_leftovers(client, live)):
        notes.append(f"dropped {len(left)} collection(s) that an interrupted index build left behind: "
                     f"{', '.join(left)}")
    dense_name = collection_name("dense", emb_name, gran)
    rr_name = dense_name if reuse else (collection_name("rerank", rr_arg, gran) if rr_emb else None)
    if rebuild:
        # Built beside the collections the manifest names, which serve searches until the new
        # manifest replaces it; an interrupted or failed rebuild leaves them whole.
        generation = datetime.now(UTC).strftime("%Y%m%d%H%M%S%f")
        dense_name = f"{dense_name}-{generation}"
        rr_name = dense_name if reuse else (f"{rr_name}-{generation}" if rr_name else None)
    same = (old is not None and same_backend(old.get("backend", ""), backend)
            and old.get("format") == MANIFEST_FORMAT)
    interrupted = same and bool(old.get("building"))
    marked = False

    def mark() -> None:
        """Before the first change to a collection the manifest names: searches must not rank on it."""
        nonlocal marked
        if not marked and previous is not None:
            mark_building(home, previous)
            marked = True

    records = list(catalog.records())
    items = passages(records, gran)
    state = catalog.state()

    def known(name: str | None, recorded: str, model: Embedder) -> dict[str, list[Any]]:
        """The manifest's record of a collection this build updates in place; read from the store
        itself when the last build was interrupted halfway."""
        if not same or old.get(recorded) != name or name is None:
            return {}
        if interrupted:
            return observed(DenseStore(client, name), items, model.max_words, metadata)
        return old["passages" if recorded == "collection" else "rerank_passages"]

    old_dense = known(dense_name, "collection", emb)
    old_rr = known(rr_name, "rerank_collection", rr_emb) if rr_emb is not None else {}
    for name, kept in ((dense_name, old_dense), (rr_name if rr_emb is not None else None, old_rr)):
        if name and not rebuild and not kept:
            if name in live:
                mark()
            DenseStore.drop(client, name)  # vectors this build cannot account for: embedded afresh

    dense = DenseStore(client, dense_name)
    step = (lambda what: (lambda i, n: progress(what, i, n))) if progress else (lambda what: None)
    new_dense, stats = _sync(dense, emb, items, old_dense, step(f"embedding ({emb_name})"),
                             mark if dense_name in live else lambda: None)
    new_rr: dict[str, list[Any]] = {}
    if rr_emb is not None and rr_name:
        new_rr, _ = _sync(DenseStore(client, rr_name), rr_emb, items, old_rr, step(f"embedding ({rr_arg})"),
                          mark if rr_name in live else lambda: None)

    texts = [p.text for p in items]
    tag = fingerprint(texts)
    BM25Index(texts).save(bm25_path(home), tag)
    save_terms(terms_path(home), items, tag)  # the defined terms, read once here rather than by each ask
    manifest = {
        "format": MANIFEST_FORMAT,
        "catalog_state": state,
        "embedder": emb_name,
        "dim": emb.dim,
        "reranker": rr_spec,
        "granularity": gran,
        "tokenizer": TOKENIZER,
        "bm25": BM25_PARAMS,
        "backend": backend,
        "collection": dense_name,
        "rerank_collection": rr_name,
        "passages": new_dense,
        "rerank_passages": new_rr,
        "second": second_name,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "thresholds": {},
    }
    save_manifest(home, manifest)  # the switch: searches now use these collections, and no mark
    if interrupted:
        notes.append("completed the index build that was interrupted: what the vectors held was read back "
                     "and brought up to date")
    if previous is not None and (rebuild or same):  # the old collections serve nothing now
        for name in live - {dense_name, rr_name}:
            DenseStore.drop(client, name)
    return BuildReport(
        passages=len(items), chunks=sum(v[2] for v in new_dense.values()), embedded=stats["embedded"],
        metadata_updated=stats["metadata_updated"], removed=stats["removed"], unchanged=stats["unchanged"],
        embedder=emb_name, reranker=rr_spec, seconds=round(time.perf_counter() - t0, 2), notes=tuple(notes),
        second=second_name,
    )


def check_store(manifest: dict[str, Any], dense: DenseStore) -> None:
    """The vectors the manifest names are there, all of them, made by the embedder it names.

    Raises IndexMismatch (never a silently different ranking) for a collection deleted, renamed,
    emptied or cut short, or a manifest whose embedder was changed by hand.
    """
    name = manifest.get("collection") or ""
    if not name.startswith(collection_name("dense", manifest.get("embedder", ""), manifest.get("granularity", ""))):
        raise IndexMismatch(f"the manifest names embedder {manifest.get('embedder')!r} but collection {name!r} "
                            f"holds another model's vectors; {FIX}")
    expected = sum(v[2] for v in manifest.get("passages", {}).values())
    count = dense.count()
    if count != expected:
        raise IndexMismatch(f"collection {name} holds {count} vectors, the manifest {expected} "
                            f"(deleted or damaged vector store?); {FIX}")
