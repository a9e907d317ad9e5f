"""The layers hold: core/ and judges/ import nothing from defs/, the Definitions or the command (the import-linter
contract in pyproject.toml, run by .ci/check). The contract passes on the package, and fails on a copy of it into
which a forbidden import was planted."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from cojudge_tests.conftest import REPO

LINT = Path(sys.executable).parent / "lint-imports"


def lint(root: Path) -> subprocess.CompletedProcess:
    """lint-imports over the package as it is under ``root`` (with the contract of ``root``'s pyproject.toml)."""
    return subprocess.run(
        [str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_layers_contract_holds_on_the_package():
    done = lint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout


def test_the_layers_contract_fails_on_a_planted_violation(tmp_path):
    shutil.copytree(REPO / "cojudge_assets", tmp_path / "cojudge_assets", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    planted = tmp_path / "cojudge_assets" / "core" / "constants.py"
    planted.write_text(planted.read_text() + "\nfrom cojudge_assets.defs.partitions import dims  # noqa\n")
    done = lint(tmp_path)
    assert done.returncode != 0
    assert "BROKEN" in done.stdout and "cojudge_assets.core.constants -> cojudge_assets.defs.partitions" in done.stdout
