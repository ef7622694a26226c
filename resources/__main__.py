"""`python -m backprop_studio [FILE] [--screenshot OUT.png] ...`: start the studio."""

import sys

from backprop_studio import main

sys.exit(main())
