"""Hostile: ends the process while loading, skipping every handler."""

import os

os._exit(3)
