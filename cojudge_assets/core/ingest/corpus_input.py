"""Whether a corpus folder has raw input of its layout: a cheap look (no file is parsed), shared by the command's
preflight (preflight.py) and the ingest assets of a run launched from the Dagster UI (defs/resources.py)."""

from __future__ import annotations

from pathlib import Path

# where each layout's raw attempt inputs live (the readers in core/ingest/corpus.py); a layout not listed here (a new
# one) counts any file under the corpus
RAW_INPUTS = {
    "pages": ("pages/**/*",),
    "progsnap2": ("progsnap2/MainTable.csv",),
    "codenet": ("metadata/p*.csv",),
    "icescore": ("data/humaneval/humaneval_*_grade.json",),
}
ANY_FILE = ("**/*",)


def raw_input_present(corpus: Path, layout: str) -> bool:
    """Whether the corpus has at least one raw attempt input of its layout (stops at the first file found)."""
    for pattern in RAW_INPUTS.get(layout, ANY_FILE):
        if any(p.is_file() for p in corpus.glob(pattern)):
            return True
    return False


def corpus_input_problem(corpus: Path, layout: str) -> str | None:
    """Why a corpus would yield nothing (a missing folder, no raw input of its layout); None when it has input."""
    if not corpus.is_dir():
        return f"corpus folder {corpus} does not exist"
    if not raw_input_present(corpus, layout):
        where = " or ".join(RAW_INPUTS.get(layout, ANY_FILE))
        return f"corpus {corpus} has no input of layout {layout!r} (nothing matches {where})"
    return None
