"""What the lecture-code runner adds to a cell: bind calls after assignments, the last
line shown, notebook commands left out; every line keeps its number."""

import pytest

from core.lecture.instrument import (
    CellSyntaxError,
    assigned,
    classes_and_functions,
    defined,
    instrument,
    loop_variables,
    read,
)


def test_assignments_are_followed_by_a_bind_on_their_own_line():
    text = "a = Value(2.0); b = a * 2  # why\nc = a + b\nc += 1\nx, (y, z) = 1, (2, 3)\n"
    source, _tree, notes = instrument(text)
    lines = source.splitlines()
    assert lines[0] == "a = Value(2.0); __studio_bind__('a', a); b = a * 2; __studio_bind__('b', b)  # why"
    assert lines[1] == "c = a + b; __studio_bind__('c', c)"
    assert lines[2] == "c += 1; __studio_bind__('c', c)"
    assert lines[3].endswith("__studio_bind__('x', x); __studio_bind__('y', y); __studio_bind__('z', z)")
    assert notes == []


def test_blocks_are_bound_but_functions_and_classes_are_theirs():
    text = (
        "for k in range(3):\n    loss = k * 2\nelse:\n    done = 1\n"
        "def f():\n    q = 1\n    return q\nclass A:\n    r = 2\n"
        "try:\n    t = 1\nexcept Exception:\n    u = 2\n"
    )
    source, tree, _ = instrument(text)
    assert "__studio_bind__('loss', loss)" in source and "__studio_bind__('done', done)" in source
    assert "__studio_bind__('t', t)" in source and "__studio_bind__('u', u)" in source
    assert "'q'" not in source and "'r'" not in source
    assert "'k'" not in source  # a loop variable names nothing
    assert len(source.splitlines()) == len(text.splitlines())
    assert assigned(tree) == ["loss", "done", "t", "u"]
    assert loop_variables(tree) == {"k"}
    assert classes_and_functions(tree) == ["f", "A"]
    assert {"f", "A", "k", "loss"} <= defined(tree)


def test_the_last_expression_is_shown_with_its_text():
    source, _, _ = instrument("n = MLP(3, [4, 4, 1])\nn(x)\n")
    assert source.splitlines()[-1] == "__studio_show__(n(x), 'n(x)')"
    source, _, _ = instrument("(a +\n b)\n")
    assert source == "(__studio_show__(a +\n b, ''))\n"  # too long to name a node: no text
    source, _, _ = instrument("n(x)\n", show=False)
    assert source == "n(x)\n"


def test_reads():
    _, tree, _ = instrument("o.backward()\ndraw_dot(o)\nfor p in n.parameters(): p.data += 1\n")
    assert read(tree)[:3] == ["o", "draw_dot", "n"]


def test_notebook_commands_are_left_out_with_a_note():
    source, _, notes = instrument("import math\n%matplotlib inline\n!pip install micrograd\nx = 1\n")
    assert source.splitlines()[1:3] == ["", ""]
    assert source.splitlines()[3] == "x = 1; __studio_bind__('x', x)"
    assert notes == [
        "Skipped notebook commands, which are not Python: line 2 ('%matplotlib inline'), "
        "line 3 ('!pip install micrograd')."
    ]


def test_a_syntax_error_names_line_and_column():
    with pytest.raises(CellSyntaxError) as caught:
        instrument("x = 1\ny = (x +\n")
    assert caught.value.line == 2
    assert "syntax error" in caught.value.message


def test_columns_count_characters_not_bytes():
    source, _, _ = instrument("é = 'ü'; ö = é\n")
    assert source == "é = 'ü'; __studio_bind__('é', é); ö = é; __studio_bind__('ö', ö)\n"
