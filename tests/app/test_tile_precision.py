"""AppTest: every tile (st.metric) of every page, and every interval written beside one, follows the tiles' one
precision policy (fairness_dashboard.presentation.formats.tile): 3 decimals from 0.01 up, 3 significant digits below."""

import re

from tests.app.helpers import CI, PAGES, each_section
from fairness_dashboard.presentation import formats

DECIMAL = re.compile(r"^-?[\d,]*\d\.\d+(e-\d+)?$")
COUNT = re.compile(r"^\d{1,3}(,\d{3})*( of \d{1,3}(,\d{3})*)?$")   # "6,000", "2 of 3"
WORDS = {"undefined", "∞", "-∞", "n/a"}


def _follows_policy(text: str) -> bool:
    """Whether a shown number is written as fairness_dashboard.presentation.formats.tile writes it (a count or a word is not a decimal)."""
    if text in WORDS or COUNT.match(text):
        return True
    return bool(DECIMAL.match(text)) and formats.tile(float(text.replace(",", ""))) == text


def test_the_policy_check_tells_the_old_formats_apart():
    # the three tiles of the issue, as they read before: none is on the policy's grid
    assert [_follows_policy(t) for t in ("0.1302", "0.05263", "0.0006253", "0.130", "0.053", "0.000625")] == [
        False, False, False, True, True, True]


def test_every_tile_and_its_interval_follow_one_precision_policy(app):
    seen = 0
    for page in [p for p in PAGES if p != "pages/definitions.py"]:
        app.switch_page(page).run()
        for section in each_section(app, page):
            assert not app.exception, (page, section, app.exception)
            for metric in app.metric:
                assert _follows_policy(metric.value), (page, section, metric.label, metric.value)
                seen += DECIMAL.match(metric.value) is not None
            for caption in app.caption:
                for _, low, high in CI.findall(caption.value):
                    assert _follows_policy(low) and _follows_policy(high), (page, section, caption.value)
    assert seen >= 20   # the decimal tiles of the six analysis pages and the Overview were all read
