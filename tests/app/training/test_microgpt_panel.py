"""Train microgpt on a names file the learner picks, one name a line (issue 42 item 4)."""

import numpy as np


def test_the_panel_trains_on_a_names_file_of_ones_own(window, qtbot, tmp_path):
    from app.training.microgpt_panel import show_training
    from core.microgpt.train import train

    names = tmp_path / "mine.txt"
    names.write_text("zoé\nliam\n\nnoa\nhélène\nbo\n", encoding="utf-8")  # blank lines skipped, é a letter
    panel = show_training(window.microgpt_panel)
    assert panel.use_names(str(names))
    assert "5 names (mine.txt)" in panel.status.text()
    panel.steps.setValue(6)
    panel.every.setValue(3)
    panel.start()
    panel.wait()
    assert panel.count == 6
    assert np.allclose(panel.losses[:6], [p.loss for p in train(6, path=str(names))], rtol=0, atol=1e-12)
    assert not np.allclose(panel.losses[:6], [p.loss for p in train(6)], rtol=0, atol=1e-6)  # not the bundled
    panel.close()


def test_a_file_that_is_not_names_is_refused_and_says_why(window, tmp_path):
    from app.training.microgpt_panel import show_training

    binary = tmp_path / "photo.txt"
    binary.write_bytes(b"\xff\xd8\xff\xe0" * 10)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    panel = show_training(window.microgpt_panel)
    assert not panel.use_names(str(binary)) and "not a text file in UTF-8" in panel.status.text()
    assert not panel.use_names(str(empty)) and "no names in it" in panel.status.text()
    assert panel.path is None  # the bundled names stay
    panel.close()
