"""Hostile: never finishes loading."""

while True:
    pass
