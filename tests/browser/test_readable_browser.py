"""Every page readable at 1,400 px with the Adult two-model file, mapped as a newcomer maps it (the first guess).

No label, tile, header, tab or value cut off (``every_page_cut``); COMPAS gets the same walk in its one session
in test_app_browser.py.
"""

from __future__ import annotations

import pytest

from tests.browser.test_app_browser import every_page_cut, open_app, upload

pytestmark = pytest.mark.browser


def test_adult_two_models_every_page_readable(adult_two_models_csv, app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    upload(page, adult_two_models_csv, r"adult_two_models\.csv: 16,281 rows")
    # The first guess maps the file: no choice needed.
    cut = every_page_cut(page, "adult", screenshot_dir)
    assert not cut, "Text cut off:\n" + "\n".join(f"{k}: {v}" for k, v in cut.items())
    console.assert_clean()
