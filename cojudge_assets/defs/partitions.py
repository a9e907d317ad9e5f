"""The partitions of cojudge, defined once, and read through typed helpers.

Two dimensions: ``condition`` (the study's conditions, core/ingest/context.py) and
``judge`` (the judges of a run: the enabled judges of the judges file, then the
imported judges the corpus layout brings; judges/config.py ``corpus_judges``).
``judge_requests`` is partitioned by condition, ``judge_outputs`` by condition x
judge (a ``dg.MultiPartitionKey``), ``perturbation_outputs`` and the observable
source asset ``judges_file`` by judge. Every key is made and read here: no
caller splits a key string or relies on the order Dagster joins dimensions in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

import dagster as dg

from cojudge_assets.core.constants import CONDITIONS

CONDITION = "condition"
JUDGE = "judge"

CONDITION_PARTITIONS = dg.StaticPartitionsDefinition(list(CONDITIONS))


def judge_partitions(judges: Iterable[str]) -> dg.StaticPartitionsDefinition:
    """The judge dimension: one partition per judge name (names are partition-safe, judges/config.py)."""
    return dg.StaticPartitionsDefinition(list(judges))


def condition_judge_partitions(judges: Iterable[str]) -> dg.MultiPartitionsDefinition:
    """condition x judge, the partitions of ``judge_outputs``."""
    return dg.MultiPartitionsDefinition({CONDITION: CONDITION_PARTITIONS, JUDGE: judge_partitions(judges)})


def condition_judge_key(condition: str, judge: str) -> dg.MultiPartitionKey:
    """The ``judge_outputs`` partition of one judge under one condition."""
    return dg.MultiPartitionKey({CONDITION: condition, JUDGE: judge})


class PartitionDims(NamedTuple):
    """One partition key read by dimension (None: the partitions have no such dimension)."""

    condition: str | None = None
    judge: str | None = None

    def items(self) -> dict[str, str]:
        return {name: value for name, value in self._asdict().items() if value is not None}


def _dimension_of(partitions_def: dg.PartitionsDefinition) -> str:
    """The dimension a singly-partitioned definition is: condition for the conditions, judge otherwise."""
    return CONDITION if partitions_def == CONDITION_PARTITIONS else JUDGE


def dims(partitions_def: dg.PartitionsDefinition | None, partition_key: str | None) -> PartitionDims:
    """The dimensions of ``partition_key`` under ``partitions_def`` (empty when unpartitioned)."""
    if partitions_def is None or partition_key is None:
        return PartitionDims()
    if isinstance(partitions_def, dg.MultiPartitionsDefinition):
        key = (
            partition_key
            if isinstance(partition_key, dg.MultiPartitionKey)
            else partitions_def.get_partition_key_from_str(str(partition_key))
        )
        return PartitionDims(**key.keys_by_dimension)
    return PartitionDims(**{_dimension_of(partitions_def): str(partition_key)})


def context_dims(context: dg.AssetExecutionContext) -> PartitionDims:
    """The dimensions of the partition an asset is materializing."""
    return dims(context.assets_def.partitions_def, context.partition_key)


def condition_of(context: dg.AssetExecutionContext) -> str:
    condition = context_dims(context).condition
    if condition is None:
        raise ValueError(f"asset {context.asset_key.to_user_string()}: its partitions have no {CONDITION} dimension")
    return condition


def judge_of(context: dg.AssetExecutionContext) -> str:
    judge = context_dims(context).judge
    if judge is None:
        raise ValueError(f"asset {context.asset_key.to_user_string()}: its partitions have no {JUDGE} dimension")
    return judge


def matches(partition: PartitionDims, wanted: Mapping[str, Iterable[str] | None]) -> bool:
    """Whether the partition is among the wanted values of each dimension it has (None or empty: any value)."""
    return all(not wanted.get(name) or value in set(wanted[name] or ()) for name, value in partition.items().items())


def upstream_keys(
    downstream_def: dg.PartitionsDefinition | None, downstream_key: str | None, upstream_def: dg.PartitionsDefinition
) -> list[str]:
    """The partitions of a partitioned upstream asset that one downstream partition reads: those that agree on
    every dimension both have (all of them for an unpartitioned downstream asset). This is the mapping Dagster
    infers between these partitions (identity on a shared dimension, multi to single dimension)."""
    below = dims(downstream_def, downstream_key).items()
    return [
        str(key)
        for key in upstream_def.get_partition_keys()
        if all(below.get(name, value) == value for name, value in dims(upstream_def, str(key)).items().items())
    ]
