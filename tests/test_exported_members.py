"""The public API (`import lexcite`): every exported name exists, is documented, and loads its stage lazily.

In the manner of httpx's tests/test_exported_members.py.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import lexcite

pytestmark = pytest.mark.unit

NAMES = [n for n in lexcite.__all__ if n != "__version__"]


def test_all_lists_exactly_the_exported_names():
    assert len(set(lexcite.__all__)) == len(lexcite.__all__)
    assert set(NAMES) <= set(dir(lexcite))


@pytest.mark.parametrize("name", NAMES)
def test_each_exported_name_exists_and_is_documented(name):
    obj = getattr(lexcite, name)
    own = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
    assert own and own.strip(), f"lexcite.{name} has no docstring of its own"


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        lexcite.nothing_here  # noqa: B018


def test_importing_lexcite_loads_no_stage():
    code = ("import sys, lexcite; "
            "print(sorted(m for m in sys.modules if m.startswith(('lexcite.', 'chromadb', 'torch'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_error_is_a_lexcite_error():
    errors = [getattr(lexcite, n) for n in NAMES if n.endswith(("Error", "Mismatch", "Recognised"))]
    assert len(errors) == 8 and all(issubclass(e, lexcite.LexciteError) for e in errors)

