"""The predictions table: every valid judge answer joined to its attempt's label.

The asset tables come in as frames (the ``predictions`` and measurement assets'
inputs), or as slice readers (core/frames.py ``TableReader``), and are joined by
polars (an in-memory DuckDB over the frames held more, and kept it: issue 33); the
judge cache, an internal store, is read from the DuckDB file.

Only rows of status ``ok`` are predictions: an abstention (status ``abstained``)
has no p_accept and is counted by measurement's coverage (:func:`read_outcomes`),
never scored.

y = 1 when the verdict is AC. ``evidence`` says whether the attempt's nonblind
context is anchored or segmented. ``code_matches`` compares the code in the
request the judge answered (by request hash) with the attempt's code: the
seed study's V4 check, made on every row. A prediction carries its program's
size (``code_lines``, ``code_tokens``: core/design/bias.py ``code_size``), not its
text: at a million attempts the text of every prediction would be the largest
part of the table.

No reader holds the attempts' text (issue 33: at 10^6 attempts it was most of the
predictions' and the per-judge tables' 3 GB). The V4 check compares the SHA-256 of
the request's code with the attempt's ``code_sha256``, and the sizes are counted on
the request's code, before the join, which then carries no text: where the check
passes (it blocks measurement where it does not) that is the attempt's code.
Measurement's own partition takes the hash (``with_hash``) for its
identical-resubmission figures: equal texts, equal hashes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import duckdb
import polars as pl

from cojudge_assets.core.design.bias import code_size_columns
from cojudge_assets.core.frames import frame_reader

PREDICTIONS_SCHEMA = pl.Schema(
    {
        "attempt_uid": pl.String,
        "judge": pl.String,
        "condition": pl.String,
        "p_accept": pl.Float64,
        "s_algo": pl.Int32,
        "s_robust": pl.Int32,
        "request_hash": pl.String,
        "served_model": pl.String,
        "participant": pl.String,
        "problem_id": pl.String,
        "turn": pl.Int64,
        "verdict": pl.String,
        "accepted": pl.Boolean,
        "y": pl.Int64,
        "evidence": pl.Boolean,
        "code_lines": pl.Int32,
        "code_tokens": pl.Int32,
        "code_matches": pl.Boolean,
        "language": pl.String,
    }
)
# the columns each input of predictions is read with (defs/measurement/assets.py): no request text, no rationale
PREDICTIONS_READ = {
    "judge_outputs": [
        "attempt_uid",
        "judge",
        "condition",
        "p_accept",
        "s_algo",
        "s_robust",
        "request_hash",
        "served_model",
        "status",
    ],
    "judge_requests": ["attempt_uid", "condition", "request_hash", "source_code"],
    "attempts": ["attempt_uid", "participant", "problem_id", "turn", "verdict", "accepted", "code_sha256", "language"],
    "participant_context": ["attempt_uid", "condition", "provenance"],
}


EVIDENCE_TIERS = ("anchored", "segmented")  # the nonblind contexts whose evidence is backed


def has_table(conn: duckdb.DuckDBPyConnection, name: str, schema: str = "main") -> bool:
    return bool(
        conn.execute(
            "select count(*) from information_schema.tables where table_schema = ? and table_name = ?", [schema, name]
        ).fetchall()[0][0]
    )


# what the readers of predictions take (an asset input's columns): the scores, labels and trajectories, no text
SCORED_COLUMNS = ("attempt_uid", "judge", "condition", "p_accept", "y", "participant", "problem_id", "turn", "evidence")


def scored(*more: str) -> dict[str, list[str]]:
    """The input metadata of a reader of predictions: :data:`SCORED_COLUMNS` and ``more``."""
    return {"columns": [*SCORED_COLUMNS, *more]}


PREDICTIONS_INPUTS = ("judge_outputs", "judge_requests", "attempts", "participant_context")


def read_predictions(conn: duckdb.DuckDBPyConnection, *, with_hash: bool = False) -> pl.DataFrame:
    """:func:`predictions_table` over the tables of :data:`PREDICTIONS_INPUTS` in ``conn`` (those it holds), each
    read with the columns of :data:`PREDICTIONS_READ` (and the requests' ``source_code``) it has."""
    read = {**PREDICTIONS_READ, "judge_requests": [*PREDICTIONS_READ["judge_requests"], "source_code"]}
    return predictions_table(_tables(conn, read), with_hash=with_hash)


def _tables(conn: duckdb.DuckDBPyConnection, read: Mapping[str, Sequence[str]]) -> dict[str, pl.DataFrame]:
    """The tables of ``read`` that ``conn`` holds, each with those of its columns it has."""
    frames = {}
    for name, wanted in read.items():
        if has_table(conn, name):
            columns = [c for c in dict.fromkeys(wanted) if c in _columns(conn, name)]
            frames[name] = conn.execute(f"select {', '.join(columns)} from main.{name}").pl()
    return frames


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def request_code(requests: pl.DataFrame) -> pl.DataFrame:
    """``requests`` (judge_requests rows) with ``source_code`` replaced by its SHA-256 (hex, as the attempts'
    ``code_sha256``: core/ingest/attempts.py) and its size (core/design/bias.py ``code_size_columns``): what the V4
    check and the predictions' sizes need, without the text, so no copy of it reaches DuckDB or the join.

    >>> frame = request_code(pl.DataFrame({"attempt_uid": ["a"], "source_code": ["x = 1\\n"]}))
    >>> frame.columns, frame["code_lines"][0], frame["source_sha256"][0] == _sha256_hex("x = 1\\n")
    (['attempt_uid', 'code_lines', 'code_tokens', 'source_sha256'], 1, True)
    """
    lines, tokens = code_size_columns(pl.col("source_code"))
    digest = pl.col("source_code").map_elements(_sha256_hex, return_dtype=pl.String, skip_nulls=True)
    return requests.with_columns(lines, tokens, digest.alias("source_sha256")).drop("source_code")


def _columns(conn: duckdb.DuckDBPyConnection, name: str) -> set[str]:
    return {
        row[0]
        for row in conn.execute(
            "select column_name from information_schema.columns where table_schema = 'main' and table_name = ?", [name]
        ).fetchall()
    }


def predictions_table(
    frames: Mapping[str, pl.DataFrame], *, with_hash: bool = False, columns: Sequence[str] | None = None
) -> pl.DataFrame:
    """Every valid answer (status ok) of ``judge_outputs`` joined to its attempt, its request's code (as
    :func:`request_code` makes it) and its nonblind context: the rows of :data:`PREDICTIONS_SCHEMA`, ordered by
    judge, condition and attempt; with the attempt's ``code_sha256`` as a last column when ``with_hash``. Empty,
    with the schema, when ``judge_outputs`` is absent or was never materialized (a frame without columns): no judge
    has answered. Requests without their code: code_matches and the sizes are null (not checked by this reader).
    ``columns`` (optional): only these columns of the schema (the frames need hold no other).

    A polars join, not DuckDB's over the registered frames: at 10^5 predictions an in-memory DuckDB connection
    made the join's process 140 MB larger, and kept it after the connection closed (docs/benchmarks.md, "Predictions
    and the per-judge tables without the text")."""
    schema = pl.Schema([*PREDICTIONS_SCHEMA.items(), ("code_sha256", pl.String())]) if with_hash else PREDICTIONS_SCHEMA
    if columns is not None:
        schema = pl.Schema({name: schema[name] for name in columns})
    present = {name: frame for name, frame in frames.items() if frame.width}
    if "judge_outputs" not in present:
        return pl.DataFrame(schema=schema)
    joined = (
        present["judge_outputs"]
        .lazy()
        .filter(pl.col("status") == "ok")
        .join(present["attempts"].lazy(), on="attempt_uid", how="inner")
    )
    requests = present.get("judge_requests", pl.DataFrame())
    if not {"source_code", "source_sha256"} & set(requests.columns):
        matches = pl.lit(None, pl.Boolean)
        joined = joined.with_columns(code_lines=pl.lit(None, pl.Int32), code_tokens=pl.lit(None, pl.Int32))
    else:
        code = request_code(requests) if "source_code" in requests.columns else requests
        keys = ["attempt_uid", "condition", "request_hash"]
        joined = joined.join(
            code.lazy().select(*keys, "source_sha256", "code_lines", "code_tokens"), on=keys, how="left"
        )
        matches = (pl.col("source_sha256") == pl.col("code_sha256")).fill_null(False)
    contexts = present.get("participant_context")
    if contexts is not None:
        nonblind = contexts.lazy().filter(pl.col("condition") == "nonblind").select("attempt_uid", "provenance")
        joined = joined.join(nonblind, on="attempt_uid", how="left")
    else:
        joined = joined.with_columns(provenance=pl.lit(None, pl.String))
    return (
        joined.with_columns(
            y=pl.col("accepted").cast(pl.Int64),
            evidence=pl.col("provenance").is_in(list(EVIDENCE_TIERS)).fill_null(False),
            code_matches=matches,
        )
        .sort("judge", "condition", "attempt_uid")
        .select(list(schema))
        .cast(schema)
        .collect()
    )


# answers joined at a time by :func:`predictions_of` (a partition of 10^6: five joins of 200,000)
PREDICTIONS_CHUNK = 200_000


def predictions_of(readers: Mapping[str, SliceReader], *, rows: int = PREDICTIONS_CHUNK) -> pl.DataFrame:
    """:func:`predictions_table` over readers of the tables of :data:`PREDICTIONS_INPUTS` (those the Definitions
    hold): the same rows, in the same order, in bounded memory (issue 33).

    The requests' code is hashed and sized as it is read (:func:`request_code`), so the text is dropped before any
    join; the contexts are read for their nonblind rows only; the answers are joined ``rows`` at a time, in
    (judge, condition, attempt) order, so one chunk's join is in memory, not the whole table's (at 10^6 answers
    the join held ~400 MB above its result). What is read here is dropped on return."""
    frames: dict[str, pl.DataFrame] = {}
    for name in sorted(readers, key=lambda name: name != "judge_requests"):  # the requests first: the text alone
        frames[name] = (
            readers[name].read(condition="nonblind") if name == "participant_context" else readers[name].read()
        )
        if name == "judge_requests" and "source_code" in frames[name].columns:  # hashed a slice at a time
            frames[name] = pl.concat([request_code(part) for part in frames[name].iter_slices(rows)], rechunk=False)
    outputs = frames.pop("judge_outputs", pl.DataFrame())
    if not outputs.width:
        return predictions_table(frames)
    order = outputs.select(pl.arg_sort_by("judge", "condition", "attempt_uid")).to_series()
    parts = [
        predictions_table({**frames, "judge_outputs": outputs[order.slice(start, rows)]})
        for start in range(0, max(len(order), 1), rows)
    ]
    return pl.concat(parts, rechunk=False)  # chunk i's keys precede chunk i+1's: the whole table's order


UNIVERSE_SCHEMA = pl.Schema(
    {
        "attempt_uid": pl.String,
        "y": pl.Int64,
        "participant": pl.String,
        "problem_id": pl.String,
        "turn": pl.Int64,
        "evidence": pl.Boolean,
    }
)
UNIVERSE_INPUTS = ("judge_requests", "attempts", "participant_context")


def read_universe(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The attempts measurement resamples and folds over (core/measurement/measure.py ``Universe``): every contest
    attempt a judge was asked about under some condition, with its label, trajectory and evidence as in
    :func:`predictions_table`. The same for every judge's partition, whichever judges have answered.
    :func:`universe_table` over the tables of ``conn``."""
    return universe_table(_tables(conn, CROSS_READ))


# what the requests tell measurement: which attempts were asked under which condition (no request text)
REQUESTS_ASKED = ["attempt_uid", "condition"]
# the columns the cross-judge tables read: keys, label, trajectory and p, none of the text
CROSS_READ = {
    "judge_outputs": ["judge", "condition", "attempt_uid", "status"],
    "judge_requests": REQUESTS_ASKED,
    "attempts": ["attempt_uid", "participant", "problem_id", "turn", "accepted"],
    "participant_context": ["attempt_uid", "condition", "provenance"],
}
# what the cross-judge tables read slice by slice (a slice is filtered on its partition columns, which it need
# not carry): which attempts were asked, which contexts are evidence-backed, and each cell's scores (the label, the
# trajectory and the evidence are the universe's)
CROSS_SLICES = {
    "judge_requests": ["attempt_uid"],
    "participant_context": ["attempt_uid", "provenance"],
    "predictions": ["attempt_uid", "p_accept"],
}


class SliceReader(Protocol):
    """A table read slice by slice (defs/io.py ``TableReader``): ``read(condition="blind")`` the rows of those
    column values (``read("attempt_uid", judge=...)``: that column only), ``distinct(*columns)`` the distinct rows
    (found by the store), ``keys("judge", "condition")`` the distinct values there are, sorted."""

    def read(self, *columns: str, **equal: str) -> pl.DataFrame: ...

    def distinct(self, *columns: str, **equal: str) -> pl.DataFrame: ...

    def keys(self, *columns: str) -> list[tuple]: ...


def universe_of_slices(
    requests: SliceReader | None, attempts: pl.DataFrame, context: SliceReader | None
) -> pl.DataFrame:
    """:func:`read_universe` from the requests read condition by condition (only their attempt ids kept), the
    attempts, and the nonblind rows of the contexts: the same rows, without holding every condition's requests
    and contexts at once (at 10^6 attempts they are 6M rows of strings). ``requests`` None: no request asked."""
    nonblind = context.read(condition="nonblind") if context is not None and requests is not None else None
    return universe_of(requests, attempts, nonblind)


def universe_of(requests: SliceReader | None, attempts: pl.DataFrame, nonblind: pl.DataFrame | None) -> pl.DataFrame:
    """The rows of :data:`UNIVERSE_SCHEMA`: the ``attempts`` some request asked about (``requests`` read one
    condition at a time, only their attempt ids kept; None: nothing asked), with the evidence of their
    ``nonblind`` context (None: no context, no evidence)."""
    if requests is None or attempts.is_empty() or "attempt_uid" not in attempts.columns:
        return pl.DataFrame(schema=UNIVERSE_SCHEMA)
    asked = pl.DataFrame(schema={"attempt_uid": pl.String})
    for (condition,) in requests.keys("condition"):
        asked = pl.concat([asked, requests.read(condition=condition).select("attempt_uid")]).unique()
    universe = attempts.join(asked, on="attempt_uid", how="semi")
    if nonblind is not None and nonblind.width:  # a frame without columns: a table never materialized
        evidence = nonblind.select("attempt_uid", pl.col("provenance").is_in(list(EVIDENCE_TIERS)).alias("evidence"))
        universe = universe.join(evidence, on="attempt_uid", how="left")
    else:
        universe = universe.with_columns(evidence=pl.lit(None, pl.Boolean))
    return (
        universe.select(
            "attempt_uid",
            pl.col("accepted").cast(pl.Int64).alias("y"),
            "participant",
            "problem_id",
            "turn",
            pl.col("evidence").fill_null(False),
        )
        .sort("attempt_uid")
        .cast(UNIVERSE_SCHEMA)
    )


# what a per-judge partition measures of its predictions (core/measurement/measure.py, correlation.py): keys, p,
# label, trajectory, language and the code's hash (identical resubmissions); no request hash, model, size or verdict
CELL_COLUMNS = (
    "attempt_uid",
    "judge",
    "condition",
    "p_accept",
    "y",
    "participant",
    "problem_id",
    "turn",
    "language",
    "code_sha256",
)
# the columns its inputs are read with for them (and for the universe and the coverage outcomes)
CELL_READ = {
    "judge_outputs": ["attempt_uid", "judge", "condition", "p_accept", "status"],
    "attempts": ["attempt_uid", "participant", "problem_id", "turn", "accepted", "code_sha256", "language"],
    "participant_context": ["attempt_uid", "condition", "provenance"],
}


@dataclass(frozen=True)
class CellInputs:
    """What one judge x condition's measurement reads: its predictions (:data:`CELL_COLUMNS`), the universe
    (:func:`universe_of`), the coverage outcomes (:func:`outcomes_table`) and the contest's attempt ids."""

    predictions: pl.DataFrame
    universe: pl.DataFrame
    outcomes: pl.DataFrame
    attempt_uids: pl.DataFrame


def cell_inputs(
    outputs: SliceReader,
    attempts: SliceReader | None,
    contexts: SliceReader | None,
    requests: SliceReader | None,
    condition: str,
) -> CellInputs:
    """:class:`CellInputs` of the judge x condition whose answers ``outputs`` reads, from readers of the attempts,
    the contexts and every condition's requests (None: not in the Definitions), each read with the columns of
    :data:`CELL_READ`.

    The tables read here are dropped on return (issue 33): only the four frames are kept while the cell is measured.
    At 10^6 attempts the answers, attempts and nonblind contexts are ~600 MB resident as polars frames (a string
    column is 16 bytes a row, plus its text), and a step that held them through the measurement peaked above 2 GB."""
    frames = {"judge_outputs": outputs.read(*CELL_READ["judge_outputs"])}
    if attempts is not None:
        frames["attempts"] = attempts.read(*CELL_READ["attempts"])
    nonblind = None
    if contexts is not None:
        nonblind = contexts.read(*CELL_READ["participant_context"], condition="nonblind")
        frames["participant_context"] = nonblind
    table = predictions_table(frames, with_hash=True, columns=CELL_COLUMNS)
    contest = frames.get("attempts", pl.DataFrame())
    universe = universe_of(requests, contest, nonblind)
    asked = requests.read(condition=condition) if requests is not None else pl.DataFrame()
    outcomes = outcomes_table({**frames, "judge_requests": asked})
    uids = contest.select("attempt_uid") if "attempt_uid" in contest.columns else pl.DataFrame()
    return CellInputs(table, universe, outcomes, uids)


def cell_slices(predictions: SliceReader) -> Iterator[tuple[str, str, pl.DataFrame]]:
    """``(judge, condition, rows)`` for each judge x condition of the predictions, read one at a time (columns
    attempt_uid and p_accept at least): what core/measurement/measure.py ``Universe.from_slices`` takes."""
    for judge, condition in predictions.keys("judge", "condition"):
        yield judge, condition, predictions.read(judge=judge, condition=condition)


def universe_table(frames: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """:func:`read_universe` over the asset frames named in :data:`UNIVERSE_INPUTS`, joined by polars (an in-memory
    DuckDB over the frames holds more, and keeps it: :func:`predictions_table`)."""
    present = {name: frame for name, frame in frames.items() if frame.width}
    if not {"judge_requests", "attempts"} <= set(present):
        return pl.DataFrame(schema=UNIVERSE_SCHEMA)
    contexts = present.get("participant_context")
    nonblind = contexts.filter(pl.col("condition") == "nonblind") if contexts is not None else None
    return universe_of(frame_reader("judge_requests", present["judge_requests"]), present["attempts"], nonblind)


OUTCOMES_SCHEMA = pl.Schema({"judge": pl.String, "condition": pl.String, "attempt_uid": pl.String, "status": pl.String})


def read_outcomes(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per contest attempt each judge was asked about under each condition, with its status (ok,
    abstained, failed; for an imported judge also invalid, or ``unanswered`` when its source has no row for a
    request of a condition it answered under): the denominators of coverage (core/measurement/measure.py).
    :func:`outcomes_table` over the tables of ``conn``."""
    return outcomes_table(_tables(conn, CROSS_READ))


OUTCOMES_INPUTS = ("judge_outputs", "judge_requests", "attempts")


def outcomes_table(frames: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """:func:`read_outcomes` over the asset frames named in :data:`OUTCOMES_INPUTS`, joined by polars (as
    :func:`universe_table`)."""
    present = {name: frame for name, frame in frames.items() if frame.width}
    if "judge_outputs" not in present:
        return pl.DataFrame(schema=OUTCOMES_SCHEMA)
    outputs = present["judge_outputs"].lazy().select(list(OUTCOMES_SCHEMA))
    if "judge_requests" in present:
        cells = outputs.select("judge", "condition").unique()
        asked = cells.join(present["judge_requests"].lazy().select("condition", "attempt_uid"), on="condition")
        outcomes = asked.join(outputs, on=["judge", "condition", "attempt_uid"], how="left").with_columns(
            pl.col("status").fill_null("unanswered")
        )
    else:
        outcomes = outputs
    if "attempts" in present:
        outcomes = outcomes.join(present["attempts"].lazy().select("attempt_uid"), on="attempt_uid", how="semi")
    return outcomes.select(list(OUTCOMES_SCHEMA)).cast(OUTCOMES_SCHEMA).collect()


CACHE_READ = pl.Schema(  # the judge cache's columns run-to-run agreement reads
    {
        "judge": pl.String,
        "condition": pl.String,
        "attempt_uid": pl.String,
        "request_hash": pl.String,
        "epoch": pl.Int32,
        "status": pl.String,
        "p_accept": pl.Float64,
    }
)


def read_judge_cache(
    conn: duckdb.DuckDBPyConnection, attempts: pl.DataFrame, judge: str | None = None, condition: str | None = None
) -> pl.DataFrame:
    """The judge cache's keys, status and p of the contest's ``attempts`` (for run-to-run agreement between
    epochs), of one ``judge`` and one ``condition`` when given: a filtered query, so a partition's reader moves
    only its own rows. ``conn``: the DuckDB file, where the cache (an internal store, not an asset) lives."""
    columns = CACHE_READ
    if not has_table(conn, "judge_cache"):
        return pl.DataFrame(schema=columns)
    where = [(name, value) for name, value in (("judge", judge), ("condition", condition)) if value is not None]
    clause = (" where " + " and ".join(f"{name} = ?" for name, _ in where)) if where else ""
    cache = (
        conn.execute(f"select {', '.join(columns)} from main.judge_cache{clause}", [value for _, value in where])
        .pl()
        .cast(columns)
    )
    if "attempt_uid" not in attempts.columns:
        return cache
    # the cache also holds the perturbation study's mutants: keep the contest's attempts only
    return cache.filter(pl.col("attempt_uid").is_in(attempts["attempt_uid"].implode()))
