"""A generated data file whose name, column names and values are markup: the injection tests' input.

Shared by tests/app/test_injection_escaped.py (what the pages send) and
tests/browser/test_injection_browser.py (what Chromium renders and fetches).
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

SCRIPT = "<script>alert(1)</script>"
IMG_TAG = "<img src=x onerror=alert(2)>"
LINK = "[click](http://evil.example/)"
IMAGE = "![x](http://evil.example/beacon.png)"
LATEX = "$\\frac{1}{2}$"
DIRECTIVE = ":red[x]"
URL = "http://2130706433/"
FORMULA = '=HYPERLINK("http://evil.example/","x")'
# The protected attribute's values, largest subgroup first (the default named reference).
VALUES = (LINK, SCRIPT, IMG_TAG, IMAGE, LATEX, DIRECTIVE, URL, FORMULA)
HOSTILE = (*VALUES, "evil.example", "2130706433")

# Column names the app maps by itself (fairness_core.guess_mapping): a label word, score words, "race".
RACE = f"race {DIRECTIVE} {SCRIPT}"
LABEL = f"{LINK} label"
SCORE = f"{IMG_TAG} score"
SCORE_2 = f"{URL} p_score"
POSITIVE = f"{LATEX} no"  # the guessed positive label (the last value sorted)
NEGATIVE = f"{IMAGE} yes"
FILE_NAME = f"{SCRIPT} {LINK} {IMAGE} {LATEX} {DIRECTIVE} {URL}.csv"


def frame(seed: int = 0) -> pd.DataFrame:
    """395 rows: 80 in the first subgroup, 45 in each other; two scores that separate the label somewhat."""
    rng = np.random.default_rng(seed)
    group = np.repeat(VALUES, [80] + [45] * (len(VALUES) - 1))
    y = rng.random(len(group)) < 0.4
    return pd.DataFrame({
        RACE: group,
        LABEL: np.where(y, POSITIVE, NEGATIVE),
        SCORE: np.clip(0.35 * y + 0.65 * rng.random(len(group)), 0, 1).round(4),
        SCORE_2: np.clip(0.2 * y + 0.8 * rng.random(len(group)), 0, 1).round(4),
    })


def csv_bytes(seed: int = 0) -> bytes:
    """:func:`frame` as CSV."""
    buffer = io.StringIO()
    frame(seed).to_csv(buffer, index=False)
    return buffer.getvalue().encode("utf-8")
