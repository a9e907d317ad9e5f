"""The tests run on 2 workers (pytest-xdist, ``-n 2 --dist loadgroup`` in .ci/check): the users of the demo study are
one xdist group, so it is built once, on one worker. Checked in a child pytest run the way .ci/check runs the suite,
over a folder of its own whose ``demo_study`` is a stand-in (the group is chosen by the fixture's name). pytest 9.2
broke the grouping silently (pytest-xdist issue 1386): this test fails if an upgrade breaks it again."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from cojudge_tests.conftest import DEMO_STUDY_TIMEOUT_S, REPO

CONFTEST = """
import pytest

from cojudge_tests.conftest import pytest_collection_modifyitems  # noqa: F401 - the project's hook: tiers, groups


@pytest.fixture(scope="session")
def demo_study():
    return "a stand-in"
"""

USERS = 6


def test_the_demo_study_s_users_run_on_one_worker_and_the_others_on_either(tmp_path):
    build_s = DEMO_STUDY_TIMEOUT_S  # each user may be the one that builds it, and has the time to
    tests = [
        f"def test_user_{i}(demo_study, request):\n"
        f"    assert request.node.get_closest_marker('timeout').args == ({build_s},)\n\n\n"
        f"def test_other_{i}():\n    pass\n"
        for i in range(USERS)
    ]
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_grouping.py").write_text("\n\n".join(tests))
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    argv = [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider"]
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = {test: worker for worker, test in re.findall(r"\[(gw\d)\] .*PASSED test_grouping\.py::(\S+)", done.stdout)}
    users = {test: worker for test, worker in ran.items() if test.startswith("test_user_")}
    others = {test: worker for test, worker in ran.items() if test.startswith("test_other_")}
    assert len(users) == len(others) == USERS, done.stdout[-3000:]
    assert all(test.endswith("@demo_study") for test in users), users  # pytest-xdist read the group
    assert len(set(users.values())) == 1, users  # one worker ran them all
    assert not any("@" in test for test in others), others
