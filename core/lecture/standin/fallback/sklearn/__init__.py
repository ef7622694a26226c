"""scikit-learn for the lecture-code runner's child, where the real one is not installed:
the two toy datasets micrograd's demo makes (`sklearn.datasets.make_moons`, `make_blobs`),
computed as scikit-learn computes them, with numpy. The real scikit-learn, when installed,
comes first on the path and is used instead."""

__version__ = "stand-in"
