"""Collects the units a parser finds, in document order, and refuses duplicates."""

from __future__ import annotations

from pathlib import Path

from lexcite.contract import Unit, is_unit_id
from lexcite.errors import ParseError
from lexcite.ingest._markup import eurlex_link, norm_space

__all__ = ["UnitCollector"]


class UnitCollector:
    def __init__(self, act: str, version: str, language: str, path: str | Path, binding: bool = True):
        self.act, self.version, self.language, self.path, self.binding = act, version, language, path, binding
        self._units: dict[str, Unit] = {}

    def __contains__(self, unit_id: str) -> bool:
        return unit_id in self._units

    def add(
        self,
        unit_id: str,
        kind: str,
        title: str,
        text: str,
        parent: str | None,
        anchor: str | None = None,
        footnotes: tuple[str, ...] = (),
    ) -> str:
        """Add a unit; a second unit with the same id is a parser bug or a trap, never silent."""
        if not is_unit_id(unit_id):
            raise ParseError(self.path, unit_id, "built an invalid unit id")
        if unit_id in self._units:
            raise ParseError(self.path, unit_id, "two units with the same id")
        if parent is not None and parent not in self._units:
            raise ParseError(self.path, unit_id, f"parent {parent} was not emitted before its child")
        self._units[unit_id] = Unit(
            act=self.act,
            version=self.version,
            unit=unit_id,
            kind=kind,
            title=norm_space(title),
            text=norm_space(text),
            parent=parent,
            position=len(self._units),
            language=self.language,
            binding=self.binding,
            source_url=eurlex_link(self.act, self.language, anchor),
            footnotes=footnotes,
        )
        return unit_id

    def units(self) -> tuple[Unit, ...]:
        return tuple(self._units.values())
