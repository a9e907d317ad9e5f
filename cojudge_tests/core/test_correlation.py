"""Corpus- and example-level correlations against scipy, their bootstrap, and a fake ICE-Score release."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

from cojudge_assets.core.ingest.icescore import icescore_judge_files, icescore_judges, read_icescore, strict_answer
from cojudge_assets.core.measurement.correlation import METRICS, _per_problem, _resampled, correlation_table

SCIPY = {"kendall_tau_b": stats.kendalltau, "spearman": stats.spearmanr, "pearson": stats.pearsonr}

# a hand example: problem "a" has tied scores, "b" is ordinary, "c" has one label only (undefined),
# "d" has one item (undefined)
Y = np.array([0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0])
S = np.array([2, 3, 3, 3, 4, 0.9, 0.1, 0.5, 0.4, 1, 2, 3, 4], dtype=float)
P = np.array(["a"] * 5 + ["b"] * 4 + ["c"] * 3 + ["d"])


def _by_metric(rows):
    return {r["metric"]: r for r in rows}


def test_point_values_equal_scipy_on_a_hand_example():
    rows = _by_metric(correlation_table(Y, S, P, problems=P, resamples=0))
    for name, f in SCIPY.items():
        assert rows[f"{name}_corpus"]["value"] == pytest.approx(f(Y, S).statistic, abs=1e-12)
        assert rows[f"{name}_corpus"]["n"] == len(Y)
        within = [f(Y[P == p], S[P == p]).statistic for p in ("a", "b")]  # c and d have no correlation
        assert rows[f"{name}_example"]["value"] == pytest.approx(np.mean(within), abs=1e-12)
        assert rows[f"{name}_example"]["n"] == 2
    # by hand, problem "a": positives score 3, 3, 4 and negatives 2, 3; of the 6 (positive, negative) pairs 4 are
    # concordant, 2 tied on the score, none discordant; of the 10 pairs 4 are tied on the label, 3 on the score:
    # tau-b = (4 - 0) / sqrt((10 - 4) * (10 - 3))
    assert _per_problem(Y[:5], S[:5], np.zeros(5, dtype=np.int64))[0, 0] == pytest.approx(4 / np.sqrt(6 * 7))


def test_undefined_problems_are_left_out_as_nanmean_does():
    rows = _by_metric(correlation_table(Y, S, P, problems=P, resamples=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = [stats.kendalltau(Y[P == p], S[P == p]).statistic for p in ("a", "b", "c")]
    assert np.isnan(values[2])
    assert rows["kendall_tau_b_example"]["value"] == pytest.approx(np.nanmean(values))


def test_constant_scores_give_nan_not_an_error():
    rows = correlation_table(Y, np.full(len(Y), 2.0), P, problems=P, resamples=50)
    assert all(np.isnan(r["value"]) and np.isnan(r["lo"]) for r in rows)
    assert {r["n"] for r in rows if r["metric"].endswith("_example")} == {0}


@pytest.mark.parametrize("ties", [False, True])
def test_resampled_statistics_equal_scipy_on_the_resampled_arrays(ties):
    rng = np.random.default_rng(7)
    n, g = 300, 30
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) * 4) if ties else rng.random(n) + y * 0.3
    clusters = rng.integers(0, g, n)
    counts = rng.multinomial(g, np.full(g, 1 / g), size=6).astype(np.float64)
    ours = _resampled(y, s, clusters, counts)
    for b in range(len(counts)):
        take = np.repeat(np.arange(n), counts[b, clusters].astype(int))
        for j, name in enumerate(METRICS):
            assert ours[b, j] == pytest.approx(SCIPY[name](y[take], s[take]).statistic, abs=1e-10)


def test_per_problem_statistics_equal_scipy():
    rng = np.random.default_rng(3)
    problem = np.repeat(np.arange(40), 20)
    y = rng.integers(0, 2, len(problem))
    s = rng.integers(0, 5, len(problem)).astype(float)  # a 0-4 scale: many ties
    ours = _per_problem(y, s, problem)
    for p in range(40):
        yy, ss = y[problem == p], s[problem == p]
        for j, name in enumerate(METRICS):
            assert ours[p, j] == pytest.approx(SCIPY[name](yy, ss).statistic, abs=1e-10)


def test_intervals_contain_the_estimate_and_are_seeded():
    rng = np.random.default_rng(11)
    problem = np.repeat(np.arange(60), 20)
    y = rng.integers(0, 2, len(problem))
    s = y * 0.5 + rng.random(len(problem))
    rows = correlation_table(y, s, problem, problems=problem, resamples=400, seed=5)
    for r in rows:
        assert r["lo"] < r["value"] < r["hi"], r
    assert rows == correlation_table(y, s, problem, problems=problem, resamples=400, seed=5)
    assert rows != correlation_table(y, s, problem, problems=problem, resamples=400, seed=6)


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"score": S[:-1]}, "score"),
        ({"groups": P[:-1]}, "groups"),
        ({"problems": P[:-1]}, "problems"),
        ({"y": np.where(Y == 1, 2, 0)}, "y"),
        ({"score": np.r_[S[:-1], np.nan]}, "score"),
        ({"resamples": -1}, "resamples"),
    ],
)
def test_bad_inputs_name_the_argument(kwargs, argument):
    args = {"y": Y, "score": S, "groups": P, "problems": P, "resamples": 10, **kwargs}
    with pytest.raises(ValueError, match=rf"^{argument}:"):
        correlation_table(
            args["y"], args["score"], args["groups"], problems=args["problems"], resamples=args["resamples"]
        )


# -- a fake release: a C++ folder whose GPT file has the deviating name, read without code change ---------


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def fake_release(root: Path, *, canonical_too: bool = False) -> Path:
    rng = np.random.default_rng(1)
    problems, gpt, gpt_other, cbs = [], [], [], []
    for t in range(6):
        entry = {"intent": f"int f{t}(int x) {{\n", "snippet": [f"return x + {t};\n}}\n"], "task_id": str(t)}
        answers, other, scores = {}, {}, {}
        for gid in range(10 * t, 10 * t + 8):
            execution = int(rng.random() < 0.5)
            entry[str(gid)] = f"return x + {gid};"
            entry[f"grade-{gid}"] = {"execution": execution}
            answer = str(int(np.clip(execution * 2 + rng.integers(0, 3), 0, 4)))
            answers[f"grade-{gid}"] = {"execution": execution, "raw_output": answer}
            other[f"grade-{gid}"] = {"execution": execution, "raw_output": "0"}
            scores[f"grade-{gid}"] = {"execution": execution}
            value = float(execution * 0.3 + rng.random() * 0.7)
            scores[f"codebertscore-{gid}"] = {"P": value, "R": value, "F1": value, "F3": value / 2}
        problems.append(entry)
        gpt.append(answers)
        gpt_other.append(other)
        cbs.append(scores)
    gpt[0]["grade-0"]["raw_output"] = "Score: 3"  # a real quirk: kept as text, invalid when parsed strictly
    del gpt[1]["grade-10"]  # an item without an answer
    cbs[2]["grade-21"]["execution"] = 1 - cbs[2]["grade-21"]["execution"]  # a label that disagrees
    _write(root / "data" / "humaneval" / "humaneval_cpp_grade.json", problems)
    folder = root / "experiment_source" / "original_output" / "humaneval" / "cpp"
    _write(folder / "_cpp_humaneval_no_step_with_ref_gpt35.json", gpt)
    if canonical_too:
        _write(folder / "cpp_humaneval_no_step_with_ref_gpt35.json", gpt_other)
    _write(folder / "cpp_humaneval_codebertscore.json", cbs)
    _write(folder / "notes.json", {})  # not a judge file: reported, not read
    return root


def test_fake_cpp_release_with_the_deviating_file_name(tmp_path):
    root = fake_release(tmp_path)
    assert icescore_judges(root) == ["codebertscore-f1", "codebertscore-f3", "gpt-3.5-ref"]
    assert [p.name for p in icescore_judge_files(root)["gpt-3.5-ref"]] == ["_cpp_humaneval_no_step_with_ref_gpt35.json"]
    corpus = read_icescore(root)
    assert corpus.attempts.height == 48 and corpus.raw_files == 48
    assert set(corpus.attempts["language"]) == {"cpp"}
    assert corpus.attempts["problem_id"].n_unique() == 6
    assert corpus.problems["reference_solution"][0] == "return x + 0;\n}\n"
    counts = dict(corpus.judgments.group_by("judge").len().iter_rows())
    assert counts == {"gpt-3.5-ref": 47, "codebertscore-f1": 47, "codebertscore-f3": 47}
    reasons = corpus.quarantine["reason"].to_list()
    assert any("notes.json: not a judge file" in r for r in reasons)
    assert any("no answer for humaneval/cpp/1/10 (gpt-3.5-ref)" in r for r in reasons)
    assert any("humaneval/cpp/2/21: judgment not used (codebertscore-f1/codebertscore-f3)" in r for r in reasons)
    raw = corpus.judgments.filter(item="humaneval/cpp/0/0", judge="gpt-3.5-ref")["raw_answer"].item()
    assert raw == "Score: 3" and strict_answer(raw, corpus.scales["gpt-3.5-ref"]) is None
    # its correlations are scipy's on the valid answers
    gpt = (
        corpus.judgments.filter(judge="gpt-3.5-ref")
        .with_columns(
            pl.col("raw_answer")
            .map_elements(lambda r: strict_answer(r, (0, 4, True)), return_dtype=pl.Float64)
            .alias("s")
        )
        .drop_nulls("s")
        .join(corpus.attempts.select(pl.col("attempt_uid").alias("item"), "accepted", "problem_id"), on="item")
    )
    y, s = gpt["accepted"].cast(pl.Int64).to_numpy(), gpt["s"].to_numpy()
    rows = _by_metric(correlation_table(y, s, gpt["problem_id"], problems=gpt["problem_id"], resamples=0))
    assert len(y) == 46
    assert rows["kendall_tau_b_corpus"]["value"] == pytest.approx(stats.kendalltau(y, s).statistic)


def test_the_file_following_the_pattern_wins_over_the_underscored_run(tmp_path):
    corpus = read_icescore(fake_release(tmp_path, canonical_too=True))
    used = corpus.judgments.filter(judge="gpt-3.5-ref")
    assert set(used["source_file"]) == {
        "experiment_source/original_output/humaneval/cpp/cpp_humaneval_no_step_with_ref_gpt35.json"
    }
    assert set(used["raw_answer"]) == {"0"}
    stray = "_cpp_humaneval_no_step_with_ref_gpt35.json"
    skipped = corpus.quarantine.filter(pl.col("source_path").str.ends_with(stray))
    assert skipped.height == 1 and "another file for the same judge and language" in skipped["reason"].item()
