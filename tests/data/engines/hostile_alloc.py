"""Hostile: asks for 10 GB while loading."""

big = bytearray(10 * 1024**3)
