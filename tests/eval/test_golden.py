"""The golden-set loader: the DESIGN format, read strictly, errors naming file:line."""

from __future__ import annotations

import json

import pytest

from lexcite.errors import ConfigError
from lexcite.eval.golden import load_golden

pytestmark = pytest.mark.unit

GOOD = {"id": "q1", "question": "Q?", "expected": ["32024R1689#art_5"], "anchors": [], "key_facts": [],
        "behavior": "answer", "filters": {"language": "en"}, "category": "c", "post_cutoff": False, "split": "dev"}


def write(tmp_path, *lines):
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_bad_json_line_names_file_and_line(tmp_path):
    path = write(tmp_path, GOOD, "", '{"id": "q2", "question": ')
    with pytest.raises(ConfigError, match=rf"{path}:3: not JSON"):
        load_golden(path)


def test_answerable_question_without_expected_or_anchors_is_refused(tmp_path):
    path = write(tmp_path, {**GOOD, "expected": []})
    with pytest.raises(ConfigError, match=rf"{path}:1: .*'expected' units or 'anchors'"):
        load_golden(path)


@pytest.mark.parametrize("change, message", [
    ({"behavior": "maybe"}, "behavior 'maybe'"),
    ({"split": "train"}, "split 'train'"),
    ({"expected": ["art_5"]}, "expected"),
    ({"question": ""}, "'question'"),
])
def test_bad_fields_are_named(tmp_path, change, message):
    with pytest.raises(ConfigError, match=message):
        load_golden(write(tmp_path, {**GOOD, **change}))


def test_duplicate_id_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r":2: duplicate id 'q1'"):
        load_golden(write(tmp_path, GOOD, GOOD))


def test_unknown_keys_are_kept_and_split_filters(tmp_path):
    path = write(tmp_path, {**GOOD, "source": "handbook"}, {**GOOD, "id": "q2", "split": "test"})
    assert [q.id for q in load_golden(path, "test")] == ["q2"]
    assert load_golden(path)[0].extra == {"source": "handbook"}


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_golden(tmp_path / "none.jsonl")
