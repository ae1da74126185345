"""ui.formats.num and ci_text: numbers by magnitude (significant digits), never 0.0000 for a nonzero value."""

import math

import numpy as np
import pytest

from ui import formats


@pytest.mark.parametrize("value, expected", [
    (0.448468, "0.4485"),       # in [0.1, 1): four decimals, as before
    (2.27083, "2.271"),         # a ratio: four significant digits
    (12.3456, "12.35"),
    (1234.5678, "1,235"),
    (0.0523449, "0.05234"),     # below 0.1: more decimals, not fewer digits
    (0.000123456, "0.0001235"),
    (2.3456e-5, "2.346e-5"),    # the Theil index of issue 10 (order 1e-5) was "0.0000"
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


def test_intervals_use_the_same_format():
    assert formats.ci_text(1.92418, 3.17461, 0.95) == "95 % CI 1.924–3.175"
    assert formats.ci_text(1.2e-5, 0.0031, 0.9) == "90 % CI 1.200e-5–0.003100"
    assert formats.ci_text(math.nan, 0.2, 0.99) == "99 % CI undefined"


def test_tables_show_four_significant_digits():
    config = formats.column_config(["disparity", "disparity_ci_low", "p_value", "size"])
    for column in ("disparity", "disparity_ci_low", "p_value"):
        assert config[column]["type_config"]["format"] == "%.4g", column
    assert config["size"] == "Rows"
