"""fairness_dashboard.data.profiling.column_profile: distinct values counted in full only where the app compares the count."""

import numpy as np
import pandas as pd

import fairness_core as fc
from fairness_dashboard.data import profiling

N = 3 * profiling.PROFILE_HEAD


def test_a_column_with_many_values_is_counted_from_its_first_rows(monkeypatch):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "score": rng.random(N),                               # many distinct floats: counted from the first rows
        "age": rng.integers(18, 90, N),                       # many ints, repeated: no identifier
        "id": np.arange(N),                                   # an identifier: counted in full
        "race": rng.choice(["a", "b", "c"], N),               # few values: exact
        "late": np.r_[np.zeros(N - 100), np.arange(100.0)],   # few values in the first rows, many later: exact
    })
    hashed = []
    nunique = pd.Series.nunique

    def spy(self, *args, **kwargs):
        hashed.append((self.name, len(self)))
        return nunique(self, *args, **kwargs)

    monkeypatch.setattr(pd.Series, "nunique", spy)
    profile = profiling.column_profile.__wrapped__("t", frame).set_index("column")
    n_unique = profile["n_unique"].to_dict()
    assert n_unique["score"] == profiling.PROFILE_HEAD and n_unique["age"] == 72
    assert n_unique["id"] == N and n_unique["race"] == 3 and n_unique["late"] == 100
    assert ("score", N) not in hashed and ("age", N) not in hashed   # never hashed in full
    # ... and every comparison the app makes reads the count as the exact one would be read
    mapping = fc.ColumnMapping(label="race", positive_label="a")
    assert profiling.feature_columns("t", frame, mapping) == ["score", "age", "late"]
    exact = {c: frame[c].nunique() for c in frame}
    for column, count in n_unique.items():
        assert (count <= profiling.MAX_SLICE_VALUES) == (exact[column] <= profiling.MAX_SLICE_VALUES)
        assert (count > 2) == (exact[column] > 2)
        if frame[column].dtype.kind == "i":   # a row identifier is an integer column of distinct values
            assert (count == N) == (exact[column] == N)


def test_unhashable_values_in_a_long_column_are_counted_by_their_text():
    frame = pd.DataFrame({"lists": pd.Series([[i % 3] if i % 2 else None for i in range(N)], dtype=object)})
    assert profiling.column_profile.__wrapped__("t", frame).loc[0, "n_unique"] == 3
