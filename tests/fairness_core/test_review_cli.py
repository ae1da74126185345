"""The review builder, its JSON, the HTML report and `python -m fairness_core` (exit statuses)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from tests.support import ROOT, SHARED_DATA, require_file

COMPAS = SHARED_DATA / "compas" / "compas-scores-two-years.csv"
COMPAS_FLAGS = ["--label", "two_year_recid", "--score", "decile_score", "--protected", "race", "--threshold", "5"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fairness_core", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def compas_review():
    frame = fc.read_table(require_file(COMPAS))
    mapping = fc.ColumnMapping(label="two_year_recid", positive_label=1, scores=("decile_score",), protected=("race",))
    config = fc.ReviewConfig(mapping=mapping, thresholds=(("decile_score", 5.0),))
    return frame, config, fc.build_review(frame, config, source={"name": COMPAS.name})


def test_review_numbers_equal_the_metric_functions(compas_review):
    frame, config, review = compas_review
    y = (frame["two_year_recid"] == 1).astype(int).to_numpy()
    pred = (frame["decile_score"] >= 5).astype(int).to_numpy()
    model = review.models[0]
    groups = fc.Subgroups.from_attributes(frame, ["race"])   # min_size 30, as the mapping's default
    fpr = fc.rate_disparity(y, pred, groups, metric="false_positive_rate", reduction="max", ci=0.95, random_state=0)
    assert model.rates["false_positive_rate"].value == fpr.value
    pd.testing.assert_frame_equal(model.rates["false_positive_rate"].table, fpr.table)
    table = model.rates["false_positive_rate"].table.set_index("subgroup")
    assert round(table.loc["African-American", "subgroup_value"], 4) == 0.4485
    auc = fc.bias_auc_table(y, frame["decile_score"].to_numpy(), groups, ci=0.95, random_state=0)
    np.testing.assert_allclose(model.auc_table[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(),
                               auc[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(), rtol=1e-12)
    assert model.calibration is None and "not a probability" in model.calibration_note  # deciles 1-10
    theil = fc.theil_index(y, pred, groups, reduction="max", ci=0.95, random_state=0)
    assert (model.rates["theil_index"].value, model.rates["theil_index"].ci_low) == (theil.value, theil.ci_low)
    assert review.edf.value == fc.smoothed_edf(y, groups, ci=0.95, random_state=0).value
    assert {"smoothed_edf", "decile_score.theil_index"} <= set(review.tables())
    assert [v.rule.name for v in review.verdicts] == [
        "dataset_statistical_parity_diff_max_0.1", "four_fifths", "equal_opportunity",
        "false_positive_rate_diff_max_0.1", "false_negative_rate_diff_max_0.1", "equalized_odds_diff_max_0.1"]
    assert review.exit_status() == 1


def test_json_round_trips_to_1e_12(compas_review):
    _, _, review = compas_review
    data = json.loads(review.to_json())
    for name, frame in review.tables().items():
        stored = data["tables"][name]
        assert stored["columns"] == [str(c) for c in frame.columns], name
        for j, column in enumerate(frame.columns):
            values = frame[column]
            if pd.api.types.is_float_dtype(values):
                back = np.array([np.nan if r[j] is None else float(r[j]) for r in stored["rows"]])
                np.testing.assert_allclose(back, values.to_numpy(dtype=float), rtol=1e-12, equal_nan=True,
                                           err_msg=f"{name}.{column}")
    assert data["models"][0]["headline"]["false_positive_rate"] == review.models[0].rates["false_positive_rate"].value
    assert fc.ReviewConfig.from_dict(data["context"]["configuration"]) == review.config


def test_config_round_trip_and_clear_errors():
    mapping = fc.ColumnMapping(label="y", positive_label="yes", scores=("a", "b"), protected=("race", "sex"))
    config = fc.ReviewConfig(mapping=mapping, slice=fc.Slice((fc.Condition("age", low=20, high=50),)),
                             thresholds=(("a", 0.3), ("b", 0.6)), rate_metrics=("selection_rate",), ci=None,
                             view={"subgroups:order": "name", "rates:shown": ("a", "b"), "auc:full_range": True})
    assert fc.ReviewConfig.from_json(config.to_json()) == config
    # the view is kept and written, never an option: JSON values, lists for tuples
    assert config.view == (("subgroups:order", "name"), ("rates:shown", ["a", "b"]), ("auc:full_range", True))
    assert config.to_dict()["view"] == {"subgroups:order": "name", "rates:shown": ["a", "b"], "auc:full_range": True}
    assert "view" not in config.options() and fc.ReviewConfig(mapping=mapping).to_dict()["view"] == {}
    with pytest.raises(ValueError, match=r"view: \[1\] is not of type 'object'"):
        fc.ReviewConfig.from_dict(config.to_dict() | {"view": [1]})
    with pytest.raises(ValueError, match="not valid"):
        fc.ReviewConfig.from_dict(config.to_dict() | {"view": {"x": float("nan")}})
    with pytest.raises(ValueError, match=r"options: Additional properties are not allowed \('colour' was unexpected\)"):
        fc.ReviewConfig.from_dict(config.to_dict() | {"options": {"colour": 1}})
    with pytest.raises(ValueError, match="not JSON"):
        fc.ReviewConfig.from_json("{")


def test_report_is_self_contained_escaped_and_carries_its_configuration(compas_review, tmp_path):
    _, config, review = compas_review
    hostile = fc.build_review(pd.DataFrame({"y": [0, 1] * 40, "s": np.tile([0.2, 0.8, 0.4, 0.6], 20),
                                            "g": ["<img src=x onerror=alert(1)>"] * 40 + ["=HYPERLINK(1)"] * 40}),
                              fc.ReviewConfig(mapping=fc.ColumnMapping(label="y", positive_label=1, scores=("s",),
                                                                       protected=("g",))),
                              source={"name": "<b>x</b>.csv"})
    page = fc.render_report(hostile)
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<b>x</b>" not in page and "'=HYPERLINK(1)" in page
    assert page.count("<script") >= 3 and "cdn.plot.ly" not in page.split("</head>")[0]
    text = fc.render_report(review)
    found = re.search(r'<script type="application/json" id="review-config">(.*?)</script>', text, re.S)
    assert fc.ReviewConfig.from_json(found.group(1)) == config


def test_cli_report_and_metrics_exit_1_when_a_rule_fails(tmp_path):
    require_file(COMPAS)
    out = tmp_path / "review.html"
    done = _cli("report", str(COMPAS), *COMPAS_FLAGS, "--out", str(out))
    assert done.returncode == 1, done.stderr
    assert "fail" in done.stderr and out.stat().st_size > 1_000_000   # plotly.js embedded
    done = _cli("metrics", str(COMPAS), *COMPAS_FLAGS, "--json")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    rows = data["tables"]["decile_score.false_positive_rate"]
    at = rows["columns"].index("subgroup_value")
    assert round([r for r in rows["rows"] if r[0] == "African-American"][0][at], 4) == 0.4485


def test_cli_exits_0_when_every_rule_passes_and_2_on_bad_input(tmp_path):
    # Two subgroups with identical rows: every disparity is 0, so every rule passes.
    block = pd.DataFrame({"y": [0, 0, 1, 1] * 50, "p": [0.1, 0.7, 0.3, 0.9] * 50})
    frame = pd.concat([block.assign(g="a"), block.assign(g="b")], ignore_index=True)
    path = tmp_path / "equal.csv"
    frame.to_csv(path, index=False)
    done = _cli("metrics", str(path), "--label", "y", "--score", "p", "--protected", "g", "--no-intervals")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["exit_status"] == 0
    missing = _cli("metrics", str(path), "--label", "y", "--score", "nope", "--protected", "g")
    assert missing.returncode == 2 and "nope" in missing.stderr and "Traceback" not in missing.stderr
    assert _cli("metrics", str(path), "--score", "p", "--protected", "g").returncode == 2   # no label
    assert _cli("report", str(path), "--label", "y").returncode == 2                       # --out is required
    assert _cli("metrics", str(tmp_path / "absent.csv"), "--label", "y").returncode == 2


def test_cli_help_documents_every_flag():
    done = _cli("report", "--help")
    assert done.returncode == 0
    for flag in ("--label", "--positive", "--score", "--predicted", "--protected", "--identity", "--threshold",
                 "--config", "--strict", "--out", "--no-intervals", "--min-size", "exit status", "examples"):
        assert flag in done.stdout, flag


def test_a_named_reference_round_trips_as_a_subgroup_never_a_keyword():
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("s",), protected=("g",))
    config = fc.ReviewConfig(mapping=mapping, rate_reference=fc.named_reference("rest"), cal_reference="rest")
    data = json.loads(config.to_json())
    assert data["options"]["rate_reference"] == {"subgroup": "rest"} and data["options"]["cal_reference"] == "rest"
    back = fc.ReviewConfig.from_json(config.to_json())
    assert isinstance(back.rate_reference, fc.NamedReference) and not isinstance(back.cal_reference, fc.NamedReference)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"y": rng.integers(0, 2, 900), "s": rng.random(900), "g": rng.choice(["rest", "b", "c"], 900)})
    review = fc.build_review(frame, back)
    table = review.models[0].rates["false_positive_rate"].table
    assert set(table["reference"]) == {"rest"} and "rest" not in set(table["subgroup"])
