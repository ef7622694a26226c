"""The Training panel: TensorFlow Playground's controls over core.training, on a worker thread.

    from app.training import TrainingPanel
    panel = TrainingPanel()
    panel.openGraph.connect(window.open_value)         # (root Value, title)
    panel.liveGraphUpdated.connect(window.update_live)  # (root Value, title)
    # and panel.shutdown() when the window closes
"""

from app.training.panel import TrainingPanel

__all__ = ["TrainingPanel"]
