"""AppTest fixtures."""

import pytest

from tests.app.helpers import start


@pytest.fixture
def app():
    """The app after its first run, on the bundled credit sample."""
    return start()
