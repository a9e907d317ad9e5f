"""Progress of long work (core/progress.py): lines counted under an injected clock, never timed."""

from __future__ import annotations

import threading

import pytest

from cojudge_assets.core.progress import PREFIX, Progress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run(total: int, step_s: float, every_s: float = 10.0) -> list[str]:
    clock, lines = Clock(), []
    progress = Progress(lines.append, total, "work", every_s=every_s, clock=clock)
    for _ in range(total):
        clock.now += step_s
        progress.advance()
    progress.finish()
    return lines


@pytest.mark.parametrize(
    ("total", "step_s", "expected"),
    [
        (100, 1.0, 1 + 10 + 1),  # 100 s of work: a start, one line every 10 s, the end
        (100, 0.01, 1 + 0 + 1),  # 1 s of work: no line in between
        (3, 30.0, 1 + 3 + 1),  # slow items: one line per item (each past 10 s)
        (0, 1.0, 1 + 0 + 1),  # nothing to do still says so
    ],
)
def test_lines_are_at_most_one_per_interval(total, step_s, expected):
    assert len(run(total, step_s)) == expected


def test_each_line_says_done_of_total_rate_and_time_left():
    lines = run(100, 1.0)
    assert all(line.startswith(PREFIX + "work: ") for line in lines)
    assert lines[0].endswith("0/100 started")
    assert lines[1] == PREFIX + "work: 10/100 (10%), 1.0/s, about 1 min 30 s left"
    assert lines[-1] == PREFIX + "work: 100/100 done in 1 min 40 s (1.0/s)"


def test_no_report_counts_silently():
    progress = Progress(None, 5, "work", clock=Clock())
    progress.advance(5)
    progress.finish()
    assert progress.done == 5


def test_threads_advance_it_together():
    clock, lines = Clock(), []
    progress = Progress(lines.append, 4000, "work", every_s=10, clock=clock)

    def worker() -> None:
        for _ in range(1000):
            progress.advance()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert progress.done == 4000 and len(lines) == 1  # the clock never moved: only the start


def test_a_negative_total_is_refused():
    with pytest.raises(ValueError, match="total"):
        Progress(None, -1, "work")


def test_expect_sets_the_total_to_the_done_plus_what_is_left():
    from cojudge_assets.core.progress import Progress

    now = [0.0]
    lines: list[str] = []
    progress = Progress(lines.append, 100, "work", every_s=10, clock=lambda: now[0])
    for _ in range(10):
        now[0] += 1.0
        progress.advance()
    progress.expect(5)  # most of the 100 will never run
    assert progress.total == 15
    progress.expect(-3)
    assert progress.total == 10  # never below what is done
    assert lines[-1].endswith("10/100 (10%), 1.0/s, about 1 min 30 s left")  # the line before the change
