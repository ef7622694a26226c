"""Top-level test configuration.

Qt must know it has no display before it is imported anywhere, or pytest-qt aborts
the whole run instead of failing a test.
"""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
