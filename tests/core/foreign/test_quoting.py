"""core/foreign/quoting.py: their exception, their line and a wrong grad, in the sentences every
verdict uses."""

import math

from core.foreign import quoting


def test_an_exception_is_quoted_with_their_line_and_a_short_path():
    error = {
        "where": "your backward()",
        "type": "ZeroDivisionError",
        "message": "float division by zero",
        "at": ["/home/ann/course/hw1/engine.py", 12, "self.grad += 1 / other.data"],
    }
    assert quoting.error_text(error) == (
        "your backward() raised ZeroDivisionError: float division by zero "
        "(hw1/engine.py, line 12: `self.grad += 1 / other.data`)"
    )
    assert quoting.line_text(error["at"]) == "hw1/engine.py, line 12: self.grad += 1 / other.data"
    assert quoting.line_text(None) is None


def test_a_file_in_a_scratch_folder_is_named_alone():
    assert quoting.line_text(["/tmp/engine.py", 3, "x"]) == "engine.py, line 3: x"


def test_a_wrong_grad_never_reads_equal_to_the_right_one():
    text = quoting.wrong_text([{"name": "x", "got": 2.0000001, "expected": 2.0}])
    assert text == "x.grad is 2.0000001, should be 2"
    assert "left it no gradient" in quoting.wrong_text([{"name": "y", "got": None, "expected": 1.5}])
    many = [{"name": n, "got": 0.0, "expected": 1.0} for n in "abcd"]
    assert quoting.wrong_text(many).count("should be") == 3  # the first three


def test_numbers_from_the_child():
    assert math.isnan(quoting.as_number(None)) and quoting.as_number("inf") == math.inf
    assert quoting.arg_value("t1", {"t1": 2.5}) == 2.5 and quoting.arg_value({"n": -3}, {}) == -3.0
