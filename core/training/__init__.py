"""Training a small MLP on 2-D points, headless: everything the Training panel runs.

config.py         TrainConfig: a run as frozen data, checked (and bounded) when built
features.py       what the network sees of a point: x1, x2, x1^2, sin_x1, ...
datasets.py       moons, circles, xor, spiral, blobs; plane, multi-gaussian (regression); CSV points; the split
regularization.py the L1 and L2 penalties on the weights
trainer.py        Trainer: data, model and optimizer, advanced one step at a time
events.py         Progress, Boundary, Weights, Result: what a run reports, plain data
health.py         dead ReLUs, an exploded or stalled loss, said in plain words
loop.py           run(trainer, ...) and train(cfg): THE training loop (the app's worker runs it too)
history.py        the metric history as numpy columns
sample_graph.py   one sample's Value graph through the network, from a weights snapshot
presets.py        the ready-made experiments
network_edits.py  the NETWORK column's edits as config changes
"""
