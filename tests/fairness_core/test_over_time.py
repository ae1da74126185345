"""Fairness over time: periods of a time column, every rate and label rule per period, trend and change tests.

Per period the values, intervals and verdicts equal those of build_review on that period's rows (brute force);
the trend and change tests keep their false-alarm rate over 24 periods without change, and find a planted one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._data.periods import NO_TIME, OUTSIDE, assign_periods
from fairness_core._review.over_time import NO_ROWS
from fairness_core._stats.intervals import mover_disparity


def _frame(n=3000, months=3, seed=1, tz=None, drop_b_from=None):
    """Rows over `months` months, subgroups a, b, c in every month; from month `drop_b_from` on, b is selected
    far less often (a planted change)."""
    rng = np.random.default_rng(seed)
    start = pd.Timestamp("2024-01-01", tz=tz)
    hours = rng.integers(0, 24 * 30 * months, n)
    when = start + pd.to_timedelta(hours, unit="h")
    group = rng.choice(["a", "b", "c"], n)
    y = (rng.random(n) < 0.4).astype(int)
    score = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    if drop_b_from is not None:
        late = (hours >= 24 * 30 * drop_b_from) & (group == "b")
        score[late] *= 0.4
    return pd.DataFrame({"when": when, "group": group, "y": y, "score": score})


def _config(time="when", **options):
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("group",), time=time)
    return fc.ReviewConfig(mapping=mapping, thresholds=(("score", 0.5),), n_boot=200,
                           rate_metrics=("selection_rate", "false_positive_rate"), **options)


def _same_verdicts(ours, theirs):
    assert [v.rule.name for v in ours] == [v.rule.name for v in theirs]
    for a, b in zip(ours, theirs):
        assert a.status == b.status and a.sentence == b.sentence and a.left_out == b.left_out
        # equal up to the order of a floating-point sum (sums of weights); counts of rows are exact
        np.testing.assert_allclose([a.value, a.ci_low, a.ci_high], [b.value, b.ci_low, b.ci_high], rtol=1e-12)


def test_each_period_equals_the_review_of_its_rows():
    frame, config = _frame(), _config()
    result = fc.over_time(frame, config, period="month")
    assert list(result.periods["period"]) == ["2024-01", "2024-02", "2024-03"]
    months = frame["when"].dt.to_period("M").astype(str)
    for position, label in enumerate(result.periods["period"]):
        rows = frame.loc[months == label].reset_index(drop=True)
        review = fc.build_review(rows, config)
        ours = result.models["score"][position]
        rate_verdicts = review.models[0].verdicts[-len(ours.verdicts):]
        _same_verdicts(ours.verdicts, rate_verdicts)
        pd.testing.assert_frame_equal(ours.rate_table, review.models[0].rate_table)
        for metric, disparity in ours.rates.items():
            theirs = review.models[0].rates[metric]
            np.testing.assert_array_equal([disparity.value, disparity.ci_low, disparity.ci_high],
                                          [theirs.value, theirs.ci_low, theirs.ci_high])
        _same_verdicts(result.labels[position].verdicts, review.dataset_verdicts)
        table = result.verdicts.loc[result.verdicts["position"] == position]
        assert list(table["status"]) == [v.status for v in ours.verdicts + review.dataset_verdicts]
        assert int(result.periods.loc[position, "rows"]) == len(rows)
        sizes = result.subgroups.loc[result.subgroups["period"] == label].set_index("subgroup")["size"]
        assert sizes.to_dict() == rows["group"].value_counts().astype(float).to_dict()


def test_overlapping_subgroups_equal_the_counts_of_their_rows():
    rng = np.random.default_rng(3)
    n = 2000
    frame = pd.DataFrame({"week": rng.integers(1, 5, n), "y": rng.integers(0, 2, n),
                          "score": rng.random(n), "female": rng.integers(0, 2, n).astype(float),
                          "older": rng.integers(0, 2, n).astype(float)})
    frame.loc[rng.random(n) < 0.1, "older"] = np.nan   # rows in neither mask of an identity column
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), indicators=("female", "older"),
                               time="week")
    config = fc.ReviewConfig(mapping=mapping, thresholds=(("score", 0.5),), n_boot=200)
    result = fc.over_time(frame, config, period=None)
    assert list(result.periods["period"]) == ["1", "2", "3", "4"]
    assert result.time_zone is None and list(result.periods["start"]) == [1, 2, 3, 4]
    for position, week in enumerate([1, 2, 3, 4]):
        review = fc.build_review(frame.loc[frame["week"] == week].reset_index(drop=True), config)
        ours = result.models["score"][position].verdicts
        _same_verdicts(ours, review.models[0].verdicts[-len(ours):])


def test_time_zone_is_kept_and_periods_follow_its_calendar():
    times = pd.Series(pd.to_datetime(["2024-01-31 23:30", "2024-02-01 00:30", "2024-03-15 12:00"])
                      .tz_localize("Europe/Paris"))
    found = assign_periods(times, "month")
    assert found.time_zone == "Europe/Paris"
    assert found.labels == ["2024-01", "2024-02", "2024-03"]
    assert list(found.codes) == [0, 1, 2]   # 00:30 in Paris is 23:30 UTC on 31 January, still February here
    assert found.starts[1] == pd.Timestamp("2024-02-01", tz="Europe/Paris")
    in_utc = assign_periods(times.dt.tz_convert("UTC"), "month")
    assert list(in_utc.codes) == [0, 0, 2] and in_utc.time_zone == "UTC"
    result = fc.over_time(_frame(months=4, tz="America/New_York"), _config(), period="quarter")
    assert result.time_zone == "America/New_York" and list(result.periods["period"]) == ["2024Q1", "2024Q2"]
    assert result.periods["start"].iloc[0] == pd.Timestamp("2024-01-01", tz="America/New_York")


def test_text_dates_edges_and_rows_without_a_period():
    times = pd.Series(["2024-01-05", None, "2024-01-20", "2023-12-31", "2024-02-10"])
    found = assign_periods(times, ["2024-01-01", "2024-01-15", "2024-02-01"])
    assert list(found.codes) == [0, -1, 1, -1, -1]
    assert found.labels == ["[2024-01-01 00:00:00, 2024-01-15 00:00:00)", "[2024-01-15 00:00:00, 2024-02-01 00:00:00)"]
    assert found.reasons == {NO_TIME: 1, OUTSIDE: 2}
    weekly = assign_periods(times, "week")
    # weeks end on Sunday: 31 December 2023 closes the first week, 10 February 2024 is in the seventh
    assert weekly.labels[0] == "2023-12-25/2023-12-31" and len(weekly.labels) == 7
    assert list(weekly.codes) == [1, -1, 3, 0, 6]
    numbers = assign_periods(pd.Series([1, 5, 9, 10]), [0, 5, 10])
    assert list(numbers.codes) == [0, 1, 1, -1] and numbers.labels == ["[0, 5)", "[5, 10)"]
    frame = _frame()
    frame.loc[:9, "when"] = pd.NaT
    result = fc.over_time(frame, _config())
    assert result.exclusions.set_index("reason")["rows"].to_dict() == {NO_TIME: 10}
    assert int(result.periods["rows"].sum()) == len(frame) - 10


def test_dates_offsets_and_integers_with_missing_values():
    import datetime as dt

    dates = assign_periods(pd.Series([dt.date(2024, 1, 3), dt.date(2024, 3, 1), None]), "month")
    assert list(dates.codes) == [0, 2, -1] and dates.labels == ["2024-01", "2024-02", "2024-03"]
    one_offset = assign_periods(pd.Series(["2024-01-31T23:30+02:00", "2024-02-01T00:30+02:00"]), "month")
    assert one_offset.time_zone == "UTC+02:00" and list(one_offset.codes) == [0, 1]
    two_offsets = assign_periods(pd.Series(["2024-01-31T23:30+02:00", "2024-02-01T00:30+01:00"]), "month")
    assert two_offsets.time_zone == "UTC" and list(two_offsets.codes) == [0, 0]   # 21:30 and 23:30 UTC
    read_as_floats = assign_periods(pd.Series([3.0, None, 5.0]), None)   # integers with a gap, as a CSV gives them
    assert list(read_as_floats.codes) == [0, -1, 1] and read_as_floats.labels == ["3", "5"]


def test_bad_times_and_periods_are_refused():
    with pytest.raises(ValueError, match="time"):
        fc.ColumnMapping(label="y", positive_label=1, time=3)
    with pytest.raises(ValueError, match="dates, datetimes"):
        assign_periods(pd.Series(["soon", "later"]), "month", "when")
    with pytest.raises(ValueError, match="integers"):
        assign_periods(pd.Series([1, 2]), "month", "week")
    with pytest.raises(ValueError, match="one of"):
        assign_periods(pd.Series(pd.to_datetime(["2024-01-01"])), "year")
    with pytest.raises(ValueError, match="time column"):
        fc.over_time(_frame(), _config(time=None))
    with pytest.raises(ValueError, match="both the label and the time"):
        fc.ReviewConfig.from_dict(_config(time="y").to_dict())


def test_time_column_round_trips_in_the_configuration():
    config = _config()
    again = fc.ReviewConfig.from_json(config.to_json())
    assert again.mapping.time == "when" and again == config
    assert fc.ReviewConfig.from_json(_config(time=None).to_json()).mapping.time is None


def test_a_period_without_rows_or_too_small_is_not_assessable_never_zero():
    frame = _frame(n=4000, months=4)
    month = frame["when"].dt.month
    frame = frame.loc[(month != 2) & ~((month == 3) & (frame.index % 40 != 0))].reset_index(drop=True)
    result = fc.over_time(frame, _config())
    assert list(result.periods["rows"] > 0) == [True, False, True, True]
    empty = result.verdicts.loc[result.verdicts["period"] == "2024-02"]
    assert set(empty["status"]) == {"not_assessable"} and set(empty["note"]) == {NO_ROWS}
    assert empty["value"].isna().all() and result.models["score"][1] is None and result.labels[1] is None
    small = result.verdicts.loc[result.verdicts["period"] == "2024-03"]
    assert set(small["status"]) == {"not_assessable"}
    assert small["left_out"].str.contains("minimum 30").all() and small["value"].isna().all()
    assert int(result.periods.loc[2, "small_subgroups"]) == 3
    trend = result.trend("four_fifths")
    assert trend.left_out == (1, 2) and trend.periods == 2


def test_the_first_failure_and_the_change_of_a_planted_drop():
    result = fc.over_time(_frame(n=8000, months=6, drop_b_from=3), _config())
    series = result.series("p_percent_score")
    assert list(series["status"][:3]) != ["fail"] * 3 and list(series["status"][3:]) == ["fail"] * 3
    assert result.first_failure("four_fifths") == "2024-04"
    trend = result.trend("four_fifths")
    # a step, not a line: the slope is negative but the residuals widen its interval (Knapp-Hartung); the
    # equality of the periods is what a step fails
    assert trend.slope < 0 and trend.ci_low < 0 < trend.ci_high and trend.heterogeneity_p < 1e-6
    changes = result.changes("four_fifths", baseline="2024-01")
    assert list(changes["changed"]) == [False, False, False, True, True, True]
    assert (changes["ci_high"][3:] < 0).all() and changes.attrs["compared"] == 5
    assert changes.attrs["level"] == pytest.approx(1 - 0.05 / 5)
    chosen = result.change("four_fifths", "2024-01", "2024-05")
    assert chosen["changed"] and chosen["change"] == pytest.approx(changes["change"][4])
    assert chosen["ci_high"] == changes["ci_high"][4]
    with pytest.raises(ValueError, match="No period"):
        result.change("four_fifths", "2024-01", "2025-01")
    steady = result.changes("four_fifths", baseline="2024-04")
    assert not steady["changed"][3:].any()
    assert result.first_failure("dataset_statistical_parity") is None


def _simulated(reps, periods, n, rate_b=0.3, shift_from=None, shift=0.0, seed=7):
    """A rule's distance per period as the library gives it: the selection-rate difference |a - b| of two
    subgroups of n rows each (a at 0.3, b at `rate_b`, `shift` added from period `shift_from`), with its MOVER
    interval folded at parity (``mover_disparity``)."""
    rng = np.random.default_rng(seed)
    rates = np.full(periods, rate_b)
    if shift_from is not None:
        rates[shift_from:] += shift
    k1 = rng.binomial(n, 0.3, size=(reps, periods))
    k2 = rng.binomial(n, rates, size=(reps, periods))
    low, high = mover_disparity(k1, n, k2, n, 0.95, "diff")
    return np.abs(k1 / n - k2 / n), low, high


def _alarm_rates(values, low, high):
    trends = [fc.period_trend(v, lo, hi) for v, lo, hi in zip(values, low, high)]
    change = np.array([fc.period_changes(v, lo, hi)["changed"].any() for v, lo, hi in zip(values, low, high)])
    return (np.mean([t.p_value < 0.05 for t in trends]), np.mean([t.heterogeneity_p < 0.05 for t in trends]),
            change.mean())


@pytest.mark.parametrize("rate_b", [0.3, 0.2])   # parity (the folded distance's hardest case) and a steady 0.1
def test_no_change_over_24_periods_keeps_the_false_alarms_at_most_5_percent(rate_b):
    trend, equal, change = _alarm_rates(*_simulated(reps=400, periods=24, n=300, rate_b=rate_b))
    assert trend <= 0.05 and equal <= 0.05 and change <= 0.05
    if rate_b == 0.2:   # not vacuous: away from parity the tests do alarm, near their level
        assert trend > 0.01 and equal > 0.01 and change > 0.005


def test_power_for_a_planted_change():
    # the difference grows from 0.1 to 0.18 at period 12 of 24 (b's rate 0.2 -> 0.12), 300 rows per subgroup
    trend, equal, change = _alarm_rates(*_simulated(reps=200, periods=24, n=300, rate_b=0.2, shift_from=12,
                                                    shift=-0.08))
    print(f"power over 24 periods, a difference from 0.1 to 0.18 at period 12: trend {trend:.2f}, "
          f"equality {equal:.2f}, changes from the first period {change:.2f}")
    assert trend > 0.9 and equal > 0.5 and change > 0.1


def test_period_tests_leave_out_what_has_no_interval():
    values, low, high = [0.1, np.nan, 0.2, 0.3], [0.0, np.nan, 0.1, 0.3], [0.2, np.nan, 0.3, 0.3]
    trend = fc.period_trend(values, low, high)
    assert trend.left_out == (1, 3) and trend.periods == 2
    # positions 0 and 2, each of sd 0.1 / 1.96: slope 0.1 / 2, its sd (0.1 / 1.96) / sqrt(2)
    assert trend.slope == pytest.approx(0.05) and trend.ci_high - trend.ci_low == pytest.approx(2 * 0.1 / np.sqrt(2))
    changes = fc.period_changes(values, low, high)
    assert changes.attrs["compared"] == 1 and changes["change"].iloc[2] == pytest.approx(0.1)
    assert changes["change"].isna().tolist() == [True, True, False, True]
    with pytest.raises(ValueError, match="baseline"):
        fc.period_changes(values, low, high, baseline=1)
    single = fc.period_trend([0.1], [0.0], [0.2])
    assert np.isnan(single.slope) and single.periods == 1


def test_weighted_periods_equal_the_weighted_review_of_their_rows():
    frame = _frame(n=2400, months=2)
    frame["w"] = np.random.default_rng(5).uniform(0.5, 2.0, len(frame))
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("group",), time="when",
                               weight="w")
    config = fc.ReviewConfig(mapping=mapping, thresholds=(("score", 0.5),), n_boot=200)
    result = fc.over_time(frame, config)
    months = frame["when"].dt.to_period("M").astype(str)
    for position, label in enumerate(result.periods["period"]):
        review = fc.build_review(frame.loc[months == label].reset_index(drop=True), config)
        ours = result.models["score"][position].verdicts
        _same_verdicts(ours, review.models[0].verdicts[-len(ours):])
        _same_verdicts(result.labels[position].verdicts, review.dataset_verdicts)


def test_the_benchmark_runs():
    """benchmarks/over_time.py at a smoke size, so that it cannot rot: every setting and the timing are reported."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "over_time.py"
    done = subprocess.run([sys.executable, "-W", "error", str(script), "--reps", "40", "--rows", "5000",
                           "--n-boot", "100"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("no change") == 3 and "first failure" in done.stdout
