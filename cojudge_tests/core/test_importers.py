"""ProgSnap2 and CodeNet importers on small hand-made corpora, and the label audit on real ITSP programs."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from cojudge_assets.core.ingest.codenet import read_codenet, read_codenet_problems, statement_samples
from cojudge_assets.core.ingest.kattis import read_problems
from cojudge_assets.core.ingest.label_audit import audit_labels
from cojudge_assets.core.ingest.progsnap2 import read_progsnap2
from cojudge_tests.conftest import SHARED_CORPORA

MAIN = """EventType,EventID,Order,SubjectID,ProblemID,CodeStateID,ServerTimestamp,Score,Correct,Verdict,Language
Run.Program,e0,1,s1,p1,c1,2024-01-01T10:00:00,,,,Python
Submit,e2,3,s1,p1,c2,2024-01-01T10:05:00,,false,,Python
Submit,e1,2,s1,p1,c1,2024-01-01T10:01:00,,false,WA,Python
Submit,e3,4,s1,p1,c3,2024-01-01T10:09:00,1,true,,Python
Submit,e4,1,s2,p1,c1,,,,,Python
Submit,e5,2,s2,p1,c2,,0.5,,,Python
Submit,e6,3,s2,p2,c3,,,,Time Limit Exceeded,Java
"""


def write_progsnap2(root: Path, states_as_folders: bool = False) -> Path:
    folder = root / "progsnap2"
    (folder / "CodeStates").mkdir(parents=True)
    (folder / "MainTable.csv").write_text(MAIN)
    codes = {"c1": "print(1)\n", "c2": "print(2)\n", "c3": "print(3)\n"}
    if states_as_folders:
        for cid, code in codes.items():
            (folder / "CodeStates" / cid).mkdir()
            (folder / "CodeStates" / cid / "main.py").write_text(code)
    else:
        pl.DataFrame({"CodeStateID": list(codes), "Code": list(codes.values())}).write_csv(
            folder / "CodeStates" / "CodeStates.csv"
        )
    return root


@pytest.mark.parametrize("as_folders", [False, True])
def test_progsnap2_submit_events_labels_and_order(tmp_path, as_folders):
    attempts, quarantine, submits = read_progsnap2(write_progsnap2(tmp_path, as_folders))
    assert submits == 6 and len(attempts) + len(quarantine) == submits
    s1 = attempts.filter(pl.col("participant") == "s1").sort("turn")
    assert s1["submission_id"].to_list() == ["e1", "e2", "e3"]  # by ServerTimestamp
    assert s1["verdict"].to_list() == ["WA", "REJ", "AC"]  # Verdict column, then Correct
    assert s1["code"].to_list() == ["print(1)\n", "print(2)\n", "print(3)\n"]
    e5 = attempts.filter(pl.col("submission_id") == "e5").row(0, named=True)
    assert (e5["verdict"], e5["result"]) == ("REJ", "Score=0.5")  # no Correct: Score
    assert attempts.filter(pl.col("submission_id") == "e6")["verdict"].item() == "TLE"
    reasons = dict(zip(quarantine["source_path"], quarantine["reason"]))
    assert "no usable label" in reasons["progsnap2/MainTable.csv#e4"]
    assert set(attempts["attempt_uid"]) == {f"progsnap2/e{i}" for i in (1, 2, 3, 5, 6)}


def test_progsnap2_missing_code_state_is_quarantined(tmp_path):
    write_progsnap2(tmp_path)
    main = tmp_path / "progsnap2" / "MainTable.csv"
    main.write_text(main.read_text().replace("Submit,e3,4,s1,p1,c3", "Submit,e3,4,s1,p1,c404"))
    _, quarantine, _ = read_progsnap2(tmp_path)
    row = quarantine.filter(pl.col("source_path").str.ends_with("#e3")).row(0, named=True)
    assert (row["stage"], row["field"]) == ("code", "CodeStateID") and "c404" in row["reason"]


DESCRIPTION = """<html><body><h1>Sum of Two</h1><p>Print a+b.</p><h2>Input</h2><p>Two integers.</p>
<h2>Sample Input 1</h2><pre>1 2
</pre><h2>Sample Output 1</h2><pre>3
</pre><h2>Sample Input 2</h2><pre>5 5</pre><h2>Sample Output 2</h2><pre>10</pre></body></html>"""


def write_codenet(root: Path) -> Path:
    (root / "metadata").mkdir(parents=True)
    (root / "problem_descriptions").mkdir()
    (root / "problem_descriptions" / "p00001.html").write_text(DESCRIPTION)
    (root / "metadata" / "problem_list.csv").write_text(
        "id,name,dataset,time_limit,memory_limit,rating,tags,complexity\np00001,Sum of Two,AIZU,1000,131072,,,\n"
    )
    (root / "metadata" / "p00001.csv").write_text(
        "submission_id,problem_id,user_id,date,language,original_language,filename_ext,status,cpu_time,memory,"
        "code_size,accuracy\n"
        "s2,p00001,u1,1500000100,C++,C++14 (GCC 5.4.1),cpp,Accepted,0,0,10,1/1\n"
        "s1,p00001,u1,1500000000,C++,C++14 (GCC 5.4.1),cpp,Wrong Answer,0,0,10,0/1\n"
        "s3,p00001,u2,1500000200,Python,Python (3.4.3),py,Judge System Error,0,0,10,\n"
        "s4,p00001,u2,1500000300,Python,Python (3.4.3),py,Accepted,0,0,10,1/1\n"
    )
    for lang, sid, ext, code in [
        ("C++", "s1", "cpp", "int main(){}"),
        ("C++", "s2", "cpp", "int main(){return 0;}"),
        ("Python", "s3", "py", "print(1)"),
    ]:
        (root / "data" / "p00001" / lang).mkdir(parents=True, exist_ok=True)
        (root / "data" / "p00001" / lang / f"{sid}.{ext}").write_text(code)
    return root


def test_codenet_layout(tmp_path):
    root = write_codenet(tmp_path)
    attempts, quarantine, total = read_codenet(root)
    assert total == 4 and len(attempts) + len(quarantine) == 4
    u1 = attempts.filter(pl.col("participant") == "u1").sort("turn")
    assert u1["submission_id"].to_list() == ["s1", "s2"] and u1["verdict"].to_list() == ["WA", "AC"]
    assert u1["language"].to_list() == ["cpp", "cpp"]
    assert u1["attempt_uid"][0] == "data/p00001/C++/s1.cpp"
    stages = dict(zip(quarantine["source_path"], quarantine["stage"]))
    assert stages == {"metadata/p00001.csv#s3": "label", "metadata/p00001.csv#s4": "code"}
    problems = read_codenet_problems(root).row(0, named=True)
    assert (problems["time_limit_s"], problems["memory_mb"]) == (1.0, 128)
    assert problems["sample_inputs"] == ["1 2\n", "5 5\n"] and problems["sample_outputs"] == ["3\n", "10\n"]


def test_statement_samples_atcoder_headings():
    html = "<h3>入力例 1</h3><pre>3\n</pre><h3>出力例 1</h3><pre>6\n</pre>"
    _, ins, outs = statement_samples(html)
    assert (ins, outs) == (["3\n"], ["6\n"])


@pytest.mark.skipif(not SHARED_CORPORA.is_dir(), reason=f"shared corpora not found at {SHARED_CORPORA}")
def test_label_audit_on_real_itsp_programs(judge):
    """Re-execution of real student C programs agrees with the corpus's own re-execution column."""
    corpus = SHARED_CORPORA / "itsp-c"
    attempts, _, _ = read_progsnap2(corpus)
    main = pl.read_csv(corpus / "progsnap2" / "MainTable.csv", infer_schema=False).with_columns(
        ("progsnap2/" + pl.col("EventID")).alias("attempt_uid")
    )
    # every recorded/re-executed disagreement the corpus knows of, plus a fixed sample of the rest
    noisy = main.filter(pl.col("Verdict") != pl.col("ReexecVerdict"))["attempt_uid"].to_list()
    rest = main.filter(pl.col("Verdict") == pl.col("ReexecVerdict")).sort("attempt_uid")["attempt_uid"][::12]
    chosen = attempts.filter(pl.col("attempt_uid").is_in(noisy + rest.to_list()))
    audit = audit_labels(chosen, read_problems(corpus / "problems"), judge)
    assert len(audit) == len(chosen) > 60
    joined = audit.join(main.select("attempt_uid", "ReexecVerdict"), on="attempt_uid")
    assert (joined["reexec_verdict"] == joined["ReexecVerdict"]).mean() >= 0.95
    assert (~audit["verdict_agrees"]).sum() >= 0.9 * len(noisy)  # the noisy labels show up as disagreements
