"""The Dagster UI, as a user starts it, draws cojudge's asset graph: every asset a labelled node.

The webserver runs as its own process group on a free loopback port, against a
DAGSTER_HOME, a DuckDB path and a judges file in tmp_path; it is killed in the
fixture's teardown whatever the test did.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import dagster as dg
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_tests.report.browser import expect, png_colour_count

REPO = Path(__file__).resolve().parents[2]
STARTUP_S = 90
# Dagster 1.13's "Global asset lineage" page (the Lineage entry of the side bar)
LINEAGE_PATH = "/asset-groups"
SHOWN_ASSETS = ("attempts", "judge_outputs", "judge_metrics")
# One enabled local judge, so judge_outputs exists whatever the user's data/judges.yaml enables.
JUDGES_YAML = "judges:\n  - name: static-rubric\n    model: cojudge/static-rubric\n    concurrency: 1\n"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def log_tail(path: Path, lines: int = 40) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the server's process group (the webserver and its code server), SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    for sig, grace in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture
def cojudge_env(tmp_path, monkeypatch) -> dict[str, str]:
    """DAGSTER_HOME, DuckDB file and judges file in tmp_path, for the server and this process alike."""
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(REPO / "dagster_home" / "dagster.yaml", home / "dagster.yaml")
    judges = tmp_path / "judges.yaml"
    judges.write_text(JUDGES_YAML)
    settings = {"DAGSTER_HOME": str(home), "COJUDGE_DUCKDB": str(tmp_path / "c.duckdb"), "COJUDGE_JUDGES": str(judges)}
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    return settings


@pytest.fixture
def webserver(cojudge_env, tmp_path):
    """The base URL of a running ``dagster-webserver -m cojudge_assets.definitions``."""
    port = free_port()
    log = tmp_path / "webserver.log"
    command = [
        str(Path(sys.executable).parent / "dagster-webserver"),
        "-h",
        "127.0.0.1",
        "-p",
        str(port),
        "-m",
        "cojudge_assets.definitions",
    ]
    with log.open("w") as out:
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env={**os.environ, **cojudge_env},
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"dagster-webserver exited with {process.returncode}:\n{log_tail(log)}")
            try:
                with urllib.request.urlopen(f"{base}/server_info", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"dagster-webserver did not answer {base}/server_info within {STARTUP_S} s:\n{log_tail(log)}"
                )
            time.sleep(0.5)
        yield base
    finally:
        stop(process)


@pytest.mark.timeout(240)
def test_lineage_page_draws_every_asset(chromium, webserver, tmp_path):
    expected_assets = {key.to_user_string() for key in build_definitions().resolve_asset_graph().get_all_asset_keys()}
    assert set(SHOWN_ASSETS) <= expected_assets

    context = chromium.new_context(viewport={"width": 2400, "height": 3000})
    # The "Join the Dagster community" dialog opens on localhost until dismissed; mark it dismissed as a
    # user's click on "Skip" would, so it does not cover the graph.
    context.add_init_script("window.localStorage.setItem('communityNux', JSON.stringify('1'))")
    page = context.new_page()
    console_errors = []
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    try:
        page.goto(webserver + LINEAGE_PATH)
        expect(page.get_by_text("Global asset lineage", exact=True)).to_be_visible(timeout=60_000)
        graph = page.locator("svg[class*='AssetGraphExplorer_svgContainer']")
        collapsed_groups = graph.locator("[class*='CollapsedGroupNode_collapsedGroupNodeContainer']")
        # a node is drawn with its full card, or, zoomed out to fit a large graph, as a minimal box with its name
        asset_names = graph.locator(
            "foreignObject [class*='AssetNode_assetName'], foreignObject [class*='AssetNode_minimalName']"
        )
        expect(collapsed_groups.or_(asset_names).first).to_be_visible(timeout=60_000)
        if collapsed_groups.count():
            # a graph this size opens with its groups collapsed; "Expand all groups" is Alt+E (graph settings)
            page.keyboard.press("Alt+KeyE")
        expect(collapsed_groups).to_have_count(0)
        page.wait_for_timeout(500)  # the viewport animates to fit the expanded graph
        expect(asset_names.first).to_be_visible()
        # the graph draws only the nodes inside the viewport, and a graph this size is taller than it: scroll (the
        # mouse wheel pans the graph) through it from end to end and collect every name drawn on the way
        drawn: set[str] = set()
        page.mouse.move(1200, 1500)
        for delta in [1000] * 8 + [-1000] * 16:
            drawn.update(name.strip() for name in asset_names.all_inner_texts())
            page.mouse.wheel(0, delta)
            page.wait_for_timeout(250)
        drawn.update(name.strip() for name in asset_names.all_inner_texts())
        # a long name is drawn shortened in its middle ("perturbat…_metrics"): each drawn name stands for the one
        # asset it abbreviates
        assert {_full_name(name, expected_assets) for name in drawn} == expected_assets
        shot = tmp_path / "dagster_asset_graph.png"
        page.screenshot(path=shot)
        print(f"Dagster UI screenshot: {shot} ({page.url})")
    finally:
        context.close()

    assert shot.stat().st_size > 50_000
    assert png_colour_count(shot) > 50  # nodes, edges, group boxes and text, not a blank or loading page
    assert console_errors == []


def _full_name(drawn: str, names: set[str]) -> str:
    """The one name of ``names`` that ``drawn`` is (whole, or shortened in its middle with an ellipsis)."""
    head, ellipsis, tail = drawn.partition("\u2026")
    matches = [name for name in names if name == drawn or (ellipsis and name.startswith(head) and name.endswith(tail))]
    assert len(matches) == 1, (drawn, matches)
    return matches[0]


def test_no_internal_metadata_key_reaches_the_ui(tmp_path, monkeypatch):
    """The asset page shows every definition metadata entry: only entries meant for a user are there (the report's
    storage in files is told by its kinds, not by a cojudge/ key)."""
    from cojudge_assets.defs.io import KINDS as TABLE_KINDS

    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "x.duckdb"))
    graph = build_definitions().resolve_asset_graph()
    shown = {key.to_user_string(): sorted(graph.get(key).metadata) for key in graph.get_all_asset_keys()}
    assert {name: keys for name, keys in shown.items() if any(k.startswith("cojudge/") for k in keys)} == {}
    report = graph.get(dg.AssetKey("report"))
    assert not TABLE_KINDS <= report.kinds  # not looked for in the DuckDB file
    assert TABLE_KINDS <= graph.get(dg.AssetKey("judge_metrics")).kinds


def test_the_code_location_is_named_in_both_dagster_tables_of_pyproject():
    """dg names the code location after the checkout folder unless [tool.dg.project] names it: a clone in a folder
    named otherwise then warned once per component ("does not match the name 'cojudge'")."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert config["tool"]["dg"]["project"]["code_location_name"] == config["tool"]["dagster"]["code_location_name"]
