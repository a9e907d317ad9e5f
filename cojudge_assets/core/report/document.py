"""The study report as one self-contained HTML file and its Markdown twin.

A report is a title, a run configuration and a list of :class:`Section`; each
section has an intro, tables (:class:`Table`, a polars frame) and figures
(:class:`Figure`, a PNG or SVG file on disk with a caption and a one-line
reading guide).

- ``render_html``: one HTML page that needs nothing else: inline CSS, every
  figure embedded as a base64 data URI, no script, no external URL. Every string
  that comes from data (titles, captions, cells, configuration) is escaped.
- ``render_markdown``: the same sections as GitHub-flavoured Markdown, figures
  linked from a folder beside the file.
- ``write_report``: both files in one folder, the figures copied to ``figures/``.

Cells are shown the same way in both: floats to three significant digits
(:func:`format_number`), nulls as "–", at most ``Table.max_rows`` rows and then
a line saying how many were left out. A figure whose file is missing raises
FileNotFoundError naming the path: a report is never written without a figure
it announces.
"""

from __future__ import annotations

import base64
import errno
import json
import math
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    import jinja2

NULL_CELL = "–"
IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml"}
FIGURE_DIR = "figures"
GENERATOR = "cojudge"
PROSE_CHARS = 40  # a text cell longer than this may wrap; shorter ones stay on one line
INTERVAL_SPACE = "\u00a0"  # the space inside "[lo, hi]": a cell with an interval breaks only before its "["


@dataclass(frozen=True)
class Figure:
    """A PNG or SVG file; ``reading_guide`` is one line telling the reader how to read it."""

    path: Path
    caption: str
    reading_guide: str

    def __post_init__(self):
        object.__setattr__(self, "path", Path(self.path))
        if self.path.suffix.lower() not in IMAGE_TYPES:
            raise ValueError(
                f"{self.path}: a figure must be one of {sorted(IMAGE_TYPES)}, got {self.path.suffix or 'no suffix'!r}"
            )


@dataclass(frozen=True)
class Table:
    caption: str
    frame: pl.DataFrame
    max_rows: int = 40

    def __post_init__(self):
        if not isinstance(self.frame, pl.DataFrame):
            raise TypeError(
                f"table {self.caption!r}: frame must be a polars DataFrame, got {type(self.frame).__name__}"
            )
        if self.max_rows < 1:
            raise ValueError(f"table {self.caption!r}: max_rows must be at least 1, got {self.max_rows}")


@dataclass(frozen=True)
class Section:
    title: str
    intro: str
    tables: tuple[Table, ...] = ()
    figures: tuple[Figure, ...] = ()


def format_number(value: float) -> str:
    """A float to three significant digits; from 1000 on, rounded to a whole number (no exponent).

    >>> [format_number(v) for v in (0.81234, 0.5, 1.5, 12.345, 123.4, 0.000123, 4321.6, -0.0456)]
    ['0.812', '0.500', '1.50', '12.3', '123', '0.000123', '4322', '-0.0456']
    """
    if not math.isfinite(value):
        return str(value)  # nan, inf, -inf
    if abs(value) >= 999.5:  # "#.3g" would switch to an exponent here
        return f"{value:.0f}"
    return f"{value:#.3g}".rstrip(".")  # "#" keeps trailing zeros, and a bare point after 100..999


def format_cell(value: object) -> str:
    """How one table cell is shown: nulls as "–", floats by :func:`format_number`, the rest as ``str``."""
    if value is None:
        return NULL_CELL
    if isinstance(value, float):
        return format_number(value)
    return str(value)


def format_setting(value: object) -> str:
    """A run-configuration value as given (no rounding): nested values as JSON."""
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, sort_keys=isinstance(value, Mapping), default=str, ensure_ascii=False)
    return NULL_CELL if value is None else str(value)


# --- what both renderers share ------------------------------------------------------------------


@dataclass(frozen=True)
class _ShownTable:
    caption: str
    columns: list[str]
    numeric: list[bool]
    rows: list[list[str]]
    hidden_rows: int


def _shown_table(table: Table) -> _ShownTable:
    frame = table.frame
    return _ShownTable(
        caption=table.caption,
        columns=list(frame.columns),
        numeric=[dtype.is_numeric() for dtype in frame.dtypes],
        rows=[[format_cell(v) for v in row] for row in frame.head(table.max_rows).iter_rows()],
        hidden_rows=max(frame.height - table.max_rows, 0),
    )


def _anchors(sections: Sequence[Section]) -> list[str]:
    """One id per section, unique even when two sections share a title."""
    return [
        f"s{i}-" + (re.sub(r"[^a-z0-9]+", "-", s.title.lower()).strip("-") or "section")
        for i, s in enumerate(sections, start=1)
    ]


def _figure_names(sections: Sequence[Section]) -> dict[Path, str]:
    """The file name each figure gets in the Markdown's figure folder: its own, numbered on a clash."""
    names: dict[Path, str] = {}
    taken: set[str] = set()
    for figure in (f for s in sections for f in s.figures):
        if figure.path in names:
            continue
        name, n = figure.path.name, 1
        while name in taken:
            n += 1
            name = f"{figure.path.stem}-{n}{figure.path.suffix}"
        names[figure.path] = name
        taken.add(name)
    return names


def _require_figure_files(sections: Sequence[Section]) -> None:
    for figure in (f for s in sections for f in s.figures):
        if not figure.path.is_file():
            raise FileNotFoundError(errno.ENOENT, f"figure {figure.caption!r}: file not found", str(figure.path))


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


# --- HTML -------------------------------------------------------------------------------------------

_HTML_TEMPLATE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="{{ generator }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1f2328;
       max-width: 1100px; margin: 2rem auto; padding: 0 1.5rem; line-height: 1.5; }
h1 { margin-bottom: 0.2rem; }
.generated { color: #59636e; margin-top: 0; }
nav.toc { background: #f6f8fa; border: 1px solid #d1d9e0; border-radius: 6px; padding: 0.5rem 1.5rem; }
nav.toc h2 { font-size: 1.1rem; }
section { margin-top: 2.5rem; border-top: 1px solid #d1d9e0; }
.table-wrap { overflow-x: auto; margin: 1.2rem 0; }
table { border-collapse: collapse; font-size: 0.9rem; }
caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: 0.3rem;
          width: max-content; max-width: 70ch; }
th, td { border: 1px solid #d1d9e0; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
td { white-space: nowrap; }  /* a judge name or a number is read as one word */
th { white-space: normal; }  /* a long column name breaks after an underscore (<wbr>) */
td.prose { white-space: normal; min-width: 24ch; }  /* a reason or a path wraps */
table.run-config td { white-space: normal; overflow-wrap: anywhere; }
td.breakable { white-space: normal; }  /* "0.675 [0.633, 0.714]" breaks before its interval, not inside it;
                                        "blind = prefix12k = nonblind" after an "=" */
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.more-rows { color: #59636e; font-style: italic; margin: 0.3rem 0 0; }
figure { margin: 1.5rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #d1d9e0; }
figcaption .caption { display: block; font-weight: 600; }
figcaption .reading-guide { display: block; color: #59636e; font-style: italic; }
</style>
</head>
<body>
<header>
<h1>{{ title }}</h1>
<p class="generated">Generated {{ generated_at }} by {{ generator }}.</p>
</header>
<nav class="toc">
<h2>Contents</h2>
<ol>
{% for s in sections %}
<li><a href="#{{ s.anchor }}">{{ s.title }}</a></li>
{% endfor %}
<li><a href="#run-configuration">Run configuration</a></li>
</ol>
</nav>
{% for s in sections %}
<section id="{{ s.anchor }}">
<h2>{{ s.title }}</h2>
{% for p in s.intro %}
<p class="intro">{{ p }}</p>
{% endfor %}
{% for t in s.tables %}
<div class="table-wrap">
<table>
<caption>{{ t.caption }}</caption>
<thead><tr>{% for c in t.columns %}<th>\
{% for part in c.split("_") %}{{ part }}{% if not loop.last %}_<wbr>{% endif %}{% endfor %}\
</th>{% endfor %}</tr></thead>
<tbody>
{% for row in t.rows %}
<tr>{% for cell in row %}<td{% if t.numeric[loop.index0] %} class="num"\
{% elif cell|length > PROSE_CHARS %} class="prose"\
{% elif INTERVAL_SPACE in cell or " = " in cell %} class="breakable"{% endif %}>\
{{ cell|replace(" = ", INTERVAL_SPACE + "= ") }}</td>{% endfor %}</tr>
{% endfor %}
</tbody>
</table>
{% if not t.rows %}
<p class="more-rows">(no rows)</p>
{% endif %}
{% if t.hidden_rows %}
<p class="more-rows">… {{ t.hidden_rows }} more rows</p>
{% endif %}
</div>
{% endfor %}
{% for f in s.figures %}
<figure>
<img src="{{ f.src }}" alt="{{ f.caption }}">
<figcaption><span class="caption">{{ f.caption }}</span>\
<span class="reading-guide">{{ f.reading_guide }}</span></figcaption>
</figure>
{% endfor %}
</section>
{% endfor %}
<section id="run-configuration">
<h2>Run configuration</h2>
<div class="table-wrap">
<table class="run-config">
<thead><tr><th>setting</th><th>value</th></tr></thead>
<tbody>
{% for key, value in run_config %}
<tr><td>{{ key }}</td><td>{{ value }}</td></tr>
{% endfor %}
</tbody>
</table>
</div>
</section>
</body>
</html>
"""


@cache
def _html_template() -> jinja2.Template:
    """The page template, compiled once per process on the first report (jinja2 is not loaded at start-up)."""
    import jinja2

    return jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    ).from_string(_HTML_TEMPLATE)


def _data_uri(path: Path) -> str:
    media_type = IMAGE_TYPES[path.suffix.lower()]
    return f"data:{media_type};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def render_html(title: str, sections: Sequence[Section], *, run_config: Mapping[str, object], generated_at: str) -> str:
    """The report as one self-contained HTML page (figures as data URIs, inline CSS, no script)."""
    _require_figure_files(sections)
    shown = [
        {
            "anchor": anchor,
            "title": s.title,
            "intro": _paragraphs(s.intro),
            "tables": [_shown_table(t) for t in s.tables],
            "figures": [
                {"src": _data_uri(f.path), "caption": f.caption, "reading_guide": f.reading_guide} for f in s.figures
            ],
        }
        for anchor, s in zip(_anchors(sections), sections, strict=True)
    ]
    return _html_template().render(
        title=title,
        generated_at=generated_at,
        generator=GENERATOR,
        sections=shown,
        PROSE_CHARS=PROSE_CHARS,
        INTERVAL_SPACE=INTERVAL_SPACE,
        run_config=[(str(k), format_setting(v)) for k, v in run_config.items()],
    )


# --- Markdown ---------------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*\[\]<|])")


def _md_text(text: str) -> str:
    """Plain text for Markdown: characters that would start markup are backslash-escaped, lines joined."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _md_table(columns: list[str], numeric: list[bool], rows: list[list[str]]) -> list[str]:
    lines = [
        "| " + " | ".join(_md_text(c) for c in columns) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    lines += ["| " + " | ".join(_md_text(cell) for cell in row) + " |" for row in rows]
    return lines


def render_markdown(
    title: str, sections: Sequence[Section], *, run_config: Mapping[str, object], generated_at: str, figure_dir: str
) -> str:
    """The report as GitHub-flavoured Markdown; figures link to ``<figure_dir>/<name>``."""
    _require_figure_files(sections)
    names = _figure_names(sections)
    folder = figure_dir.rstrip("/")
    anchors = _anchors(sections)
    out = [f"# {_md_text(title)}", "", f"Generated {_md_text(generated_at)} by {GENERATOR}.", "", "## Contents", ""]
    out += [f"{i}. [{_md_text(s.title)}](#{a})" for i, (a, s) in enumerate(zip(anchors, sections), start=1)]
    out += [f"{len(sections) + 1}. [Run configuration](#run-configuration)", ""]
    for anchor, section in zip(anchors, sections, strict=True):
        out += [f'<a id="{anchor}"></a>', "", f"## {_md_text(section.title)}", ""]
        for paragraph in _paragraphs(section.intro):
            out += [_md_text(paragraph), ""]
        for table in section.tables:
            shown = _shown_table(table)
            out += [f"**{_md_text(shown.caption)}**", ""]
            out += _md_table(shown.columns, shown.numeric, shown.rows)
            if not shown.rows:
                out += ["", "*(no rows)*"]
            if shown.hidden_rows:
                out += ["", f"*… {shown.hidden_rows} more rows*"]
            out.append("")
        for figure in section.figures:
            out += [
                f"![{_md_text(figure.caption)}]({folder}/{names[figure.path]})",
                "",
                f"*{_md_text(figure.reading_guide)}*",
                "",
            ]
    out += ['<a id="run-configuration"></a>', "", "## Run configuration", ""]
    settings = [[str(k), format_setting(v)] for k, v in run_config.items()]
    out += _md_table(["setting", "value"], [False, False], settings)
    return "\n".join(out) + "\n"


def write_report(
    out_dir: Path, title: str, sections: Sequence[Section], *, run_config: Mapping[str, object], generated_at: str
) -> tuple[Path, Path]:
    """Write ``report.html`` and ``report.md`` into ``out_dir`` and copy the figures to ``out_dir/figures/``.

    Both documents are rendered before anything is written, so a missing figure
    leaves no half-written report behind. Returns (html_path, md_path).
    """
    out_dir = Path(out_dir)
    html = render_html(title, sections, run_config=run_config, generated_at=generated_at)
    markdown = render_markdown(title, sections, run_config=run_config, generated_at=generated_at, figure_dir=FIGURE_DIR)
    figures = out_dir / FIGURE_DIR
    figures.mkdir(parents=True, exist_ok=True)
    for stale in (p for p in figures.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_TYPES):
        stale.unlink()  # figures of an earlier report that this one does not show
    for source, name in _figure_names(sections).items():
        shutil.copyfile(source, figures / name)
    html_path, md_path = out_dir / "report.html", out_dir / "report.md"
    html_path.write_text(html, encoding="utf-8")
    md_path.write_text(markdown, encoding="utf-8")
    return html_path, md_path
