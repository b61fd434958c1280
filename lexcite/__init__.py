"""lexcite: questions about EU legislation, answered with verified paragraph-level citations.

The public API, from ingest to evaluation (each name loads its stage on first use, so
`import lexcite` stays light)::

    import lexcite

    with lexcite.Catalog() as catalog:                     # LEXCITE_HOME/catalog.sqlite
        lexcite.ingest_paths(catalog, [Path("32024R1689.oj.xhtml")])
        lexcite.build_index(catalog, embedder="minilm")    # BM25 + Chroma
        lexcite.calibrate(lexcite.load_golden(Path("data/golden/golden.jsonl"), split="dev"), "golden dev",
                          catalog=catalog)                 # the abstention threshold
        answer = lexcite.ask("Which AI practices are prohibited?",
                             lexcite.Perimeter(acts=("32024R1689",)), catalog=catalog)
    print(answer.text)                                     # or answer.refusal_reason

Every error lexcite raises on purpose is a `LexciteError`; abstentions and refusals are
`Answer` values, not errors.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# name -> (module, attribute): one line per public name.
_EXPORTS: dict[str, tuple[str, str]] = {
    # the contract
    "CitationRef": ("lexcite.contract", "CitationRef"),
    "Perimeter": ("lexcite.contract", "Perimeter"),
    "Answer": ("lexcite.contract", "Answer"),
    "SearchResult": ("lexcite.contract", "SearchResult"),
    "Retriever": ("lexcite.contract", "Retriever"),
    # settings
    "Settings": ("lexcite.config", "Settings"),
    # ingest and the catalog
    "Catalog": ("lexcite.catalog", "Catalog"),
    "locate": ("lexcite.catalog.locate", "locate"),
    "ingest_paths": ("lexcite.ingest.load", "ingest_paths"),
    "refresh": ("lexcite.ingest.refresh", "refresh"),
    # index
    "build_index": ("lexcite.index.build", "build"),
    "calibrate": ("lexcite.index.calibrate", "calibrate"),
    "Searcher": ("lexcite.index.search", "Searcher"),
    # answer
    "ask": ("lexcite.answer.ask", "ask"),
    "replay": ("lexcite.answer.ask", "replay"),
    # eval
    "load_golden": ("lexcite.eval.golden", "load_golden"),
    "evaluate": ("lexcite.eval.run", "evaluate"),
    # errors
    "LexciteError": ("lexcite.errors", "LexciteError"),
    "ConfigError": ("lexcite.errors", "ConfigError"),
    "FetchError": ("lexcite.errors", "FetchError"),
    "FormatNotRecognised": ("lexcite.errors", "FormatNotRecognised"),
    "ParseError": ("lexcite.errors", "ParseError"),
    "CitationError": ("lexcite.errors", "CitationError"),
    "UnreadableReference": ("lexcite.errors", "UnreadableReference"),
    "CatalogError": ("lexcite.errors", "CatalogError"),
    "IndexMismatch": ("lexcite.errors", "IndexMismatch"),
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    # PEP 562: load a stage only when its name is used (the CLI imports this package first).
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'lexcite' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))

