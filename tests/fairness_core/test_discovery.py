"""discover_subgroups: the search against a brute force over every intersection, pruning against none, the held-out
estimates against Newcombe's interval, and bad inputs refused."""

from __future__ import annotations

from itertools import combinations, product

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._counts.rates import RATES

RATE_QUANTITIES = list(RATES)


def small_data(seed=0, n=600):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"race": rng.choice(["Black", "White", "Asian"], n, p=[0.3, 0.5, 0.2]),
                      "sex": rng.choice(["Female", "Male"], n),
                      "age": rng.integers(0, 4, n),
                      "region": rng.choice(["N", "S", None], n, p=[0.45, 0.45, 0.1])})
    y_true = rng.integers(0, 2, n)
    y_pred = (rng.random(n) < np.where((x.race == "Black") & (x.sex == "Female"), 0.6, 0.35)).astype(int)
    weight = rng.choice([0.5, 1.0, 2.0], n)   # exact sums: ties break the same way in both counts
    return x, y_true, y_pred, weight


def brute_force(x, y_true, y_pred, quantity, depth, min_size, direction, weight=None):
    """Every intersection, by masks, scored and ranked as documented (score, then depth, then order)."""
    num_cells, den_cells, _ = RATES[quantity]
    w = np.ones(len(x)) if weight is None else weight
    cell = 2 * y_true + y_pred
    in_num, in_den = np.isin(cell, num_cells), np.isin(cell, den_cells)
    NUM, DEN = w[in_num].sum(), w[in_den].sum()
    values = {c: sorted(v for v in x[c].dropna().unique()) + ([None] if x[c].isna().any() else []) for c in x}
    rows = []
    for d in range(1, depth + 1):
        for cols in combinations(range(x.shape[1]), d):
            names = [x.columns[c] for c in cols]
            for i_vals in product(*[range(len(values[c])) for c in names]):
                mask = np.ones(len(x), dtype=bool)
                for c, i in zip(names, i_vals):
                    v = values[c][i]
                    mask &= x[c].isna().to_numpy() if v is None else (x[c] == v).to_numpy()
                if mask.sum() < min_size or (mask & in_den).sum() < min_size:
                    continue
                num, den = w[mask & in_num].sum(), w[mask & in_den].sum()
                if den <= 0 or DEN - den <= 0:
                    continue
                diff = num / den - (NUM - num) / (DEN - den)
                score = {"higher": diff, "lower": -diff, "either": abs(diff)}[direction]
                text = " & ".join(f"{c}={'(missing)' if values[c][i] is None else values[c][i]}"
                                  for c, i in zip(names, i_vals))
                rows.append((-score, d, cols, i_vals, text, num / den, diff, int(mask.sum())))
    rows.sort(key=lambda r: r[:4])
    return pd.DataFrame(rows, columns=["neg_score", "depth", "cols", "vals", "subgroup", "value", "difference",
                                       "size"])


@pytest.mark.parametrize("quantity", RATE_QUANTITIES)
@pytest.mark.parametrize("weighted", [False, True])
def test_same_candidates_values_and_ranking_as_a_brute_force(quantity, weighted):
    x, y_true, y_pred, w = small_data()
    weight = w if weighted else None
    direction = "either"
    expected = brute_force(x, y_true, y_pred, quantity, 3, 20, direction, weight)
    found = fc.discover_subgroups(y_true, y_pred, x, quantity=quantity, depth=3, min_size=20, top_k=10 ** 6,
                                  direction=direction, holdout=0, sample_weight=weight, prune=False).table
    assert len(expected) > 50
    assert found["subgroup"].tolist() == expected["subgroup"].tolist()
    np.testing.assert_allclose(found["value"], expected["value"], rtol=1e-12)
    np.testing.assert_allclose(found["difference"], expected["difference"], rtol=1e-10, atol=1e-14)
    assert found["size"].tolist() == expected["size"].tolist()
    assert found["rank"].tolist() == list(range(1, len(expected) + 1))


@pytest.mark.parametrize("direction", ["higher", "lower", "either"])
@pytest.mark.parametrize("top_k", [1, 3, 10])
@pytest.mark.parametrize("weighted", [False, True])
def test_pruning_returns_the_top_k_of_no_pruning(direction, top_k, weighted):
    x, y_true, y_pred, w = small_data(seed=3, n=3000)
    weight = w if weighted else None
    for quantity in ("selection_rate", "false_positive_rate", "false_negative_rate"):
        args = dict(quantity=quantity, depth=3, min_size=25, top_k=top_k, direction=direction, holdout=0,
                    sample_weight=weight)
        pruned = fc.discover_subgroups(y_true, y_pred, x, **args)
        full = fc.discover_subgroups(y_true, y_pred, x, prune=False, **args)
        pd.testing.assert_frame_equal(pruned.table, full.table)
        assert full.pruned == 0
        brute = brute_force(x, y_true, y_pred, quantity, 3, 25, direction, weight)
        assert pruned.table["subgroup"].tolist() == brute["subgroup"].head(top_k).tolist()


def test_pruning_skips_intersections_that_cannot_win():
    x, y_true, y_pred, _ = small_data(seed=1, n=5000)
    args = dict(quantity="false_positive_rate", depth=3, min_size=300, top_k=3, direction="higher", holdout=0)
    pruned = fc.discover_subgroups(y_true, y_pred, x, **args)
    full = fc.discover_subgroups(y_true, y_pred, x, prune=False, **args)
    assert (pruned.pruned, pruned.examined, full.examined) == (12, 74, 167)
    pd.testing.assert_frame_equal(pruned.table, full.table)
    assert pruned.table["subgroup"].iloc[0] == "race=Black & sex=Female"


def test_held_out_estimates_are_newcombes_interval_on_the_held_out_rows():
    from statsmodels.stats.proportion import confint_proportions_2indep

    x, y_true, y_pred, _ = small_data(seed=2, n=4000)
    found = fc.discover_subgroups(y_true, y_pred, x, depth=2, top_k=4, direction="higher", random_state=7)
    held = np.zeros(len(x), dtype=bool)
    held[np.random.default_rng(7).permutation(len(x))[:2000]] = True
    assert (found.search_rows, found.estimate_rows) == (2000, 2000)
    top = found.table.iloc[0]
    assert top["subgroup"] == "race=Black & sex=Female"
    member = held & (x.race == "Black").to_numpy() & (x.sex == "Female").to_numpy()
    rest = held & ~member
    k1, n1, k2, n2 = y_pred[member].sum(), member.sum(), y_pred[rest].sum(), rest.sum()
    assert (top["k"], top["n"], top["rest_k"], top["rest_n"], top["size"]) == (k1, n1, k2, n2, n1)
    assert top["difference"] == pytest.approx(k1 / n1 - k2 / n2, abs=1e-12)
    low, high = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff", alpha=0.05)
    assert (top["ci_low"], top["ci_high"]) == pytest.approx((low, high), abs=1e-9)
    assert top["excludes_parity"] and top["p_value"] < 0.001
    # The search's own value is that of the other rows.
    search = ~held & (x.race == "Black").to_numpy() & (x.sex == "Female").to_numpy()
    assert top["search_value"] == pytest.approx(y_pred[search].mean(), abs=1e-12)


def test_no_disparity_gives_no_discovery():
    rng = np.random.default_rng(5)
    n = 20000
    x = pd.DataFrame({f"a{i}": rng.integers(0, 4, n) for i in range(6)})
    y_pred = (rng.random(n) < 0.3).astype(int)
    found = fc.discover_subgroups(np.zeros(n, int), y_pred, x, depth=2, direction="either")
    assert len(found.table) == 10
    assert not found.table["excludes_parity"].any() and found.discoveries.empty
    assert (found.table["p_value"] > 0.005).all()


def test_the_outcome_sets_the_worse_side():
    x, y_true, y_pred, _ = small_data(seed=4, n=4000)
    favourable = fc.discover_subgroups(y_true, y_pred, x, holdout=0, top_k=3)
    adverse = fc.discover_subgroups(y_true, y_pred, x, holdout=0, top_k=3, positive_outcome="adverse")
    assert (favourable.direction, adverse.direction) == ("lower", "higher")
    assert (favourable.table["difference"] < 0).all() and (adverse.table["difference"] > 0).all()
    assert adverse.table["subgroup"].iloc[0] == "race=Black & sex=Female"
    # The disparity metric's name is the rate's.
    same = fc.discover_subgroups(y_true, y_pred, x, holdout=0, top_k=3, quantity="statistical_parity")
    pd.testing.assert_frame_equal(same.table, favourable.table)


def test_numeric_columns_are_binned_as_subgroups_bin_them():
    rng = np.random.default_rng(6)
    n = 2000
    x = pd.DataFrame({"income": rng.normal(size=n), "sex": rng.choice(["F", "M"], n)})
    found = fc.discover_subgroups(np.zeros(n, int), rng.integers(0, 2, n), x, depth=1, top_k=100, holdout=0,
                                  direction="either")
    bins = fc.Subgroups.from_attributes(x, ["income"]).names
    assert sorted(found.table["subgroup"]) == sorted([f"income={b}" for b in bins] + ["sex=F", "sex=M"])


@pytest.mark.parametrize("kwargs, message", [
    (dict(depth=4), "'depth' parameter of discover_subgroups must be 1, 2 or 3"),
    (dict(depth=0), "'depth' parameter of discover_subgroups must be 1, 2 or 3"),
    (dict(quantity="auc"), "'quantity' parameter of discover_subgroups must be one of"),
    (dict(direction="worse"), "'direction' parameter of discover_subgroups must be one of"),
    (dict(positive_outcome="good"), "'positive_outcome' parameter of discover_subgroups"),
    (dict(columns=["race", "zip"]), r"\['zip'\] are not among its columns"),
    (dict(columns=[]), "give at least one column"),
    (dict(min_size=0), "'min_size' parameter of discover_subgroups must be an int >= 1"),
    (dict(top_k=0), "'top_k' parameter of discover_subgroups must be an int >= 1"),
    (dict(holdout=1.0), "'holdout' parameter of discover_subgroups must be a number in \\[0, 1\\)"),
    (dict(ci=1.5), "discover_subgroups"),
    (dict(ci=None), "'ci' parameter of discover_subgroups must be a number strictly between 0 and 1"),
    (dict(sample_weight=-np.ones(600)), "negative values"),
])
def test_bad_inputs_are_refused_with_a_clear_message(kwargs, message):
    x, y_true, y_pred, _ = small_data()
    with pytest.raises(ValueError, match=message):
        fc.discover_subgroups(y_true, y_pred, x, **kwargs)


def test_bad_data_is_refused():
    x, y_true, y_pred, _ = small_data()
    with pytest.raises(ValueError, match="must be a DataFrame of the columns to search"):
        fc.discover_subgroups(y_true, y_pred, x.to_numpy())
    with pytest.raises(ValueError, match="'attributes' has 599 rows but y_true has 600"):
        fc.discover_subgroups(y_true, y_pred, x.iloc[:-1])
    with pytest.raises(ValueError, match="must hold only 0 and 1"):
        fc.discover_subgroups(y_true, y_pred * 2, x)
    many = x.assign(id=[f"p{i}" for i in range(600)])
    with pytest.raises(ValueError, match="column 'id' has 600 values, more than 100"):
        fc.discover_subgroups(y_true, y_pred, many)


@pytest.mark.parametrize("quantity", ["selection_rate", "true_positive_rate", "false_omission_rate"])
@pytest.mark.parametrize("direction", ["higher", "lower", "either"])
def test_the_bound_is_never_below_a_descendants_score(quantity, direction):
    from fairness_core._metrics.discovery_search import _bound

    x, y_true, y_pred, _ = small_data(seed=8, n=2000)
    min_size = 20
    every = brute_force(x, y_true, y_pred, quantity, 3, min_size, direction)
    num_cells, den_cells, _ = RATES[quantity]
    cell = 2 * y_true + y_pred
    in_num, in_den = np.isin(cell, num_cells), np.isin(cell, den_cells)
    NUM, DEN = in_num.sum(), in_den.sum()
    checked = 0
    for parent in every[every["depth"] == 1].itertuples():
        col, value = parent.subgroup.split("=")
        mask = (x[col].isna() if value == "(missing)" else x[col].astype(str) == value).to_numpy()
        num, den = (mask & in_num).sum(), (mask & in_den).sum()
        bound = _bound(np.array([num], float), np.array([den - num], float), NUM, DEN - NUM, DEN, min_size,
                       direction)[0]
        children = every[every["subgroup"].str.split(" & ").map(lambda parts: parent.subgroup in parts)
                         & (every["depth"] > 1)]
        if len(children):
            assert bound >= -children["neg_score"].max() - 1e-12
            checked += 1
    assert checked >= 8


def test_unit_weights_change_nothing():
    x, y_true, y_pred, _ = small_data(seed=9, n=3000)
    plain = fc.discover_subgroups(y_true, y_pred, x, depth=3, quantity="false_negative_rate")
    weighted = fc.discover_subgroups(y_true, y_pred, x, depth=3, quantity="false_negative_rate",
                                     sample_weight=np.ones(len(x)))
    pd.testing.assert_frame_equal(plain.table, weighted.table, check_dtype=False)


@pytest.mark.parametrize("weighted", [False, True])
def test_subgroup_auc_against_a_brute_force(weighted):
    from sklearn.metrics import roc_auc_score

    x, y_true, _, w = small_data(seed=10, n=2500)
    rng = np.random.default_rng(10)
    bad = ((x.race == "Black") & (x.sex == "Female")).to_numpy()
    score = np.round(np.clip(0.5 + np.where(bad, 0.05, 0.3) * (y_true - 0.5) + rng.normal(0, 0.2, len(x)), 0, 1), 1)
    weight = w if weighted else None
    found = fc.discover_subgroups(y_true, y_true, x, y_score=score, quantity="subgroup_auc", depth=2, min_size=20,
                                  top_k=10 ** 6, holdout=0, sample_weight=weight, direction="either").table
    rows = []
    for d in (1, 2):
        for cols in combinations(x.columns, d):
            for values, part in x.groupby(list(cols) if d > 1 else cols[0], dropna=False).groups.items():
                mask = np.zeros(len(x), dtype=bool)
                mask[np.asarray(part)] = True
                if mask.sum() < 20 or y_true[mask].sum() < 20 or (1 - y_true[mask]).sum() < 20:
                    continue
                sw = None if weight is None else weight
                a = roc_auc_score(y_true[mask], score[mask], sample_weight=None if sw is None else sw[mask])
                b = roc_auc_score(y_true[~mask], score[~mask], sample_weight=None if sw is None else sw[~mask])
                values = values if isinstance(values, tuple) else (values,)
                name = " & ".join(f"{c}={'(missing)' if pd.isna(v) else v}" for c, v in zip(cols, values))
                rows.append((name, a, a - b))
    expected = pd.DataFrame(rows, columns=["subgroup", "value", "difference"]).set_index("subgroup")
    assert sorted(found["subgroup"]) == sorted(expected.index) and len(expected) > 20
    got = found.set_index("subgroup")
    np.testing.assert_allclose(got["value"], expected.loc[got.index, "value"], rtol=1e-10)
    np.testing.assert_allclose(got["search_value"], expected.loc[got.index, "value"], rtol=1e-10)
    np.testing.assert_allclose(got["difference"], expected.loc[got.index, "difference"], rtol=1e-9, atol=1e-12)
    score_order = np.abs(found["search_difference"].to_numpy())
    assert (np.diff(score_order) <= 1e-12).all()          # ranked by the absolute difference
    assert found["subgroup"].iloc[0] == "race=Black & sex=Female"


def test_subgroup_auc_held_out_interval_and_refusal():
    x, y_true, _, _ = small_data(seed=11, n=6000)
    rng = np.random.default_rng(11)
    bad = ((x.race == "Black") & (x.sex == "Female")).to_numpy()
    score = 0.5 + np.where(bad, 0.02, 0.3) * (y_true - 0.5) + rng.normal(0, 0.2, len(x))
    found = fc.discover_subgroups(y_true, y_true, x, y_score=score, quantity="subgroup_auc", top_k=3)
    top = found.table.iloc[0]
    assert found.direction == "lower" and top["subgroup"] == "race=Black & sex=Female"
    assert top["ci_low"] < top["difference"] < top["ci_high"] < 0 and top["excludes_parity"]
    with pytest.raises(ValueError, match="'subgroup_auc' needs 'y_score'"):
        fc.discover_subgroups(y_true, y_true, x, quantity="subgroup_auc")
