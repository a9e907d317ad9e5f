"""The partitions of cojudge, defined once, and read through typed helpers.

Two dimensions: ``condition`` (the study's conditions, core/ingest/context.py) and
``judge`` (the judges of a run: the enabled judges of the judges file, then the
imported judges the corpus layout brings; judges/config.py ``corpus_judges``).
The sandboxed steps ``label_audit`` and ``mutants`` are partitioned by a third, ``bucket`` (attempt-hash
buckets, core/shards.py), so their shards spread over runs and machines.
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
from cojudge_assets.core.shards import bucket_keys

CONDITION = "condition"
JUDGE = "judge"
BUCKET = "bucket"

CONDITION_PARTITIONS = dg.StaticPartitionsDefinition(list(CONDITIONS))
PROVIDER_TAG = "cojudge/provider"  # on every run of a judge's partition: the run queue's limit per provider


def _providers(judges: Iterable) -> dict[str, str]:
    """{judge: provider} when ``judges`` maps names to judge specs (judges/config.py ``JudgeSpec.provider``)."""
    if isinstance(judges, Mapping):
        return {name: spec.provider for name, spec in judges.items() if hasattr(spec, "provider")}
    return {}


SANDBOX_TAG = "cojudge/sandbox"  # on every run of a sandboxed shard: the run queue's limit on them (deployment.py)


class BucketPartitions(dg.StaticPartitionsDefinition):
    """The buckets of a sandboxed step, whose runs carry the run tag ``cojudge/sandbox``: a deployment's run queue
    runs at most so many of them at once (deployment.py ``machine_limits``), since each uses every core."""

    def get_tags_for_partition_key(self, partition_key: str) -> Mapping[str, str]:
        return {**super().get_tags_for_partition_key(partition_key), SANDBOX_TAG: "shard"}


def bucket_partitions(n: int) -> dg.StaticPartitionsDefinition:
    """The bucket dimension: ``n`` attempt-hash buckets (core/shards.py), named ``0of<n>`` .. ``<n-1>of<n>``, the
    partitions of the sharded sandbox steps (``label_audit``, ``mutants``)."""
    return BucketPartitions(bucket_keys(n))


class JudgePartitions(dg.StaticPartitionsDefinition):
    """One partition per judge, whose runs carry the judge's provider as the run tag ``cojudge/provider``.

    Dagster asks the partitions definition for a partition's run tags wherever it makes a run of one partition
    (the automation sensor evaluated in the code server, a launch or backfill from the UI or the CLI), so every run
    of a judge's partition is tagged, and the run queue's ``tag_concurrency_limits`` on ``cojudge/provider``
    (defs/deployment.py) hold a limit per provider however the run was started."""

    def __init__(self, judges: Iterable[str], providers: Mapping[str, str] | None = None):
        super().__init__(list(judges))
        self._providers = dict(providers or {})

    def provider_tags(self, judge: str | None) -> dict[str, str]:
        provider = self._providers.get(judge or "")
        return {PROVIDER_TAG: provider} if provider else {}

    def get_tags_for_partition_key(self, partition_key: str) -> Mapping[str, str]:
        return {**super().get_tags_for_partition_key(partition_key), **self.provider_tags(str(partition_key))}


class ConditionJudgePartitions(dg.MultiPartitionsDefinition):
    """condition x judge, with the judge's provider tag on each partition's runs (see :class:`JudgePartitions`)."""

    def __init__(self, partitions_defs: Mapping[str, dg.PartitionsDefinition]):
        super().__init__(partitions_defs)
        judges = partitions_defs[JUDGE]
        self._judges = judges if isinstance(judges, JudgePartitions) else JudgePartitions([])

    def get_tags_for_partition_key(self, partition_key: str) -> Mapping[str, str]:
        judge = dims(self, partition_key).judge
        return {**super().get_tags_for_partition_key(partition_key), **self._judges.provider_tags(judge)}


def judge_partitions(judges: Iterable) -> JudgePartitions:
    """The judge dimension: one partition per judge name (names are partition-safe, judges/config.py); given the
    judges by name (a mapping to their specs), each partition's runs carry the judge's provider tag."""
    return JudgePartitions(list(judges), _providers(judges))


def condition_judge_partitions(judges: Iterable) -> dg.MultiPartitionsDefinition:
    """condition x judge, the partitions of ``judge_outputs``."""
    return ConditionJudgePartitions({CONDITION: CONDITION_PARTITIONS, JUDGE: judge_partitions(judges)})


def condition_judge_key(condition: str, judge: str) -> dg.MultiPartitionKey:
    """The ``judge_outputs`` partition of one judge under one condition."""
    return dg.MultiPartitionKey({CONDITION: condition, JUDGE: judge})


class PartitionDims(NamedTuple):
    """One partition key read by dimension (None: the partitions have no such dimension)."""

    condition: str | None = None
    judge: str | None = None
    bucket: str | None = None

    def items(self) -> dict[str, str]:
        return {name: value for name, value in self._asdict().items() if value is not None}


def _dimension_of(partitions_def: dg.PartitionsDefinition) -> str:
    """The dimension a singly-partitioned definition is: condition for the conditions, bucket when its keys are
    exactly the bucket names ``0of<n>`` .. ``<n-1>of<n>`` (a judges file would have to name its judges so), judge
    otherwise."""
    if partitions_def == CONDITION_PARTITIONS:
        return CONDITION
    keys = partitions_def.get_partition_keys()
    return BUCKET if keys and keys == bucket_keys(len(keys)) else JUDGE


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


def bucket_of(context: dg.AssetExecutionContext) -> str:
    bucket = context_dims(context).bucket
    if bucket is None:
        raise ValueError(f"asset {context.asset_key.to_user_string()}: its partitions have no {BUCKET} dimension")
    return bucket


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
