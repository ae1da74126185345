"""The release gate where people look, in Chromium at 1,400 x 900 and 1,024 x 768: with a candidate model worse than
the baseline for one subgroup's positives, the candidate's tab on the Overview opens with "the candidate fails" in
the first screen, above its scorecard, whose rows say their change from the baseline ("vs baseline"), and the changes
from the baseline list what fails first. The numbers are
checked in tests/app/test_model_comparison.py; screenshots docs/screenshots/gate_<width>.png are kept for a person to
look at."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_app_browser import (TRUNCATED, assert_no_exception, choose, choose_exactly, go_to,
                                            open_app, settle, upload)
from tests.browser.test_comparison_browser import compare_on
from tests.support import ROOT, two_models_frame

pytestmark = pytest.mark.browser

SCREENSHOTS = ROOT / "docs" / "screenshots"


@pytest.mark.parametrize("width, height", [(1400, 900), (1024, 768)])
def test_the_candidates_fail_is_in_its_first_screen(width, height, app_page, app_url, tmp_path):
    page, console = app_page
    page.set_viewport_size({"width": width, "height": height})
    two_models_frame().to_csv(tmp_path / "two_models.csv", index=False)
    open_app(page, app_url)
    upload(page, tmp_path / "two_models.csv", r"two_models\.csv: 3,000 rows")
    choose(page, "Label column", "label")
    choose_exactly(page, "Score column", ["score_a", "score_b"])
    choose_exactly(page, "Protected attributes", ["race"])
    go_to(page, "Overview")
    compare_on(page)
    main = page.get_by_test_id("stMain")
    tab = main.get_by_role("tab", name="score_b", exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")
    settle(page)
    main.evaluate("el => el.scrollTo(0, 0)")
    against = main.get_by_text("Against the baseline score_a").first
    expect(against).to_be_visible()
    expect(main.get_by_text("the candidate fails").first).to_be_visible()
    box = against.bounding_box()
    assert box is not None and box["y"] + box["height"] <= height, (box, height)   # in the first screen
    scorecard = main.locator(".js-plotly-plot:visible").first   # the open tab's scorecard
    assert against.bounding_box()["y"] < scorecard.bounding_box()["y"]            # above the candidate's scorecard
    # the scorecard's "vs baseline" lines: the changes in the rules' own quantities, a fail among them
    expect(scorecard.locator("text", has_text=re.compile(r"^vs baseline: worse by [0-9.]+ Fail$")).first).to_be_visible()
    # the changes from the baseline: the tally and the list open with what fails
    tally = main.get_by_text("changes from score_a (tolerance").first
    expect(tally).to_contain_text("fail")
    assert tally.inner_text().split(",")[0].endswith("fail")
    badges = main.locator('[data-testid="stMarkdownContainer"] span').filter(
        has_text=re.compile(r"^\s*(Fail|Inconclusive|Pass|Not assessable)\s*$"))
    first = [t.strip() for t in badges.all_inner_texts()[:3]]
    assert first and first[0] == "Fail", first
    assert page.evaluate(TRUNCATED) == []
    assert_no_exception(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"gate_{width}.png"))
    scorecard.screenshot(path=str(SCREENSHOTS / f"gate_scorecard_{width}.png"))   # its "vs baseline" lines
    console.assert_clean()
