"""fairness_dashboard.presentation.formats.num (numbers in text by magnitude, significant digits), the tiles' policy fairness_dashboard.presentation.formats.tile and the
interval beside a tile (ci_text): never 0.0000 for a nonzero value."""

import math

import numpy as np
import pytest

from fairness_dashboard.presentation import formats


@pytest.mark.parametrize("value, expected", [
    (0.448468, "0.4485"),       # in [0.1, 1): four decimals, as before
    (2.27083, "2.271"),         # a ratio: four significant digits
    (12.3456, "12.35"),
    (1234.5678, "1,235"),
    (0.0523449, "0.05234"),     # below 0.1: more decimals, not fewer digits
    (0.000123456, "0.0001235"),
    (2.3456e-5, "2.346e-5"),    # a Theil index (order 1e-5) was "0.0000"
    (-4.2e-7, "-4.200e-7"),
    (0.99996, "1.000"),         # rounding that reaches the next power of ten keeps four digits
    (1.0, "1.000"),
    (0.0, "0"),
    (-0.0523, "-0.05230"),
    (np.float64(0.25), "0.2500"),
    (3, "3.000"),
])
def test_values_keep_four_significant_digits(value, expected):
    assert formats.num(value) == expected


def test_no_nonzero_value_reads_as_zero():
    for exponent in range(-12, 4):
        for mantissa in (1.0, 4.9999, 9.99996):
            value = mantissa * 10.0 ** exponent
            shown = formats.num(value)
            assert float(shown.replace(",", "")) != 0, (value, shown)
            assert math.isclose(float(shown.replace(",", "")), value, rel_tol=6e-4), (value, shown)


def test_fewer_digits_on_request():
    assert formats.num(0.448468, 3) == "0.448"
    assert formats.num(2.3456e-5, 2) == "2.3e-5"


def test_undefined_and_infinite_values_are_named():
    assert formats.num(math.nan) == "undefined"
    assert formats.num(np.float64("nan")) == "undefined"
    assert formats.num(None) == "undefined"
    assert formats.num(math.inf) == "∞"
    assert formats.num(-math.inf) == "-∞"


@pytest.mark.parametrize("value, expected", [
    # the three tiles of the issue, which read 0.1302, 0.05263 and 0.0006253
    (0.1302, "0.130"),
    (0.05263, "0.053"),
    (0.0006253, "0.000625"),
    # from 0.01 up: 3 decimals, values in [0, 1] and ratios alike
    (0.448468, "0.448"),
    (0.99996, "1.000"),
    (1.0, "1.000"),
    (2.27083, "2.271"),
    (12.3456, "12.346"),
    (1234.5678, "1,234.568"),
    (0.0100, "0.010"),
    (0.009996, "0.010"),        # rounds to 0.0100, so it is on the 3-decimal grid
    (-0.0523, "-0.052"),        # a signed difference
    # below 0.01: 3 significant digits, never 0.000; scientific below 0.0001
    (0.0099949, "0.00999"),
    (0.00526, "0.00526"),
    (0.0001, "0.000100"),
    (9.9949e-5, "9.99e-5"),
    (2.3456e-5, "2.35e-5"),
    (-4.2e-7, "-4.20e-7"),
    # the words
    (0.0, "0"),
    (math.nan, "undefined"),
    (None, "undefined"),
    (math.inf, "∞"),
    (-math.inf, "-∞"),
    (np.float64(0.25), "0.250"),
])
def test_the_tiles_precision_policy(value, expected):
    assert formats.tile(value) == expected


def test_a_tile_never_reads_zero_and_keeps_three_significant_digits_below_001():
    for exponent in range(-12, 4):
        for mantissa in (1.0, 4.9999, 9.99996):
            value = mantissa * 10.0 ** exponent
            shown = float(formats.tile(value).replace(",", ""))
            assert shown != 0, value
            # 3 decimals from 0.01 up (at most half a unit of the third decimal off), 3 significant digits below
            assert abs(shown - value) <= (5e-4 if abs(value) >= 0.0095 else 5e-3 * value) + 1e-15, (value, shown)


def test_the_interval_beside_a_tile_follows_the_tiles_policy():
    assert formats.ci_text(1.92418, 3.17461, 0.95) == "95 % CI 1.924–3.175"
    assert formats.ci_text(0.12034, 0.14161, 0.95) == "95 % CI 0.120–0.142"
    assert formats.ci_text(1.2e-5, 0.0031, 0.9) == "90 % CI 1.20e-5–0.00310"
    assert formats.ci_text(0.0004217, 0.0123, 0.9) == "90 % CI 0.000422–0.012"
    assert formats.ci_text(0.43912, 0.46233, 0.95, 3) == "95 % CI 0.439–0.462"   # digits (old callers) changes nothing
    assert formats.ci_text(math.nan, 0.2, 0.99) == "99 % CI undefined"


def test_tables_show_four_significant_digits():
    config = formats.column_config(["disparity", "disparity_ci_low", "p_value", "size"])
    for column in ("disparity", "disparity_ci_low", "p_value"):
        assert config[column]["type_config"]["format"] == "%.4g", column
    assert config["size"] == "Rows"
