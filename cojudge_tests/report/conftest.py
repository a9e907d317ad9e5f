"""One headless chromium for the browser tests of this folder (see browser.py)."""

from __future__ import annotations

import pytest

from cojudge_tests.report.browser import launch_chromium


@pytest.fixture(scope="session")
def chromium():
    with launch_chromium() as browser:
        yield browser
