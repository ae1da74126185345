"""Sample weights through the engines: a weight column's count tables, exclusions, checks and intervals equal the
in-memory weighted ones (``ScoredData.from_frame`` and the ``sample_weight=`` constructors)."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._counts.weights import row_counts
from fairness_core._counts.confusion import ConfusionCounts
from fairness_core._metrics.auc_counts import auc_counts
from fairness_core._stats.bootstrap import ROW_BUCKETS as BUCKETS, Atoms, BucketSplit
from fairness_core.engines import scored_counts
from fairness_core.engines._buckets import bucket_of

N = 20_000
IDS = ("id_a", "id_b")
MAPPING = fc.ColumnMapping(label="label", positive_label="yes", scores=("score", "coarse"),
                           protected=("race", "sex", "age"), indicators=IDS, predicted_label="decision",
                           weight="w", min_size=30)
SIDES = ("member", "background", "overall", "member_sq", "background_sq", "overall_sq")
RTOL = 1e-9


def _frame(n: int, seed: int = 3) -> pd.DataFrame:
    """Several protected attributes (a numeric one cut into quantile bins), identity columns with missing values,
    two scores, a predicted label, and log-normal weights with zeros and missing ones."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["A", "B", "C", None], n, p=[0.5, 0.3, 0.15, 0.05])
    y = rng.random(n) < 0.25 + 0.1 * (race == "B")
    frame = pd.DataFrame({
        "race": race, "sex": rng.choice([1, 2], n), "age": rng.integers(18, 90, n).astype(float),
        "label": np.where(y, "yes", "no").astype(object),
        "score": np.clip(rng.beta(2, 4, n) + 0.2 * y, 0, 1),
        "coarse": np.round(rng.random(n) * 0.6 + 0.3 * y, 2),   # heavy ties
        "decision": np.where(rng.random(n) < 0.4, "yes", "no").astype(object),
        "w": rng.lognormal(0.0, 0.7, n)})
    for j, col in enumerate(IDS):
        frame[col] = (rng.random(n) < 0.15 * (j + 1)).astype(float)
    frame.loc[rng.random(n) < 0.02, "id_b"] = np.nan
    frame.loc[rng.random(n) < 0.01, "label"] = None
    frame.loc[rng.random(n) < 0.01, "score"] = np.nan
    frame.loc[rng.random(n) < 0.005, "coarse"] = np.inf
    frame.loc[rng.random(n) < 0.03, "w"] = 0.0
    frame.loc[rng.random(n) < 0.03, "w"] = np.nan
    return frame


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """The same rows in memory and as two Parquet files (read through a glob), with the in-memory ScoredData."""
    frame = _frame(N)
    folder = tmp_path_factory.mktemp("weighted")
    frame.iloc[: N // 2].to_parquet(folder / "part-0.parquet", index=False)
    frame.iloc[N // 2:].to_parquet(folder / "part-1.parquet", index=False)
    return frame, str(folder / "*.parquet"), fc.ScoredData.from_frame(frame, MAPPING)


@pytest.fixture(scope="module")
def counted(logs):
    """scored_counts of the glob by DuckDB and polars (exact levels, quantile calibration bins)."""
    _, glob, _ = logs
    return {engine: scored_counts(glob, MAPPING, auc_bins="exact", strategy="quantile", engine=engine)
            for engine in ("duckdb", "polars")}


def _close(got, want, names=SIDES) -> None:
    for name in names:
        a, b = getattr(got, name), getattr(want, name)
        a, b = (x.toarray() if hasattr(x, "toarray") else np.asarray(x) for x in (a, b))
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-9, err_msg=name)


def _confusion(scored, predictions) -> ConfusionCounts:
    return fc.confusion_counts(scored.y_true, predictions, scored.subgroups, sample_weight=scored.weights)


def _assert_weighted_counts_equal(result, scored, threshold: float = 0.5, strategy: str = "quantile") -> None:
    """Every table of `result` equals the in-memory weighted one on `scored` (sums to RTOL)."""
    w = scored.weights
    assert result.weighted and result.n_rows == scored.n_rows and result.n_input == scored.n_input
    assert dict(zip(result.exclusions["reason"], result.exclusions["rows"])) == dict(
        zip(scored.exclusions["reason"], scored.exclusions["rows"]))
    for score in MAPPING.scores:
        ref = _confusion(scored, scored.y_pred(score, threshold))
        got = result.confusion[score]
        assert got.names == ref.names and got.weighted
        _close(got, ref)
        np.testing.assert_allclose(got.sizes, ref.sizes, rtol=RTOL)   # Kish's effective sizes
        np.testing.assert_array_equal(got.small, ref.small)
        cal = fc.calibration_counts(scored.y_true, scored.scores[score], scored.subgroups, strategy=strategy,
                                    sample_weight=w)
        np.testing.assert_allclose(result.calibration[score].edges, cal.edges, rtol=1e-12)
        _close(result.calibration[score], cal)
        memory = auc_counts(scored.y_true, scored.scores[score], scored.subgroups, sample_weight=w)
        np.testing.assert_array_equal(result.auc[score].levels, memory.levels)
        _close(result.auc[score], memory)
    _close(result.given, _confusion(scored, scored.y_pred()))
    _close(result.label_counts(), _confusion(scored, scored.y_true))
    classes = fc.class_counts(scored.classes, scored.class_predictions(), scored.subgroups, sample_weight=w)
    got = result.class_counts_at(None)
    assert got.labels == classes.labels and got.weighted
    _close(got, classes, ("member", "overall", "member_sq"))
    by_score = result.class_counts_at("score", threshold)
    _close(by_score, fc.class_counts(scored.classes, scored.class_predictions("score", threshold), scored.subgroups,
                                     sample_weight=w), ("member", "overall", "member_sq"))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_weighted_counts_equal_the_in_memory_tables(logs, counted, engine):
    _, _, scored = logs
    result = counted[engine]
    assert result.engine == engine
    _assert_weighted_counts_equal(result, scored)
    # the reasons in ScoredData's order: a row missing its label and its weight is counted for its label
    assert {"missing weight in 'w'", "weight 0 in 'w'", "missing label"} <= set(result.exclusions["reason"])
    # other calibration bins, counted again: uniform ones
    uniform = fc.calibration_counts(scored.y_true, scored.scores["score"], scored.subgroups, n_bins=7,
                                    sample_weight=scored.weights)
    _close(result.calibration_at("score", 7), uniform)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_weighted_counts_at_other_thresholds_equal_the_threshold_counts(logs, counted, engine):
    """Read off the weighted AUC counts (exact levels; a bin edge), or counted again inside a bin."""
    _, glob, scored = logs
    memory = fc.threshold_counts(scored.y_true, scored.scores["score"], scored.subgroups, sample_weight=scored.weights)
    for t in (0.123, 0.5, 0.77, -1.0, 2.0):
        _close(counted[engine].confusion_at("score", t), memory.at(t))
    binned = scored_counts(glob, MAPPING, auc_bins=200, engine=engine)
    edges = binned.auc["score"].edges
    np.testing.assert_array_equal(edges, auc_counts(scored.y_true, scored.scores["score"], scored.subgroups, bins=200,
                                                    sample_weight=scored.weights).edges)
    for t in (float(edges[57]), 0.4321, float(edges[-2]) + 1e-9, float(edges[-1])):
        _close(binned.confusion_at("score", t), memory.at(t))


def test_weighted_counts_through_ibis(logs, tmp_path):
    """The same SQL transpiled for an ibis table's backend: DuckDB through ibis, and SQLite."""
    from tests.fairness_core.test_engines import ibis_tables

    frame, glob, scored = logs
    duck, lite = ibis_tables(frame, glob, tmp_path)
    duckdb_atoms = scored_counts(glob, MAPPING, auc_bins="exact").with_atoms()
    for table, name in ((duck, "ibis (duckdb)"), (lite, "ibis (sqlite)")):
        result = scored_counts(table, MAPPING, auc_bins="exact", strategy="quantile")
        assert result.engine == name
        _assert_weighted_counts_equal(result, scored)
        # the rows numbered in the table's order: the same buckets, so the same replicates, as DuckDB's
        _same_replicates(result.with_atoms(), duckdb_atoms)


def _bad(frame: pd.DataFrame, change) -> pd.DataFrame:
    bad = frame.iloc[:3000].copy()
    change(bad)
    return bad


def _set(rows: list, values: list):
    def change(f: pd.DataFrame) -> None:
        f.loc[f.index[rows], "w"] = values
    return change


BAD_WEIGHTS = {
    "text": lambda f: f.__setitem__("w", f["w"].astype(str)),
    "boolean": lambda f: f.__setitem__("w", f["w"] > 1),
    "negative": _set([17, 40, 2999], [-1.0, -0.5, -2.0]),
    "infinite": _set([1500, 2000, 2500], [np.inf, -np.inf, -1.0]),   # infinite first, as in memory
}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("kind", list(BAD_WEIGHTS))
def test_bad_weights_are_refused_with_the_in_memory_message(logs, tmp_path, engine, kind):
    frame, _, _ = logs
    bad = _bad(frame, BAD_WEIGHTS[kind])
    path = tmp_path / "bad.parquet"
    bad.to_parquet(path, index=False)
    with pytest.raises(ValueError) as memory:
        fc.ScoredData.from_frame(pd.read_parquet(path), MAPPING)
    with pytest.raises(ValueError) as engine_error:
        scored_counts(str(path), MAPPING, engine=engine)
    assert str(engine_error.value) == str(memory.value)
    assert ("first at row" in str(memory.value)) == (kind in ("negative", "infinite"))


def test_a_weight_column_missing_or_in_two_roles_gets_the_in_memory_message(logs, tmp_path):
    frame, glob, _ = logs
    for change, message in ((dict(weight="nope"), r"Column 'nope' \(the weight\) is not in the data"),
                            (dict(weight="score"), "Column 'score' is used both as a score and as the weight")):
        with pytest.raises(ValueError, match=message):
            scored_counts(glob, dataclasses.replace(MAPPING, **change))
    everything = frame.iloc[:200].assign(w=0.0)
    everything.to_parquet(tmp_path / "zero.parquet", index=False)
    with pytest.raises(ValueError, match=r"No rows are left .* rows with weight 0 in 'w'"):
        scored_counts(str(tmp_path / "zero.parquet"), MAPPING)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_weighted_wilson_and_auc_intervals_equal_the_in_memory_ones(logs, counted, engine):
    """Wilson's on effective sizes, each capped at the rows behind it (the bucketed atoms count them: ``__fc_r``),
    and from the counts alone the AUCs' logit Wald interval of the linearized DeLong variance (weighted and
    squared-weight histograms)."""
    _, _, scored = logs
    result = counted[engine]
    atoms = result.with_atoms()
    for score in MAPPING.scores:
        ref = _confusion(scored, scored.y_pred(score, 0.5))
        pd.testing.assert_frame_equal(atoms.confusion[score].table(ci=0.9), ref.table(ci=0.9), rtol=RTOL)
        memory = fc.bias_auc_table(scored.y_true, scored.scores[score], scored.subgroups, ci=0.95,
                                   sample_weight=scored.weights)
        table = result.auc[score].table(ci=0.95)
        for column in memory.columns:
            if column in ("note", "subgroup", "small"):
                assert table[column].tolist() == memory[column].tolist()
            else:
                np.testing.assert_allclose(table[column], memory[column], rtol=RTOL, atol=1e-12, err_msg=column)
        assert table.attrs["overall_auc_ci"] == pytest.approx(memory.attrs["overall_auc_ci"], rel=RTOL)
        assert "replicates" not in table.attrs   # the power means' need the counts' atoms (with_atoms)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("auc_bins", ["exact", 500])
def test_weighted_power_means_intervals_from_the_engines_level_atoms(logs, engine, auc_bins):
    """with_atoms: each score's weighted level atoms (sums of weights and of squared weights per pattern, merged
    level group and label) are the in-memory ones, pattern for pattern, so the power means and the bias AUC score
    get the in-memory intervals (replicates drawn from the same linearized covariance, the same seed)."""
    _, glob, scored = logs
    atoms = scored_counts(glob, MAPPING, auc_bins=auc_bins, engine=engine).with_atoms()
    for score in MAPPING.scores:
        memory = auc_counts(scored.y_true, scored.scores[score], scored.subgroups, bins=auc_bins,
                            sample_weight=scored.weights)
        got, want = atoms.auc[score].patterns, memory.patterns
        assert got.n_groups == want.n_groups
        np.testing.assert_array_equal(got.member, want.member)
        np.testing.assert_array_equal(got.background, want.background)
        np.testing.assert_allclose(got.weights, want.weights, rtol=RTOL, atol=1e-9)
        np.testing.assert_allclose(got.squares, want.squares, rtol=RTOL, atol=1e-9)
        ours, theirs = (c.summarize(ci=0.9, n_boot=300) for c in (atoms.auc[score], memory))
        assert ours.value == pytest.approx(theirs.value, rel=RTOL)
        assert (ours.ci_low, ours.ci_high) == pytest.approx((theirs.ci_low, theirs.ci_high), rel=1e-7)
    # a threshold off the counted one: the confusion atoms are counted again (no row atoms behind the AUC counts)
    assert atoms.needs_query("score", 0.3) and len(atoms.atom_thresholds("score")) == 1


def _replicates(counts: ConfusionCounts) -> np.ndarray:
    return counts.replicates("false_positive_rate", distance_measure="diff", reference="rest", n_boot=200,
                             random_state=0)[1]


def _same_replicates(a, b) -> None:
    """The same bucketed atoms give the same replicates (to float summation order)."""
    for score in MAPPING.scores:
        np.testing.assert_allclose(_replicates(a.confusion[score]), _replicates(b.confusion[score]), rtol=RTOL,
                                   atol=1e-12)


def _with_buckets(counts: ConfusionCounts, scored, cell: np.ndarray) -> ConfusionCounts:
    """In-memory weighted counts whose atoms hold the engines' buckets of the same rows (``bucket_of`` of each
    kept row's position in the source): what the engine's replicates should equal."""
    codes = scored.subgroups.patterns[0]
    bucket = bucket_of(scored.rows + 1)
    a = counts.atoms
    return dataclasses.replace(counts, atoms=Atoms(a.counts, a.member, a.background,
                                                   rows=(codes, cell, scored.weights, bucket)))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_the_weighted_bootstrap_deals_rows_into_buckets_where_they_live(logs, counted, engine):
    """with_atoms of weighted counts: the atoms are the in-memory ones pattern for pattern, each row dealt into the
    bucket of its position's hash by the engine; the replicates then equal the in-memory bootstrap of the same
    buckets, are identical between DuckDB and polars and between runs, and the intervals differ from the in-memory
    ones (random buckets) only by that assignment: the same estimates, endpoints within a fraction of the width."""
    _, glob, scored = logs
    atoms = counted[engine].with_atoms()
    assert atoms.atoms and atoms.weighted
    score = "score"
    memory = _confusion(scored, scored.y_pred(score, 0.5))
    got = atoms.confusion[score]
    _close(got, memory)
    np.testing.assert_array_equal(got.atoms.member, memory.atoms.member)
    np.testing.assert_array_equal(got.atoms.background, memory.atoms.background)
    np.testing.assert_allclose(got.atoms.counts, memory.atoms.counts, rtol=RTOL)
    assert len(got.atoms.rows) == 5 and set(np.unique(got.atoms.rows[3])) <= set(range(BUCKETS))
    # the fifth array counts the rows behind each entry: per (pattern, cell) the in-memory rows
    np.testing.assert_array_equal(row_counts(got.atoms), row_counts(memory.atoms))
    cell = (2 * scored.y_true + scored.y_pred(score, 0.5)).astype(np.intp)
    hashed = _with_buckets(memory, scored, cell)
    np.testing.assert_allclose(_replicates(got), _replicates(hashed), rtol=RTOL, atol=1e-12)
    for metric in ("false_positive_rate", "statistical_parity"):
        ours = got.disparity(metric, ci=0.95, reduction=None, n_boot=500)
        theirs = hashed.disparity(metric, ci=0.95, reduction=None, n_boot=500)
        pd.testing.assert_frame_equal(ours, theirs, rtol=RTOL, atol=1e-12)
        random = memory.disparity(metric, ci=0.95, reduction=None, n_boot=500)
        np.testing.assert_allclose(ours["disparity"], random["disparity"], rtol=RTOL)   # the same estimates
        # measured: the ends within 0.19 of the width (two in-memory seeds: 0.18); a seed fixes the replicates
        width = (random["disparity_ci_high"] - random["disparity_ci_low"]).to_numpy()
        for end in ("disparity_ci_low", "disparity_ci_high"):
            assert np.all(np.abs(ours[end] - random[end]).to_numpy() <= 0.25 * width + 1e-12), end
    eo = got.equalized_odds(ci=0.95, reduction=None, n_boot=300)
    np.testing.assert_allclose(eo["disparity"], memory.equalized_odds(reduction=None)["disparity"], rtol=RTOL)
    # adverse outcomes swap the cells of the entries too
    adverse = got.favourable("adverse").disparity("statistical_parity", ci=0.95, reduction=None, n_boot=300)
    pd.testing.assert_frame_equal(adverse, hashed.favourable("adverse").disparity(
        "statistical_parity", ci=0.95, reduction=None, n_boot=300), rtol=RTOL, atol=1e-12)
    # the labels' and the predicted label column's atoms (the dataset's statistical parity, the given model)
    labels = _with_buckets(_confusion(scored, scored.y_true), scored, 3 * scored.y_true.astype(np.intp))
    np.testing.assert_allclose(_replicates(atoms.label_counts()), _replicates(labels), rtol=RTOL, atol=1e-12)
    given = _with_buckets(_confusion(scored, scored.y_pred()), scored,
                          (2 * scored.y_true + scored.y_pred()).astype(np.intp))
    np.testing.assert_allclose(_replicates(atoms.given), _replicates(given), rtol=RTOL, atol=1e-12)
    # identical between the two engines (they share the hash) and between runs, to the order in which the engine's
    # threads sum the weights of an entry
    _same_replicates(atoms, counted["polars" if engine == "duckdb" else "duckdb"].with_atoms())
    _same_replicates(atoms, scored_counts(glob, MAPPING, auc_bins="exact", engine=engine).with_atoms())
    # another threshold's atoms are counted with their buckets too
    at = atoms.confusion_at(score, 0.3)
    np.testing.assert_allclose(_replicates(at), _replicates(_with_buckets(
        _confusion(scored, scored.y_pred(score, 0.3)), scored,
        (2 * scored.y_true + scored.y_pred(score, 0.3)).astype(np.intp))), rtol=RTOL, atol=1e-12)
    # calibration's atoms too: per (pattern, bin, sub-bin, label) the in-memory sums of weights and rows
    cal = atoms.calibration_at(score, 7)
    memory_cal = fc.calibration_counts(scored.y_true, scored.scores[score], scored.subgroups, n_bins=7,
                                       sample_weight=scored.weights)
    np.testing.assert_allclose(cal.atoms.atoms.counts, memory_cal.atoms.atoms.counts, rtol=RTOL, atol=1e-9)
    np.testing.assert_array_equal(row_counts(cal.atoms.atoms), row_counts(memory_cal.atoms.atoms))
    ours, theirs = (c.disparity(ci=0.95, n_boot=300) for c in (cal, memory_cal))
    assert ours.disparity.value == pytest.approx(theirs.disparity.value, rel=1e-9)
    width = theirs.disparity.ci_high - theirs.disparity.ci_low
    assert abs(ours.disparity.ci_low - theirs.disparity.ci_low) <= 0.3 * width + 1e-9


def test_bucket_split_of_buckets_sums_equal_entries():
    split = BucketSplit.of_buckets(np.array([0, 0, 1, 0]), np.array([1, 1, 0, 2]), np.array([0.5, 1.5, 2.0, 3.0]),
                                   np.array([4, 4, 0, 4]), (2, 3), 5)
    assert split.pattern.tolist() == [0, 0, 1] and split.cell.tolist() == [1, 2, 0]
    assert split.bucket.tolist() == [4, 4, 0] and split.count.tolist() == [2.0, 3.0, 2.0]


def test_the_row_hash_deals_consecutive_rows_like_independent_draws():
    """Rows of one atom often lie together (a sorted file): their buckets must still vary as multinomial draws."""
    bucket = bucket_of(np.arange(1, 2_000_001))
    assert bucket.min() == 0 and bucket.max() == BUCKETS - 1
    counts = np.bincount(bucket, minlength=BUCKETS)
    chi2 = ((counts - counts.mean()) ** 2 / counts.mean()).sum()
    dof = BUCKETS - 1   # chi-square with K - 1 degrees of freedom: within 5 standard deviations (sqrt(2 dof))
    assert abs(chi2 - dof) < 5 * np.sqrt(2 * dof)
    for run in (400, 4000):   # runs of consecutive rows: per-bucket counts as variable as a multinomial's
        windows = bucket[: 200 * run].reshape(200, run)
        per = np.stack([np.bincount(row, minlength=BUCKETS) for row in windows])
        assert 0.85 < per.var(axis=1).mean() / (run / BUCKETS * (1 - 1 / BUCKETS)) < 1.15


@pytest.mark.parametrize("identity", [IDS, ()], ids=["identity columns", "protected only"])
def test_a_weighted_review_from_engine_counts_equals_the_in_memory_review(logs, identity):
    """build_review_from_counts of weighted counts without intervals equals build_review of the same rows with the
    weight column: the weighted tables, findings and verdicts ('Weighted: ...'), the subgroup table (effective sizes,
    rows, sums of weights), the weighted base rate and the weight recorded; then with intervals."""
    frame, glob, _ = logs
    mapping = dataclasses.replace(MAPPING, indicators=identity, protected=("race", "sex"))
    config = dataclasses.replace(fc.ReviewConfig(mapping=mapping), ci=None, thresholds=(("score", 0.4),),
                                 cal_n_bins=7)
    memory = fc.build_review(frame, config)
    counts = scored_counts(glob, mapping, threshold=0.4, auc_bins="exact")
    engine = fc.build_review_from_counts(counts, config)
    assert [m.name for m in engine.models] == [m.name for m in memory.models] == ["score", "coarse", "decision"]
    for got, want in zip(engine.models, memory.models):
        assert got.threshold == want.threshold
        pd.testing.assert_frame_equal(got.rate_table, want.rate_table, rtol=RTOL)
        pd.testing.assert_frame_equal(got.performance, want.performance, rtol=RTOL)
        if want.auc_table is not None:
            for column in ("subgroup_auc", "bpsn_auc", "bnsp_auc", "size"):
                np.testing.assert_allclose(got.auc_table[column], want.auc_table[column], rtol=RTOL)
            assert got.bias_auc.value == pytest.approx(want.bias_auc.value, rel=RTOL)
        if want.calibration is not None:
            pd.testing.assert_frame_equal(got.calibration.table, want.calibration.table, rtol=1e-9)
        assert [v.status for v in got.verdicts] == [v.status for v in want.verdicts]
        assert got.findings == want.findings
    assert any(f.startswith("Weighted: ") for m in engine.models for f in m.findings)
    assert engine.dataset_findings == memory.dataset_findings
    assert engine.base_rate == pytest.approx(memory.base_rate, rel=RTOL)
    pd.testing.assert_frame_equal(engine.subgroups, memory.subgroups, rtol=RTOL)
    assert (engine.edf is None) == (memory.edf is None)
    if memory.edf is not None:
        assert engine.edf.value == pytest.approx(memory.edf.value, rel=1e-9)
    assert engine.source["weight"] == memory.source["weight"] == "w"
    for key in ("weight_total", "effective_rows"):
        assert engine.source[key] == pytest.approx(memory.source[key], rel=RTOL)
    assert '"weight_total"' in engine.to_json()
    # With intervals, from the counts' atoms: the same estimates; Wilson's (capped at the rows the bucketed entries
    # count) and the power means' (drawn from the same covariance, seed 0) the in-memory ones; the bootstraps'
    # differ from in-memory ones by the assignment of rows to buckets only.
    config = dataclasses.replace(config, ci=0.95, n_boot=400)
    engine, memory = fc.build_review_from_counts(counts.with_atoms(), config), fc.build_review(frame, config)
    for got, want in zip(engine.models, memory.models):
        pd.testing.assert_frame_equal(got.rate_table, want.rate_table, rtol=RTOL)
        pairs = [(got.rates[r], want.rates[r]) for r in want.rates]
        if want.calibration is not None:
            pairs.append((got.calibration.disparity, want.calibration.disparity))
        for a, b in pairs:
            assert a.value == pytest.approx(b.value, rel=1e-9, abs=1e-12)
            width = b.ci_high - b.ci_low
            assert abs(a.ci_low - b.ci_low) <= 0.3 * width + 1e-9 and abs(a.ci_high - b.ci_high) <= 0.3 * width + 1e-9
        if want.bias_auc is not None:
            assert (got.bias_auc.ci_low, got.bias_auc.ci_high) == pytest.approx(
                (want.bias_auc.ci_low, want.bias_auc.ci_high), rel=1e-6)


def test_the_command_line_reviews_weighted_counts_through_an_engine(logs, tmp_path, capsys):
    """--weight with --engine: the weighted review without intervals, as build_review_from_counts gives it, and with
    intervals (the default: from the counts' atoms)."""
    import json

    from fairness_core._cli import main

    _, glob, _ = logs
    flags = ["--label", "label", "--positive", "yes", "--score", "score", "--protected", "race", "--identity", "id_a",
             "--weight", "w"]
    out = tmp_path / "review.json"
    assert main(["metrics", glob, "--engine", "duckdb", *flags, "--no-intervals", "--out", str(out)]) in (0, 1)
    review = json.loads(out.read_text())
    assert review["context"]["source"]["weight"] == "w" and review["context"]["source"]["engine"] == "duckdb"
    out = tmp_path / "intervals.json"
    assert main(["metrics", glob, "--engine", "polars", *flags, "--out", str(out)]) in (0, 1)
    review = json.loads(out.read_text())
    assert review["context"]["source"]["weight"] == "w" and "confidence intervals" not in " ".join(
        review["context"]["source"]["not_computed"])


@pytest.mark.spark
def test_spark_weighted_counts_equal_the_in_memory_tables(spark, logs, tmp_path):
    """Spark: the transpiled weighted queries; bad weights refused with their count (Spark numbers no rows); the
    buckets of a hash of each row's mapped columns and rank among equal rows, deterministic across runs."""
    from fairness_core.engines._weights import WEIGHT_VALUES_UNPLACED

    frame, glob, scored = logs
    source = spark.read.parquet(glob.rsplit("/", 1)[0])
    result = scored_counts(source, MAPPING, auc_bins="exact", strategy="quantile")
    assert result.engine == "spark"
    _assert_weighted_counts_equal(result, scored)
    atoms = result.with_atoms()
    memory = _confusion(scored, scored.y_pred("score", 0.5))
    np.testing.assert_allclose(atoms.confusion["score"].atoms.counts, memory.atoms.counts, rtol=RTOL)
    ours = atoms.confusion["score"].disparity("false_positive_rate", ci=0.95, reduction=None, n_boot=500)
    random = memory.disparity("false_positive_rate", ci=0.95, reduction=None, n_boot=500)
    np.testing.assert_allclose(ours["disparity"], random["disparity"], rtol=RTOL)
    width = (random["disparity_ci_high"] - random["disparity_ci_low"]).to_numpy()
    assert np.all(np.abs(ours["disparity_ci_high"] - random["disparity_ci_high"]).to_numpy() <= 0.25 * width)
    # across runs: the atom queries (the hash and rank that deal rows into buckets) run again on the same counts
    _same_replicates(atoms, result.with_atoms())
    bad = _bad(frame, BAD_WEIGHTS["negative"])
    bad.to_parquet(tmp_path / "bad.parquet", index=False)
    with pytest.raises(ValueError) as info:
        scored_counts(spark.read.parquet(str(tmp_path / "bad.parquet")), MAPPING)
    assert str(info.value) == WEIGHT_VALUES_UNPLACED.format(col="w", n=3, what="negative weights")
