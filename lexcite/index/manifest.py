"""The stored build state of an index: LEXCITE_HOME/index/manifest.json.

It records what the index was built from: the catalog state (`Catalog.state()`),
the embedder, the reranker, the granularity, the tokenizer and BM25 parameters,
the backend, the passages embedded, and the calibrated thresholds. A search
against an index built from another catalog state or with another model raises
IndexMismatch (`check`). The manifest is written last and atomically, so an
interrupted build leaves the previous manifest, and the next search reports the
mismatch instead of using a half-built index; a build that updates the named
collections in place marks the manifest "building" first (interrupted.py), and a
search refuses a marked index.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lexcite.errors import IndexMismatch
from lexcite.index.dense import same_backend
from lexcite.index.stages import Stages, stages_key

__all__ = ["MANIFEST_FORMAT", "FIX", "NO_INDEX", "manifest_path", "load_manifest", "save_manifest", "write_atomic",
           "check", "ThresholdInUse", "threshold_in_use", "default_stages"]

MANIFEST_FORMAT = 1
FIX = "run `lexcite index --rebuild`"
NO_INDEX = "no index in this LEXCITE_HOME; run `lexcite index` (after `lexcite ingest`)"


def manifest_path(home: Path) -> Path:
    return home / "index" / "manifest.json"


def load_manifest(home: Path) -> dict[str, Any] | None:
    path = manifest_path(home)
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise IndexMismatch(f"{path} cannot be read ({type(e).__name__}: {e}); {FIX}") from None
    if not isinstance(manifest, dict):
        raise IndexMismatch(f"{path} is not an index manifest; {FIX}")
    return manifest


def save_manifest(home: Path, manifest: dict[str, Any]) -> None:
    write_atomic(manifest_path(home), json.dumps(manifest, indent=1, sort_keys=True))


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write one of the index's files whole: a reader sees the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    if isinstance(data, bytes):
        tmp.write_bytes(data)
    else:
        tmp.write_text(data)
    os.replace(tmp, path)


def check(manifest: dict[str, Any] | None, state: str, embedder: str | None = None,
          backend: str | None = None) -> dict[str, Any]:
    """The manifest, if the index matches the catalog state, embedder and backend.

    Raises:
        IndexMismatch: no index, or one built from another catalog state, model or backend.
    """
    if manifest is None:
        raise IndexMismatch(NO_INDEX)
    if manifest.get("format") != MANIFEST_FORMAT:
        raise IndexMismatch(f"index format {manifest.get('format')} is not {MANIFEST_FORMAT}; {FIX}")
    if building := manifest.get("building"):
        started = building.get("started_at", "?") if isinstance(building, dict) else "?"
        raise IndexMismatch(f"an index build started at {started} has not finished (it is running, or it was "
                            "interrupted), so the vectors may be half updated; run `lexcite index` (once no build "
                            "is running) to complete it")
    if manifest["catalog_state"] != state:
        raise IndexMismatch(f"the index was built from catalog state {manifest['catalog_state']}, "
                            f"the catalog is now {state} (ingested since?); {FIX}")
    if embedder and manifest["embedder"] != embedder:
        raise IndexMismatch(f"the index was built with embedder {manifest['embedder']!r}, not {embedder!r}; "
                            f"{FIX} --embedder {embedder}")
    if backend and not same_backend(manifest["backend"], backend):
        raise IndexMismatch(f"the index was built on {manifest['backend']}, not {backend}; {FIX}")
    return manifest


@dataclass(frozen=True)
class ThresholdInUse:
    """The abstention threshold `ask` applies (the default stages') and where it comes from."""

    embedder: str
    reranker: str
    value: float
    scale: str | None
    source: str  # "calibrated on data/golden/golden.jsonl", "calibrated on the shipped golden set: ..."
    shipped: bool  # from the shipped thresholds (a catalog no golden question covers), not the user's questions


def default_stages(manifest: dict[str, Any]) -> Stages:
    """The default configuration as this index runs it: without the second reading when it was built without one
    (`lexcite index --second none`, or an index made before the stage)."""
    return Stages() if manifest.get("second", "none") != "none" else replace(Stages(), second=False)


def threshold_in_use(manifest: dict[str, Any]) -> ThresholdInUse | None:
    """The default configuration's threshold in `manifest`; None when it was not calibrated."""
    entry = manifest.get("thresholds", {}).get(stages_key(default_stages(manifest)))
    if entry is None:
        return None
    golden = str(entry.get("golden", ""))
    shipped = golden.startswith("shipped:")
    source = (golden.replace("shipped:", "calibrated on the shipped golden set:", 1) if shipped
              else f"calibrated on {golden}")
    return ThresholdInUse(str(manifest.get("embedder")), str(manifest.get("reranker")), float(entry["value"]),
                          entry.get("scale"), source, shipped)
