"""Multiple-comparison rejections: Holm's step-down computed here equals statsmodels' multipletests (which this
project does not call for Holm: it runs gc.collect() on every call), and Bonferroni and Benjamini-Hochberg are
statsmodels' own."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from statsmodels.stats.multitest import multipletests

from fairness_core._stats.adjust import rejections

P_VALUES = st.lists(st.sampled_from([0.0, 0.001, 0.004, 0.01, 0.0125, 0.02, 0.025, 0.05, 0.2, 0.5, 1.0])
                    | st.floats(0, 1), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(P_VALUES, st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_equals_statsmodels(p, alpha):
    p = np.asarray(p)
    with mock.patch("gc.collect"):   # statsmodels' Holm collects garbage on every call: 0.3 s each in the suite's process
        expected = multipletests(p, alpha=alpha, method="holm")[0]
    np.testing.assert_array_equal(rejections(p, alpha, "holm"), expected)


def test_holm_by_hand():
    # m = 4 at alpha 0.05: thresholds 0.0125, 0.0167, 0.025, 0.05 for the sorted p-values
    p = np.array([0.04, 0.01, 0.016, 0.03])
    assert rejections(p, 0.05, "holm").tolist() == [False, True, True, False]   # stops at 0.03 > 0.025
    assert rejections(np.array([0.02, 0.0125]), 0.05, "holm").tolist() == [True, True]   # 0.0125 <= 0.025
    assert rejections(np.array([0.03, 0.03]), 0.05, "holm").tolist() == [False, False]   # a tie: both or none


@pytest.mark.parametrize("adjust", ["bonferroni", "fdr_bh"])
def test_the_others_are_statsmodels(adjust):
    p = np.random.default_rng(0).random(30) ** 3
    np.testing.assert_array_equal(rejections(p, 0.05, adjust), multipletests(p, alpha=0.05, method=adjust)[0])
