"""Suite-wide fixtures: the real datasets beside the project, and quiet Streamlit logs."""

import logging
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"

# AppTest runs scripts without a browser session; Streamlit logs this once per widget call.
logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(logging.ERROR)
logging.getLogger("streamlit.runtime.caching.cache_data_api").setLevel(logging.ERROR)


def require_file(path: Path) -> Path:
    """Return `path`, or fail (in CI) / skip (elsewhere) with a clear message when it is missing."""
    if path.exists():
        return path
    message = (f"Real dataset {path} is missing. The tests read the shared datasets from ../shared/data "
               "beside the project root; see ../shared/data/README.md.")
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def compas_csv() -> Path:
    """COMPAS two-year recidivism file (7,214 rows)."""
    return require_file(SHARED_DATA / "compas" / "compas-scores-two-years.csv")


@pytest.fixture(scope="session")
def madlibs_csv() -> Path:
    """Jigsaw madlibs with 51 identity indicator columns (30,240 rows)."""
    return require_file(SHARED_DATA / "jigsaw_madlibs" / "madlibs_identities.csv")
