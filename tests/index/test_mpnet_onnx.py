"""all-mpnet-base-v2 run by onnxruntime (lexcite/index/mpnet_onnx.py): the same vectors as sentence-transformers,
its layers written once and written again when damaged, and a process that exits while it loads exits cleanly."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from lexcite.errors import ConfigError
from lexcite.index.model_parts import MPNET, model_folder
from lexcite.index.mpnet_onnx import MPNetOnnx, layers_path

TEXTS = [
    "How long must deployers keep the logs?",
    "Do I need a data protection officer if my company processes health data at scale?",
    "x",
    # longer than the model's window (384 word pieces): cut, as sentence-transformers cuts it
    " ".join(["Providers of high-risk AI systems shall keep the logs automatically generated."] * 60),
]
_NEEDED = ("config.json", "sentence_bert_config.json", "tokenizer.json", "model.safetensors")


def _copy_of_model(tmp_path):
    """A model folder of links to the unpacked model's files, without its layers file."""
    folder = tmp_path / "mpnet"
    folder.mkdir()
    for name in _NEEDED:
        (folder / name).symlink_to(model_folder(MPNET) / name)
    return folder


@pytest.mark.slow
def test_vectors_are_sentence_transformers_vectors():
    from sentence_transformers import SentenceTransformer

    folder = model_folder(MPNET)
    ours = MPNetOnnx(folder).embed(TEXTS)
    theirs = SentenceTransformer(str(folder), device="cpu").encode(TEXTS, normalize_embeddings=True)
    assert ours.shape == (len(TEXTS), 768) and ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert ((ours * theirs).sum(axis=1) > 1 - 1e-5).all()
    # and the texts are told apart: no two of them share a vector
    assert (ours @ ours.T - np.eye(len(TEXTS)) < 0.9).all()


@pytest.mark.slow
def test_the_layers_are_written_once_and_again_when_damaged(tmp_path):
    folder = _copy_of_model(tmp_path)
    first = MPNetOnnx(folder).embed(TEXTS[:1])
    path = layers_path(folder)
    assert path.is_file() and not [p for p in folder.iterdir() if p.name.startswith(".")]
    stamp = path.stat().st_mtime_ns
    assert np.allclose(MPNetOnnx(folder).embed(TEXTS[:1]), first)
    assert path.stat().st_mtime_ns == stamp  # found, not written again

    path.write_bytes(b"half a file")
    assert np.allclose(MPNetOnnx(folder).embed(TEXTS[:1]), first, atol=1e-6)
    assert path.stat().st_size > 300_000_000


def test_without_the_onnx_package_the_layers_cannot_be_written_and_say_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    model = MPNetOnnx(_copy_of_model(tmp_path))
    with pytest.raises(ConfigError, match="pip install onnx"):
        model.embed(["logs"])


def test_a_process_that_exits_while_the_model_loads_exits_cleanly():
    # onnxruntime aborts (std::terminate) when the interpreter ends during a session's making
    # (the pause lets the background thread reach the session's making: imports take ~0.2 s, the session ~0.5 s)
    code = "import time; from lexcite.index.embed import get_embedder; get_embedder('mpnet'); time.sleep(0.4); " \
           "print('made')"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "made"
