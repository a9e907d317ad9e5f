"""The assets' data versions, in one place: what Dagster compares to call a downstream asset stale.

Every asset carries a ``code_version``. Most let Dagster derive their data version
from it and their inputs' versions. A few record their own, so that a re-run whose
content is unchanged leaves everything downstream fresh:

* the label-free judge requests and the perturbation requests, and the judges'
  answers: a hash of their content (:func:`content_version`, :func:`answers_version`);
* the observable source ``judges_file``, one data version per judge
  (:func:`judges_file_versions`): a hosted or local judge's answer settings and the
  epoch of its last provider drift (:func:`judge_version`), an imported judge's
  source files;
* the observable source ``contest_corpus``: a sha256 over every file
  (core/ingest/corpus.py ``fingerprint``).

The automation conditions (defs/automation.py) react to these versions through
Dagster's own ``data_version_changed``; nothing here reads a materialization's tags.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

import dagster as dg
import polars as pl

# the answer columns whose content is an answer's data version
# rows per slice of the CSV a content version hashes
CSV_SLICE_ROWS = 100_000
ANSWER_COLUMNS = ("attempt_uid", "request_hash", "epoch", "status", "p_accept", "s_algo", "s_robust")


def content_version(table: pl.DataFrame, columns: list[str]) -> dg.DataVersion:
    """A data version from the content of ``columns`` (rows in sorted order), independent of row order: the sha256
    of their CSV, fed a slice at a time (the same digest as the whole text, without holding it: 10^6 requests' CSV
    is ~0.1 GB)."""
    rows = table.select(columns).sort(columns)
    digest = hashlib.sha256(rows.head(0).write_csv().encode())  # the header line
    for part in rows.iter_slices(CSV_SLICE_ROWS):
        digest.update(part.write_csv(include_header=False).encode())
    return dg.DataVersion(digest.hexdigest()[:32])


def answers_version(table: pl.DataFrame) -> dg.DataVersion:
    """The answers' content as data version: a re-judging (a new epoch) that moves any answer makes every
    downstream table stale, an identical one (all from the cache) leaves them fresh."""
    return content_version(table, list(ANSWER_COLUMNS))


def judge_version(settings: dict, drift_epoch: int | None = None) -> dg.DataVersion:
    """A hosted or local judge's data version: its answer settings (judges/config.py ``answer_settings``) and
    the epoch its last provider drift opened (judges/drift.py), so editing what the judge answers with, or a
    drift, makes exactly that judge's partitions stale."""
    text = json.dumps({"settings": settings, "drift_epoch": drift_epoch}, sort_keys=True, default=str)
    return dg.DataVersion(hashlib.sha256(text.encode()).hexdigest()[:32])


def judges_file_versions(specs: Iterable, drift_epochs: dict[str, int]) -> dict[str, dg.DataVersion]:
    """Each judge's data version (see :func:`judge_version`; an imported judge: the sha256 of its source)."""
    from cojudge_assets.judges.imports import source_digest

    versions = {}
    for spec in specs:
        if spec.is_imported:
            try:
                versions[spec.name] = dg.DataVersion(source_digest(spec))
            except (OSError, KeyError) as exc:  # unreadable now: a version of its own, so the partition re-runs
                versions[spec.name] = dg.DataVersion(f"unreadable: {type(exc).__name__}")
        else:
            versions[spec.name] = judge_version(spec.answer_settings(), drift_epochs.get(spec.name))
    return versions
