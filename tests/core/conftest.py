"""tests/core runs without a display: no Qt fixture may be used here."""

import pytest

QT_FIXTURES = {"qtbot", "qapp", "qtlog", "qtmodeltester"}


def pytest_collection_modifyitems(items):
    for item in items:
        used = QT_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        if used and "tests/core" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.xfail(reason=f"Qt fixture {used} in tests/core", strict=True, run=False))
