"""Suite-wide fixtures: the real datasets beside the project, and quiet Streamlit logs."""

import logging
from pathlib import Path

import pytest

from tests.support import SHARED_DATA, require_file

# AppTest runs scripts without a browser session; Streamlit logs this once per widget call.
logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(logging.ERROR)
logging.getLogger("streamlit.runtime.caching.cache_data_api").setLevel(logging.ERROR)


@pytest.fixture(scope="session")
def compas_csv() -> Path:
    """COMPAS two-year recidivism file (7,214 rows)."""
    return require_file(SHARED_DATA / "compas" / "compas-scores-two-years.csv")


@pytest.fixture(scope="session")
def madlibs_csv() -> Path:
    """Jigsaw madlibs with 51 identity indicator columns (30,240 rows)."""
    return require_file(SHARED_DATA / "jigsaw_madlibs" / "madlibs_identities.csv")
