"""chromadb opened without the `overrides` signature checks and the OTLP exporter import (index/_chroma_import.py)."""

import importlib
import os
import subprocess
import sys
import textwrap

import overrides
import pytest

from lexcite.index._chroma_import import OTLP_EXPORTER, otlp_exporter_deferred, override_checks_skipped

pytestmark = pytest.mark.unit


class TestOverrideChecksSkipped:
    def test_the_decorator_only_marks_in_both_forms(self):
        with override_checks_skipped():

            def f():
                return 1

            assert overrides.override(f) is f and f.__override__ is True
            g = overrides.overrides(check_signature=False)(lambda: 2)
            assert g.__override__ is True and g() == 2

    def test_the_real_decorator_is_back_after_the_block_even_on_an_error(self):
        real = overrides.override, overrides.overrides
        with pytest.raises(RuntimeError), override_checks_skipped():
            assert overrides.override is not real[0]
            raise RuntimeError("inside")
        assert (overrides.override, overrides.overrides) == real

    def test_chromadb_still_enforces_its_decorator(self):
        with override_checks_skipped():

            class Base(overrides.EnforceOverrides):
                def method(self):
                    return 1

            with pytest.raises(TypeError, match="does not have @override"):

                class Unmarked(Base):
                    def method(self):
                        return 2


class TestOtlpExporterDeferred:
    def test_inside_the_block_the_module_is_a_stand_in_gone_after_it(self, monkeypatch):
        monkeypatch.delitem(sys.modules, OTLP_EXPORTER, raising=False)
        with otlp_exporter_deferred():
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

            assert sys.modules[OTLP_EXPORTER].__doc__.startswith("lexcite: a stand-in")
        assert OTLP_EXPORTER not in sys.modules  # a later import is the real one
        assert callable(OTLPSpanExporter)  # it makes the real exporter: the fresh-process test below

    def test_a_loaded_exporter_module_is_left_alone(self):
        real = importlib.import_module(OTLP_EXPORTER)
        with otlp_exporter_deferred():
            assert sys.modules[OTLP_EXPORTER] is real


def test_a_fresh_process_opens_chroma_through_the_shim_and_uses_it(tmp_path):
    """chromadb imported for the first time inside the shims: the client works, no signature was checked, no grpc
    was imported, the process's `overrides` is the real one afterwards, and chromadb can still make the real
    OTLP exporter."""
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        import numpy as np
        import overrides
        real, checker, checked = overrides.override, sys.modules["overrides.overrides"], []
        validate = checker._validate_method
        checker._validate_method = lambda *a: checked.append(a) or validate(*a)  # counts the real checks
        from lexcite.index.dense import DenseStore, open_client
        assert "chromadb" not in sys.modules
        store = DenseStore(open_client(Path({str(tmp_path)!r}), None), "shim")
        store.upsert(["a~0", "b~0"], np.eye(2, 4, dtype=np.float32), [{{"key": "a"}}, {{"key": "b"}}])
        assert store.count() == 2
        assert store.query(np.array([1, 0, 0, 0], dtype=np.float32), {{"key": {{"$in": ["a", "b"]}}}}, 1)[0][0] == "a"
        assert overrides.override is real and not checked
        assert "grpc" not in sys.modules and "chromadb.telemetry.opentelemetry" in sys.modules
        from chromadb.telemetry.opentelemetry import OTLPSpanExporter  # what chromadb calls for an endpoint
        exporter = OTLPSpanExporter(endpoint="http://127.0.0.1:4317", insecure=True)
        assert type(exporter).__module__ == "opentelemetry.exporter.otlp.proto.grpc.trace_exporter"
        exporter.shutdown()
        print("ok")
    """)
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
