"""Every lesson step is true on screen: the numbers the text quotes are the numbers
the canvas shows at that moment (`LessonRunner.shown` is what the canvas paints),
nodes are named as on the canvas, and no internal id ever reaches the text.

Issue 17 item 1; the four repros below are the faults a teacher found."""

import pathlib
import re

import pytest

from core.lessons.format import NETWORK_KEYS, NUDGE_KEYS, load_lesson
from core.lessons.runner import PENDING, LessonRunner, fmt

ROOT = pathlib.Path(__file__).resolve().parents[3]
LESSONS = ROOT / "resources" / "lessons"
LESSON_FILES = sorted(LESSONS.glob("*.json"))
FAST_TRAIN = 2
INTERNAL_ID = re.compile(r"#\d+|(?<![\w.])n\d+\b")  # '#6', 'n17' (a parameter's 'L0.n0.w0' is a label)
FOUR_DECIMALS = re.compile(r"(?<![\w.])-?\d+\.\d{4}(?![\d])")
BACKWARD_LINE = re.compile(r"^(?P<name>.+?)\.grad \+= .* \(was .+, now (?P<now>\S+)\)$")
OFF_CANVAS = ("forward", "backward") + NUDGE_KEYS + NETWORK_KEYS + ("nodes",)


def steps_of(path):
    runner = LessonRunner(load_lesson(path), train_limit=FAST_TRAIN)
    while True:
        yield runner
        if not runner.next():
            return


def canvas_texts(runner):
    shown = runner.shown()
    return {text for pair in shown.values() for text in pair}


def without_off_canvas(runner, text):
    """The step text filled in, leaving out what the canvas never shows (the
    arithmetic of {forward}/{backward}, a nudge's f(x+h), a network's metrics)."""
    for key in OFF_CANVAS:
        text = text.replace("{" + key + "}", "")
    return runner.fill(text)


@pytest.mark.parametrize("path", LESSON_FILES, ids=[p.stem for p in LESSON_FILES])
def test_every_number_in_the_text_is_on_the_canvas(path):
    for runner in steps_of(path):
        where = f"{path.stem} step {runner.index + 1}"
        shown = runner.shown()
        assert shown, f"{where}: the canvas would be blank"
        texts = canvas_texts(runner)
        names = runner.names
        # 1. every node placeholder shows what that node shows on the canvas
        for source in (runner.step.text, runner.step.question.prompt if runner.step.question else ""):
            for name in re.findall(r"\{([^{}]+)\.(data|grad)\}", source):
                label, quantity = name
                nid = runner.nid_of_label(label)
                if nid is None:
                    assert runner.kind == "network", f"{where}: {label} is quoted but not on the canvas"
                    continue
                quoted = runner.placeholder(f"{label}.{quantity}")
                on_canvas = shown[nid][0 if quantity == "data" else 1]
                assert quoted == on_canvas, f"{where}: text {label}.{quantity} = {quoted}, canvas {on_canvas}"
        # 2. any other 4-decimal number in the text is one the canvas shows
        if runner.kind == "graph":
            for number in FOUR_DECIMALS.findall(without_off_canvas(runner, runner.step.text)):
                assert number in texts, f"{where}: the text says {number}, which no node shows"
        # 3. a backward line's final 'now' is the grad the canvas shows for that node
        finals = {}
        quoted_backward = "{backward}" in runner.step.text
        for line in runner.placeholder("backward").splitlines() if quoted_backward else ():
            m = BACKWARD_LINE.match(line)
            assert m, f"{where}: unexpected backward line {line!r}"
            finals[m.group("name")] = m.group("now")
        by_name = {runner.value_names[v]: nid for nid, v in runner.by_id.items()}
        for name, now in finals.items():  # a step's lines name nodes uniquely (constants aside)
            assert float(now) == pytest.approx(float(shown[by_name[name]][1]), abs=1e-4), (
                f"{where}: the text leaves {name}.grad at {now}, the canvas shows {shown[by_name[name]][1]}"
            )
        assert set(names) == set(runner.by_id), f"{where}: a node without a name"


@pytest.mark.parametrize("path", LESSON_FILES, ids=[p.stem for p in LESSON_FILES])
def test_no_internal_id_in_any_text(path):
    for runner in steps_of(path):
        where = f"{path.stem} step {runner.index + 1}"
        texts = [runner.render_text(), runner.render_prompt() or "", *runner.names.values()]
        if runner.step.question is not None:
            texts.append(runner.check_answer("12345")[1])
            texts.append(runner.hint())
        for text in texts:
            assert not INTERNAL_ID.search(text), f"{where}: {INTERNAL_ID.search(text).group()} in {text!r}"


# -----------------------------------------------------------------------------
# the repros of issue 17


def runner_at(name, index):
    runner = LessonRunner(load_lesson(LESSONS / name), train_limit=FAST_TRAIN)
    runner.goto(index)
    return runner


def test_lesson_1_step_4_explains_with_real_numbers_and_canvas_names():
    runner = runner_at("01_derivatives_as_nudges.json", 3)
    ok, explanation = runner.check_answer("14")
    assert ok
    assert "now 14.0000" in explanation  # was: every term 0.0000
    assert "1.0000 · 0.0000" not in explanation
    assert "#" not in explanation and "(x^2).grad" in explanation
    assert "The canvas shows x.grad = 0.0000" in explanation  # and says why it differs


def test_lesson_2_step_2_hides_what_the_forward_pass_has_not_computed():
    runner = runner_at("02_value_and_graph.json", 1)
    shown = runner.shown()
    yy, f, xy = (runner.nid_of_label(label) for label in ("yy", "f", "xy"))
    assert shown[yy] == (PENDING, PENDING) and shown[f] == (PENDING, PENDING)  # was: 9 and 15
    assert shown[xy][0] == "6.0000"
    assert "not computed yet" in runner.render_text()
    runner.next()
    assert runner.shown()[f][0] == "15.0000"


def test_lesson_3_step_1_shows_the_grad_of_1_it_speaks_of():
    runner = runner_at("03_chain_rule.json", 0)
    loss = runner.nid_of_label("L")
    assert runner.shown()[loss][1] == "1.0000"  # was: 0.0000
    assert "L.grad = 1.0000" in runner.render_text()


def test_lesson_6_step_2_says_which_x_grad_it_asks_for():
    runner = runner_at("06_zero_grad_bug.json", 1)
    assert runner.shown()[runner.nid_of_label("x")][1] == "6.0000"
    prompt = runner.render_prompt()
    assert "6.0000" in prompt and "clean" in prompt
    ok, explanation = runner.check_answer("3")
    assert ok and "The canvas shows x.grad = 6.0000" in explanation and "3.0000 is what one clean" in explanation


def test_a_network_too_big_to_draw_shows_one_of_its_neurons_never_nothing():
    runner = runner_at("10_training_moons.json", 0)
    assert not runner.network_fits()
    assert runner.document is not None and 4 <= len(runner.document.nodes) <= 20
    shown = {v.label: v for v in runner.by_id.values()}
    for p in runner.trainer.params[:3]:  # the network's own weights (copied: its grads stay training's)
        assert shown[p.label].data == p.data
    assert "L0.n" in runner.canvas_note


def test_the_neuron_on_the_canvas_is_alive_and_its_grads_follow_the_chain_rule():
    # repro (issue 28): lessons 10-16 showed a dead neuron: every intermediate grad 0 while its
    # weights showed non-zero grads, from the whole batch and an L2 term nobody mentioned
    from core.engine import topological_order

    for name, index in (("10_training_moons.json", 1), ("11_learning_rate_too_high.json", 1)):
        runner = runner_at(name, index)
        values = list(runner.by_id.values())
        out = next(v for v in values if v.label.endswith(" out"))
        assert out.data > 0 and out.grad == 1.0  # a ReLU that passes gradient
        for v in topological_order(out):  # each grad is the chain rule from the output
            if v._op == "*":
                a, b = v._prev if len(v._prev) == 2 else (list(v._prev)[0],) * 2
                assert abs(a.grad - b.data * v.grad) < 1e-12 or a is b
        note = runner.canvas_note
        w0 = next(n.w[0] for n in runner.trainer.model.layers[0].neurons if f"d{n.w[0].label} " in note)
        assert "sums such shares" in note and "training points" in note
        assert fmt(w0.grad) in note
        if runner.trainer.cfg.l2_alpha > 0:
            assert "L2 term" in note


def test_text_and_canvas_use_one_number_format():
    assert fmt(1e-6) == "1.000e-06" and fmt(-1e-12) != "0.0000"  # a tiny grad is never shown as 0
