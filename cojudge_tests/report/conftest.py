"""One headless chromium per test module of this folder (see browser.py).

Per module, not per session: while Playwright's sync API is open its event loop counts as running in the thread, so
``asyncio.run`` (the judges' runner) fails in any test that runs after a browser test in the same process while the
browser is still up ("asyncio.run() cannot be called from a running event loop"). Serially the judges' tests came
first by name; on two workers (`.ci/check`) they ran after a browser test on the same worker, ten failed. pytest
closes a module's fixtures when the worker moves to another module's test.
"""

from __future__ import annotations

import pytest

from cojudge_tests.report.browser import launch_chromium


@pytest.fixture(scope="module")
def chromium():
    with launch_chromium() as browser:
        yield browser
