"""``python -m fairness_core``: the command line of :mod:`fairness_core._cli`."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
