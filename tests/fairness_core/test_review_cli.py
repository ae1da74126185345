"""The review builder, its JSON, the HTML report and `python -m fairness_core` (exit statuses)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

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
                 "--config", "--strict", "--out", "--no-intervals", "--min-size", "--weight",
                 "exit status", "examples"):
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


# Hostile-input check (M4, M5, M6, M8, L3): every user mistake is exit 2 with one line on stderr ------------------

def _equal_file(tmp_path):
    block = pd.DataFrame({"y": [0, 0, 1, 1] * 50, "p": [0.1, 0.7, 0.3, 0.9] * 50})
    path = tmp_path / "equal.csv"
    pd.concat([block.assign(g="a"), block.assign(g="b")], ignore_index=True).to_csv(path, index=False)
    return path


def _refused(done: subprocess.CompletedProcess) -> str:
    """The one line a refused command wrote on stderr (exit status 2, no traceback, nothing on stdout)."""
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and not done.stdout, done.stderr
    return lines[0]


def _refused_here(capsys, *args: str) -> str:
    """:func:`_refused` of ``main(args)`` run in this process (the same exit status and stderr, without the start-up
    time of a new interpreter)."""
    from fairness_core._cli import main

    capsys.readouterr()
    try:
        status = main(list(args))
    except SystemExit as exc:   # argparse's usage errors
        status = exc.code
    out, err = capsys.readouterr()
    return _refused(subprocess.CompletedProcess(args, status, out, err))


def test_cli_output_that_cannot_be_written_is_bad_input(tmp_path, capsys):
    # M4: a bad --out printed a traceback and exited 1, which a release gate reads as "a rule fails".
    path = _equal_file(tmp_path)
    flags = ["--label", "y", "--score", "p", "--protected", "g", "--no-intervals"]
    missing = tmp_path / "nowhere" / "review.json"
    assert _refused_here(capsys, "metrics", str(path), *flags, "--out", str(missing)) == (
        f"error: --out {str(missing)!r}: the directory {str(missing.parent)!r} does not exist. Tip: create it first, "
        "or give a path in an existing directory.")
    assert _refused_here(capsys, "report", str(path), *flags, "--out", str(tmp_path)) == (
        f"error: --out {str(tmp_path)!r} is a directory. Tip: give a file name in it, e.g. "
        f"{str(tmp_path / 'review.html')!r}.")
    assert not list(tmp_path.glob("*.html")) and not missing.parent.exists()
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full to stand for a full disk")
    full = "error: could not write '/dev/full': No space left on device. Tip: check the path and the free disk space."
    assert _refused(_cli("report", str(path), *flags, "--out", "/dev/full")) == full   # the interpreter's own status
    assert _refused_here(capsys, "metrics", str(path), *flags, "--out", "/dev/full") == full


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "p=nan", "1e999"])
def test_cli_threshold_that_is_not_finite_is_bad_input(tmp_path, capsys, value):
    # M4: --threshold inf printed a traceback and exited 1.
    line = _refused_here(capsys, "metrics", str(_equal_file(tmp_path)), "--label", "y", "--score", "p", "--protected",
                         "g", f"--threshold={value}")
    assert line == f"error: --threshold {value!r}: expected a finite number X or COL=X (predictions are score >= X)."


@pytest.mark.parametrize("change, field", [
    (lambda c: c | {"options": 5}, "options: 5 is not of type 'object'"),
    (lambda c: c | {"options": c["options"] | {"n_boot": 1e9}},
     "options.n_boot: 1000000000.0 is greater than the maximum of 10000"),
    (lambda c: c | {"options": c["options"] | {"cal_n_bins": 1e7}},
     "options.cal_n_bins: 10000000.0 is greater than the maximum of 50"),
], ids=["options", "n_boot", "cal_n_bins"])
def test_cli_configuration_with_wrong_types_or_sizes_is_bad_input(tmp_path, capsys, change, field):
    # M5: a configuration with wrong types was reported as an internal error (exit 3, "please report it").
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("p",), protected=("g",))
    config = tmp_path / "config.json"
    config.write_text(json.dumps(change(fc.ReviewConfig(mapping=mapping).to_dict())), encoding="utf-8")
    line = _refused(_cli("metrics", str(_equal_file(tmp_path)), "--config", str(config)))   # its own process
    assert line.startswith("error: The review configuration is not valid: ") and field in line


def test_cli_configuration_file_that_cannot_be_read_is_bad_input(tmp_path, capsys):
    path = str(_equal_file(tmp_path))
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert _refused_here(capsys, "metrics", path, "--config", str(nested)) == (
        "error: The review configuration is not valid: the JSON is nested too deeply. Tip: save one from the app, or "
        "see ReviewConfig.")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{")
    assert _refused_here(capsys, "metrics", path, "--config", str(binary)) == (
        f"error: --config {str(binary)!r} is not UTF-8 text. Tip: give a review configuration saved from the app "
        "(JSON).")
    assert _refused_here(capsys, "metrics", path, "--config", str(tmp_path)) == (
        f"error: --config {str(tmp_path)!r} cannot be read: Is a directory.")


def test_cli_rows_longer_than_the_header_are_refused(tmp_path, capsys):
    # M6: read shifted (column y held the scores) without a message; 64 KB of ',"' took 38 s.
    from fairness_core._data.reading import LONG_ROWS_MESSAGE
    from tests.fairness_core.test_bad_input_catalogue import LONG_FIRST_ROW, STALL

    for name, data, fields in (("shifted.csv", LONG_FIRST_ROW, 3), ("stall.csv", STALL, 16_385)):
        path = tmp_path / name
        path.write_bytes(data)
        assert _refused_here(capsys, "metrics", str(path), "--label", "y", "--score", "p") == (
            "error: " + LONG_ROWS_MESSAGE.format(name=name, fields=fields, columns=2))


def test_cli_flags_that_would_be_ignored_or_cannot_apply_are_refused(tmp_path, capsys):
    # L3: an unknown --threshold column and --table without --engine were ignored; --table on a CSV answered
    # "Cannot launch in-memory database in read-only mode!".
    path = str(_equal_file(tmp_path))
    flags = ["--label", "y", "--score", "p", "--protected", "g"]
    assert _refused(_cli("metrics", path, *flags, "--threshold", "nope=0.5")) == (   # in its own process
        "error: --threshold 'nope=0.5': 'nope' is not a score column (scores: 'p'). Tip: give COL=X for a column "
        "named with --score, or X alone for every score.")
    assert _refused_here(capsys, "metrics", path, *flags, "--table", "t") == (
        "error: --table NAME reads a table of a DuckDB database file: use it with --engine duckdb.")
    assert _refused_here(capsys, "metrics", path, *flags, "--engine", "polars", "--table", "t") == (
        "error: --table NAME reads a table of a DuckDB database file: use it with --engine duckdb.")
    assert _refused_here(capsys, "metrics", path, *flags, "--engine", "duckdb", "--table", "t") == (
        f"error: {path!r} is not a DuckDB database file, which --table NAME reads a table of. Tip: to read a CSV or "
        "Parquet file, leave out --table.")
    assert _refused_here(capsys, "metrics", path, *flags, "--auc-bins", "100") == (
        "error: --auc-bins sets the score bins of counts computed by an engine: use it with --engine (without one, "
        "every AUC is exact).")
    assert _refused_here(capsys, "metrics", path, *flags, "--engine", "duckdb", "--auc-bins", "10000000") == (
        "error: --auc-bins '10000000': expected a whole number of bins from 2 to 2,000,000, or 'exact'. Tip: 10000 "
        "(the default) keeps each AUC within its reported max_binning_error.")
    assert _refused_here(capsys, "metrics", path, "--label", "y", "--predicted", "p", "--protected", "g",
                         "--threshold", "0.5") == (
        "error: --threshold '0.5' applies to score columns, and none is given: add --score COL.")
    assert _refused(_cli("metrics", path, *flags, "--no-such-flag")) == (
        "error: unrecognized arguments: --no-such-flag (see python -m fairness_core --help)")
