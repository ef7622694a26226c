"""microgpt on the studio's engine: the model (model.py), its names and tokens (data.py),
and training it fast by replaying each step's recorded graph with numpy (train.py)."""
