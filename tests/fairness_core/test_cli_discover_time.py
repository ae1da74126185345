"""The command line's subgroup discovery (--discover) and fairness over time (--time, --period, --gate-period): the
JSON's tables equal the library's own calls, discovery never changes the exit status, the latest period's gate
follows that period's verdicts, bad combinations are one line (exit 2), and the report escapes hostile names."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._cli import main
from fairness_core._review.export import table_data

THRESHOLD = 0.5
FLAGS = ["--label", "approved", "--positive", "1", "--score", "score", "--protected", "sex", "--threshold",
         str(THRESHOLD), "--outcome", "favourable"]


def scored_frame(*, bad_months, n: int = 6000, seed: int = 1, sex: str = "sex", date: str = "date") -> pd.DataFrame:
    """Four months of approvals (positive favourable); in `bad_months` women's scores are 0.3 lower, so the
    selection-rate rules fail there with their whole interval and pass elsewhere."""
    rng = np.random.default_rng(seed)
    month = rng.integers(0, 4, n)
    day = pd.Timestamp("2024-01-01") + pd.to_timedelta(month * 31 + rng.integers(0, 28, n), unit="D")
    women = rng.random(n) < 0.5
    y = (rng.random(n) < 0.4).astype(int)
    drop = np.where(np.isin(month, bad_months) & women, 0.3, 0.0)
    score = np.clip(0.35 + 0.3 * y - drop + rng.normal(0, 0.1, n), 0, 1).round(4)
    return pd.DataFrame({date: day.strftime("%Y-%m-%d"), sex: np.where(women, "F", "M"),
                         "region": rng.choice(["N", "S", "E"], n), "approved": y, "score": score,
                         "weight": rng.uniform(0.5, 2.0, n).round(3), "decision": (score >= 0.45).astype(int)})


def run(tmp_path, frame: pd.DataFrame, *args: str, command: str = "metrics", capsys=None):
    """`main` on `frame` written as CSV: (exit status, the JSON or HTML written, stderr)."""
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / ("review.json" if command == "metrics" else "review.html")
    status = main([command, str(data), *args, "--out", str(out)])
    err = capsys.readouterr().err if capsys is not None else ""
    text = out.read_text(encoding="utf-8") if out.exists() else ""
    return status, text, err


def rows_equal(stored: dict, frame: pd.DataFrame) -> None:
    """A JSON table (``table_data``) equals `frame`: the same columns, text cells equal, numbers to 1e-12."""
    expected = table_data(frame)
    assert stored["columns"] == expected["columns"]
    assert len(stored["rows"]) == len(expected["rows"]) > 0
    for got, want in zip(stored["rows"], expected["rows"]):
        for a, b in zip(got, want):
            if isinstance(b, float) and not isinstance(a, bool):
                assert a == pytest.approx(b, rel=1e-12, abs=1e-15)
            else:
                assert a == b


@pytest.fixture(scope="module")
def latest_fails():
    return scored_frame(bad_months=[3])


def test_discovery_json_equals_a_direct_call_and_never_gates(tmp_path, latest_fails, capsys):
    status, text, err = run(tmp_path, latest_fails, *FLAGS, "--discover", "sex", "region", "--discover-depth", "2",
                            capsys=capsys)
    found = json.loads(text)["discovery"]
    assert (found["columns"], found["quantity"], found["depth"], found["gating"]) == (
        ["sex", "region"], "selection_rate", 2, False)
    direct = fc.discover_subgroups(latest_fails["approved"].to_numpy(), (latest_fails["score"] >= THRESHOLD).astype(int),
                                   latest_fails[["sex", "region"]], quantity="selection_rate", depth=2, min_size=30,
                                   positive_outcome="favourable", ci=0.95, holdout=0.5, random_state=0)
    [model] = found["models"]
    assert (model["model"], model["search_rows"], model["estimate_rows"]) == ("score", 3000, 3000)
    rows_equal(model["table"], direct.table)
    assert "sex=F" in set(direct.discoveries["subgroup"])   # women's April drop, found on the held-out half
    assert "discovered subgroups for score (Selection rate; not gating): " in err
    # the same review without the search: the same exit status (a discovery is a finding, never a gated rule)
    again, _, _ = run(tmp_path, latest_fails, *FLAGS, capsys=capsys)
    assert status == again == 1


def test_discovery_reads_the_weights_outcome_and_given_predictions(tmp_path, latest_fails, capsys):
    args = ["--label", "approved", "--positive", "1", "--predicted", "decision", "--protected", "sex", "--weight",
            "weight", "--outcome", "adverse", "--min-size", "50", "--discover", "region", "sex",
            "--discover-quantity", "false_positive_rate", "--discover-depth", "1"]
    _, text, _ = run(tmp_path, latest_fails, *args, capsys=capsys)
    [model] = json.loads(text)["discovery"]["models"]
    direct = fc.discover_subgroups(latest_fails["approved"].to_numpy(), latest_fails["decision"].to_numpy(),
                                   latest_fails[["region", "sex"]], quantity="false_positive_rate", depth=1,
                                   min_size=50, positive_outcome="adverse", ci=0.95, holdout=0.5, random_state=0,
                                   sample_weight=latest_fails["weight"].to_numpy())
    assert (model["model"], model["direction"]) == ("decision", "higher")   # a false positive is adverse: higher
    rows_equal(model["table"], direct.table)


def test_subgroup_auc_search_skips_given_predictions(tmp_path, latest_fails, capsys):
    args = FLAGS + ["--predicted", "decision", "--discover", "region", "--discover-quantity", "subgroup_auc"]
    _, text, err = run(tmp_path, latest_fails, *args, capsys=capsys)
    found = json.loads(text)["discovery"]
    assert [m["model"] for m in found["models"]] == ["score"]
    assert found["skipped"] == [{"model": "decision", "reason": "given predictions have no score, so no AUC to compare"}]
    assert "decision not searched" in err


@pytest.mark.parametrize("quantity", ["bpsn_auc", "calibration_error"])
def test_score_quantities_search_identity_members_only(tmp_path, latest_fails, capsys, quantity):
    """The BPSN AUC and the calibration error are offered; an identity column searched defines its members only."""
    frame = latest_fails.assign(member=(latest_fails["region"] == "N").astype(int))
    args = ["--label", "approved", "--positive", "1", "--score", "score", "--identity", "member", "--threshold",
            str(THRESHOLD), "--discover", "member", "sex", "--discover-quantity", quantity, "--discover-depth", "2"]
    _, text, _ = run(tmp_path, frame, *args, capsys=capsys)
    found = json.loads(text)["discovery"]
    [model] = found["models"]
    direct = fc.discover_subgroups(frame["approved"].to_numpy(), (frame["score"] >= THRESHOLD).astype(int),
                                   frame[["member", "sex"]], y_score=frame["score"].to_numpy(), quantity=quantity,
                                   depth=2, min_size=30, positive_outcome="favourable", ci=0.95, holdout=0.5,
                                   random_state=0, indicators=["member"], indicator_threshold=0.5)
    assert found["quantity"] == quantity
    rows_equal(model["table"], direct.table)
    subgroups = set(direct.table["subgroup"])
    assert any("member=1" in s for s in subgroups) and not any("member=0" in s for s in subgroups)


@pytest.mark.parametrize("period", ["month", "week"])
def test_over_time_json_equals_fc_over_time(tmp_path, latest_fails, capsys, period):
    status, text, _ = run(tmp_path, latest_fails, *FLAGS, "--time", "date", "--period", period, capsys=capsys)
    stored = json.loads(text)["over_time"]
    mapping = fc.ColumnMapping(label="approved", positive_label=1, scores=("score",), protected=("sex",),
                               positive_outcome="favourable", time="date")
    config = fc.ReviewConfig(mapping=mapping, thresholds=(("score", THRESHOLD),))
    over = fc.over_time(latest_fails, config, period=period)
    assert (stored["column"], stored["period"], stored["level"]) == ("date", period, 0.95)
    rows_equal(stored["verdicts"], over.verdicts)
    assert [r[0] for r in stored["periods"]["rows"]] == list(over.periods["period"])
    rules = pd.DataFrame(stored["rules"]["rows"], columns=stored["rules"]["columns"])
    for row in rules.itertuples(index=False):
        first = row.first_failure if isinstance(row.first_failure, str) else None   # JSON null read as NaN
        assert first == over.first_failure(row.rule, row.model)
        trend = over.trend(row.rule, row.model)
        assert row.slope == pytest.approx(trend.slope, rel=1e-12)
        assert row.equal_p_value == pytest.approx(trend.heterogeneity_p, rel=1e-9, abs=1e-300)
    if period == "month":   # the women's drop is in April only: the selection-rate ratio first fails there
        four_fifths = rules.set_index("rule").loc["four_fifths"]
        assert four_fifths["first_failure"] == "2024-04" and four_fifths["latest_status"] == "fail"
        assert four_fifths["first_failure_value_ci_high"] < 0.8
    assert json.loads(text)["gate"]["period"] is None   # without --gate-period every row is gated


@pytest.mark.parametrize("bad_months", [[3], [0, 1, 2]], ids=["latest-fails", "earlier-fail"])
def test_gate_period_latest_follows_the_latest_periods_verdicts(tmp_path, capsys, bad_months):
    frame = scored_frame(bad_months=bad_months)
    status, text, err = run(tmp_path, frame, *FLAGS, "--time", "date", "--gate-period", "latest", capsys=capsys)
    mapping = fc.ColumnMapping(label="approved", positive_label=1, scores=("score",), protected=("sex",),
                               positive_outcome="favourable", time="date")
    over = fc.over_time(frame, fc.ReviewConfig(mapping=mapping, thresholds=(("score", THRESHOLD),)))
    last = over.verdicts[(over.verdicts["position"] == over.periods["position"].max())
                         & (over.verdicts["model"] == "score")]
    assert status == int((last["status"] == "fail").any())
    assert status == (1 if bad_months == [3] else 0)
    data = json.loads(text)
    assert data["gate"]["period"] == "2024-04" and data["exit_status"] == status
    assert "note: the gate judged the latest period of date, 2024-04 (" in err
    assert "verdicts of the latest period 2024-04: model " in err
    whole, _, _ = run(tmp_path, frame, *FLAGS, capsys=capsys)   # every row: the earlier months' failure counts
    assert whole == 1


@pytest.mark.parametrize("extra, expected", [
    (["--gate-period", "latest"], "--gate-period needs a time column: give --time COL too"),
    (["--period", "week"], "--period needs a time column"),
    (["--discover-depth", "2"], "--discover-depth sets the search for subgroups: use it with --discover"),
    (["--time", "date", "--engine", "spark"], "--time is not available with --engine spark"),
    (["--discover", "sex", "--engine", "duckdb"], "--discover needs the rows in memory"),
    (["--time", "when"], "--time 'when' is not a column of the data"),
    (["--discover", "nowhere"], "The columns to search for subgroups 'nowhere' are not columns of the data"),
    (["--score", "decision", "--baseline", "score", "--time", "date", "--gate-period", "latest"],
     "--gate-period latest judges the latest period's rules; the changes from --baseline are judged on every row"),
])
def test_bad_combinations_are_one_line_with_exit_2(tmp_path, latest_fails, capsys, extra, expected):
    status, _, err = run(tmp_path, latest_fails, *FLAGS, *extra, capsys=capsys)
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 2 and len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], err


def test_discover_depth_above_three_is_a_usage_error(tmp_path, latest_fails, capsys):
    with pytest.raises(SystemExit) as exit_:
        run(tmp_path, latest_fails, *FLAGS, "--discover", "sex", "--discover-depth", "4", capsys=capsys)
    assert exit_.value.code == 2
    assert "invalid choice: 4" in capsys.readouterr().err


def test_report_has_the_sections_and_escapes_hostile_names(tmp_path, capsys):
    hostile, when = "<script>alert(1)</script>", "<b>when</b>"
    frame = scored_frame(bad_months=[3], sex=hostile, date=when)
    args = ["--label", "approved", "--positive", "1", "--score", "score", "--protected", hostile, "--threshold",
            str(THRESHOLD), "--outcome", "favourable", "--discover", hostile, "region", "--time", when,
            "--gate-period", "latest"]
    status, html, _ = run(tmp_path, frame, *args, command="report", capsys=capsys)
    assert status == 1
    for text in ("<h2>Discovered subgroups</h2>", "<h2>Fairness over time</h2>", "Release gate",
                 "The release gate judged the latest period, 2024-04, only.",
                 "they never change the exit status", "estimated on the other 3,000 (held-out) rows alone",
                 "<h3>Each rule over time</h3>", "First failing period", "Selection-rate ratio per period",
                 "Subgroups found, score"):
        assert text in html, text
    assert "<script>alert(1)" not in html and "<b>when</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;=F" in html   # the subgroup's conditions, escaped
    assert "per month of &lt;b&gt;when&lt;/b&gt;" in html
    assert html.count("Plotly.newPlot") >= 1 + 1 + 6   # scorecard, discovery, one per rule of the model and labels
