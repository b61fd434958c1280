"""Does any answer present a rule as applicable before its date of application? (issue 13's target)

    python bench/applicability.py REPORT_DIR     # a `lexcite eval --report` folder, LEXCITE_HOME its index

For each answered question of the report, every cited unit whose date of application (the catalog's
per-unit dates, `Catalog.unit_dates`) is later than the question's as-of date must be named in the
answer by a sentence that says when it applies ("... applies only from ...", "... applies from ...").
Prints the count of answers checked, of cited units not yet applicable, and of those the answer
presents without saying so (the figure that must be 0), with the question ids.
"""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

from lexcite.catalog import Catalog
from lexcite.contract import CitationRef, Perimeter
from lexcite.errors import CitationError
from lexcite.values import read_values


def main(report: Path) -> None:
    rows = [json.loads(line) for line in (report / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]
    checked, later, unsaid = 0, 0, []
    with Catalog() as catalog:
        for r in rows:
            a = r.get("answer")
            if not a or a["refused"]:
                continue
            checked += 1
            perimeter = Perimeter.from_dict(r["perimeter"]) if r.get("perimeter") else None
            as_of = perimeter.effective_date() if perimeter else date.today().isoformat()
            said = {v.value for v in read_values(a["text"]) if v.kind == "date"}
            for ref in dict.fromkeys(a["cited"]):
                try:
                    d = catalog.unit_dates(CitationRef.parse(ref), r["perimeter"].get("language"))
                except CitationError:
                    continue
                start = d.earliest if d is not None else None
                if start is None or start <= as_of:
                    continue
                later += 1
                if start not in said:  # the answer must state when it applies
                    unsaid.append((r["id"], ref, start, as_of))
    print(json.dumps({"answers": checked, "cited_not_yet_applicable": later, "presented_without_its_date": len(unsaid),
                      "cases": unsaid}, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
