"""The report reads the judge cache as its counts (core/report/content.py ``read_stores``, judges/store.py
``accounting``), never its rows: the served-models and validity table is the one counted from the rows."""

from __future__ import annotations

from datetime import datetime

import duckdb
import polars as pl

from cojudge_assets.core.frames import frames_connection
from cojudge_assets.core.report.content import ACCOUNTING, judges_section, read_stores
from cojudge_assets.judges.store import CacheWriter, DuckDBStore, ensure_tables

STATUSES = ("ok", "ok", "ok", "abstained", "failed")

# what the report showed when it read the cache's rows (before read_stores counted them): the reference
FROM_ROWS = """
    select c.judge, c.condition, c.epoch, string_agg(distinct c.served_model, ', ') as served_models,
           count(*) as rows,
           count(*) filter (where c.status = 'ok' and c.validation_failures = 0) as valid_first_receipt,
           count(*) filter (where c.status = 'ok' and c.validation_failures > 0) as repaired_by_reasking,
           count(*) filter (where c.status = 'abstained') as abstained,
           count(*) filter (where c.status not in ('ok', 'abstained')) as failed,
           round(sum(c.cost), 4) as cost_usd
    from main.judge_cache c
    where c.attempt_uid in (select attempt_uid from attempts)
    group by 1, 2, 3 order by 1, 2, 3
"""


def test_the_validity_table_from_the_counts_is_the_one_from_the_rows(tmp_path):
    path = tmp_path / "s.duckdb"
    with duckdb.connect(str(path)) as conn:
        ensure_tables(conn)
        writer = CacheWriter(conn)
        for i in range(120):
            writer.write(
                {
                    "attempt_uid": f"u{i % 40:03d}" + ("~mutant" if i % 7 == 0 else ""),
                    "judge": ("a", "b")[i % 2],
                    "condition": ("blind", "nonblind")[i // 60],
                    "request_hash": f"h{i}",
                    "epoch": 1 + (i % 3 == 0),
                    "status": STATUSES[i % len(STATUSES)],
                    "p_accept": (i % 10) / 10,
                    "served_model": ("model-1", "model-2", None)[i % 3],
                    "validation_failures": (0, 1, None)[i % 3 if i % 5 else 0],
                    "cost": 0.001 * (i % 4) if i % 6 else None,
                    "tries": 1,
                    "judged_at": datetime(2026, 12, 5, 0, 0, i % 60),
                }
            )
        writer.close()
    attempts = pl.DataFrame({"attempt_uid": [f"u{i:03d}" for i in range(40)], "participant": "p", "problem_id": "x"})
    with duckdb.connect(str(path), read_only=True) as conn:
        stores = read_stores(DuckDBStore(conn), attempts)
        conn.register("attempts", attempts)
        expected = conn.execute(FROM_ROWS).pl()
    assert len(stores[ACCOUNTING]) < 120  # counts, not rows
    with frames_connection({**stores, "attempts": attempts}) as conn:
        section = judges_section(conn)
    assert section is not None
    shown = section.tables[0].frame
    assert len(expected) == 8  # 2 judges x 2 conditions x 2 epochs
    for column in expected.columns:
        got, want = shown[column].to_list(), expected[column].to_list()
        if column == "served_models":  # string_agg(distinct ...) lists in no set order
            got, want = [sorted((v or "").split(", ")) for v in got], [sorted((v or "").split(", ")) for v in want]
        assert got == want, column
