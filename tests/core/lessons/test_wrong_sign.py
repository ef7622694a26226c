"""Issue 32 item 6: a lesson whose text claims a number with the wrong sign is caught by
the truth check (verify_lesson), for every claim of every lesson -- the check is not
loose enough to let -14 pass for 14."""

import copy
import json
import pathlib

import pytest

from core.lessons.format import lesson_from_dict
from core.lessons.runner import verify_lesson

LESSONS = sorted((pathlib.Path(__file__).resolve().parents[3] / "resources" / "lessons").glob("*.json"))


def claims_of(data):
    return [(i, j) for i, step in enumerate(data["steps"]) for j, _ in enumerate(step.get("claims", []))]


WITH_CLAIMS = [p for p in LESSONS if claims_of(json.loads(p.read_text(encoding="utf-8")))]


def test_there_are_claims_to_flip():
    assert len(WITH_CLAIMS) >= 5


@pytest.mark.parametrize("path", WITH_CLAIMS, ids=[p.stem for p in WITH_CLAIMS])
def test_a_claim_with_its_sign_flipped_is_caught(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert verify_lesson(lesson_from_dict(data, str(path)), train_limit=2) == []  # true as shipped
    flipped = 0
    for i, j in claims_of(data):
        value = data["steps"][i]["claims"][j]["value"]
        if value == 0:
            continue  # -0 is 0: no sign to get wrong
        wrong = copy.deepcopy(data)
        wrong["steps"][i]["claims"][j]["value"] = -value
        problems = verify_lesson(lesson_from_dict(wrong, str(path)), train_limit=2)
        assert any(f"steps[{i}]" in p and str(-value) in p for p in problems), (i, j, problems)
        flipped += 1
        if flipped == 2:  # two per lesson keep the test quick; every lesson is covered
            break
    assert flipped or all(data["steps"][i]["claims"][j]["value"] == 0 for i, j in claims_of(data))
