"""The queries a mapping costs where the data lies (the app's "Data on this machine" recounts on every mapping edit):
without identity columns the bootstrap's atoms are summed from the rows of the counts queries, so
``with_atoms`` scans nothing again, and its atoms equal the pattern queries' pattern for pattern."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core.engines import _scored_counts, scored_counts

pytest.importorskip("duckdb")

MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=("a", "b"), predicted_label="given",
                           protected=("race", "sex"), min_size=5)


@pytest.fixture
def source(tmp_path):
    rng = np.random.default_rng(3)
    n = 20_000
    frame = pd.DataFrame({"y": rng.integers(0, 2, n), "a": np.round(rng.random(n), 3), "b": rng.random(n),
                          "race": rng.choice(["x", "y", "z", None], n), "sex": rng.choice(["f", "m"], n),
                          "id0": (rng.random(n) < 0.3).astype(float)})
    frame["given"] = (frame["a"] >= 0.5).astype(int)
    frame.to_parquet(tmp_path / "rows.parquet", index=False)
    return str(tmp_path / "rows.parquet")


@pytest.fixture
def queries(monkeypatch) -> list:
    """Every query the engine runs, as SQL, in order."""
    seen = []
    real = _scored_counts._runner

    def counting(*args, **kwargs):
        run, columns, name = real(*args, **kwargs)

        def run_counted(sql: str):
            seen.append(sql)
            return run(sql)

        return run_counted, columns, name

    monkeypatch.setattr(_scored_counts, "_runner", counting)
    return seen


@pytest.mark.parametrize("auc_bins", [1000, "exact"])
def test_atoms_without_identity_columns_need_no_query(source, queries, auc_bins):
    counted = scored_counts(source, MAPPING, auc_bins=auc_bins, max_levels=None)
    # label, predicted label, preview, profile; per score one counts and one calibration query; the predicted label
    assert len(queries) == 4 + 2 * len(MAPPING.scores) + 1
    n = len(queries)
    result = counted.with_atoms()
    assert len(queries) == n and result.atoms
    assert result.confusion_at("a", 0.5) is result.confusion["a"] and result.calibration_at("a", 10) is \
        result.calibration["a"]
    assert len(queries) == n

    # The same atoms as the pattern queries count (forced here by forgetting the counts queries' rows).
    pattern_queries = copy.copy(counted._atom_queries)
    pattern_queries.counted = {}
    queried = dataclasses.replace(counted, _atom_queries=pattern_queries).with_atoms()
    assert len(queries) > n
    for tables in ("confusion", "calibration"):
        for score in MAPPING.scores:
            got, want = getattr(result, tables)[score], getattr(queried, tables)[score]
            _assert_atoms_equal(got.atoms if tables == "confusion" else got.atoms.atoms,
                                want.atoms if tables == "confusion" else want.atoms.atoms)
            if tables == "calibration":
                np.testing.assert_allclose(got.atoms.mean_p, want.atoms.mean_p, rtol=1e-12, atol=1e-15)
                np.testing.assert_allclose(got.member, want.member, rtol=1e-12)
    for score in MAPPING.scores:
        _assert_atoms_equal(result.auc[score].patterns[0], queried.auc[score].patterns[0])
        assert result.auc[score].patterns[1] == queried.auc[score].patterns[1]
    _assert_atoms_equal(result.label_counts().atoms, queried.label_counts().atoms)
    _assert_atoms_equal(result.given.atoms, queried.given.atoms)


def test_other_thresholds_and_bins_and_identity_columns_are_counted_again(source, queries):
    result = scored_counts(source, MAPPING).with_atoms()
    n = len(queries)
    result.confusion_at("a", 0.3)
    result.calibration_at("b", 7)
    assert len(queries) == n + 2
    with_identity = dataclasses.replace(MAPPING, indicators=("id0",))
    counted = scored_counts(source, with_identity)
    n = len(queries)
    counted.with_atoms()   # a pattern is a protected key and a membership: the pattern queries count them
    assert len(queries) > n


def _assert_atoms_equal(got, want) -> None:
    np.testing.assert_array_equal(got.member, want.member)
    np.testing.assert_array_equal(got.background, want.background)
    np.testing.assert_array_equal(got.counts, want.counts)
