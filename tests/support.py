"""Paths and the missing-prerequisite rule shared by every test folder."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


def fail_or_skip(message: str) -> None:
    """A missing prerequisite (data file, browser) fails the test in CI and skips it elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message + " (CI is set: this must be present, so the test fails.)", pytrace=False)
    pytest.skip(message)


def require_file(path: Path) -> Path:
    """Return `path`, or fail / skip with a message naming it and where the data should be."""
    if not path.is_file():
        fail_or_skip(f"Real dataset {path} is missing. The tests read the shared datasets from "
                     "../shared/data beside the project root; see ../shared/data/README.md.")
    return path
