"""all-mpnet-base-v2 without torch: its 12 layers as an ONNX graph run by onnxruntime.

The second reading (second.py) reads every question with mpnet. Through sentence-transformers that
needed torch: 5.2 s to load in a fresh process (issue 15 wants an answer from the shell in 1.5 s) and
80 ms a question (issue 11's p95 of 300 ms). The model is a plain encoder, BERT's layers with a learned
relative-position bias in place of token types, so lexcite writes those layers as an ONNX graph from
the model's own weights, once, beside the unpacked model (`build_layers`; the `onnx` package is needed
only then), and onnxruntime (already there for chromadb) runs it:

- a question costs ~30 ms, 45 at p95 (numpy's matrix products took 66, torch 80) and a 256-word passage 0.3 s
  (torch 0.43 s), so the index's passages are read the same way and torch is never loaded for mpnet;
- the session loads in a background thread from the moment the embedder is made (0.3-0.9 s, the GIL
  released), so `lexcite ask` opens the rest of its index meanwhile;
- the word and position embeddings, their LayerNorm and the relative-position bias are computed in
  numpy over a memory map of `model.safetensors` (only the rows a question uses are read);
- the vector is the mean of the last layer over the tokens, L2-normalised (the model's modules.json:
  Transformer, mean Pooling, Normalize); vectors agree with sentence-transformers' to a cosine of
  1 - 1e-5 (tests/index/test_mpnet_onnx.py).
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lexcite.errors import ConfigError

__all__ = ["MPNetOnnx", "build_layers", "layers_path"]

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
_LAYERS_FILE = "lexcite-layers-v1.onnx"  # the version changes when the graph does
_OPSET = 20  # Gelu is an operator from 20 on; LayerNormalization from 17


def layers_path(folder: Path) -> Path:
    return folder / _LAYERS_FILE


def _map_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file as a read-only array over a memory map of the file (the format: an
    8-byte little-endian header length, a JSON header of dtypes, shapes and offsets, then the raw arrays)."""
    with path.open("rb") as f:
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        tensors[name] = data[start:end].view(_DTYPES[spec["dtype"]]).reshape(spec["shape"])
    return tensors


def _relative_buckets(length: int, num_buckets: int, max_distance: int = 128) -> np.ndarray:
    """(length, length) bucket of each key position relative to each query position, as MPNet (after T5) buckets
    them: half of the buckets for keys before, half for keys after; exact when near, logarithmic when far."""
    n = np.arange(length)[:, None] - np.arange(length)[None, :]
    half = num_buckets // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    far = exact + (np.log(np.maximum(n, 1) / exact) / math.log(max_distance / exact) * (half - exact))
    far = np.minimum(far.astype(np.int64), half - 1)
    return ret + np.where(n < exact, n, far)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def build_layers(folder: Path) -> Path:
    """Write the model's encoder layers as an ONNX graph beside it: inputs `x` (tokens, hidden), the embedded
    question, and `bias` (heads, tokens, tokens), the relative-position bias; output `pooled` (hidden), the mean
    of the last layer. Written to a temporary name and renamed, so a reader never sees half a file.

    Raises:
        ConfigError: the `onnx` package is missing, or the folder cannot be written.
    """
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        raise ConfigError("the second reading (mpnet) needs the package onnx once, to write the model's layers: "
                          "pip install onnx") from None
    config = json.loads((folder / "config.json").read_text())
    w = _map_safetensors(folder / "model.safetensors")
    d, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    nodes: list[Any] = []
    weights: list[Any] = []

    def constant(name: str, value: np.ndarray) -> str:
        weights.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(kind: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [out], name=out, **attrs))
        return out

    def linear(v: str, name: str, out: str) -> str:  # torch keeps (out, in); MatMul wants (in, out)
        product = op("MatMul", [v, constant(f"{name}.wT", np.asarray(w[f"{name}.weight"]).T)], f"{out}.mm")
        return op("Add", [product, constant(f"{name}.b", np.asarray(w[f"{name}.bias"]))], out)

    def layer_norm(v: str, name: str, out: str) -> str:
        return op("LayerNormalization", [v, constant(f"{name}.w", np.asarray(w[f"{name}.weight"])),
                                         constant(f"{name}.b", np.asarray(w[f"{name}.bias"]))],
                  out, axis=-1, epsilon=float(config["layer_norm_eps"]))

    by_head = constant("by_head", np.array([0, heads, d // heads], np.int64))
    whole = constant("whole", np.array([0, d], np.int64))
    scale = constant("scale", np.array(1.0 / math.sqrt(d // heads), np.float32))
    x = "x"
    for n in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{n}."
        heads_of = {}
        for part, perm in (("q", [1, 0, 2]), ("k", [1, 2, 0]), ("v", [1, 0, 2])):  # k transposed for q @ k
            v = linear(x, f"{p}attention.attn.{part}", f"L{n}.{part}")
            heads_of[part] = op("Transpose", [op("Reshape", [v, by_head], f"L{n}.{part}.heads")],
                                f"L{n}.{part}.t", perm=perm)
        scores = op("Mul", [op("MatMul", [heads_of["q"], heads_of["k"]], f"L{n}.qk"), scale], f"L{n}.scaled")
        attention = op("Softmax", [op("Add", [scores, "bias"], f"L{n}.biased")], f"L{n}.attention", axis=-1)
        context = op("MatMul", [attention, heads_of["v"]], f"L{n}.context")
        context = op("Reshape", [op("Transpose", [context], f"L{n}.context.t", perm=[1, 0, 2]), whole],
                     f"L{n}.context.joined")
        attended = op("Add", [linear(context, f"{p}attention.attn.o", f"L{n}.o"), x], f"L{n}.residual")
        x = layer_norm(attended, f"{p}attention.LayerNorm", f"L{n}.attended")
        inner = op("Gelu", [linear(x, f"{p}intermediate.dense", f"L{n}.inner")], f"L{n}.gelu")
        out = op("Add", [linear(inner, f"{p}output.dense", f"L{n}.out"), x], f"L{n}.out.residual")
        x = layer_norm(out, f"{p}output.LayerNorm", f"L{n}.hidden")
    op("ReduceMean", [x, constant("tokens", np.array([0], np.int64))], "pooled", keepdims=0)
    graph = helper.make_graph(
        nodes, "mpnet-layers",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["tokens", d]),
         helper.make_tensor_value_info("bias", TensorProto.FLOAT, [heads, "tokens", "tokens"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [d])], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)])
    model.ir_version = 10  # what onnxruntime reads since 1.20
    target = layers_path(folder)
    part = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        onnx.save(model, str(part))
        part.replace(target)
    except OSError as e:
        part.unlink(missing_ok=True)
        raise ConfigError(f"cannot write the model's layers to {target} ({e.strerror}); set LEXCITE_MODELS to a "
                          "folder lexcite may write") from None
    return target


class MPNetOnnx:
    """A sentence-transformers MPNet folder (all-mpnet-base-v2) run by onnxruntime: `embed(texts)` gives
    L2-normalised float32 rows, one text at a time (nothing is padded). The session loads in the background
    from construction; the first `embed` waits for it."""

    def __init__(self, folder: Path, threads: int = 2):
        config = json.loads((folder / "config.json").read_text())
        self.dim = int(config["hidden_size"])
        self.max_tokens = int(json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"])
        self._eps = float(config["layer_norm_eps"])
        self._first_position = int(config["pad_token_id"]) + 1  # positions count on from the pad id, as RoBERTa's
        self._buckets = int(config["relative_attention_num_buckets"])
        self._w = _map_safetensors(folder / "model.safetensors")
        self._folder, self._threads = folder, threads
        self._tokenizer: Any = None
        self._session: Any = None
        self._failure: BaseException | None = None
        # not a daemon: onnxruntime aborts the process (std::terminate) if the interpreter exits while a session is
        # being made, so a command that fails early waits the rest of the load (under a second) instead
        self._loading = threading.Thread(target=self._load, name="mpnet-onnx")
        self._loading.start()

    def _load(self) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            self._tokenizer = Tokenizer.from_file(str(self._folder / "tokenizer.json"))
            self._tokenizer.enable_truncation(self.max_tokens)
            self._tokenizer.no_padding()

            options = ort.SessionOptions()
            options.intra_op_num_threads = self._threads
            # idle threads that spin would take the cores from e5 and Chroma between questions
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            path = layers_path(self._folder)
            if not path.is_file():
                build_layers(self._folder)
            try:
                self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            except Exception:  # noqa: BLE001 - a damaged file (onnxruntime raises its own types): written again
                build_layers(self._folder)
                self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except BaseException as e:  # noqa: BLE001 - given to the caller of embed()
            self._failure = e

    def _ready(self) -> Any:
        self._loading.join()
        if self._failure is not None:
            if isinstance(self._failure, ConfigError):
                raise self._failure
            raise ConfigError(f"embedder 'mpnet': cannot load its layers from {layers_path(self._folder)} "
                              f"({type(self._failure).__name__}: {self._failure}); delete that file to have it "
                              "written again") from None
        return self._session

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        session = self._ready()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            v = session.run(None, self._inputs(self._tokenizer.encode(text).ids))[0]
            out[i] = v / max(float(np.linalg.norm(v)), 1e-12)
        return out

    def _inputs(self, ids: list[int]) -> dict[str, np.ndarray]:
        w, n = self._w, len(ids)
        positions = np.arange(self._first_position, self._first_position + n)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self._eps)
        bias = np.asarray(w["encoder.relative_attention_bias.weight"])[_relative_buckets(n, self._buckets)]
        return {"x": np.ascontiguousarray(x, dtype=np.float32),
                "bias": np.ascontiguousarray(bias.transpose(2, 0, 1), dtype=np.float32)}
