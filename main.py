"""Start Backprop Studio: `python main.py [FILE] [--screenshot OUT.png]`."""

import sys

from app.startup import main

if __name__ == "__main__":
    sys.exit(main())
