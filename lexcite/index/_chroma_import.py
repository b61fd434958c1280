"""chromadb imported without two costs of its own start-up: 0.4-0.5 s of every `lexcite ask`.

Measured in bench/RESULTS.md ("Start-up"). Both are undone when the block ends, so only chromadb's
modules imported inside it (the package, and the API class its client imports) see them:

- `overrides.override` checks each of some 40 decorated methods against its base class as the class
  is created (it disassembles the calling frame to find the bases, then compares the signatures
  type by type): 0.3 s, a check for chromadb's own developers that cannot fail on a released
  package. Inside the block the decorator only sets the `__override__` mark that chromadb's
  `EnforceOverrides` metaclass requires.
- chromadb's telemetry module imports the OpenTelemetry OTLP/gRPC span exporter (grpc, protobuf,
  the metrics SDK: ~0.1 s) to make one only when an OpenTelemetry endpoint is configured, which
  lexcite never does. Inside the block that module is a stand-in whose `OTLPSpanExporter` imports
  the real exporter when called, so a user who configures an endpoint still gets it.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["chromadb_lightly", "override_checks_skipped", "otlp_exporter_deferred"]

OTLP_EXPORTER = "opentelemetry.exporter.otlp.proto.grpc.trace_exporter"


@contextmanager
def chromadb_lightly() -> Iterator[None]:
    """Import chromadb, or make its client, inside this block."""
    with override_checks_skipped(), otlp_exporter_deferred():
        yield


def _mark_override(method: Any = None, **_: Any) -> Any:
    """`overrides.override` without its check: the mark `EnforceOverrides` looks for, nothing else."""
    if method is None:  # used as @override(check_signature=...)
        return _mark_override
    method.__override__ = True
    return method


@contextmanager
def override_checks_skipped() -> Iterator[None]:
    """`overrides.override` and `overrides.overrides` only mark the method while the block runs."""
    try:
        import overrides
    except ImportError:  # a chromadb that no longer depends on it
        yield
        return
    saved = overrides.override, overrides.overrides
    overrides.override = overrides.overrides = _mark_override
    try:
        yield
    finally:
        overrides.override, overrides.overrides = saved


def _otlp_span_exporter(*args: Any, **kwargs: Any) -> Any:
    """The real OTLPSpanExporter, imported now (chromadb makes one only for a configured endpoint)."""
    return importlib.import_module(OTLP_EXPORTER).OTLPSpanExporter(*args, **kwargs)


@contextmanager
def otlp_exporter_deferred() -> Iterator[None]:
    """While the block runs, importing the OTLP/gRPC span exporter module gives a stand-in (unless it is loaded)."""
    if OTLP_EXPORTER in sys.modules:
        yield
        return
    stand_in = types.ModuleType(OTLP_EXPORTER, "lexcite: a stand-in until an OTLPSpanExporter is made")
    stand_in.OTLPSpanExporter = _otlp_span_exporter  # type: ignore[attr-defined]
    sys.modules[OTLP_EXPORTER] = stand_in  # found here first, so neither it nor grpc is imported
    try:
        yield
    finally:
        if sys.modules.get(OTLP_EXPORTER) is stand_in:
            del sys.modules[OTLP_EXPORTER]
