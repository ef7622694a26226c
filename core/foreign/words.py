"""The checker's word for each special method a learner's class may offer: `__truediv__`
is "div", `__rsub__` is "rsub". The report names ops so (core/foreign/runner.py), and
so does the check of a typed expression's ops (core/foreign/expression.py).

A module of its own, importing nothing: the runner is imported by the lecture's child
process and stays light, and the expression module reads the words without importing
the runner (which builds expression cases: the two would import each other).
"""

WORDS = {
    "__add__": "add", "__radd__": "radd", "__sub__": "sub", "__rsub__": "rsub", "__mul__": "mul",
    "__rmul__": "rmul", "__truediv__": "div", "__rtruediv__": "rdiv", "__pow__": "pow", "__rpow__": "rpow",
    "__neg__": "neg", "__abs__": "abs",
}  # fmt: skip
