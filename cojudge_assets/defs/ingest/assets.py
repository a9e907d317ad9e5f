"""Group ``ingest``: contest data read into tables."""


import dagster as dg
import polars as pl

from cojudge_assets.core.problems import problems_table
from cojudge_assets.defs.resources import CorpusResource

KINDS = {"polars", "duckdb"}


@dg.asset(
    group_name="ingest",
    kinds=KINDS,
    code_version="1",
    description="One row per problem: full statement (constraints, format, examples), sample I/O, limits, "
    "where the hidden tests are.",
)
def problems(context: dg.AssetExecutionContext, corpus: CorpusResource) -> pl.DataFrame:
    table = problems_table(corpus.root() / "problems")
    context.add_output_metadata({
        "problems": len(table),
        "secret_tests": int(table["n_secret_tests"].sum()) if len(table) else 0,
        "without_stated_limits": int((~table["limits_stated"]).sum()) if len(table) else 0,
    })
    return table
