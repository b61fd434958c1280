"""Versions' status and validity chain: the one rule for which version of an act is current."""

from __future__ import annotations

import sqlite3

__all__ = ["restatus"]


def restatus(db: sqlite3.Connection, act: str, language: str) -> None:
    """The latest version (by validity start) is current; each earlier one ends where the next begins."""
    rows = db.execute(
        "SELECT id, valid_from, status, status_pinned FROM versions WHERE act=? AND language=? "
        "ORDER BY valid_from, version",
        (act, language),
    ).fetchall()
    live = [r for r in rows if not (r["status_pinned"] and r["status"] == "draft")]
    for i, r in enumerate(live):
        nxt = live[i + 1]["valid_from"] if i + 1 < len(live) else None
        if r["status_pinned"]:
            status = r["status"]
        else:
            status = "current" if nxt is None else "superseded"
        db.execute("UPDATE versions SET status=?, valid_to=? WHERE id=?", (status, nxt, r["id"]))
