"""How the Lessons panel moves between steps: in place, or in a `LessonWorker`.

A graph lesson's move takes milliseconds and runs in place. A move that trains
(a network lesson) runs on a QThread, which drives `runner.goto_iter` and
reports progress; meanwhile the panel is busy (Back/Next/Check disabled) and
Stop abandons the move, going back to the step before. Nothing on the GUI
thread touches the runner while a worker holds it, and the canvas is detached
from the runner's Values first (the session compiles its own copy). Each move
gets a new token, so a worker's late report of a move the panel no longer
waits for is dropped.

`LessonMoves` is the moving half of `LessonsPanel` (it is mixed into it): it
reads and writes the panel's `runner`, `snapshot`, `bridge`, `train_limit`,
`_token`, `_worker`, `_workers`, `_previous` and `_needs_replay`, shows
results with the panel's `_show`, and reports through `busy_box`,
`busy_label` and `busyChanged`.
"""

import time

from PySide6.QtWidgets import QApplication

from app.lessons.lesson_list import LAST_KEY
from app.lessons.worker import LessonWorker, Snapshot, Stopped, _move, _moves_train
from app.settings import settings
from core.lessons.runner import LessonRunner


class LessonMoves:
    """open_lesson / next / back / goto, and the worker's life: stop, wait_idle, shutdown."""

    @property
    def busy(self):
        return self._worker is not None

    def open_lesson(self, lesson_id, step=0):
        """Start a lesson (by id) at `step` (0-based; -1 for its last step)."""
        if self.busy:
            return False
        lesson = self.lesson(lesson_id)
        self._clear_error()
        if self.runner is not None and self.runner.lesson is not lesson:
            self.runner = self.snapshot = None
        target = step if step >= 0 else len(lesson.steps) + step
        settings().setValue(LAST_KEY, lesson.id)
        self._start(lesson, target)
        return True

    def next(self):
        """The next page of the step (presenter mode on a small screen,
        app/lessons/paging.py), else the next step; at the end of a lesson, the first
        step of the next one."""
        if self.busy or self.runner is None:
            return False
        if self.next_page():
            self._update_controls()
            return True
        if self.runner.at_end:
            following = self._following_lesson()
            if following is None:
                return False
            return self.open_lesson(following.id)
        return self.goto(self.runner.index + 1)

    def back(self):
        if self.busy or self.runner is None:
            return False
        if self.back_page():
            self._update_controls()
            return True
        if self.runner.at_start:
            return False
        return self.goto(self.runner.index - 1)

    def goto(self, index):
        if self.busy or self.runner is None:
            return False
        self._start(self.runner.lesson, index)
        return True

    def _following_lesson(self):
        if self.runner is None:
            return None
        i = self.lessons.index(self.runner.lesson)
        return self.lessons[i + 1] if i + 1 < len(self.lessons) else None

    def _start(self, lesson, target):
        """Move to step `target` of `lesson`: in place when it is quick, else in a worker."""
        fresh = self.runner is None or self.runner.lesson is not lesson
        replay = not fresh and (self._needs_replay or bool(self.bridge and self.bridge.touched))
        start = -1 if fresh else self.runner.index
        self._token += 1
        self._clear_error()
        if not _moves_train(lesson, start, target):
            try:
                runner = LessonRunner(lesson, self.train_limit) if fresh else self.runner
                self.runner = runner
                for _ in _move(runner, target, replay):
                    pass
                snapshot = Snapshot(runner)
            except Exception as e:
                self._move_failed(e)
                return
            self._needs_replay = False
            self._show(snapshot)
            return
        if self.bridge is not None:
            self.bridge.detach()
        worker = LessonWorker(
            self._token, None if fresh else self.runner, lesson, target, replay, self.train_limit, self
        )
        self._previous = (lesson, start)
        worker.progress.connect(self._worker_progress)
        worker.done.connect(self._worker_done)
        worker.finished.connect(lambda w=worker: self._reap(w))
        self._worker = worker
        self._workers.append(worker)
        self.busy_label.setText("Working…")
        self.busy_box.show()
        self._update_controls()
        self.busyChanged.emit(True)
        worker.start()

    def _worker_progress(self, token, text):
        if token == self._token:
            self.busy_label.setText(text[:1].upper() + text[1:] + "…")

    def _worker_done(self, token, result):
        if token != self._token:
            return  # a move the panel no longer waits for (shut down)
        self._worker = None
        self.busy_box.hide()
        self.busyChanged.emit(False)
        if isinstance(result, Stopped):
            self.runner = result.runner
            self._needs_replay = True
            lesson, previous = self._previous
            if previous < 0:
                self.runner = self.snapshot = None
                self._show_error("Stopped. Choose a lesson to start again.")
                self._update_controls()
            else:
                self._start(lesson, previous)
            return
        if isinstance(result, Exception):
            self._needs_replay = True
            self._move_failed(result)
            return
        self.runner = result.runner
        self._needs_replay = False
        self._show(result)

    def _reap(self, worker):
        if worker in self._workers:
            self._workers.remove(worker)
        worker.deleteLater()

    def stop(self):
        """Abandon the move in progress (the panel goes back to the step before)."""
        if self._worker is not None:
            self._worker.stop()

    def wait_idle(self, timeout_s=60.0):
        """Block (running the event loop) until no move is in progress; for scripts."""
        deadline = time.perf_counter() + timeout_s
        while self.busy and time.perf_counter() < deadline:
            QApplication.processEvents()
            for worker in list(self._workers):
                worker.wait(20)
        QApplication.processEvents()
        return not self.busy

    def shutdown(self):
        """Stop and join any worker (the window is closing)."""
        for worker in list(self._workers):
            worker.stop()
        for worker in list(self._workers):
            worker.wait()
        self._token += 1
        self._worker = None
