"""Progress of long work: items done of total, rate and time left, reported at most every few seconds.

A core function that loops over many items (attempts re-executed, mutants verified, programs graded, requests
judged, cells measured) takes an optional ``progress`` callback (one line of text); an asset passes
``context.log.info``, so the line reaches Dagster's event log, the UI and the command's live line (driver.py).
:class:`Progress` decides when to call it: once at the start (the total), then at most every ``every_s`` seconds
of its clock as items are done, and once at the end; a test injects the clock and counts the lines, never times
them. Each line starts with :data:`PREFIX`, which is how the command tells a progress line from the rest of a run's
log.

>>> now = [0.0]
>>> lines = []
>>> progress = Progress(lines.append, 30, "label audit", every_s=10, clock=lambda: now[0])
>>> for _ in range(30):
...     now[0] += 1.0
...     progress.advance()
>>> progress.finish()
>>> for line in lines:
...     print(line)
progress: label audit: 0/30 started
progress: label audit: 10/30 (33%), 1.0/s, about 20 s left
progress: label audit: 20/30 (66%), 1.0/s, about 10 s left
progress: label audit: 30/30 (100%), 1.0/s
progress: label audit: 30/30 done in 30 s (1.0/s)
>>> len(lines)
5
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

PREFIX = "progress: "
EVERY_S = 10.0  # the longest silence of a step that makes progress (issue 33: a new user tells slow from hung)


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 07 min``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Progress:
    """Counts items done of ``total`` and reports through ``report`` (None: counts only) at most every
    ``every_s`` seconds of ``clock``. Safe to advance from several threads (the judging's request workers)."""

    def __init__(
        self,
        report: Callable[[str], object] | None,
        total: int,
        label: str,
        *,
        every_s: float = EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        if total < 0:
            raise ValueError(f"total: expected a count >= 0, got {total}")
        self.report, self.total, self.label, self.every_s, self.clock = report, total, label, every_s, clock
        self.done = 0
        self.started = self.last = clock()
        self._lock = threading.Lock()
        self._say(f"0/{total} started")

    def _say(self, text: str) -> None:
        if self.report is not None:
            self.report(f"{PREFIX}{self.label}: {text}")

    def line(self) -> str:
        """Where the work stands: ``done/total (pct), rate, time left``."""
        elapsed = max(self.clock() - self.started, 1e-9)
        rate = self.done / elapsed
        share = f" ({100 * self.done // self.total}%)" if self.total else ""
        left = (
            f", about {_duration((self.total - self.done) / rate)} left" if rate > 0 and self.done < self.total else ""
        )
        return f"{self.done}/{self.total}{share}, {rate:.1f}/s{left}"

    def advance(self, items: int = 1) -> None:
        """``items`` more done; a line if ``every_s`` has passed since the last one."""
        with self._lock:
            self.done += items
            now = self.clock()
            if now - self.last < self.every_s:
                return
            self.last = now
            text = self.line()
        self._say(text)

    def expect(self, remaining: int) -> None:
        """``remaining`` items are left: the total becomes those done plus these (a lazy loop learns as it goes how
        many it will run, and a line's time left is only as good as its total)."""
        with self._lock:
            self.total = self.done + max(0, remaining)

    def finish(self) -> None:
        """The closing line: how many, in how long."""
        elapsed = self.clock() - self.started
        rate = f" ({self.done / elapsed:.1f}/s)" if elapsed > 0 else ""
        self._say(f"{self.done}/{self.total} done in {_duration(elapsed)}{rate}")
