"""The demo corpus generator is deterministic: the same problems and seed give byte-identical files.

The full corpus takes minutes to judge; this test regenerates a small contest (two of the
shipped problems, without their slowest programs) twice through the real sandboxed judge.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cojudge_assets.demo_corpus import generate
from cojudge_tests.conftest import REPO


def _small_contest(target: Path) -> Path:
    for pid in ("pairsum", "brackets"):
        shutil.copytree(
            REPO / "data" / "demo" / "problems" / pid,
            target / "problems" / pid,
            ignore=shutil.ignore_patterns("time_limit_exceeded"),
        )
    return target


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.relative_to(root).as_posix().startswith("problems/")
    }


@pytest.mark.slow
def test_regeneration_is_byte_identical(tmp_path, judge):
    first = generate(_small_contest(tmp_path / "a"), judge=judge, log=lambda m: None)
    second = generate(_small_contest(tmp_path / "b"), judge=judge, log=lambda m: None)
    assert first == second
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert a.keys() == b.keys() and len([k for k in a if k.startswith("pages/")]) == first["attempts"]
    assert [k for k in a if a[k] != b[k]] == []
    # and a different seed gives a different contest
    third = generate(_small_contest(tmp_path / "c"), seed=7, judge=judge, log=lambda m: None)
    assert _files(tmp_path / "c") != a and third["attempts"] > 0
