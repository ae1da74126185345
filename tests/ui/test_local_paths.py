"""Data on this machine, the boundary (fairness_dashboard.local_paths): a checked file swapped for a link to outside the allowed
directories is never read — every query of the source (the preview, the counts, a later threshold's scan, the
intervals' atoms) checks the files' real paths again first (N2 of the fourth hostile-input round: the same source
object once returned the outside file's rows); a root whose own name holds glob characters is read literally."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_dashboard import local_paths
from fairness_dashboard.data import counted_data, local


def rows(n: int, marker: str, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"label": rng.integers(0, 2, n), "score": np.round(rng.random(n), 3),
                         "race": rng.choice([f"{marker}_a", f"{marker}_b"], n)})


@pytest.fixture
def swapped(tmp_path, monkeypatch):
    """(source checked on root/logs/a.parquet, a function that swaps that file for a link to a file outside)."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "logs").mkdir(parents=True)
    outside.mkdir()
    rows(300, "OK", 1).to_parquet(root / "logs" / "a.parquet", index=False)
    rows(500, "SECRET", 2).to_parquet(outside / "secret.parquet", index=False)
    monkeypatch.setenv(local_paths.ENV, str(root))
    source = local.LocalSource.from_files("logs/*.parquet")

    def swap():
        (root / "logs" / "a.parquet").unlink()
        (root / "logs" / "a.parquet").symlink_to(outside / "secret.parquet")

    return source, swap


MAPPING = fc.ColumnMapping(label="label", positive_label=1, scores=("score",), protected=("race",))


def test_the_preview_and_the_counts_refuse_a_file_swapped_for_a_link(swapped):
    source, swap = swapped
    assert set(local.rows_of(source, 100, sample=False)["race"]) == {"OK_a", "OK_b"}
    swap()
    with pytest.raises(ValueError, match="lies outside the directories this server may read"):
        local.rows_of(source, 100, sample=False)
    with pytest.raises(ValueError, match="lies outside the directories this server may read"):
        local.counts(source, MAPPING, 100)


def test_later_queries_of_counted_files_refuse_a_swap(swapped):
    source, swap = swapped
    counted = local.counts(source, MAPPING, 100)
    assert counted.n_input == 300
    threshold = 0.12345   # inside a score bin of the count tables: its confusion counts need a scan
    assert counted_data.scans(counted, "score", threshold)
    swap()
    with pytest.raises(ValueError, match="lies outside the directories this server may read"):
        counted.confusion_at("score", threshold)
    assert local.changed(source)   # and every page stops before reading (fairness_dashboard.data.analysis)


@pytest.mark.parametrize("name", ["data[1]", "da*ta", "what?", "a[b]*c?"])
def test_a_root_with_glob_characters_in_its_name_is_read_literally(tmp_path, monkeypatch, name):
    """A data root whose path held '[', '*' or '?' was unusable ("lies outside ...")."""
    root = tmp_path / name
    (root / "logs").mkdir(parents=True)
    rows(120, "OK", 3).to_parquet(root / "logs" / "a.parquet", index=False)
    rows(80, "OK", 4).to_parquet(root / "logs" / "b.parquet", index=False)
    (tmp_path / "elsewhere.parquet").write_bytes(b"")
    monkeypatch.setenv(local_paths.ENV, str(root))
    for pattern in ("logs", "logs/*.parquet", str(root / "logs" / "a.parquet")):
        source = local.LocalSource.from_files(pattern)
        assert all(f.startswith(str(root)) for f in source.files)
    assert len(local.LocalSource.from_files("logs/*.parquet").files) == 2
    assert len(local.rows_of(local.LocalSource.from_files("logs"), 1000, sample=False)) == 200
    for outside in ("../elsewhere.parquet", "../*.parquet", str(tmp_path / "elsewhere.parquet")):
        with pytest.raises(ValueError, match="lies outside the directories this server may read"):
            local.LocalSource.from_files(outside)
