"""The code location loads and holds the asset graph the design names."""

import dagster as dg

from cojudge_assets.definitions import JOB_ORDER, build_definitions


def test_definitions_load_with_the_ingest_group(tmp_path, monkeypatch):
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "x.duckdb"))
    defs = build_definitions()
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"problems", "submission_pages", "attempts", "prompt_logs", "quarantine",
            "participant_context"} <= keys
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        assert node.group_name in {"ingest", "judging", "measurement", "perturbation", "dynamics", "report"}
        assert node.code_version is not None, key
    assert {job.name for job in defs.jobs} == set(JOB_ORDER)
    checks = {k.name for k in graph.asset_check_keys}
    assert {"result_strings_known", "submit_inside_window", "submit_order_matches_filenames",
            "attempt_uid_unique", "every_file_accounted_for", "no_label_in_requests",
            "one_valid_row_per_attempt"} <= checks
    outputs = graph.get(dg.AssetKey("judge_outputs")).partitions_def
    assert set(outputs.get_partition_keys()) >= {"blind|sample-exec", "nonblind|static-rubric"}


def test_duckdb_path_comes_from_the_environment(tmp_path, monkeypatch):
    target = tmp_path / "elsewhere.duckdb"
    monkeypatch.setenv("COJUDGE_DUCKDB", str(target))
    io_manager = build_definitions().resources["io_manager"]
    assert io_manager.database == str(target)
    assert isinstance(io_manager, dg.ConfigurableIOManagerFactory)
