"""Intervals of data counted where it lies refuse too many membership patterns before reading any:
the engine counts the distinct membership keys (one number), so a refusal costs a scan, not memory that grows
with the data."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core.engines import TooManyPatterns, scored_counts
from fairness_core.engines._limits import MAX_PATTERNS, TOO_MANY_PATTERNS

pytest.importorskip("duckdb")


def identity_frame(n: int, n_columns: int, seed: int = 0) -> pd.DataFrame:
    """`n` rows: a label, a score, race (3 values, some missing) and `n_columns` overlapping identity columns."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"y": rng.integers(0, 2, n), "s": rng.random(n),
                          "race": rng.choice(["a", "b", "c", None], n, p=[0.5, 0.3, 0.15, 0.05])})
    for j in range(n_columns):
        frame[f"id{j}"] = (rng.random(n) < 0.2).astype(np.int8)
    return frame


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("protected, n_ids", [(("race",), 0), ((), 4), (("race",), 3)])
def test_the_engine_counts_the_in_memory_patterns(tmp_path, engine, protected, n_ids):
    frame = identity_frame(5_000, n_ids)
    if n_ids:   # an identity column with missing values: its missing flag is part of the pattern
        frame["id0"] = frame["id0"].astype(float).where(frame.index % 97 != 0)
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, index=False)
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("s",), protected=protected,
                               indicators=tuple(f"id{j}" for j in range(n_ids)), min_size=1)
    _, member, _ = fc.ScoredData.from_frame(frame, mapping).subgroups.patterns
    expected = len(member)
    counted = scored_counts(str(path), mapping, engine=engine)
    assert counted._atom_queries.n_patterns() == expected
    assert counted.with_atoms(max_patterns=expected).atoms
    with pytest.raises(ValueError) as refused:
        counted.with_atoms(max_patterns=expected - 1, too_many="raise")
    assert str(refused.value) == TOO_MANY_PATTERNS.format(n=expected, max=expected - 1)
    assert isinstance(refused.value, TooManyPatterns)   # what the app catches, with the numbers for its own words
    assert (refused.value.n_patterns, refused.value.max_patterns) == (expected, expected - 1)
    assert str(refused.value).startswith(refused.value.reason) and "Tip:" not in refused.value.reason


# 10^6 rows with 30 overlapping identity columns (about 670,000 patterns): refused under this address-space cap. Reading
# the patterns into Python before the check took 60-73 s and about 10 GB at 3 * 10^6 rows, and here ends in a
# MemoryError under this cap; counting them in DuckDB (0.6 s) peaks at about 2.4 GiB of address space for this
# process on this machine (Python, numpy, pandas and DuckDB's threads reserve most of it).
ADDRESS_SPACE = 3 * 2 ** 30
REFUSE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
import fairness_core as fc
from fairness_core.engines import TooManyPatterns, scored_counts
mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("s",), indicators=tuple(f"id{{j}}" for j in range(30)))
counted = scored_counts(sys.argv[1], mapping, auc_bins=1000, memory_limit="1GB")
try:
    counted.with_atoms(too_many="raise")
except ValueError as exc:
    print("REFUSED:", exc)
"""


def test_many_overlapping_identity_columns_are_refused_within_an_address_space_cap(tmp_path):
    path = tmp_path / "wide.parquet"
    identity_frame(1_000_000, 30).to_parquet(path, index=False)
    done = subprocess.run([sys.executable, "-c", REFUSE.format(cap=ADDRESS_SPACE), str(path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    refused = done.stdout.split("REFUSED: ")[1].strip()
    n = int(refused.split(" patterns, more than")[0].rsplit(" ", 1)[1].replace(",", ""))
    assert n > 500_000 and refused == TOO_MANY_PATTERNS.format(n=n, max=MAX_PATTERNS)
    assert "--no-intervals" in refused   # the command line's flag (fairness_core/_cli.py)
