"""Backprop Studio: the PySide6 desktop shell over core."""

__version__ = "0.5.0"
