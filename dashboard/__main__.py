"""`python -m dashboard ...`: the command line lives in `dashboard.cli`."""

import sys

from dashboard.cli import main

if __name__ == "__main__":
    sys.exit(main())
