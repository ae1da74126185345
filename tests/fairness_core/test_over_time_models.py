"""Fairness over time for chosen models, verdicts only (what the app's Over time page computes).

``over_time(models=..., verdicts_only=True)`` leaves out the other models, each period's performance table, rates and
findings (and ``labels=False`` the labels' rule); every value, interval, verdict, sentence and rate table it keeps
equals the full call's exactly (which tests/fairness_core/test_over_time.py checks against build_review on each
period's rows), with and without sample weights, intervals, and a mean reduction of the labels' rule.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc

# One worker runs the module (make's --dist loadgroup), so each full call below is made once and shared (_full).
pytestmark = pytest.mark.xdist_group("over_time_models")


def _frame(n=3000, months=3, seed=2, weights=False):
    """Rows over `months` months: two scores, a predicted label, race x sex, a planted drop of b's scores."""
    rng = np.random.default_rng(seed)
    hours = rng.integers(0, 24 * 30 * months, n)
    race = rng.choice(["a", "b", "c"], n)
    y = (rng.random(n) < 0.4).astype(int)
    score = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    score[(hours >= 24 * 30 * 2) & (race == "b")] *= 0.6
    frame = pd.DataFrame({"when": pd.Timestamp("2024-01-01") + pd.to_timedelta(hours, unit="h"), "race": race,
                          "sex": rng.choice(["f", "m"], n), "y": y, "score": score,
                          "other": np.clip(score + rng.normal(0, 0.2, n), 0, 1),
                          "approved": (rng.random(n) < 0.5).astype(int)})
    if weights:
        frame["w"] = rng.uniform(0.5, 2.0, n)
    return frame


def _config(weights=False, **options):
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("score", "other"), predicted_label="approved",
                               protected=("race", "sex"), time="when", weight="w" if weights else None)
    return fc.ReviewConfig(mapping=mapping, thresholds=(("score", 0.5),), n_boot=100, **options)


def _full(n=3000, months=3, weights=False, options=()):
    """The data, its config and the full call over months, made once per (n, months, weights, options)."""
    return _made_once(n, months, weights, tuple(sorted(options)))


@cache
def _made_once(n, months, weights, options):
    frame, config = _frame(n=n, months=months, weights=weights), _config(weights=weights, **dict(options))
    return frame, config, fc.over_time(frame, config, period="month")


def _assert_kept_equal(full, part, names):
    """`part`'s verdict rows, each period's verdicts, subjects, rate tables and ratio scores equal `full`'s for
    `names` and the labels (NaN where NaN)."""
    table = full.verdicts
    pd.testing.assert_frame_equal(part.verdicts, table.loc[table["model"].isin([*names, "labels"])]
                                  .reset_index(drop=True), check_exact=True)
    assert list(part.models) == [m for m in full.models if m in names]
    for name in names:
        assert part.thresholds.get(name) == full.thresholds.get(name)
        for ours, theirs in zip(part.models[name], full.models[name]):
            assert (ours is None) == (theirs is None)
            if ours is None:
                continue
            assert ours.verdicts == theirs.verdicts and ours.subjects == theirs.subjects
            pd.testing.assert_frame_equal(ours.rate_table, theirs.rate_table, check_exact=True)
            for score in ("p_percent", "equal_opportunity"):
                a, b = getattr(ours, score), getattr(theirs, score)
                np.testing.assert_array_equal([a.value, a.ci_low, a.ci_high], [b.value, b.ci_low, b.ci_high])
    for ours, theirs in zip(part.labels, full.labels):
        assert ours.verdicts == theirs.verdicts and ours.subjects == theirs.subjects
    pd.testing.assert_frame_equal(part.periods, full.periods)
    pd.testing.assert_frame_equal(part.subgroups, full.subgroups)
    pd.testing.assert_frame_equal(part.exclusions, full.exclusions)


@pytest.mark.parametrize("options", [dict(), dict(weights=True), dict(ci=None),
                                     dict(dataset_reduction="mean", rate_reduction="mean", adjust="holm")])
def test_each_chosen_model_verdicts_only_equals_the_full_call(options):
    weights = options.pop("weights", False)
    # the weighted bootstrap keeps its rows: fewer of them
    frame, config, full = _full(n=1500 if weights else 3000, weights=weights, options=options.items())
    assert list(full.models) == ["score", "other", "approved"]
    for names, verdicts_only in ((("approved",), True), (("approved", "score"), False)):
        part = fc.over_time(frame, config, period="month", models=names, verdicts_only=verdicts_only)
        _assert_kept_equal(full, part, names)
    light = fc.over_time(frame, config, models="other", verdicts_only=True)   # a single name
    _assert_kept_equal(full, light, ("other",))
    # what verdicts_only leaves out, and what the full call keeps
    kept = next(r for r in light.models["other"] if r is not None)
    assert kept.performance is None and kept.rates == {} and kept.findings == ()
    whole = next(r for r in full.models["score"] if r is not None)
    assert not whole.performance.empty and "equalized_odds" in whole.rates
    assert set(next(c for c in light.labels if c is not None).results) == {"parity_max"}
    if weights:
        assert all(v.sentence.startswith("Weighted: ") for v in kept.verdicts)


def test_the_chosen_model_has_the_failure_and_trend_of_the_full_call():
    frame, config, full = _full(n=4000, months=5)
    light = fc.over_time(frame, config, models=["score"], verdicts_only=True)
    assert light.first_failure("four_fifths", "score") == full.first_failure("four_fifths", "score") is not None
    assert light.trend("four_fifths", "score") == full.trend("four_fifths", "score")
    pd.testing.assert_frame_equal(light.changes("four_fifths", "score"), full.changes("four_fifths", "score"))


def test_no_model_keeps_the_labels_rule_the_labels_can_be_left_out_and_an_unknown_model_is_refused():
    frame, config, full = _full()
    only_labels = fc.over_time(frame, config, models=(), verdicts_only=True)
    assert only_labels.models == {} and only_labels.thresholds == {}
    assert set(only_labels.verdicts["model"]) == {"labels"}
    np.testing.assert_array_equal(only_labels.verdicts["value"],
                                  full.verdicts.loc[full.verdicts["model"] == "labels", "value"])
    no_labels = fc.over_time(frame, config, models="approved", verdicts_only=True, labels=False)
    assert no_labels.labels == () and set(no_labels.verdicts["model"]) == {"approved"}
    table = full.verdicts
    pd.testing.assert_frame_equal(no_labels.verdicts, table.loc[table["model"] == "approved"].reset_index(drop=True))
    pd.testing.assert_frame_equal(no_labels.periods, full.periods)
    pd.testing.assert_frame_equal(no_labels.subgroups, full.subgroups)
    assert fc.over_time(frame, config, models=(), labels=False).verdicts.empty
    with pytest.raises(ValueError, match=r"No model 'race' to assess over time\. The models are: "
                                         r"\['score', 'other', 'approved'\]"):
        fc.over_time(frame, config, models=("score", "race"))
