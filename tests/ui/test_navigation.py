"""fairness_dashboard.navigation: URL paths from titles, and the server-start hook that `streamlit run app.py` installs."""

import asyncio
import gc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.web.server.app_discovery import discover_asgi_app

from tests.support import ROOT
from fairness_dashboard import navigation


def test_url_paths_are_the_titles_in_lowercase_with_hyphens():
    assert [navigation.slug(t) for t in navigation.TITLES] == [
        "data", "overview", "subgroup-aucs", "rate-disparities", "calibration", "class-wise-bias",
        "dataset-metrics", "discover-subgroups", "over-time", "metric-definitions"]
    assert navigation.url("Metric definitions", "ece") == "/metric-definitions#ece"
    assert navigation.url("Overview") == "/overview"
    with pytest.raises(ValueError, match="no page titled"):
        navigation.url("Definitions")


def test_every_page_file_is_listed_once_and_exists():
    paths = [path for path, _ in navigation.PAGES]
    assert sorted(paths) == sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
    assert len(set(navigation.TITLES)) == len(navigation.TITLES)


def test_streamlit_run_serves_the_app_with_the_server_start_hook():
    # `streamlit run app.py` finds an st.App in app.py (by parsing it) and serves that: the only way
    # to run code when the server starts, before its first session picks the pages/-directory mode.
    found = discover_asgi_app(Path(ROOT / "app.py"))
    assert found.is_asgi_app and found.app_name == "app"
    source = (ROOT / "app.py").read_text()
    assert "lifespan=navigation.server_lifespan" in source


def test_server_lifespan_switches_off_the_pages_directory_mode():
    # the class attribute Streamlit reads at the start of every script run (runtime/scriptrunner)
    before = PagesManager.uses_pages_directory
    try:
        PagesManager.uses_pages_directory = True

        async def start():
            async with navigation.server_lifespan(None):
                return PagesManager.uses_pages_directory

        # In a thread of its own: an earlier test (Playwright's sync API) may leave an event loop running here.
        with ThreadPoolExecutor(1) as pool:
            assert pool.submit(asyncio.run, start()).result() is False
        # the start-up heap is out of the collector's view (fairness_dashboard.session.memo)
        assert gc.get_freeze_count() > 0
    finally:
        PagesManager.uses_pages_directory = before
        gc.unfreeze()   # the rest of the test session collects as usual
