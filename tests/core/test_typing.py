"""Core's public API carries type hints: an `ast` walk that every public function and
method of the annotated modules says what it returns (cheap, runs without mypy).

mypy itself runs over all of core and app in tests/test_mypy.py, as `[tool.mypy]` in
pyproject.toml says.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The modules whose public API is annotated. Add a module here once its hints are in.
ANNOTATED = [
    "core/nn.py",
    "core/notebook/svg.py",
    "core/notebook/draw.py",
    "core/notebook/stepper.py",
    "core/palette.py",
    "core/resources.py",
    "core/losses.py",
    "core/optim.py",
    "core/gradcheck.py",
    "core/ops.py",
    "core/format.py",
    "core/document/names.py",
    "core/document/expr.py",
    "core/document/graph.py",
    "core/document/analysis.py",
    "core/document/commands.py",
    "core/document/groups.py",
    "core/document/layout.py",
    "core/debugger/stepper.py",
    "core/debugger/forward_stepper.py",
    "core/debugger/step_names.py",
    "core/lessons/format.py",
    "core/lessons/quiz.py",
    "core/document/compile.py",
    "core/document/codegen.py",
    "core/document/events.py",
    "core/document/blocks.py",
    "core/files/atomic.py",
    "core/files/strict_json.py",
    "core/files/graph_file.py",
    "core/files/recovery.py",
    "core/files/training_session.py",
    "core/engine.py",
    "core/tape.py",
    "core/files/interchange.py",
    "core/foreign/document.py",
    "core/foreign/expression.py",
    "core/foreign/report.py",
    "core/training/events.py",
    "core/training/features.py",
    "core/training/regularization.py",
    "core/training/history.py",
    "core/training/health.py",
    "core/training/config.py",
    "core/training/datasets.py",
    "core/training/network_edits.py",
    "core/training/presets.py",
    "core/numpy_ops.py",
    "core/recorded.py",
    "core/training/batched.py",
    "core/training/replay.py",
    "core/training/trainer.py",
    "core/training/loop.py",
    "core/training/sample_graph.py",
    "core/foreign/battery.py",
    "core/foreign/runner.py",
    "core/foreign/trace.py",
    "core/foreign/judge.py",
    "core/foreign/stepping.py",
    "core/foreign/whole_pass.py",
    "core/foreign/quoting.py",
    "core/foreign/agree.py",
    "core/foreign/local.py",
    "core/foreign/child/shapes.py",
    "core/foreign/child/graph.py",
    "core/foreign/child/build.py",
    "core/foreign/child/probe.py",
    "core/foreign/child/run.py",
    "core/foreign/child/load.py",
    "core/foreign/child/conventions.py",
    "core/foreign/child/habits.py",
    "core/foreign/child/main.py",
    "core/foreign/diagnosis.py",
    "core/foreign/shapes.py",
    "core/foreign/batch.py",
    "core/foreign/hints.py",
    "core/foreign/platforms.py",
    "core/sandbox/__init__.py",
    "core/sandbox/box.py",
    "core/sandbox/cold.py",
    "core/sandbox/result.py",
    "core/sandbox/run.py",
    "core/sandbox/runs.py",
    "core/sandbox/signed.py",
    "core/sandbox/supervisor.py",
    "core/sandbox/warm_boxes.py",
    "core/debugger/foreign_replay.py",
    "core/debugger/session.py",
    "core/debugger/quiz.py",
    "core/lessons/runner.py",
]


def _missing_returns(path, root=ROOT):
    """'file:line name' for each public function or method of `path` without a return annotation."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    missing = []

    def walk(body, prefix, in_class):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                dunder = node.name.startswith("__") and node.name.endswith("__")
                public = not node.name.startswith("_") or (in_class and dunder)
                if public and node.returns is None:
                    missing.append(f"{path.relative_to(root)}:{node.lineno} {prefix}{node.name}")
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                walk(node.body, f"{node.name}.", True)

    walk(tree.body, "", False)
    return missing


def test_every_public_function_says_what_it_returns():
    missing = [m for module in ANNOTATED for m in _missing_returns(ROOT / module)]
    assert not missing, "public functions without a return annotation:\n" + "\n".join(missing)


def test_the_return_check_can_fail(tmp_path):
    module = tmp_path / "sample.py"
    module.write_text(
        "def shown(x) -> int:\n    return x\n\ndef unsaid(x):\n    return x\n\n"
        "def _private(x):\n    return x\n\nclass A:\n    def method(self):\n        pass\n"
    )
    names = [entry.split(" ")[1] for entry in _missing_returns(module, tmp_path)]
    assert names == ["unsaid", "A.method"]
