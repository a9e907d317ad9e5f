"""Attempt-hash buckets: the shards the sandboxed steps (the label audit, the mutant verification) are split into.

An attempt belongs to bucket ``int(first 8 bytes of sha256(uid)) mod n``: stable across processes, machines and
Python versions (never Python's ``hash()``, which is salted per process), and spread evenly whatever the uids look
like. A bucket is named ``"<i>of<n>"`` (``"2of4"``): the name says how many buckets there are, so the shards of a
different count never pass for each other. Every row of a bucketed table carries its bucket's name in the column
:data:`BUCKET_COLUMN`, so a shard replaces its own rows and nothing else.
"""

from __future__ import annotations

import hashlib
import re

import polars as pl

BUCKET_COLUMN = "bucket"
_KEY = re.compile(r"(\d+)of(\d+)")


def bucket_of(uid: str, n: int) -> int:
    """The bucket (0 .. n-1) of one uid."""
    if n < 1:
        raise ValueError(f"bucket count {n}: expected at least 1")
    return int.from_bytes(hashlib.sha256(uid.encode("utf-8")).digest()[:8], "big") % n


def bucket_key(i: int, n: int) -> str:
    """The name of bucket ``i`` of ``n`` (its partition key)."""
    if not 0 <= i < n:
        raise ValueError(f"bucket {i} of {n}: expected 0 <= bucket < {n}")
    return f"{i}of{n}"


def bucket_keys(n: int) -> list[str]:
    if n < 1:
        raise ValueError(f"bucket count {n}: expected at least 1")
    return [bucket_key(i, n) for i in range(n)]


def parse_bucket_key(key: str) -> tuple[int, int] | None:
    """(i, n) of a bucket's name; None when ``key`` is no bucket name."""
    found = _KEY.fullmatch(key)
    if not found:
        return None
    i, n = int(found.group(1)), int(found.group(2))
    return (i, n) if 0 <= i < n else None


def in_bucket(frame: pl.DataFrame, column: str, key: str) -> pl.DataFrame:
    """The rows of ``frame`` whose ``column`` (a uid) falls in the bucket named ``key``."""
    parsed = parse_bucket_key(key)
    if parsed is None:
        raise ValueError(f"bucket {key!r}: expected a name like 0of4")
    i, n = parsed
    if frame.is_empty():
        return frame
    return frame.filter(pl.Series([bucket_of(uid, n) == i for uid in frame[column].to_list()], dtype=pl.Boolean))


def with_bucket(frame: pl.DataFrame, key: str) -> pl.DataFrame:
    """``frame`` with its bucket's name as the last column (every row of one shard has the same)."""
    return frame.with_columns(pl.lit(key, dtype=pl.String).alias(BUCKET_COLUMN))
