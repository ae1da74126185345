"""Fixtures for the fairness_core tests: the real datasets in ``shared/data`` next to the project root.

A test that needs a file fails (when the ``CI`` environment variable is set) or is skipped (on a
developer machine) with a message naming the missing file. The data are read where they are; they
are never copied into the project.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.support import SHARED_DATA as DATA_DIR
from tests.support import missing_data, require_file

COMPAS_FILE = "compas/compas-scores-two-years.csv"
MADLIBS_FILE = "jigsaw_madlibs/madlibs_identities.csv"
# Real people's names and dates of birth: dropped on load, never printed or asserted on.
COMPAS_PERSONAL_COLUMNS = ["name", "first", "last", "dob"]
MADLIBS_NON_IDENTITY = ("template", "toxicity", "TOXICITY@1", "TOXICITY@6")


def require_data_file(relative: str) -> Path:
    """Path of a file under shared/data; fail in CI, skip elsewhere, when it is missing."""
    return require_file(DATA_DIR / relative)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared data folder (``<project root>/../shared/data``)."""
    if not DATA_DIR.is_dir():
        missing_data(f"The real data folder {DATA_DIR.resolve()}")
    return DATA_DIR


@pytest.fixture(scope="session")
def data_file(data_dir):
    """A function: relative path under shared/data -> Path, failing or skipping when missing."""
    return require_data_file


@pytest.fixture(scope="session")
def compas(data_file) -> pd.DataFrame:
    """COMPAS two-year recidivism (all 7,214 rows), without the personal columns.

    Read with plain pandas so the expected values in the tests do not depend on
    ``fairness_core.read_table``. Do not modify it (session scope).
    """
    frame = pd.read_csv(data_file(COMPAS_FILE))
    return frame.drop(columns=COMPAS_PERSONAL_COLUMNS)


@pytest.fixture(scope="session")
def madlibs(data_file) -> pd.DataFrame:
    """Jigsaw madlibs with 51 identity indicator columns. Do not modify it (session scope)."""
    return pd.read_csv(data_file(MADLIBS_FILE))


@pytest.fixture(scope="session")
def madlibs_identities(madlibs) -> list[str]:
    """The 51 identity columns of madlibs, in file order."""
    return [c for c in madlibs.columns if c not in MADLIBS_NON_IDENTITY]
