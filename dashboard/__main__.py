"""`python -m dashboard ...`: the command line lives in `dashboard.cli`."""

from dashboard.cli import main
from dashboard.cli.worker import leave

if __name__ == "__main__":
    leave(main())
