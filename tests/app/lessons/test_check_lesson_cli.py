"""`python main.py --check-lesson FILE` (issue 38 item 6): exit 0 / 1 / 2, a line per problem."""

from app.startup import main

LESSON = """{"format": "backprop-studio.lesson", "schema_version": 1,
 "id": "mine", "title": "Mine", "summary": "s", "order": 99,
 "steps": [
  {"text": "# Hello {x.data}",
   "setup": {"snippet": "x = Value(2.0, label='x')\\ny = x*x"}},
  {"text": "next",
   "actions": ["backward_all"],
   "claims": [{"node": "x", "quantity": "grad", "value": VALUE}]}
 ]}
"""


def test_check_lesson_names_the_line_and_step_of_a_contradicted_claim(tmp_path, capsys):
    path = tmp_path / "mine.json"
    path.write_text(LESSON.replace("VALUE", "2.0"), encoding="utf-8")
    assert main(["--check-lesson", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:8: step 2 (steps[1].claims[0]): the lesson says x.grad = 2, the engine gives 4.0000" in out
    path.write_text(LESSON.replace("VALUE", "4.0"), encoding="utf-8")
    assert main(["--check-lesson", str(path)]) == 0
    path.write_text("{", encoding="utf-8")
    assert main(["--check-lesson", str(path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
