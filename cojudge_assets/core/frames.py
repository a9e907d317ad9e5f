"""Asset tables handed to an asset as frames, queried with DuckDB in memory under their asset names.

An asset never reads another asset's table from the DuckDB file: it gets it as an
input (a polars frame the IO manager loaded), and where the join is clearest in
SQL, :func:`frames_connection` registers the frames in an in-memory DuckDB under
their asset names, so ``select ... from main.<asset>`` reads exactly the inputs
and nothing else. A frame without columns (the IO manager's answer for a table
that was never materialized) is not registered, so ``has_table`` says it is absent.
"""

from __future__ import annotations

from collections.abc import Mapping

import duckdb
import polars as pl


def frames_connection(frames: Mapping[str, pl.DataFrame]) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with each frame that has columns registered as a view named after its key.

    >>> conn = frames_connection({"attempts": pl.DataFrame({"accepted": [True, False]}), "absent": pl.DataFrame()})
    >>> conn.execute("select count(*) filter (where accepted) from main.attempts").fetchone()[0]
    1
    >>> sorted(row[0] for row in conn.execute("select table_name from information_schema.tables").fetchall())
    ['attempts']
    """
    conn = duckdb.connect()
    for name, frame in frames.items():
        if frame.width:
            conn.register(name, frame)
    return conn
