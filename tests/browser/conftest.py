"""Browser tests: what a learner sees in a real browser, headless Chromium (tests/browser/cdp.py).

Chromium is Debian's `chromium` package, installed by .ci/run where it can be; without it every test
here is skipped, saying so. The pages are opened from disk or from a local server; nothing is fetched."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cdp import Browser, NoBrowser  # noqa: E402


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module, closed after it: no process of a test outlives its module
    (the checker's tests assert that nothing is left under the test process)."""
    try:
        started = Browser()
    except NoBrowser as e:
        pytest.skip(str(e))
    yield started
    started.close()
