"""The judges config file: one YAML file the user edits to list their judges.

``data/judges.yaml`` by default, or the file named by ``$COJUDGE_JUDGES``. Each
entry names a judge, its litellm model string and its provider parameters::

    judges:
      - name: gpt-5.2                  # partition key: letters, digits, . _ -
        model: openai/gpt-5.2          # litellm model string
        enabled: false                 # only enabled judges become partitions
        api_key_env: OPENAI_API_KEY    # the environment variable holding the key (never the key)
        concurrency: 8                 # requests in flight
        rpm: 500                       # requests per minute (0: no limit)
        max_tokens: 2048
        reasoning_budget: null         # thinking tokens, for providers that take a budget
        max_input_tokens: null         # input budget; null: litellm's model info, if it knows the model
        api_base: null                 # OpenAI-compatible servers (vLLM, Ollama): their base URL

A judge whose answers were made elsewhere is *imported* (judges/imports.py, core/judging/imported.py for the file
format): it has an ``imported:`` source instead of a model, and is never sent anything::

      - name: gpt4-ours
        imported:
          path: judgments/gpt4.csv       # CSV, JSONL or Parquet; relative to this file
          scale: {min: 0, max: 4, integer: true}   # the native scale; p_accept = (score - min) / (max - min)

Temperature is 0 for every judge (the study's setting) unless the file says
otherwise. The file is validated in full before anything runs: temperature in
[0, 2], top_p in (0, 1], max_tokens, concurrency and max_input_tokens positive,
rpm positive or 0 (no limit), every number finite (NaN and inf refused, in
``extra`` too); each violation is one line naming the file, the judge and the
field (``JudgesConfigError.lines``).
Editing what a judge answers with (its model, temperature, token budgets, JSON
mode) under the same name makes its next run judge everything again, in a new
epoch beside the old answers (``JudgeSpec.answer_settings``); so does a new version
of the local judges' code (``judges/local.py: LOCAL_JUDGES_VERSION``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from cojudge_assets.core.judging.imported import ImportedSource, Scale
from cojudge_assets.judges.client import JudgeConfig

DEFAULT_JUDGES_FILE = Path("data") / "judges.yaml"  # under the working folder (settings.py resolves the same)
JUDGES_VARIABLE = "COJUDGE_JUDGES"


NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]*"  # a judge name: a Dagster partition key and part of file names
MAX_NAME_LENGTH = 64  # well under a file name's 255 bytes with any prefix cojudge adds (bias_<name>.png ...)
MAX_FILE_BYTES = 1 << 20  # a judges file lists judges: 1 MiB is thousands of them; more is not a judges file
MAX_DEPTH = 16  # nesting of mappings and lists (a judge's extra included); deeper is not a judges file


class JudgesFile(BaseModel):
    """The file's top level: the keys a judges file may have (any other is refused, never ignored). Each judge
    under ``judges`` is validated on its own (:class:`JudgeSpec`), so every violation of every judge is reported at
    once. A new top-level setting is a field here."""

    model_config = ConfigDict(extra="forbid")

    judges: list


ANSWER_SETTINGS = ("model", "temperature", "max_tokens", "reasoning_budget", "max_input_tokens", "json_mode", "lenient")


class BatchSettings(BaseModel):
    """A judge's ``batch:`` settings (used when its ``mode`` is ``batch``; judges/batch.py). The limits default to
    OpenAI's: 50,000 requests or 200 MB per input file."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    max_requests: int = Field(default=50_000, ge=1)  # requests per batch file
    max_bytes: int = Field(default=200_000_000, ge=1024)  # bytes per batch file
    completion_window: Literal["24h"] = "24h"
    poll_initial_s: float = Field(default=10.0, gt=0)  # first wait between two polls; doubles up to poll_max_s
    poll_max_s: float = Field(default=300.0, gt=0)
    poll_failures: int = Field(default=10, ge=1)  # failed polls in a row that fail the batch for this run
    wait: bool = True  # wait for the batches to end; false: submit, record, and return (the sensor collects)
    max_wait_s: float | None = Field(default=None, gt=0)  # stop waiting after this long (batches stay pending)
    rounds: int = Field(default=3, ge=1, le=20)  # follow-up batches in one run for what an expiry left unanswered


class Price(BaseModel):
    """A judge's price in USD per million tokens, given in the judges file (``price:``) for a model litellm's price
    map does not know, or to override it. The batch prices default to half the synchronous ones (litellm's rule)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    input_usd_per_mtok: float = Field(ge=0)
    output_usd_per_mtok: float = Field(ge=0)
    batch_input_usd_per_mtok: float | None = Field(default=None, ge=0)
    batch_output_usd_per_mtok: float | None = Field(default=None, ge=0)


class JudgeSpec(JudgeConfig):
    """One entry of the judges config file: the request settings (judges/client.py ``JudgeConfig``) and the
    file's own fields."""

    model_config = ConfigDict(extra="forbid", frozen=False, allow_inf_nan=False)  # NaN and inf: never a setting

    model: str = ""  # required unless the judge is imported (for which it is a label, never called)
    imported: ImportedSource | None = None
    enabled: bool = True
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)  # the providers' range
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    max_tokens: int = Field(default=512, ge=1)
    concurrency: int = Field(default=4, ge=1, le=512)
    rpm: int = Field(default=0, ge=0)  # 0: no limit
    max_input_tokens: int | None = Field(default=None, ge=1)
    description: str = ""
    mode: Literal["sync", "batch"] = "sync"  # batch: through the provider's batch API (judges/batch.py)
    batch: BatchSettings = Field(default_factory=BatchSettings)
    price: Price | None = None  # USD per million tokens; else litellm's price map (pinned with litellm)
    allow_unpriced: bool = False  # a hosted model with no price: estimated and judged with no cost, said so
    expected_output_tokens: int | None = Field(default=None, ge=1)  # the estimate's; else observed, else max_tokens
    max_cost_usd: float | None = Field(default=None, gt=0)  # the judge's budget: spent + reserved never past it

    @field_validator("extra")
    @classmethod
    def _extra_is_sane(cls, value: dict) -> dict:
        """Provider arguments beside the named fields: none of them a named field again (litellm would get it
        twice), and every number in them finite."""
        from cojudge_assets.judges.client import SET_BY_COJUDGE

        twice = sorted(set(value) & set(cls.model_fields))
        if twice:
            raise ValueError(f"{', '.join(twice)}: set as the judge's own field(s), never inside extra")
        if clash := sorted(set(value) & SET_BY_COJUDGE):
            raise ValueError(
                f"{', '.join(clash)}: cojudge sets this in every request itself (retries, streaming, the model's "
                "answer format); remove it from extra"
            )

        def numbers(item, where: str):
            if isinstance(item, dict):
                for key, inner in item.items():
                    yield from numbers(inner, f"{where}.{key}")
            elif isinstance(item, list):
                for i, inner in enumerate(item):
                    yield from numbers(inner, f"{where}[{i}]")
            elif isinstance(item, float):
                yield where, item

        for where, number in numbers(value, "extra"):
            if not math.isfinite(number):
                raise ValueError(f"{where} is {number}: expected a finite number")
        return value

    @field_validator("name")
    @classmethod
    def _partition_safe(cls, value: str) -> str:
        if not re.fullmatch(NAME_PATTERN, value):
            raise ValueError(
                "must start with a letter or digit, then letters, digits, '.', '_' or '-' "
                "(it is a partition key and part of file names)"
            )
        if len(value) > MAX_NAME_LENGTH:
            raise ValueError(
                f"is {len(value)} characters long; at most {MAX_NAME_LENGTH} (it is part of file names: figures, "
                "partitions)"
            )
        return value

    @field_validator("api_key_env")
    @classmethod
    def _names_a_variable(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Z_][A-Z0-9_]*", value):
            raise ValueError(
                "must be the NAME of an environment variable (for example OPENAI_API_KEY), never the key itself"
            )
        return value

    @model_validator(mode="after")
    def _model_or_import(self) -> JudgeSpec:
        if not self.model and self.imported is None:
            raise ValueError(
                "field 'model' is required (a litellm model string), unless the judge is imported "
                "(an 'imported:' source)"
            )
        return self

    @field_validator("mode")
    @classmethod
    def _batch_provider(cls, value: str, info: ValidationInfo) -> str:
        """``mode: batch`` only where litellm can create batches (an OpenAI-compatible server); never a silent
        fallback to the synchronous path (judges/batch.py ``batch_refusal``)."""
        if value == "batch":
            from cojudge_assets.judges.batch import batch_refusal

            refusal = batch_refusal(str(info.data.get("model") or ""))
            if refusal:
                raise ValueError(refusal)
        return value

    @property
    def is_imported(self) -> bool:
        return self.imported is not None

    @property
    def asked(self) -> bool:
        """Whether cojudge sends this judge requests (a hosted or local judge; not an imported one)."""
        return self.imported is None

    @property
    def local(self) -> bool:
        from cojudge_assets.judges.local import LOCAL_PROVIDER

        return self.imported is None and self.model.startswith(f"{LOCAL_PROVIDER}/")

    @property
    def provider(self) -> str:
        """Who serves this judge: ``local``, the api_base's host:port, or litellm's provider prefix. Runs of the
        judge's partitions carry it as the tag ``cojudge/provider`` (a concurrency pool per provider)."""
        if self.local:
            return "local"
        if self.imported is not None:
            return "imported"
        if self.api_base:
            return urlparse(self.api_base).netloc or self.api_base
        return self.model.split("/", 1)[0] if "/" in self.model else self.model

    def answer_settings(self) -> dict:
        """What shapes this judge's answers, as opposed to how fast or how often it is asked: a change here
        under the same name starts the judge's next epoch (judges/store.settled_epoch), so its partitions are
        judged again beside the old answers. ``api_base`` is where the model is served, not what it is (a
        provider that serves another model there is the drift sensor's business); ``extra`` enters by its hash
        alone, as it may carry provider headers."""
        settings = {name: getattr(self, name) for name in ANSWER_SETTINGS}
        if self.top_p is not None:  # only when set: a file without it keeps its judges' epochs
            settings["top_p"] = self.top_p
        extra = json.dumps(self.extra, sort_keys=True, default=str).encode()
        settings["extra"] = hashlib.sha256(extra).hexdigest()[:16]
        if self.local:  # a local judge's answers also change with its code: its version opens a new epoch
            from cojudge_assets.judges.local import LOCAL_JUDGES_VERSION

            settings["local_judges_version"] = LOCAL_JUDGES_VERSION
        return settings

    def client_config(self) -> JudgeConfig:
        """The request settings of this judge: the spec itself (a JudgeConfig), for the request path."""
        return self


class JudgesConfigError(ValueError):
    """A judges file that cannot be used; ``lines``: one line per violation, each naming the judge and field."""

    def __init__(self, message: str, lines: list[str] | None = None):
        super().__init__(message)
        self.lines = lines or [" ".join(message.split())]


def judges_file(environ: Mapping[str, str] | None = None) -> Path:
    """The judges file of a deployment that names none explicitly: ``$COJUDGE_JUDGES`` in ``environ`` (the
    process's environment by default), else ``data/judges.yaml`` (the shipped one where the working folder has
    none: settings.py ``default_judges``). The one place the variable is read: the
    Definitions read it once when they are built (definitions.py), the command for its default (cli.py); every
    other reader is handed the path (``JudgesResource``, defs/resources.py)."""
    from cojudge_assets.settings import default_judges

    return Path((os.environ if environ is None else environ).get(JUDGES_VARIABLE) or default_judges())


def load_judges(path: Path | None = None) -> list[JudgeSpec]:
    """Every judge of the file, enabled or not, in file order (parsed once per version of the file)."""
    path = Path(path or judges_file())
    return [spec.model_copy(deep=True) for spec in _parse_judges(path, _read(path))]


def _read(path: Path) -> str:
    """The file's text: a regular file of at most :data:`MAX_FILE_BYTES`, UTF-8; else one line saying which."""
    try:
        if not path.exists():
            raise JudgesConfigError(f"{path}: judges config file not found (set COJUDGE_JUDGES or create it)")
        if path.is_dir():
            raise JudgesConfigError(f"{path}: is a folder; expected a judges file (YAML)")
        if not path.is_file():  # a FIFO or a device would block the read or never end
            raise JudgesConfigError(f"{path}: not a regular file; expected a judges file (YAML)")
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise JudgesConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise JudgesConfigError(f"{path}: larger than {MAX_FILE_BYTES} bytes; expected a judges file (YAML)")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise JudgesConfigError(
            f"{path}: not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r}); save it as UTF-8"
        ) from None


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with aliases refused (``*name``: an alias bomb of a few hundred bytes expands to 10^9
    values) and nesting bounded by :data:`MAX_DEPTH` (5,000 levels exhaust the recursion of its composer)."""

    depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None,
                None,
                "aliases (*name) are not allowed in a judges file: write the value out",
                self.peek_event().start_mark,
            )
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_DEPTH} levels", self.peek_event().start_mark
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


@functools.lru_cache(maxsize=8)
def _parse_judges(path: Path, text: str) -> tuple[JudgeSpec, ...]:
    """The judges of one content of the file (the text keys the cache: an edit is parsed again)."""
    try:
        document = yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader, aliases and depth bounded
    except yaml.YAMLError as exc:
        raise JudgesConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("judges"), list):
        raise JudgesConfigError(f"{path}: expected a mapping with a list under 'judges'")
    violations = [
        f"{path}: field {key!r}: unknown top-level key (a judges file has: {', '.join(JudgesFile.model_fields)})"
        for key in document
        if key not in JudgesFile.model_fields
    ]
    try:
        JudgesFile.model_validate({k: v for k, v in document.items() if k in JudgesFile.model_fields})
    except ValidationError as exc:
        violations.extend(f"{path}: {_violation(e)}" for e in exc.errors())
    specs, seen = [], set()
    for i, entry in enumerate(document["judges"]):  # every judge, every field: all violations at once
        label = str(entry.get("name", f"#{i + 1}")) if isinstance(entry, dict) else f"#{i + 1}"
        label = label if len(label) <= MAX_NAME_LENGTH else f"#{i + 1} ({label[:24]}...)"  # a name too long
        try:
            spec = JudgeSpec.model_validate(entry)
        except ValidationError as exc:
            violations.extend(f"{path}: judge {label}: {_violation(e)}" for e in exc.errors())
            continue
        if spec.imported is not None and spec.imported.layout == "file":
            spec.imported = spec.imported.model_copy(update={"path": str(spec.imported.resolve(path.parent).resolve())})
        if spec.name in seen:
            violations.append(f"{path}: judge {spec.name}: field 'name': used twice; names must be unique")
        seen.add(spec.name)
        specs.append(spec)
    if violations:
        raise JudgesConfigError("; ".join(violations), violations)
    return tuple(specs)


def _violation(error) -> str:
    """One pydantic error as "field 'x': message (got value)", on one line."""
    where = ".".join(map(str, error["loc"])) or "(entry)"
    got = error.get("input")
    shown = "" if isinstance(got, dict | list) or error["type"] == "missing" else f" (got {got!r})"
    shown = shown if len(shown) <= 90 else f"{shown[:80]}...)"
    return " ".join(f"field '{where}': {error['msg']}{shown}".split())


def enabled_judges(path: Path | None = None) -> list[JudgeSpec]:
    return [s for s in load_judges(path) if s.enabled]


def judge_by_name(name: str, path: Path | None = None) -> JudgeSpec:
    for spec in load_judges(path):
        if spec.name == name:
            return spec
    raise JudgesConfigError(f"{path or judges_file()}: no judge named {name!r}")


def layout_judges(corpus: Path, layout: str) -> list[JudgeSpec]:
    """The imported judges a corpus layout brings with it (the ICE-Score release's judge files); none for the
    other layouts. Cheap: file names only, nothing is read."""
    if layout != "icescore":
        return []
    from cojudge_assets.core.ingest.icescore import icescore_judge_scale, icescore_judges

    specs = []
    for name in icescore_judges(Path(corpus)):
        low, high, integer = icescore_judge_scale(name)
        specs.append(
            JudgeSpec(
                name=name,
                imported=ImportedSource(
                    path=str(Path(corpus).resolve()),
                    layout="icescore",
                    judge=name,
                    scale=Scale(min=low, max=high, integer=integer),
                ),
                description=f"imported from the ICE-Score release ({name})",
            )
        )
    return specs


def corpus_judges(corpus: Path, layout: str, path: Path | None = None) -> list[JudgeSpec]:
    """The judges of a run on this corpus: the enabled judges of the judges file, then the layout's imported
    ones. A name used by both is an error (the judges file would silently shadow the release's judge)."""
    specs = enabled_judges(path)
    names = {s.name for s in specs}
    for spec in layout_judges(corpus, layout):
        if spec.name in names:
            raise JudgesConfigError(
                f"{path or judges_file()}: judge {spec.name}: field 'name': the corpus at "
                f"{corpus} (layout {layout}) brings an imported judge of that name; rename one"
            )
        specs.append(spec)
    return specs


def find_judge(name: str, corpus: Path | None = None, layout: str = "pages", path: Path | None = None) -> JudgeSpec:
    """A judge of the judges file or of the corpus layout (when a corpus is given), by name."""
    for spec in layout_judges(corpus, layout) if corpus is not None else []:
        if spec.name == name:
            return spec
    return judge_by_name(name, path)


def rate_of_one_run(spec: JudgeSpec, runs: int) -> JudgeSpec:
    """The judge as one of ``runs`` runs that judge it at once, each with a requests-per-minute limiter of its own
    (judges/runner.py): its ``rpm`` shared among them (rounded down, at least 1 a minute), so that together they
    keep to it. Unchanged with one run, or without an ``rpm``.

    >>> spec = JudgeSpec(name="j", model="openai/gpt-5.2", rpm=500)
    >>> rate_of_one_run(spec, 3).rpm, rate_of_one_run(spec, 1).rpm, rate_of_one_run(spec, 1000).rpm
    (166, 500, 1)
    """
    if runs <= 1 or not spec.rpm:
        return spec
    return spec.model_copy(update={"rpm": max(1, spec.rpm // runs)})
