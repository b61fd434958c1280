"""What `lexcite ask` loads when it starts (issue 15: an answer from the shell in 1.5 s, bench/startup.py).

A fresh process answers on a small e5 index; it must not load torch, transformers, sentence-transformers,
scipy or grpc (the e5 embedder is a C engine; bm25s is imported without scipy; chromadb without its OTLP
exporter), nor scan the installed packages for pydantic plugins. Real SQLite, real Chroma, the real e5 model.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lexcite.catalog import Catalog

pytestmark = pytest.mark.slow

_INDEX = Path(__file__).resolve().parents[1] / "index"
_spec = importlib.util.spec_from_file_location("cli_startup_toys", _INDEX / "conftest.py")
toy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(toy)

HEAVY = ("torch", "transformers", "sentence_transformers", "scipy", "grpc")

_ASK = """
import json, sys
from lexcite.cli import main
try:
    main(["ask", sys.argv[1], "--no-trace"])
except SystemExit as e:
    code = e.code
import pydantic.plugin._loader as plugins
heavy = sorted(m for m in sys.modules if m.split(".")[0] in sys.argv[2].split(","))
print(json.dumps({"code": code, "heavy": heavy, "plugins_scanned": plugins._plugins is not None}))
"""


def test_ask_from_a_fresh_process_loads_no_torch_scipy_or_grpc_and_no_pydantic_plugins(cli, lexcite_home):
    with Catalog() as c:
        toy.store(c, toy.ai_act())
    r = cli("index")  # the default embedder (e5) and reranker (embedder:e5)
    assert r.code == 0, r.err
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False", "HF_HUB_OFFLINE": "1"}
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    run = subprocess.run(
        [sys.executable, "-c", _ASK, "How long must deployers keep the logs?", ",".join(HEAVY)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["code"] in (0, 3), run.stderr[-2000:]
    assert seen["heavy"] == [] and not seen["plugins_scanned"]
