"""Exported tables: formulas neutralised, context in the file, numbers that read back exactly."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc

HOSTILE = ["=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx", "\rx", "plain", "a=b"]


def _table():
    return pd.DataFrame({"subgroup": HOSTILE, "value": [0.1, 1 / 3, -0.5, np.nan, np.inf, -np.inf, 2e-17, 1.0],
                         "size": np.arange(8, dtype=np.int64), "small": [True, False] * 4})


def test_text_cells_and_names_that_would_run_as_formulas_get_an_apostrophe():
    safe = fc.neutralize_formulas(_table().rename(columns={"size": "=size"}))
    assert safe["subgroup"].tolist() == ["'" + s for s in HOSTILE[:6]] + ["plain", "a=b"]
    assert "'=size" in safe.columns
    assert safe["value"].iloc[2] == -0.5   # numbers stay numbers


def test_csv_has_its_context_and_reads_back_exactly():
    context = {"dataset": "compas.csv", "model": "decile_score", "threshold": 5, "note": "two\nlines",
               "reference": "=evil"}
    text = fc.table_to_csv(_table(), context)
    head = [line for line in text.splitlines() if line.startswith("#")]
    assert head[:3] == ['# dataset: "compas.csv"', '# model: "decile_score"', "# threshold: 5"]
    assert head[3] == '# note: "two\\nlines"' and head[4] == "# reference: \"=evil\""
    back = pd.read_csv(io.StringIO(text), comment="#")
    assert back["subgroup"].str.startswith("'").sum() == 6
    np.testing.assert_array_equal(back["value"].to_numpy(), _table()["value"].to_numpy())  # shortest repr: exact


def test_json_round_trips_numbers_nan_and_infinity():
    table = _table()
    text = fc.table_to_json(table, {"model": "p", "options": {"p": -5, "ci": 0.95}})
    data = json.loads(text)   # strict JSON: no NaN or Infinity tokens
    assert data["context"]["options"] == {"p": -5, "ci": 0.95}
    back, context = fc.table_from_json(text)
    assert context == {"model": "p", "options": {"p": -5, "ci": 0.95}}
    np.testing.assert_array_equal(back["value"].to_numpy(dtype=float), table["value"].to_numpy())
    assert back["size"].tolist() == list(range(8)) and back["small"].tolist() == [True, False] * 4


def test_bad_context_is_refused_and_names_are_safe():
    with pytest.raises(ValueError, match="not JSON"):
        fc.table_to_json(_table(), {"x": object()})
    with pytest.raises(ValueError, match="not text"):
        fc.table_to_csv(_table(), {1: "x"})
    assert fc.export_name("Rate disparities", "../../etc/compas.csv", "p_hgb", "t=0.5", suffix="csv") == \
        "Rate-disparities_etc-compas_p_hgb_t-0.5.csv"
