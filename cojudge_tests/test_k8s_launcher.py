"""The Kubernetes run launcher of docs/operations.md (deploy/kubernetes/run_launcher.yaml) is valid configuration:
checked against dagster-k8s's own schema (``K8sRunLauncher.config_type()``) by Dagster's config validation, which
refuses a misspelt key, a missing required field and a value of the wrong type, naming it."""

from __future__ import annotations

import copy
import importlib
from pathlib import Path

import dagster as dg
import pytest
import yaml
from dagster_k8s import K8sRunLauncher

REPO = Path(__file__).resolve().parents[1]
FRAGMENT = REPO / "deploy" / "kubernetes" / "run_launcher.yaml"


def validate_launcher_config(config: dict) -> None:
    """Dagster's validation of ``config`` against the launcher's schema, through its public API: the schema is
    given to an op, and ``dg.validate_run_config`` checks the op's config (the instance does the same check when
    it loads dagster.yaml, but would then connect to a cluster). Raises ``dg.DagsterInvalidConfigError``."""

    @dg.op(config_schema=K8sRunLauncher.config_type())
    def run_launcher() -> None: ...

    @dg.job
    def check() -> None:
        run_launcher()

    dg.validate_run_config(check, {"ops": {"run_launcher": {"config": config}}})


def fragment() -> dict:
    return yaml.safe_load(FRAGMENT.read_text())["run_launcher"]


def test_the_documented_launcher_is_valid_configuration():
    launcher = fragment()
    assert set(launcher) == {"module", "class", "config"}
    assert getattr(importlib.import_module(launcher["module"]), launcher["class"]) is K8sRunLauncher
    validate_launcher_config(launcher["config"])
    assert str(FRAGMENT.relative_to(REPO)) in (REPO / "docs" / "operations.md").read_text()


@pytest.mark.parametrize(
    ("plant", "named"),
    [
        (lambda c: c.update(job_namepsace=c.pop("job_namespace")), "job_namepsace"),  # a misspelt key
        (lambda c: c.pop("instance_config_map"), "instance_config_map"),  # a missing required field
        (lambda c: c.update(load_incluster_config="yes"), "load_incluster_config"),  # a wrong type
        (lambda c: c["volume_mounts"].append("corpus"), "volume_mounts"),  # a list item of the wrong shape
    ],
)
def test_a_planted_mistake_is_refused_naming_it(plant, named):
    config = copy.deepcopy(fragment()["config"])
    plant(config)
    with pytest.raises(dg.DagsterInvalidConfigError) as refused:
        validate_launcher_config(config)
    assert named in str(refused.value)
