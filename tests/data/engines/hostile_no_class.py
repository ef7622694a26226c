"""Not an engine: no Value class at all."""


def add(a, b):
    return a + b
