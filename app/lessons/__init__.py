"""The Lessons panel: the guided track over `core.lessons.runner.LessonRunner`.

    panel.py         LessonsPanel: the dock that puts it all together and shows a step
    moves.py         LessonMoves: open / next / back / goto, in place or in a worker; Stop
    worker.py        Snapshot, LessonWorker: a move run on a QThread, its results gathered there
    graph_bridge.py  GraphBridge: the runner's own Values and highlights on the main canvas
    lesson_list.py   LessonList and the progress kept in QSettings
    question_box.py  QuestionBox: prompt, answer, Check and the verdict
    lesson_network.py LessonNetworkView, BoundaryView: a network lesson's numbers and decision boundary
    reading.py       text sizes and set_markdown, readable from the back of a room
    install.py       install_classroom: the dock, Help → Lessons, Open Lesson, Welcome (on Services)
    opening.py       Opening (window.opening): the dock shown, a lesson opened; the welcome page
    presenter_install.py  the window's own part: View → Theme / Scale / Presenter Mode, the toolbar

Import the panel from `app.lessons.panel`.
"""
