"""Consistency on a seeded sample of rows: exact when the sample is every row, unbiased otherwise, with a
standard error that matches the spread of the estimates, and independent of the row order."""

import numpy as np
import pytest

import fairness_core as fc
from fairness_core._metrics.consistency import _distinct_rows


def clustered(n, seed=0):
    """Two noisy clusters with partly mixed labels and many repeated rows (rounded features)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.round(rng.normal(y[:, None] * 1.5, 1.0, size=(n, 2)), 1)
    return X, y


def test_distinct_rows_are_numpys_unique_rows():
    rng = np.random.default_rng(3)
    matrix = np.round(rng.normal(size=(5000, 3)), 1) + 0.0
    matrix[::50] = matrix[1::50]  # more repeats
    points, inverse, counts = _distinct_rows(matrix)
    expected = np.unique(matrix, axis=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(points, expected[0])
    np.testing.assert_array_equal(inverse, expected[1].reshape(-1))
    np.testing.assert_array_equal(counts, expected[2])


def test_a_sample_of_every_row_is_the_full_computation():
    X, y = clustered(600)
    full = fc.consistency(X, y, n_neighbors=5)
    assert (full.n_sampled, full.std_error) == (600, 0.0)
    for size in (600, 10_000):
        assert fc.consistency(X, y, n_neighbors=5, sample_size=size) == full


def test_threads_do_not_change_the_value():
    X, y = clustered(3000)
    assert fc.consistency(X, y, n_jobs=2) == fc.consistency(X, y)
    assert fc.consistency(X, y, sample_size=300, n_jobs=2) == fc.consistency(X, y, sample_size=300)


def test_sample_is_seeded_and_independent_of_row_order():
    X, y = clustered(4000)
    result = fc.consistency(X, y, n_neighbors=3, sample_size=500, random_state=7)
    assert result.n_sampled == 500 and result.n_rows == 4000 and result.std_error > 0
    perm = np.random.default_rng(1).permutation(len(y))
    assert fc.consistency(X[perm], y[perm], n_neighbors=3, sample_size=500, random_state=7) == result
    assert fc.consistency(X, y, n_neighbors=3, sample_size=500, random_state=8).value != result.value


def test_sampled_estimate_is_unbiased_and_its_standard_error_matches_its_spread():
    X, y = clustered(2000, seed=5)
    full = fc.consistency(X, y, n_neighbors=5).value
    runs = [fc.consistency(X, y, n_neighbors=5, sample_size=200, random_state=seed) for seed in range(120)]
    estimates = np.array([r.value for r in runs])
    reported = np.mean([r.std_error for r in runs])
    assert np.std(estimates, ddof=1) == pytest.approx(reported, rel=0.25)
    assert abs(estimates.mean() - full) < 4 * reported / np.sqrt(len(runs))


def test_sample_size_must_be_a_positive_integer():
    X, y = clustered(100)
    with pytest.raises(ValueError, match="sample_size"):
        fc.consistency(X, y, sample_size=0)


def test_many_features_use_a_ball_tree_with_the_same_result():
    # 12 constant features (standardized to 0) leave every distance unchanged, but take the search
    # above 15 features, from SciPy's k-d tree to scikit-learn's ball tree.
    X, y = clustered(800)
    wide = np.column_stack([X, np.ones((len(y), 14))])
    for k in (1, 4):
        assert fc.consistency(wide, y, n_neighbors=k).value == pytest.approx(
            fc.consistency(X, y, n_neighbors=k).value, abs=1e-12)
    assert fc.consistency(wide, y, sample_size=100).value == pytest.approx(
        fc.consistency(X, y, sample_size=100).value, abs=1e-12)
