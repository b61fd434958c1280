"""Record a calibrated home's thresholds as the shipped ones for its embedder and reranker.

    python bench/shipped_thresholds.py /work/homes/base     # after `lexcite index` on the demo acts

A catalog the golden set does not cover (the user's own acts) falls back to these
(lexcite/index/calibrate.py, rule 5). Run it on a home whose catalog holds the acts
data/golden/golden.jsonl asks about, calibrated on that file's dev split.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from lexcite.index.build import load_manifest
from lexcite.index.calibrate import SHIPPED, shipped_key


def main(home: Path) -> None:
    manifest = load_manifest(home)
    if not manifest or not manifest.get("thresholds"):
        sys.exit(f"{home}: no calibrated index")
    data = json.loads(SHIPPED.read_text(encoding="utf-8")) if SHIPPED.exists() else {
        "about": "Abstention thresholds calibrated on data/golden/golden.jsonl (dev split) over the acts it "
                 "asks about, per embedder | reranker and stages; the fallback for catalogs it does not "
                 "cover. Written by bench/shipped_thresholds.py.",
        "thresholds": {}}
    keep = ("stages", "threshold", "scale", "answerable", "abstain", "correct_abstentions", "wrong_abstentions",
            "skipped", "params", "calibrated_at")
    entries = {key: {**{k: t[k] for k in keep}, "golden": Path(t["golden"]).name}
               for key, t in manifest["thresholds"].items()}
    data["thresholds"][shipped_key(manifest["embedder"], manifest["reranker"])] = entries
    SHIPPED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{SHIPPED}: {len(entries)} thresholds for {shipped_key(manifest['embedder'], manifest['reranker'])}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
