"""Asset tables handed to an asset as frames, queried with DuckDB in memory under their asset names.

An asset never reads another asset's table from the DuckDB file: it gets it as an
input (a polars frame the IO manager loaded), and where the join is clearest in
SQL, :func:`frames_connection` registers the frames in an in-memory DuckDB under
their asset names, so ``select ... from main.<asset>`` reads exactly the inputs
and nothing else. A frame without columns (the IO manager's answer for a table
that was never materialized) is not registered, so ``has_table`` says it is absent.

A large table is handed over as a :class:`TableReader` instead (defs/io.py: an input annotated with it), read
slice by slice by the asset, so that only one slice's strings are held at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

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


class TableReader:
    """An asset table read slice by slice (see module docstring; core/measurement/predictions.py ``SliceReader``).

    ``scope``: column -> the values the input's partitions allow (an unpartitioned table: none), ``columns``: the
    input's columns (None: all); ``fetch(columns, equal, distinct)`` returns the rows (``distinct``: the distinct
    rows, found by the store, not in memory) whose columns equal ``equal``'s values
    and ``scope``'s, as a polars frame."""

    def __init__(
        self,
        name: str,
        columns: Sequence[str] | None,
        scope: Mapping[str, list[str]],
        fetch: Callable[[Sequence[str] | None, Mapping[str, str], bool], pl.DataFrame],
    ):
        self.name, self.columns, self.scope, self._fetch = name, columns, dict(scope), fetch

    def read(self, *columns: str, **equal: str) -> pl.DataFrame:
        """The rows whose columns equal ``equal``'s values (each a partition column or any other); ``columns``: only
        these (the input's columns when none)."""
        return self._fetch(list(columns) or self.columns, equal, False)

    def keys(self, *columns: str) -> list[tuple]:
        """The distinct values of ``columns`` in the table (within the input's partitions), sorted: which slices
        there are to read."""
        found = self._fetch(list(columns), {}, True).unique().sort(list(columns))
        return list(found.iter_rows())


def _equal_clause(conditions: Mapping[str, str | list[str]]) -> tuple[str, list[str]]:
    """A SQL where clause (empty when nothing is asked) and its parameters: each column equal to a value or in a
    list of values."""
    tests, parameters = [], []
    for column, value in conditions.items():
        values = value if isinstance(value, list) else [value]
        tests.append(f'"{column}" in ({", ".join("?" for _ in values)})')
        parameters += [str(v) for v in values]
    return (" where " + " and ".join(tests)) if tests else "", parameters


def duckdb_table_reader(
    database: str,
    target: str,
    name: str,
    columns: Sequence[str] | None = None,
    scope: Mapping[str, list[str]] | None = None,
    *,
    read_only: bool = False,
    config: Mapping[str, str | bool | int | float | list[str]] | None = None,
) -> TableReader:
    """A :class:`TableReader` of table ``target`` (schema.table) in the DuckDB file ``database``: each read a
    query of its own on a connection of its own (``read_only``: a bench's, on a file no run writes). ``config``:
    the DuckDB configuration of the process's other connections to the file (DuckDB refuses a second one with
    another configuration while the first is open, and a run's IO manager connection can outlive its input)."""
    scope = dict(scope or {})
    options = dict(config or {})

    def fetch(wanted: Sequence[str] | None, equal: Mapping[str, str], distinct: bool) -> pl.DataFrame:
        selected = ", ".join(f'"{c}"' for c in wanted) if wanted else "*"
        clause, parameters = _equal_clause({**scope, **equal})
        query = f"select {'distinct ' if distinct else ''}{selected} from {target}{clause}"
        with duckdb.connect(database, read_only=read_only, config=options) as conn:
            return pl.DataFrame(conn.execute(query, parameters).arrow())

    return TableReader(name, columns, scope, fetch)
