"""Imported judges: answers made elsewhere, stored like judged answers, never sent to a provider.

An imported judge is a judge entry with an ``imported:`` source (core/judging/imported.py: the file format and its
validation), or one of the judges a corpus layout brings with it (the ICE-Score release, core/ingest/icescore.py).
Its partitions of ``judge_outputs`` are filled by :func:`import_partition` instead of the judging loop:

1. the source's rows for the partition's condition are read and validated against the declared scale
   (a raw answer that does not parse to the scale is kept as ``invalid``, never guessed);
2. each valid or invalid answer is attached to the current request of its attempt (its ``request_hash``), so
   the measurement and the check that the judged code is the attempt's code treat it like any answer;
3. rows that cannot enter at all (an unknown item, a duplicate, an unknown condition) land in the table
   ``import_rejects`` naming the file, the line and the field;
4. the judge's rows of that condition in ``judge_cache`` are replaced in one transaction, with provenance
   ``imported`` and the source's sha256; table ``judge_imports`` records what was imported from which digest.

A partition whose source digest is unchanged is up to date: the digest is the judge's data version of the
``judges_file`` source asset (defs/versions.py ``judges_file_versions``), so its step is skipped, unchanged files
cost nothing and a changed file re-imports that judge only. When the step runs (a changed file, changed requests,
``--force``), the import is done whole again.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from cojudge_assets.core.constants import BLIND
from cojudge_assets.core.judging.imported import (
    JUDGMENT_COLUMNS,
    REJECT_COLUMNS,
    ImportedSource,
    ImportFormatError,
    answers,
    file_sha256,
    judgment_conditions,
    read_judgments,
)
from cojudge_assets.judges.config import JudgeSpec
from cojudge_assets.judges.store import (
    OUTPUT_SCHEMA,
    REJECT_ROWS,
    ImportedPartition,
)

if TYPE_CHECKING:
    from cojudge_assets.core.ingest.icescore import IceScoreCorpus  # imported when an ICE-Score judge is read
    from cojudge_assets.judges.postgres_store import PostgresStore
    from cojudge_assets.judges.store import DuckDBStore

    JudgeStore = DuckDBStore | PostgresStore

PROVENANCE_IMPORTED = "imported"


@dataclass
class ImportStats:
    requests: int = 0
    imported: int = 0  # rows written now
    ok: int = 0
    invalid: int = 0
    rejected: int = 0
    unanswered: int = 0  # requests the source has no row for
    source: str = ""
    sha256: str = ""


def _imported(spec: JudgeSpec) -> ImportedSource:
    if spec.imported is None:
        raise ValueError(f"judge {spec.name} is not an imported judge (it has no imported: source)")
    return spec.imported


def source_files(spec: JudgeSpec) -> list[Path]:
    """The files an imported judge's answers come from."""
    source = _imported(spec)
    if source.layout == "icescore":
        from cojudge_assets.core.ingest.icescore import icescore_judge_files

        return sorted(icescore_judge_files(Path(source.path))[source.judge or spec.name])
    return [Path(source.path)]


def answered_conditions(spec: JudgeSpec) -> frozenset[str] | None:
    """The conditions whose ``judge_outputs`` partition can hold rows of this judge: every condition for a judge
    that is asked (None); for an imported judge, the conditions its source has rows for, and blind (where the
    rows no condition owns are reported). An ICE-Score judge's rows are all blind (core/ingest/icescore.py). A source
    that cannot be read now: every condition (its partitions then fail, naming the file)."""
    if spec.imported is None:
        return None
    source = spec.imported
    if source.layout == "icescore":
        from cojudge_assets.core.ingest.icescore import CONDITION

        return frozenset({CONDITION})
    try:  # a Parquet source: its judge and condition columns only (this runs whenever the Definitions load)
        conditions = judgment_conditions(source.path, judge=source.judge or spec.name)
    except (ImportFormatError, OSError):
        return None
    return conditions | {BLIND}


def source_digest(spec: JudgeSpec) -> str:
    """sha256 over the judge's source files (names and bytes) and its declared scale."""
    digest = hashlib.sha256(_imported(spec).scale.model_dump_json().encode())
    for path in source_files(spec):
        digest.update(path.name.encode() + b"\0" + file_sha256(path).encode())
    return digest.hexdigest()


@functools.lru_cache(maxsize=2)
def _icescore(root: str, stamp: tuple) -> IceScoreCorpus:
    from cojudge_assets.core.ingest.icescore import read_icescore

    return read_icescore(Path(root))


def _stamp(root: Path) -> tuple:
    return tuple(sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*.json")))


def load_answers(spec: JudgeSpec, condition: str, known_items: set[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(answers, rejects) of the judge under ``condition``: core/judging/imported.py's validation of its source's rows
    (the file's own, or the ICE-Score release's as read by core/ingest/icescore.py). Rows of other conditions are left
    to those conditions' partitions."""
    source = _imported(spec)
    if source.layout == "icescore":
        release = _icescore(str(Path(source.path).resolve()), _stamp(Path(source.path)))
        name = source.judge or spec.name
        frame = release.judgments.filter(pl.col("judge") == name).cast(JUDGMENT_COLUMNS)
        read_rejects = _release_skips(release.quarantine, Path(source.path), source_files(spec), name)
    else:
        # the partition's rows only (a Parquet source is filtered in its scan): the file's other rows never load
        frame, read_rejects = read_judgments(
            source.path, judge=source.judge or spec.name, default_judge=spec.name, condition=condition
        )
    frame = frame.filter(pl.col("condition") == condition)
    answered, refused = answers(frame, source.scale, known_items)
    # a read reject (a bad JSONL line, an empty judge cell) belongs to no condition: reported under blind only
    rejects = pl.concat([read_rejects, refused]) if condition == BLIND else refused
    return answered, rejects


def _release_skips(quarantine: pl.DataFrame, root: Path, files: list[Path], judge: str) -> pl.DataFrame:
    """What the release's reader skipped in this judge's files (misaligned problems, mismatching labels,
    unanswered generations, a deviating file name), as reject rows."""
    names = {p.relative_to(root).as_posix() for p in files}
    mine = quarantine.filter(
        pl.col("source_path").is_in(list(names)) | pl.col("reason").str.contains(f"judge {judge} ", literal=True)
    )
    return mine.select(
        pl.col("source_path").alias("source_file"),
        pl.lit(None, pl.Int64).alias("source_line"),
        pl.lit(judge).alias("judge"),
        pl.col("field").fill_null(""),
        pl.col("reason"),
    ).cast(REJECT_COLUMNS)


def read_partition(
    spec: JudgeSpec, condition: str, requests: pl.DataFrame, epoch: int
) -> tuple[ImportedPartition, ImportStats]:
    """The judge's rows of ``condition`` from its source, in ``epoch``, as the store takes them (steps 1-3 of
    the module docstring), and what they amount to."""
    digest = source_digest(spec)
    files = source_files(spec)
    stats = ImportStats(requests=len(requests), sha256=digest, source=", ".join(p.name for p in files))
    known = set(requests["attempt_uid"].to_list())
    answered, rejects = load_answers(spec, condition, known)
    hashes = requests.select("attempt_uid", "request_hash")
    rows = answered.join(hashes, on="attempt_uid", how="inner")
    now = datetime.now(UTC).replace(tzinfo=None)
    source_label = f"{stats.source} sha256:{digest[:16]}"
    table = rows.select(
        "attempt_uid",
        pl.lit(spec.name).alias("judge"),
        pl.lit(condition).alias("condition"),
        "request_hash",
        pl.lit(epoch, pl.Int32).alias("epoch"),
        "status",
        "p_accept",
        "s_algo",
        "s_robust",
        "rationale",
        "raw_response",
        "served_model",
        pl.lit(None, pl.String).alias("system_fingerprint"),
        pl.lit(0, pl.Int32).alias("tries"),
        pl.lit(0, pl.Int32).alias("validation_failures"),
        pl.lit(False).alias("repaired"),
        pl.lit(0, pl.Int32).alias("provider_errors"),
        pl.lit(None, pl.Float64).alias("latency_s"),
        pl.lit(None, pl.Int64).alias("input_tokens"),
        pl.lit(None, pl.Int64).alias("output_tokens"),
        pl.lit(None, pl.Float64).alias("cost"),
        pl.when(pl.col("error") == "").then(None).otherwise(pl.col("error")).alias("error"),
        pl.lit(now).alias("judged_at"),
        pl.lit(PROVENANCE_IMPORTED).alias("provenance"),
        pl.lit(source_label).alias("source"),
        pl.lit(None, pl.String).alias("batch_id"),  # never sent, so never in a provider's batch
        pl.lit(None, pl.String).alias("batch_files"),
        pl.lit(None, pl.Int32).alias("score"),  # an imported judge answers in its own terms (its p_accept)
    ).cast(OUTPUT_SCHEMA)
    # the judge as cojudge names it, under this condition
    rejects = rejects.with_columns(pl.lit(spec.name).alias("judge"), pl.lit(condition).alias("condition"))
    stats.imported = len(table)
    stats.ok = int((table["status"] == "ok").sum())
    stats.invalid = len(table) - stats.ok
    stats.rejected = len(rejects)
    stats.unanswered = len(known - set(table["attempt_uid"].to_list()))
    record = {
        "judge": spec.name,
        "condition": condition,
        "source": stats.source,
        "sha256": digest,
        "requests": stats.requests,
        "ok": stats.ok,
        "invalid": stats.invalid,
        "rejected": stats.rejected,
        "unanswered": stats.unanswered,
        "imported_at": now,
    }
    part = ImportedPartition(spec.name, condition, epoch, table, rejects.select(list(REJECT_ROWS)), record)
    return part, stats


def import_partition(spec: JudgeSpec, condition: str, requests: pl.DataFrame, store: JudgeStore) -> ImportStats:
    """Fill the judge's rows of ``condition`` in the store's judge cache from its source (see module docstring):
    the DuckDB file's (judges/store.py :class:`DuckDBStore`) or the deployed profile's Postgres store."""
    store.ensure_tables()
    part, stats = read_partition(spec, condition, requests, store.current_epoch(spec.name))
    store.replace_imported(part)
    return stats
