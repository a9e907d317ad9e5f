"""The judges file is validated in full at preflight: each value out of its bounds (temperature in [0, 2], top_p
in (0, 1], positive max_tokens and concurrency, rpm not negative, finite numbers only) is refused with exit 2,
one line per violation naming the judge and the field, before anything runs or is sent."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import pytest

from cojudge_assets.judges.config import JudgesConfigError, load_judges
from cojudge_tests.faults.support import table_digests
from cojudge_tests.faults.test_cli_faults import env, existing_db, run_cli, tiny_corpus  # noqa: F401 (fixtures)

# (field, YAML value): each out of bounds
INVALID = [
    ("temperature", "-1.5"),
    ("temperature", "1.0e9"),
    ("temperature", ".nan"),
    ("temperature", ".inf"),
    ("temperature", "nan"),
    ("top_p", "0"),
    ("top_p", "1.5"),
    ("top_p", ".nan"),
    ("max_tokens", "0"),
    ("max_tokens", "-5"),
    ("rpm", "-1"),
    ("concurrency", "0"),
    ("max_input_tokens", "0"),
    ("timeout_s", ".inf"),
    ("extra", "{seed: 1, presence_penalty: .nan}"),
    ("extra", "{temperature: 1.0}"),
]


def judges_file(folder: Path, field: str, value: str) -> Path:
    path = folder / "judges.yaml"
    path.write_text(
        textwrap.dedent(f"""\
        judges:
          - name: fine-judge
            model: cojudge/static-rubric
          - name: odd-judge
            model: cojudge/static-rubric
            enabled: false
            {field}: {value}
        """)
    )
    return path


@pytest.mark.parametrize(("field", "value"), INVALID, ids=[f"{f}={v}" for f, v in INVALID])
def test_each_value_out_of_bounds_is_named(tmp_path, field, value):
    with pytest.raises(JudgesConfigError) as caught:
        load_judges(judges_file(tmp_path, field, value))
    assert len(caught.value.lines) == 1, caught.value.lines
    line = caught.value.lines[0]
    assert "judge odd-judge" in line and f"field '{field}'" in line, line


@pytest.mark.parametrize(("field", "value"), INVALID[:4] + INVALID[5:6] + INVALID[8:9] + INVALID[11:12])
def test_the_command_refuses_it_at_preflight(tmp_path, env, tiny_corpus, existing_db, field, value):  # noqa: F811
    path = judges_file(tmp_path, field, value)
    before = table_digests(existing_db)
    done = run_cli(env, "--corpus", str(tiny_corpus), "--duckdb", str(existing_db), "--judges-file", str(path))
    assert done.returncode == 2, (done.stdout[-2000:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--judges-file" in lines[0], lines
    assert "judge odd-judge" in lines[0] and f"field '{field}'" in lines[0], lines
    assert done.stdout == "" and not Path(env["DAGSTER_HOME"]).exists()  # nothing ran, nothing was sent
    assert table_digests(existing_db) == before


def test_every_violation_of_every_judge_is_one_line(tmp_path, env, tiny_corpus, existing_db):  # noqa: F811
    path = tmp_path / "judges.yaml"
    path.write_text(
        textwrap.dedent("""\
        judges:
          - name: hot
            model: openai/gpt-x
            enabled: false
            temperature: -1.5
            top_p: 0
          - name: nan-judge
            model: openai/gpt-x
            enabled: false
            temperature: .nan
            max_tokens: 0
        """)
    )
    done = run_cli(env, "--corpus", str(tiny_corpus), "--duckdb", str(existing_db), "--judges-file", str(path))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    expected = [("hot", "temperature"), ("hot", "top_p"), ("nan-judge", "temperature"), ("nan-judge", "max_tokens")]
    assert len(lines) == len(expected), lines
    for line, (judge, field) in zip(lines, expected):
        assert line.startswith("cojudge: --judges-file") and f"judge {judge}: field '{field}'" in line, line


def test_values_in_bounds_are_kept_and_top_p_is_sent_only_when_set(tmp_path):
    from cojudge_assets.judges.client import request_kwargs

    path = tmp_path / "judges.yaml"
    path.write_text(
        "judges:\n  - name: a\n    model: openai/x\n    temperature: 2\n    top_p: 1\n"
        "  - name: b\n    model: openai/x\n    temperature: 0.0\n"
    )
    a, b = load_judges(path)
    assert (a.temperature, a.top_p) == (2.0, 1.0) and math.isfinite(a.temperature)
    assert request_kwargs(a, [])["top_p"] == 1.0 and "top_p" not in request_kwargs(b, [])
    assert "top_p" in a.answer_settings() and "top_p" not in b.answer_settings()  # no new epoch for b
