"""AppTest fixtures."""

import os

import pytest

# The deployed app shows no error details (.streamlit/config.toml); in tests a failure's traceback
# is what we need to read, so AppTest runs with full details.
os.environ.setdefault("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS", "full")

from tests.app.helpers import start


@pytest.fixture
def app():
    """The app after its first run, on the bundled credit sample."""
    return start()
