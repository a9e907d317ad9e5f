"""The report renderer: escaped, self-contained HTML, a Markdown twin, and no figure silently dropped."""

from __future__ import annotations

import base64
import doctest
import re
import struct
import zlib

import polars as pl
import pytest

from cojudge_assets.core.report import document as report
from cojudge_assets.core.report.document import Figure, Section, Table, render_html, render_markdown, write_report

HOSTILE = '<script>alert("x")</script>'
RUN_CONFIG = {"folds": 10, "resamples": 2000, "seed": 20260314, "confident": 0.2, "judges": ["a", "b"]}
STAMP = "2026-03-14 12:00 UTC"


def tiny_png(path, rgb=(200, 30, 30), size=(3, 2)):
    """A real PNG with a solid colour, written without matplotlib so these tests stay fast."""
    width, height = size

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return path


def tiny_svg(path):
    path.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
        '<rect width="10" height="10" fill="teal"/></svg>'
    )
    return path


def html_of(sections, **kwargs):
    return render_html("Study", sections, run_config=kwargs.get("run_config", RUN_CONFIG), generated_at=STAMP)


def data_uris(html: str) -> list[tuple[str, bytes]]:
    return [
        (media, base64.b64decode(payload))
        for media, payload in re.findall(r'<img src="data:([^;"]+);base64,([A-Za-z0-9+/=]+)"', html)
    ]


def test_strings_from_data_are_escaped(tmp_path):
    figure = Figure(tiny_png(tmp_path / "f.png"), caption=HOSTILE, reading_guide=HOSTILE)
    table = Table(HOSTILE, pl.DataFrame({HOSTILE: [HOSTILE], "n": [1]}))
    html = html_of([Section(HOSTILE, HOSTILE, tables=(table,), figures=(figure,))], run_config={HOSTILE: HOSTILE})
    assert "<script" not in html.lower()
    assert 'alert("x")' not in html  # the quotes are escaped too, so no attribute can be broken out of
    # title, intro, caption, header, cell, figure caption, alt text, reading guide, config key and value
    assert html.count("&lt;script&gt;") >= 10


def test_html_is_self_contained_with_contents_and_generator(tmp_path):
    sections = [
        Section("Ranking", "How well each judge orders attempts."),
        Section("Ranking", "A second section with the same title."),
    ]
    html = html_of(sections)
    assert '<meta name="generator" content="cojudge">' in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), "no external URL"
    assert "<script" not in html and "<link" not in html
    ids = re.findall(r'<section id="([^"]+)"', html)
    links = re.findall(r'<a href="#([^"]+)"', html)
    assert len(set(ids)) == len(ids) == 3  # two sections with one title still get two anchors
    assert links == ids
    assert "<style>" in html


def test_figures_are_data_uris_of_the_file_bytes(tmp_path):
    png, svg = tiny_png(tmp_path / "roc.png"), tiny_svg(tmp_path / "heat.svg")
    sections = [
        Section(
            "Figures", "", figures=(Figure(png, "ROC", "Up and left is better."), Figure(svg, "Heat", "Dark is high."))
        )
    ]
    html = html_of(sections)
    assert data_uris(html) == [("image/png", png.read_bytes()), ("image/svg+xml", svg.read_bytes())]
    guides = re.findall(r'<span class="reading-guide">([^<]*)</span>', html)
    assert guides == ["Up and left is better.", "Dark is high."]
    assert html.count("<figure>") == 2


def test_missing_figure_raises_naming_the_path(tmp_path):
    missing = tmp_path / "never-drawn.png"
    sections = [Section("Figures", "", figures=(Figure(missing, "ROC", "guide"),))]
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        html_of(sections)
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        render_markdown("Study", sections, run_config={}, generated_at=STAMP, figure_dir="figures")
    with pytest.raises(FileNotFoundError):
        write_report(tmp_path / "out", "Study", sections, run_config={}, generated_at=STAMP)
    assert not (tmp_path / "out" / "report.html").exists()


def test_a_figure_must_be_png_or_svg(tmp_path):
    with pytest.raises(ValueError, match=r"\.jpg"):
        Figure(tmp_path / "photo.jpg", "caption", "guide")


def test_rows_past_max_rows_are_counted_not_shown(tmp_path):
    table = Table("long", pl.DataFrame({"i": list(range(45))}), max_rows=40)
    html = html_of([Section("S", "", tables=(table,))])
    assert html.count('<td class="num">') == 40
    assert '<td class="num">39</td>' in html and '<td class="num">40</td>' not in html
    assert "… 5 more rows" in html
    short = html_of([Section("S", "", tables=(Table("short", pl.DataFrame({"i": [1, 2]})),))])
    assert "more rows" not in short
    markdown = render_markdown(
        "Study", [Section("S", "", tables=(table,))], run_config={}, generated_at=STAMP, figure_dir="figures"
    )
    assert "*… 5 more rows*" in markdown
    assert len([line for line in markdown.splitlines() if re.fullmatch(r"\| \d+ \|", line)]) == 40


@pytest.mark.parametrize(
    "value, shown",
    [
        (0.81234, "0.812"),
        (0.5, "0.500"),
        (1.5, "1.50"),
        (12.345, "12.3"),
        (123.456, "123"),
        (4321.6, "4322"),
        (999.7, "1000"),
        (0.000123456, "0.000123"),
        (-0.04567, "-0.0457"),
        (0.0, "0.00"),
        (float("nan"), "nan"),
        (float("inf"), "inf"),
    ],
)
def test_floats_to_three_significant_digits(value, shown):
    assert report.format_number(value) == shown


def test_cells_nulls_and_non_floats(tmp_path):
    frame = pl.DataFrame({"judge": ["gpt", None], "auc": [0.734567, None], "n": [120, 7]})
    html = html_of([Section("S", "", tables=(Table("metrics", frame),))])
    rows = re.findall(r"<tr>(.*?)</tr>", html)
    assert '<td>gpt</td><td class="num">0.735</td><td class="num">120</td>' in rows
    assert '<td>–</td><td class="num">–</td><td class="num">7</td>' in rows
    # run configuration values are shown as given, not rounded
    assert "<tr><td>confident</td><td>0.2</td></tr>" in html
    assert "<tr><td>judges</td><td>[&#34;a&#34;, &#34;b&#34;]</td></tr>" in html


def test_markdown_escapes_pipes_and_keeps_columns(tmp_path):
    frame = pl.DataFrame({"verdict": ["AC|WA", "TLE"], "p": [0.25, None]})
    markdown = render_markdown(
        "Study",
        [Section("S", "intro", tables=(Table("a | b", frame),))],
        run_config={"corpus": "x|y"},
        generated_at=STAMP,
        figure_dir="figures",
    )
    lines = markdown.splitlines()
    assert "| verdict | p |" in lines and "|---|---:|" in lines
    assert r"| AC\|WA | 0.250 |" in lines
    assert "| TLE | – |" in lines
    assert r"**a \| b**" in lines
    assert r"| corpus | x\|y |" in lines
    for line in lines:
        if line.startswith("| AC"):
            assert len(re.findall(r"(?<!\\)\|", line)) == 3  # the escaped pipe does not open a column


def test_markdown_links_figures_with_reading_guide_in_italics(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tiny_png(tmp_path / "a" / "roc.png"), tiny_png(tmp_path / "b" / "roc.png", rgb=(0, 0, 0))
    sections = [
        Section("One", "", figures=(Figure(first, "ROC [blind]", "Up and left is better."),)),
        Section("Two", "", figures=(Figure(second, "ROC nonblind", "Compare with the blind one."),)),
    ]
    markdown = render_markdown("Study", sections, run_config={}, generated_at=STAMP, figure_dir="figures/")
    lines = markdown.splitlines()
    first_link = lines.index(r"![ROC \[blind\]](figures/roc.png)")
    assert lines[first_link + 2] == "*Up and left is better.*"
    assert "![ROC nonblind](figures/roc-2.png)" in lines  # same file name, different file: numbered


def test_write_report_writes_both_files_and_copies_figures(tmp_path):
    png, svg = tiny_png(tmp_path / "roc.png"), tiny_svg(tmp_path / "heat.svg")
    sections = [
        Section(
            "Ranking",
            "ROC",
            tables=(Table("metrics", pl.DataFrame({"auc": [0.7]})),),
            figures=(Figure(png, "ROC", "guide"),),
        ),
        Section("Agreement", "", figures=(Figure(svg, "Heat", "guide"), Figure(png, "ROC again", "g"))),
    ]
    html_path, md_path = write_report(tmp_path / "out", "Study", sections, run_config=RUN_CONFIG, generated_at=STAMP)
    assert (html_path, md_path) == (tmp_path / "out" / "report.html", tmp_path / "out" / "report.md")
    assert html_path.read_text(encoding="utf-8") == render_html(
        "Study", sections, run_config=RUN_CONFIG, generated_at=STAMP
    )
    markdown = md_path.read_text(encoding="utf-8")
    assert markdown == render_markdown(
        "Study", sections, run_config=RUN_CONFIG, generated_at=STAMP, figure_dir="figures"
    )
    copied = sorted(p.name for p in (tmp_path / "out" / "figures").iterdir())
    assert copied == ["heat.svg", "roc.png"]  # one copy of a figure used twice
    assert (tmp_path / "out" / "figures" / "roc.png").read_bytes() == png.read_bytes()
    for link in re.findall(r"\]\((figures/[^)]+)\)", markdown):
        assert (tmp_path / "out" / link).is_file()


def test_table_rejects_a_non_frame_and_a_zero_row_limit():
    with pytest.raises(TypeError, match="polars DataFrame"):
        Table("t", [{"a": 1}])
    with pytest.raises(ValueError, match="max_rows"):
        Table("t", pl.DataFrame({"a": [1]}), max_rows=0)


def test_docstring_examples_hold():
    assert doctest.testmod(report).failed == 0
