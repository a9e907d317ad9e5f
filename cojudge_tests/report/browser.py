"""Headless Debian chromium driven by Playwright, for tests that look at a page as a reader would.

Playwright's own browser builds are never downloaded: the tests drive the
system's chromium (``apt-get install chromium``, which ``.ci/bootstrap`` does
when run as root). Without it the tests fail and say so; they do not skip.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SETUP_HINT = "run `bash .ci/bootstrap` (as root it installs Debian's chromium and the locked Python packages)"
try:
    from playwright.sync_api import expect, sync_playwright
except ImportError as exc:  # a collection error that says what to do, rather than a bare ModuleNotFoundError
    raise ImportError(f"playwright is not installed ({exc}): {SETUP_HINT}") from exc

__all__ = ["chromium_executable", "expect", "launch_chromium", "png_colour_count"]

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chromium_executable() -> str:
    """The system chromium; fails the test with the set-up step when there is none."""
    found = shutil.which("chromium")
    if found is None and DEBIAN_CHROMIUM.is_file() and os.access(DEBIAN_CHROMIUM, os.X_OK):
        found = str(DEBIAN_CHROMIUM)
    if found is None:
        pytest.fail(
            f"chromium not found (neither `chromium` on PATH nor {DEBIAN_CHROMIUM}): {SETUP_HINT}", pytrace=False
        )
    return found


@contextmanager
def launch_chromium() -> Iterator[object]:
    """A headless chromium ``Browser``, closed on exit."""
    executable = chromium_executable()
    with sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where chromium refuses its own sandbox
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def png_colour_count(path: Path) -> int:
    """How many distinct colours a PNG screenshot has (a blank page has one or two)."""
    from PIL import Image

    data = Path(path).read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    with Image.open(path) as image:
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=rgb.width * rgb.height)
    return len(colours)
