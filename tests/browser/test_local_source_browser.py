""""Data on this machine" in Chromium: a server started with FAIRNESS_LOCAL_DATA reads a Parquet folder where it
lies; the Data page maps it (the edits applied together by one button), the Subgroup AUCs page shows each AUC's max binning error and the intervals from the
counts' atoms, the threshold explorer runs over the bin edges, and what needs the rows says so. Numbers are compared with an upload in tests/app/test_local_source.py."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.app.helpers import scored_table
from tests.browser.conftest import serve_app, scaled_ms
from tests.browser.test_app_browser import (assert_no_exception, choose_exactly, go_to, open_tab, screenshot,
                                            settle, wait_for_plot)
from fairness_dashboard import local_paths
from fairness_dashboard.data import local

pytestmark = pytest.mark.browser
OWN_SERVER = True   # its own server (FAIRNESS_LOCAL_DATA set), no timing bound: may run beside the other browser tests


@pytest.fixture(scope="module")
def local_url(tmp_path_factory):
    """A server of its own, allowed to read a folder with 2 x 10,000 generated rows in Parquet files."""
    root = tmp_path_factory.mktemp("local-browser")
    (root / "logs").mkdir()
    frame = scored_table(20_000, seed=5)
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 2)):
        frame.iloc[rows].to_parquet(root / "logs" / f"day-{i}.parquet", index=False)
    previous = os.environ.get(local_paths.ENV)
    os.environ[local_paths.ENV] = str(root)
    try:
        with serve_app("streamlit-local.log") as (base, _):
            yield base
    finally:
        if previous is None:
            os.environ.pop(local_paths.ENV, None)
        else:
            os.environ[local_paths.ENV] = previous


def test_a_parquet_folder_on_this_machine(browser, local_url, screenshot_dir):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(scaled_ms(20_000))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(local_url)
        expect(page.get_by_role("heading", name="Data", level=1)).to_be_visible(timeout=scaled_ms(30_000))
        settle(page)
        page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Data on this machine",
                                                                              exact=True).click()
        settle(page)
        path = page.get_by_label("Parquet or CSV files: a path, a folder or a glob", exact=True)
        path.fill("logs/*.parquet")
        path.press("Enter")
        settle(page)
        expect(page.get_by_text("2 files", exact=False)).to_be_visible()
        choose_exactly(page, "Protected attributes", ["race", "sex"])
        choose_exactly(page, "Score column", ["score_a"])
        # edits of the mapping wait for one count: said on the page, applied by the button
        expect(page.get_by_text("Mapping not applied yet", exact=False)).to_be_visible()
        screenshot(page, screenshot_dir / "local_data_pending.png")
        page.get_by_role("button", name="Apply mapping").click()
        settle(page)
        expect(page.get_by_text("Mapping not applied yet", exact=False)).to_have_count(0)
        expect(page.get_by_test_id("stMetric").filter(has_text="Rows used")).to_contain_text("20,000")
        expect(page.get_by_text("8 subgroups", exact=True)).to_be_visible()
        assert_no_exception(page)
        path.blur()
        settle(page)
        screenshot(page, screenshot_dir / "local_data.png")

        go_to(page, "Subgroup AUCs")
        wait_for_plot(page)
        expect(page.get_by_text("lies within its max binning error", exact=False)).to_be_visible()
        # intervals from the counts' atoms (on by default): the bias AUC score's and the error bars
        expect(page.get_by_text("Intervals: 95 %; DeLong's for each AUC", exact=False)).to_be_visible()
        assert page.get_by_text(re.compile(r"^95 % CI 0\.\d{3}–0\.\d{3}")).count() >= 5   # under the tiles
        assert_no_exception(page)
        screenshot(page, screenshot_dir / "local_subgroup_aucs.png")

        go_to(page, "Rate disparities")
        wait_for_plot(page)
        open_tab(page, "Correlation")
        expect(page.get_by_text("The correlation score needs the rows themselves", exact=False)).to_be_visible()
        open_tab(page, "Threshold explorer")
        expect(page.get_by_role("heading", name="Threshold explorer")).to_be_visible()
        assert_no_exception(page)
        screenshot(page, screenshot_dir / "local_rate_disparities.png")
        assert not errors, errors
    finally:
        context.close()
