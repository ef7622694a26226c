"""The big-graph page's debugger: a block opens in place, the backward pass steps into it, long moves on a worker."""

import numpy as np


def shown_titles(page):
    return [item.lines[0][1] for item in page.items.values()]


def test_a_block_opens_in_place_and_the_backward_pass_steps_into_it(window, qtbot, example_page):
    page = example_page
    graph = page.graph
    pos4 = next(item for item in page.items.values() if item.block and item.lines[0][1] == "pos_id = 4")
    page.open_block(pos4.unit_scope)
    qtbot.waitUntil(lambda: "gpt" in shown_titles(page), timeout=60_000)
    titles = shown_titles(page)
    assert "pos_id = 4" not in titles and {"gpt", "softmax", "loss_t"} <= set(titles)
    texts = [page.step().text for _ in range(8)]  # the mean, the 5 sums of the losses, then position 4's
    assert texts[0].startswith("the backward of (1 / n) * sum(losses) (mul)")
    assert texts[6:] == ["the backward of loss_t (neg): 1 step", "the backward of probs[target_id].log() (log): 1 step"]
    softmax = next(item for item in page.items.values() if item.block and item.lines[0][1] == "softmax")
    scope = softmax.unit_scope
    page.step_into()  # the next unit is softmax's block: it opens, and the step runs inside it
    qtbot.waitUntil(lambda: page.moves == 9, timeout=60_000)
    assert "softmax" not in shown_titles(page) and "total" in shown_titles(page)
    (current,) = [item for item in page.items.values() if item.current]
    assert scope in graph.path(int(graph.scope[current.node]))  # the step ran one op inside softmax
    assert page.said.text().startswith("Step 9: the backward of e / total (div): 1 step")
    assert page.run_to_end() is None and page.moving  # 43k steps: on the worker, the window answering
    assert page.wait_moved()
    assert page.stepper.done and page.said.text() == "Ran the backward pass to its end."
    assert np.isfinite(graph.grad).all() and graph.grad[graph.root] == 1.0
    page.back()
    assert window.training.stack.currentWidget() is not page


def test_a_long_move_runs_on_a_worker_and_the_picture_gets_its_grads(window, qtbot, example_page):
    # issue 40: Run to end and Reset of a big step ran on the GUI thread (109 and 52 ms CPU in one turn
    # for the 138k step, 176 and 137 ms wall); they run on a worker, one move at a time
    page = example_page
    graph = page.graph
    assert page.run_to_end() is None and page.moving
    assert page.step() is None and page.said.text() == "Still running the backward pass… (a moment)"
    assert page.wait_moved() and page.stepper.done and page.moves == 0
    values = graph.values()
    np.testing.assert_array_equal(graph.grad, [v.grad for v in values])  # every grad the move changed, copied
    assert page.reset() is None and page.wait_moved()
    assert graph.grad[graph.root] == 1.0 and not graph.grad[np.arange(graph.n) != graph.root].any()
    assert page.said.text().startswith("Reset: every grad is 0")
    first = page.step()  # the output's own op: one step, here
    assert first is not None and first.ops == 1 and not page.moving
