"""The Training workspace: TensorFlow Playground's controls over core.training, on a worker thread.

    from app.training.panel import TrainingPanel
    panel = TrainingPanel()
    panel.openGraph.connect(show_the_graph)          # (root Value, title)
    panel.liveGraphUpdated.connect(refresh_it)       # (root Value, title), "Follow live"
    # and panel.shutdown() when the window closes

The main window does all of that through `app.training.workspace.TrainingWorkspace`.
This package module imports nothing, so `app.training.tuning` can run before
numpy and pyqtgraph load (see its docstring); import the panel from
`app.training.panel`.
"""
