"""A separate process holding a lock of core/locks.py until released: a run in progress, as far as the lock goes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cojudge_tests.conftest import REPO

HOLD = ("import sys; from pathlib import Path; from cojudge_assets.core.locks import hold\n"
        "with hold(Path(sys.argv[1]), Path(sys.argv[2]), run_id=(sys.argv[3:] or [None])[0]):\n"
        "    print('held', flush=True); sys.stdin.read()\n")


class Holder:
    def __init__(self, target: Path, lock: Path, run_id: str | None = None):
        extra = [run_id] if run_id else []
        self.process = subprocess.Popen([sys.executable, "-c", HOLD, str(target), str(lock), *extra], cwd=REPO,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "held"
        self.pid = self.process.pid

    def release(self) -> None:
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=60)
