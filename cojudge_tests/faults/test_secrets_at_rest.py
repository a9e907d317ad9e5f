"""Nothing unscrubbed at rest: a corpus whose chat logs hold every kind of secret and e-mail form goes through
the real ingest and request assets, and none of it is in any table of the DuckDB file or any file of the run.

The corpus is one problem package and two pages of the demo corpus, and three chat logs (Markdown, text,
HTML) of the same participant. The secrets are shaped like real ones and are not real.
"""

from __future__ import annotations

import re
import shutil

import dagster as dg
import duckdb

from cojudge_assets.core.ingest.attempts import PageRules, list_pages, read_attempts
from cojudge_assets.core.ingest.corpus import contest_settings
from cojudge_assets.definitions import INGEST_JOB, REQUESTS_JOB, build_definitions
from cojudge_tests.conftest import REPO

DEMO = REPO / "data" / "demo"
PAGES = ("intervals-01.html", "intervals-02.html")

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYXVsdC10ZXN0LXVzZXIiLCJpYXQiOjE3MDAwMDAwMDB9"
    ".Xq3mV9bQ7rT2wY5uI8oP1aS4dF6gH0jK3lZ7xC9vB2n"
)
GITHUB_PAT = "github_pat_11AQWE7RT0yUiOp9Lk8Jh_7Gf6Ds5Aa4Zx3Cv2Bn1Mm0"
PEM_LINE = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi9ZQ9lMlWzq3lC0mX8d7FqRt5Yp2Hk9vN1bG4sJ6wE0aU3iO8cL5xZ7yT"
# secret value -> the line of chat that carries it
SECRETS = {
    JWT: f"my session token is {JWT}",
    "Zk8uT3pQ9wR2vX7nM4bL6yH1": "curl -H 'Authorization: Bearer Zk8uT3pQ9wR2vX7nM4bL6yH1' https://api.example.net",
    "sk-proj-Fq7Lm2Xc9Vb4Nz8Kw1Pj6Rt3Hy5Gd0Sa": "OPENAI_API_KEY=sk-proj-Fq7Lm2Xc9Vb4Nz8Kw1Pj6Rt3Hy5Gd0Sa",
    "sk-ant-api03-Wd4Ke7Rf2Tg9Yh1Uj5Ik8Ol3Pm6Nq0Bv": "anthropic key sk-ant-api03-Wd4Ke7Rf2Tg9Yh1Uj5Ik8Ol3Pm6Nq0Bv",
    "ghp_Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7J8k9": "git push with ghp_Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7J8k9",
    "gho_Z9x8C7v6B5n4M3l2K1j0H9g8F7d6S5a4Q3w2": "oauth gho_Z9x8C7v6B5n4M3l2K1j0H9g8F7d6S5a4Q3w2",
    GITHUB_PAT: f"fine-grained {GITHUB_PAT}",
    "xoxb-2938475610-5647382910-Qw8Er7Ty6Ui5Op4As3Df2Gh1": "slack xoxb-2938475610-5647382910-Qw8Er7Ty6Ui5Op4As3Df2Gh1",
    "AKIAZ7Q4W2E8R5T1Y6U3": "aws_access_key_id = AKIAZ7Q4W2E8R5T1Y6U3",
    "Hs9Kd2/Lp4Mq7Nr1Wt5+Xv8Yz3Ab6Cd0EfGh2Jk4L": "aws_secret_access_key = Hs9Kd2/Lp4Mq7Nr1Wt5+Xv8Yz3Ab6Cd0EfGh2Jk4L",
    "AIzaSyQ8w7E6r5T4y3U2i1O0pLkJhGfDsAzXcVb": "maps key AIzaSyQ8w7E6r5T4y3U2i1O0pLkJhGfDsAzXcVb",
    "hf_Rt5Yu6Io7Pa8Sd9Fg0Hj1Kl2Zx3Cv4Bn5Mq6Wk": "HF_TOKEN is hf_Rt5Yu6Io7Pa8Sd9Fg0Hj1Kl2Zx3Cv4Bn5Mq6Wk",
    "sk_live_9Qw8Er7Ty6Ui5Op4As3Df2Gh": "stripe sk_live_9Qw8Er7Ty6Ui5Op4As3Df2Gh",
    "pk_live_3Zx4Cv5Bn6Mm7Lk8Jh9Gf0Ds": "and pk_live_3Zx4Cv5Bn6Mm7Lk8Jh9Gf0Ds",
    "p9Xr2Lk7Vm4Qw8Zt": "config: api_key=p9Xr2Lk7Vm4Qw8Zt",
    "7Hn3Jd8Ks2Lq5Mz9": "token: 7Hn3Jd8Ks2Lq5Mz9",
    PEM_LINE: f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_LINE}\n{PEM_LINE[::-1]}\n-----END RSA PRIVATE KEY-----",
    "Tr0ub4dor&3": "postgres://contest:Tr0ub4dor&3@db.example.net/scores",
}
# a word of each address that nothing else in the corpus contains -> the line that carries the address
EMAILS = {
    "quirinus": "mail quirinus.vogt@uni-example.edu",
    "ottiliex": "or ottiliex (at) example (dot) org",
    "bertrandz": "or bertrandz [at] mail [dot] example [dot] com",
    "wilhelmina": "or wilhelmina(at)example(dot)net",
    "casimirq": "or casimirq at example dot com",
    "leopoldine": "or leopoldine {at} example {dot} io",
    "ferdinandy": "or ferdinandy @ example.org",
}
PERSON = ("Evangelina", "Thorsdottir", "20249913")


def _corpus(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(DEMO / "problems" / "intervals", corpus / "problems" / "intervals")
    shutil.copy(DEMO / "contest.yaml", corpus / "contest.yaml")
    (corpus / "pages" / "u01").mkdir(parents=True)
    for page in PAGES:
        shutil.copy(DEMO / "pages" / "u01" / page, corpus / "pages" / "u01" / page)
    attempts, _ = read_attempts(
        corpus, list_pages(corpus), PageRules({"intervals"}, contest_settings(corpus).vocabulary)
    )
    code = attempts.sort("turn")["code"][0]
    logs = corpus / "logs" / "u01"
    logs.mkdir(parents=True)
    secrets, emails = list(SECRETS.values()), list(EMAILS.values())
    (logs / "session-1.md").write_text(
        f"**You:**\n\nHi, I'm {PERSON[0]} {PERSON[1]} (student no. {PERSON[2]}). Problem intervals, please.\n\n"
        + "\n".join(secrets[:9])
        + "\n\n"
        + "\n".join(emails[:4])
        + "\n\n"
        f"**Assistant:**\n\nHere you go, {PERSON[0]}:\n\n```cpp\n{code}\n```\n"
    )
    (logs / "session-2.txt").write_text(
        "USER:\nintervals again. " + "\n".join(secrets[9:]) + "\n" + "\n".join(emails[4:]) + "\n"
        f"ASSISTANT:\nNoted, {PERSON[1]} ({PERSON[2]}).\n"
    )
    (logs / "session-3.html").write_text(
        '<html><body><div class="message user"><div class="role">user</div>'
        f"<p>intervals: one more {SECRETS[JWT]} from {EMAILS['ottiliex']}</p>"
        f"<pre>{SECRETS['sk-proj-Fq7Lm2Xc9Vb4Nz8Kw1Pj6Rt3Hy5Gd0Sa']}</pre></div></body></html>"
    )
    return corpus


def _needles() -> list[str]:
    return [*SECRETS, *EMAILS, *PERSON]


def _table_text(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    tables = [
        r[0] for r in con.sql("select table_schema || '.' || table_name from information_schema.tables").fetchall()
    ]
    return {t: "\n".join(repr(row) for row in con.sql(f"select * from {t}").fetchall()) for t in tables}


def test_no_secret_and_no_email_in_any_table_or_file(tmp_path, monkeypatch):
    corpus = _corpus(tmp_path)
    raw = "\n".join(p.read_text() for p in sorted((corpus / "logs").rglob("*")) if p.is_file())
    assert all(needle in raw for needle in _needles())  # the test is not vacuous: all of it is in the input

    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv("COJUDGE_DUCKDB", str(out / "cojudge.duckdb"))
    defs = build_definitions()
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "pages"}}}}
    ingest = [
        dg.AssetKey(k)
        for k in ("problems", "submission_pages", "attempts", "prompt_logs", "quarantine", "participant_context")
    ]
    (out / "dagster_home").mkdir()  # the run's own storage (event log, run records), searched like every file
    with dg.DagsterInstance.local_temp(tempdir=str(out / "dagster_home")) as instance:
        result = defs.resolve_job_def(INGEST_JOB).execute_in_process(
            run_config=config, instance=instance, asset_selection=ingest
        )
        assert result.success
        checks = {e.asset_check_key.name: e.passed for e in result.get_asset_check_evaluations()}
        assert checks["prompt_logs_scrubbed"] is True
        for condition in ("blind", "prefix12k", "nonblind"):
            assert (
                defs.resolve_job_def(REQUESTS_JOB)
                .execute_in_process(run_config=config, instance=instance, partition_key=condition)
                .success
            )

    con = duckdb.connect(str(out / "cojudge.duckdb"), read_only=True)
    texts = _table_text(con)
    logs = con.sql("select * from main.prompt_logs").pl()
    provenance = dict(
        con.sql(
            "select a.turn, c.provenance from main.participant_context c join main.attempts a "
            "using (attempt_uid) where c.condition = 'nonblind'"
        ).fetchall()
    )
    con.close()
    assert {"main.prompt_logs", "main.participant_context", "main.judge_requests", "main.attempts"} <= set(texts)
    for table, text in texts.items():
        leaked = [needle for needle in _needles() if needle in text]
        assert not leaked, f"{table} holds {leaked}"
        assert not re.search(r"[\w.+-]+@[\w-]+\.[\w.-]+", text), f"{table} holds an e-mail address"

    # the logs were read and scrubbed, not dropped, and the code still anchors in the scrubbed log
    stored = "\n".join(logs["text"].to_list())
    for placeholder in ("[secret:jwt]", "[secret:openai]", "[secret:private-key]", "[email]", "[name]", "[id]"):
        assert placeholder in stored
    assert stored.count("[email]") >= len(EMAILS)
    assert set(logs["log_file"]) == {"logs/u01/session-1.md", "logs/u01/session-2.txt", "logs/u01/session-3.html"}
    assert provenance[1] == "anchored"  # the first attempt's code is in session-1.md

    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" for p in files) and any(p.suffix == ".duckdb" for p in files)
    assert any("dagster_home" in p.parts for p in files)  # the run's event log and run records are searched too
    for path in files:
        data = path.read_bytes()
        leaked = [needle for needle in _needles() if needle.encode() in data]
        assert not leaked, f"{path.relative_to(out)} holds {leaked}"
    requests = "".join(p.read_text() for p in files if p.suffix == ".jsonl")
    assert "[secret:" in requests and "[email]" in requests  # the context the judges get, scrubbed
