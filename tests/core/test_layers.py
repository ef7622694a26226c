"""The floors of core, as an import contract (issue 32 item 6): a module imports only
from its own package and from the floors below it, so no import runs back up.

    5  microgpt                trains on the recorded graph (scopes)
    4  lessons, notebook,      a lesson drives the debugger, documents, files, training;
       scopes                  the notebook draws documents, traces and steps learners' graphs;
                               scopes group big graphs and step them with the debugger's session
    5  lecture                 runs lecture code in the learner-engine check's child process;
                               a big cell's graph opens collapsed by the scopes it recorded (issue 42)
    3  debugger                steps documents, replays a learner's recorded pass
    2  foreign, files          a learner's engine; the file formats (graphs, sessions)
    1  document, training      the editable graph; the training loop
    0  the engine and its op table, nn, losses, optim, format, gradcheck, tape;
       sandbox                 runs untrusted code (foreign, lecture, scopes use it); imports no core
"""

import ast
import os

import pytest

CORE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "core")
FLOORS = {
    "base": 0,
    "sandbox": 0,  # issue 41 item 4: below foreign, lecture and scopes; the box's supervisor is stdlib only
    "document": 1,
    "training": 1,
    "foreign": 2,
    "files": 2,
    "debugger": 3,
    "scopes": 4,  # issue 31: scopes read a learner's class (foreign); issue 40: step with DebugSession
    "lecture": 5,  # issue 42: a big cell's graph opens collapsed by the scopes it recorded
    "lessons": 4,
    "notebook": 5,  # issue 39: big graphs inline, collapsed by the scopes recorded
    "microgpt": 5,  # trains on the recorded graph (scopes)
}


def unit_of(module):
    """'base' for core's top-level modules, else the subpackage's name."""
    parts = module.split(".")
    if len(parts) == 1 or not os.path.isdir(os.path.join(CORE, parts[1])):
        return "base"
    return parts[1]


def imports():
    """(file, its unit, the core module it imports) for every import in core."""
    for root, _, files in os.walk(CORE):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, os.path.dirname(CORE))[:-3].replace(os.sep, ".")
            own = unit_of(rel.removesuffix(".__init__"))
            for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
                if isinstance(node, ast.Import):
                    targets = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    targets = [node.module] + (
                        [f"{node.module}.{a.name}" for a in node.names] if node.module == "core" else []
                    )
                else:
                    continue
                for target in targets:
                    if target.startswith("core.") or target == "core":
                        yield os.path.relpath(path, CORE), own, target


def test_every_package_of_core_has_a_floor():
    packages = {n for n in os.listdir(CORE) if os.path.isdir(os.path.join(CORE, n)) and not n.startswith("__")}
    assert packages <= set(FLOORS), f"give {sorted(packages - set(FLOORS))} a floor in FLOORS"


def test_no_import_runs_up_a_floor():
    upward = [
        f"{path} ({own}, floor {FLOORS[own]}) imports {target} (floor {FLOORS[unit_of(target)]})"
        for path, own, target in imports()
        if unit_of(target) != own and FLOORS[unit_of(target)] >= FLOORS[own]
    ]
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize("own, target", [("document", "core.lessons.runner"), ("base", "core.files.graph_file")])
def test_the_contract_catches_an_upward_import(own, target):
    assert FLOORS[unit_of(target)] >= FLOORS[own]  # what test_no_import_runs_up_a_floor would report
