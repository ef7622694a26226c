"""Issue 32 item 9: the engine check says where it stopped, in words: a folder is a
folder, and a loop in the class's __mul__ is not "while loading the file"."""

import textwrap

from core.foreign.runner import check_file

LOOPING_MUL = textwrap.dedent(
    """
    import time

    class Value:
        def __init__(self, data, _children=(), _op=''):
            self.data, self.grad, self._prev, self._op = data, 0.0, set(_children), _op
            self._backward = lambda: None

        def __add__(self, other):
            other = other if isinstance(other, Value) else Value(other)
            return Value(self.data + other.data, (self, other), '+')

        def __mul__(self, other):
            while True:  # the learner's bug: a loop that never ends (sleeping, to spare the CPU)
                time.sleep(0.05)

        def backward(self):
            pass
    """
)


def test_a_folder_given_as_the_engine_file_says_it_is_a_folder(tmp_path):
    report = check_file(tmp_path)
    assert report["status"] == "unusable"
    assert report["message"] == f"{tmp_path} is a folder, not a file: choose the .py file that holds your Value class"


def test_a_loop_in_mul_is_not_while_loading_the_file(tmp_path):
    path = tmp_path / "engine.py"
    path.write_text(LOOPING_MUL)
    report = check_file(path, timeout=8)
    assert report["status"] == "unusable"
    assert "while loading the file" not in report["message"]  # repro: it said so
    assert "while trying Value's operators" in report["message"] and "__mul__" in report["message"]
