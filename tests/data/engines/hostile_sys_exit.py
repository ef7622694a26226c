"""Hostile: calls sys.exit while loading."""

import sys

sys.exit("bye")
