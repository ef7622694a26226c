"""Start Backprop Studio: `python main.py [FILE] [--screenshot OUT.png]`."""
import sys

from app.main_window import main

if __name__ == "__main__":
    sys.exit(main())
