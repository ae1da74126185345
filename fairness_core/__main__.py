"""``python -m fairness_core``: the command line of :mod:`fairness_core._cli`."""

from ._cli import run

if __name__ == "__main__":
    run()
