"""The checker in this process: for tests, and for classes the studio itself holds.

`check_file` runs a learner's file in a child process (runner.py); the code
that runs beside their class there is the harness in core/foreign/child. For a
class already in this process -- a test's hand-made class, a user's own
objects through show() -- the same harness runs here, its numbers make the same
round trip through JSON, and the same judge decides. Never use this on a file
you have not read: it runs their code in the studio.
"""

from __future__ import annotations

import inspect
import json
import os
from typing import Any

from core.foreign import battery, judge
from core.foreign.child.main import plain
from core.foreign.child.probe import Probe
from core.foreign.child.run import run


def _roots(V: type) -> tuple[str, ...]:
    try:
        return (os.path.abspath(inspect.getsourcefile(V) or ""),)
    except TypeError:
        return ()


def _round_trip(item: Any) -> Any:
    return json.loads(json.dumps(plain(item), allow_nan=False))


def check_case(V: type, case: battery.Case | str, keep: bool = False) -> dict[str, Any]:
    """One test (a Case, or its text: 'x = 0.5; x.sin()') of class V, judged."""
    if isinstance(case, str):
        case = battery.case(case, case)
    probe = Probe(V, _roots(V))
    got = _round_trip(probe.run({"name": case.name, "program": case.program}))
    return judge.judge(case, got, max(probe.eps, got.get("eps", probe.eps)), keep)


def check_class(V: type, namespace: dict[str, Any] | None = None, seed: int | None = None) -> dict[str, Any]:
    """The whole battery on class V, as `check_file` reports it (no limits: trusted code)."""
    from core.foreign.runner import _report

    tests, templates = battery.cases(seed)
    request = battery.request(tests, templates)
    lines: list[dict[str, Any]] = [{"kind": "loaded"}]
    run_class(V, request, lambda item: lines.append(_round_trip(item)), namespace or {})
    lines.append({"kind": "done"})
    known = {c.name: c for c in tests}
    from core.sandbox import BoxResult

    return _report(V.__name__, lines, BoxResult(b"", 0, "exit"), 0.0, 0, "", known, templates)


def run_class(V: type, request: dict[str, Any], report: Any, namespace: dict[str, Any]) -> None:
    """The child's run (core/foreign/child/run.py) on a class already loaded."""
    run({**request, "engine": "<in process>"}, report, (namespace or {V.__name__: V}, _roots(V)))
