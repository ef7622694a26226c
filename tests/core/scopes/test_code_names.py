"""CodeNames: what the code calls a node, read from the line that made it -- prepared once, looked up after."""

from core.scopes import names as names_module
from core.scopes.names import CodeNames

SOURCE = """def f(x, w):
    act = x * w
    out = (act +
           x).tanh()
    return out
"""


def test_a_prepared_file_answers_every_line_without_walking_its_tree(monkeypatch, tmp_path):
    # the GUI thread named blocks by walking the script's whole tree once per line (25-31 ms
    # per call on the 139k microgpt step); now one walk, made where the graph is made
    path = tmp_path / "model.py"
    path.write_text(SOURCE, encoding="utf-8")
    code = CodeNames()
    code.prepare([str(path)])

    def no_walk(_tree):
        raise AssertionError("walked the tree after prepare()")

    monkeypatch.setattr(names_module, "_statements_by_line", no_walk)
    assert code.name(str(path), 2, "mul") == "act"
    assert code.name(str(path), 4, "add") == "act + x"  # a statement over two lines, asked by its second
    assert code.name(str(path), 3, "tanh") == "out"
