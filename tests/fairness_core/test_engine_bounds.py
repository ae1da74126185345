"""What the engines' bounds leave out is said, never a reason to throw away what was computed:
intervals over the bound on membership patterns and exact AUC levels over theirs leave a review of every
point estimate that says what is missing and why, through the library and the command line; DuckDB's memory limit
and threads are set from the command line, with a default that leaves room for the rest of the machine."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core.engines import _limits, default_memory_limit, scored_counts
from fairness_core.engines._limits import WEIGHTED_AUC_NOT_COMPUTED
from fairness_core.engines._scored_counts import EXACT_NOT_COMPUTED
from fairness_core._review.from_counts import NO_ATOMS, NOT_COMPUTED
from tests.fairness_core.test_engine_patterns import identity_frame

pytest.importorskip("duckdb")

IDENTITIES = ("id0", "id1", "id2")
MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=("s",), protected=("race",), indicators=IDENTITIES)
FLAGS = ["--engine", "duckdb", "--label", "y", "--positive", "1", "--score", "s", "--protected", "race",
         *[f for c in IDENTITIES for f in ("--identity", c)]]
# Counts over the pattern bound get per-bucket tables (tests/fairness_core/test_engine_buckets.py); weighted counts
# get per-bucket sums of weights (tests/fairness_core/test_engine_weighted_buckets.py), and say what they lack.
WEIGHTED = dataclasses.replace(MAPPING, weight="w")
WEIGHT_FLAGS = [*FLAGS, "--weight", "w"]


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """4,000 rows (race with missing values, three overlapping identity columns; every score distinct) as Parquet,
    and their number of membership patterns."""
    path = tmp_path_factory.mktemp("bounds") / "rows.parquet"
    frame = identity_frame(4_000, len(IDENTITIES))
    frame["w"] = np.random.default_rng(1).uniform(0.5, 2.0, len(frame))
    frame.to_parquet(path, index=False)
    return str(path), scored_counts(str(path), MAPPING)._atom_queries.n_patterns(), frame["s"].nunique()


def test_weighted_intervals_over_the_pattern_bound_come_from_per_bucket_tables_and_say_what_is_missing(rows):
    path, n_patterns, _ = rows
    counted = scored_counts(path, WEIGHTED)
    reason = WEIGHTED_AUC_NOT_COMPUTED.format(n=n_patterns, max=n_patterns - 1)
    for too_many in ("skip", "buckets"):   # the same: per-bucket sums of weights
        past = counted.with_atoms(max_patterns=n_patterns - 1, too_many=too_many)
        assert past.atoms and past.not_computed == (reason,)
        assert past.confusion["s"].atoms.buckets is not None and past.auc["s"].patterns is None
    within = counted.with_atoms(max_patterns=n_patterns, too_many="skip")   # within the bound: the atoms
    assert within.atoms and within.not_computed == ()
    with pytest.raises(ValueError, match="too_many must be 'buckets', 'raise' or 'skip'"):
        counted.with_atoms(too_many="drop")
    config = dataclasses.replace(fc.ReviewConfig(mapping=WEIGHTED), ci=0.95, n_boot=100)
    review = fc.build_review_from_counts(past, config)
    points = fc.build_review_from_counts(counted, dataclasses.replace(config, ci=None))
    assert review.config.ci == 0.95
    assert review.source["not_computed"] == list(NOT_COMPUTED) + [reason]
    assert points.source["not_computed"] == list(NOT_COMPUTED) + [NO_ATOMS]
    for got, want in zip(review.models, points.models, strict=True):
        rates = [c for c in want.rate_table.columns if c in got.rate_table.columns]
        pd.testing.assert_frame_equal(got.rate_table[rates], want.rate_table, rtol=1e-12, atol=1e-12)
        assert all(np.isfinite(r.ci_low) for r in got.rates.values())
        assert np.isnan(got.bias_auc.ci_low)   # said in not_computed


def test_exact_aucs_over_the_level_bound_are_counted_in_bins_and_say_so(rows):
    path, _, n_levels = rows
    counts = scored_counts(path, MAPPING, auc_bins="exact", max_levels=n_levels - 1, levels_fallback=100)
    assert counts.not_computed == (EXACT_NOT_COMPUTED.format(col="s", n=n_levels, max=n_levels - 1, bins=100),)
    binned = scored_counts(path, MAPPING, auc_bins=100)
    assert not counts.auc["s"].exact and np.array_equal(counts.auc["s"].edges, binned.auc["s"].edges)
    config = dataclasses.replace(fc.ReviewConfig(mapping=MAPPING), ci=0.9, n_boot=100)
    review = fc.build_review_from_counts(counts.with_atoms(), config)
    want = fc.build_review_from_counts(binned.with_atoms(), config)
    assert review.source["not_computed"] == list(NOT_COMPUTED) + list(counts.not_computed)   # intervals computed
    pd.testing.assert_frame_equal(review.models[0].auc_table, want.models[0].auc_table)
    assert scored_counts(path, MAPPING, auc_bins="exact", max_levels=n_levels, levels_fallback=100).auc["s"].exact
    with pytest.raises(ValueError, match=f"{n_levels:,} distinct scores"):   # the library's default: refuse
        scored_counts(path, MAPPING, auc_bins="exact", max_levels=n_levels - 1)


def _main(capsys, *args: str) -> tuple:
    """(exit status, stderr lines) of the command line run in this process."""
    from fairness_core._cli import main

    capsys.readouterr()
    status = main(list(args))
    return status, capsys.readouterr().err.splitlines()


def test_the_command_line_writes_weighted_intervals_over_the_pattern_bound(rows, tmp_path, capsys, monkeypatch):
    path, n_patterns, _ = rows
    points, out = tmp_path / "points.json", tmp_path / "review.json"
    _main(capsys, "metrics", path, *WEIGHT_FLAGS, "--no-intervals", "--out", str(points))
    monkeypatch.setattr(_limits, "MAX_PATTERNS", 3)
    status, err = _main(capsys, "metrics", path, *WEIGHT_FLAGS, "--out", str(out))
    reason = WEIGHTED_AUC_NOT_COMPUTED.format(n=n_patterns, max=3)
    assert f"note: not computed: {reason}." in err
    review, want = json.loads(out.read_text()), json.loads(points.read_text())
    assert review["context"]["source"]["not_computed"] == list(NOT_COMPUTED) + [reason]
    assert status == review["exit_status"] and status in (0, 1)
    # the same values; a value may differ in its last bit (counts summed in another order with the buckets)
    assert [[v["value"] for v in m["verdicts"]] for m in review["models"]] == [
        [pytest.approx(v["value"], rel=1e-12) if isinstance(v["value"], float) else v["value"] for v in m["verdicts"]]
        for m in want["models"]]
    assert all(v["ci_low"] is not None for m in review["models"] for v in m["verdicts"]
               if v["value"] is not None and "auc" not in v["rule"])


def test_the_command_line_counts_exact_aucs_over_the_level_bound_in_bins(rows, tmp_path, capsys, monkeypatch):
    from fairness_core import _cli

    path, _, n_levels = rows
    binned, out = tmp_path / "binned.json", tmp_path / "review.json"
    status_binned, _ = _main(capsys, "metrics", path, *FLAGS, "--auc-bins", "10000", "--out", str(binned))
    monkeypatch.setattr(_cli, "MAX_EXACT_LEVELS", 1_000)
    status, err = _main(capsys, "metrics", path, *FLAGS, "--auc-bins", "exact", "--out", str(out))
    reason = EXACT_NOT_COMPUTED.format(col="s", n=n_levels, max=1_000, bins=10_000)
    assert f"note: not computed: {reason}." in err and status == status_binned
    review, want = json.loads(out.read_text()), json.loads(binned.read_text())
    assert review["context"]["source"]["not_computed"] == list(NOT_COMPUTED) + [reason]
    assert review["tables"] == want["tables"] and review["models"] == want["models"]


def test_duckdb_memory_limit_and_threads_reach_the_engine(rows, tmp_path, capsys, monkeypatch):
    import duckdb

    from fairness_core.engines import _scored_counts
    from fairness_core.engines._runners import _runner

    path = rows[0]
    run, _, _ = _runner(path, None, None, "300MiB", 1)
    assert run("SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t").iloc[0].tolist() == [
        "300.0 MiB", 1]
    seen = []
    counting = _scored_counts.scored_counts

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return counting(*args, **kwargs)

    monkeypatch.setattr(_scored_counts, "scored_counts", spy)
    flags = [*FLAGS, "--no-intervals", "--out", str(tmp_path / "r.json")]
    assert _main(capsys, "metrics", path, *flags)[0] in (0, 1)
    assert (seen[-1]["memory_limit"], seen[-1].get("threads")) == (default_memory_limit(), None)
    assert _main(capsys, "metrics", path, *flags, "--memory-limit", "1.5GB", "--threads", "1")[0] in (0, 1)
    assert (seen[-1]["memory_limit"], seen[-1]["threads"]) == ("1.5GB", 1)
    database = tmp_path / "logs.duckdb"   # a table of a database file: the connection opened with the settings
    with duckdb.connect(str(database)) as con:
        con.execute(f"CREATE TABLE logs AS SELECT * FROM read_parquet('{path}')")
    assert _main(capsys, "metrics", str(database), "--table", "logs", *flags, "--memory-limit", "300MiB",
                 "--threads", "1")[0] in (0, 1)
    settings = seen[-1]["connection"].execute(
        "SELECT current_setting('memory_limit'), current_setting('threads')").fetchone()
    assert settings == ("300.0 MiB", 1)


@pytest.mark.parametrize("flags, message", [
    (["--engine", "polars", "--memory-limit", "1GB"],
     "error: --memory-limit sets how DuckDB computes the counts: use it with --engine duckdb."),
    (["--threads", "2"], "error: --threads sets how DuckDB computes the counts: use it with --engine duckdb."),
    (["--engine", "duckdb", "--memory-limit", "lots"],
     "error: --memory-limit 'lots': expected a size such as 4GB, 512MiB or 25%."),
    (["--engine", "duckdb", "--threads", "0"],
     "error: --threads 0: expected a whole number of threads, at least 1."),
])
def test_memory_limit_and_threads_are_refused_where_they_cannot_apply(rows, capsys, flags, message):
    status, err = _main(capsys, "metrics", rows[0], "--label", "y", "--score", "s", *flags)
    assert (status, err) == (2, [message])


def test_the_default_memory_limit_leaves_half_of_the_memory_for_the_rest(tmp_path, monkeypatch):
    import duckdb

    total = _limits.os.sysconf("SC_PHYS_PAGES") * _limits.os.sysconf("SC_PAGE_SIZE")
    limit = default_memory_limit()
    assert limit.endswith("MiB") and int(limit[:-3]) <= total // 2 // 2 ** 20
    duckdb.connect(config={"memory_limit": limit}).close()   # a size DuckDB reads
    unlimited, container = tmp_path / "unlimited", tmp_path / "container"
    unlimited.write_text("max\n")
    container.write_text(f"{2 * 2 ** 30}\n")   # a container allowed 2 GiB
    monkeypatch.setattr(_limits, "CGROUP_LIMITS", (str(unlimited),))
    assert default_memory_limit() == f"{max(total // 2, 2 ** 28) // 2 ** 20}MiB"
    monkeypatch.setattr(_limits, "CGROUP_LIMITS", (str(tmp_path / "absent"), str(container)))
    assert default_memory_limit() == f"{min(total, 2 * 2 ** 30) // 2 // 2 ** 20}MiB"


def test_the_auc_table_of_exact_levels_is_the_same_a_few_subgroups_at_a_time(rows, monkeypatch):
    # The memory of --auc-bins exact: dense histograms of every subgroup x level at once took 4.4 times the in-memory
    # review's peak; AucCounts.table now builds them DENSE_CELLS at a time, with the same numbers.
    from fairness_core._metrics import auc_counts

    counts = scored_counts(rows[0], MAPPING, auc_bins="exact").auc["s"]
    assert counts.exact and counts.member.dtype == np.int64 and counts.background.dtype == np.int64
    whole = counts.table(0.9)   # every subgroup x 3 AUCs x 4,000 levels: one chunk
    monkeypatch.setattr(auc_counts, "DENSE_CELLS", 1)   # one subgroup at a time
    pd.testing.assert_frame_equal(counts.table(0.9), whole, rtol=0, atol=0)
    assert whole["subgroup_auc_ci_low"].notna().all()
