"""fairness_core.engines reads exactly the files it is given: a list of files is read as named (glob characters in a
name are part of it, never expanded again into other files), one string is still a glob, and several files are
combined by column name, refused with a message when their columns differ (DuckDB and polars; Spark in
test_engines.py's Spark test)."""

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core.engines import _sources as engines
from fairness_core.engines import preview, scored_counts

MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("race", "sex"), min_size=1)
ENGINES = ["duckdb", "polars"]


def _rows(n: int, seed: int) -> pd.DataFrame:
    """`n` scored rows whose race and sex shares depend on `seed` (so counts tell the files apart)."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["A", "B", "C"], n, p=[0.2 + 0.1 * (seed % 3), 0.5, 0.3 - 0.1 * (seed % 3)])
    y = (rng.random(n) < np.where(race == "B", 0.6, 0.3)).astype(np.int64)
    return pd.DataFrame({"y": y, "score": np.round(np.clip(rng.beta(2, 3, n) + 0.2 * y, 0, 1), 3),
                         "race": race, "sex": rng.choice(["F", "M"], n)})


def _sizes(result) -> dict:
    """Subgroup name -> rows, as the engine counted them."""
    labels = result.label_counts()
    return dict(zip(labels.names, labels.member[:, [0, 3]].sum(axis=1).astype(int).tolist()))


def _expected(*frames: pd.DataFrame) -> dict:
    """Subgroup name -> rows of the frames concatenated by column name, as the in-memory library counts them."""
    scored = fc.ScoredData.from_frame(pd.concat(frames, ignore_index=True), MAPPING)
    return dict(zip(scored.subgroups.names, scored.subgroups.sizes.astype(int).tolist()))


@pytest.fixture
def named(tmp_path):
    """Parquet files whose names hold glob characters, each beside a file such a glob would match instead."""
    files = {"a1.parquet": _rows(100, 1), "a[1].parquet": _rows(300, 2), "b*.parquet": _rows(70, 3),
             "bz.parquet": _rows(110, 4), "c?.parquet": _rows(50, 5), "cz.parquet": _rows(130, 6)}
    for name, frame in files.items():
        frame.to_parquet(tmp_path / name, index=False)
    return tmp_path, files


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("names", [["a1.parquet", "a[1].parquet"], ["a[1].parquet"], ["b*.parquet"], ["c?.parquet"],
                                   ["a[1].parquet", "b*.parquet", "c?.parquet", "cz.parquet"]])
def test_a_list_of_files_is_read_as_named(named, engine, names):
    """H4: 'a1.parquet' (100 rows) and 'a[1].parquet' (300) count 400 rows, not 'a1.parquet' twice; '*' and '?'
    in a name match only that file."""
    folder, files = named
    result = scored_counts([str(folder / n) for n in names], MAPPING, auc_bins="exact", engine=engine)
    assert result.n_input == sum(len(files[n]) for n in names)
    assert _sizes(result) == _expected(*(files[n] for n in names))
    shown = preview([folder / n for n in names], 10_000, engine=engine)   # os.PathLike items too
    assert len(shown) == sum(len(files[n]) for n in names)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_glob_string_is_still_a_glob_and_a_file_that_is_also_a_glob_is_refused(named, engine):
    folder, files = named
    assert scored_counts(str(folder / "a*.parquet"), MAPPING, engine=engine).n_input == 400
    assert scored_counts(str(folder / "cz.parquet"), MAPPING, engine=engine).n_input == 130   # a plain file
    assert scored_counts(str(folder / "[b]z.parquet"), MAPPING, engine=engine).n_input == 110
    with pytest.raises(ValueError, match=r"'.*a\[1\]\.parquet' names a file, but as a glob it also matches "
                                         r"'.*a1\.parquet'\. Tip: pass it in a list"):
        scored_counts(str(folder / "a[1].parquet"), MAPPING, engine=engine)
    with pytest.raises(ValueError, match="as a glob it also matches .*bz.parquet"):
        preview(str(folder / "b*.parquet"), engine=engine)


@pytest.fixture
def linked(tmp_path):
    """root/lin[k]_out/x.parquet (40 rows) beside root/link_out -> ../outside, whose x.parquet has 900 rows."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "lin[k]_out").mkdir(parents=True)
    outside.mkdir()
    inside = _rows(40, 7)
    inside.to_parquet(root / "lin[k]_out" / "x.parquet", index=False)
    _rows(900, 8).to_parquet(outside / "x.parquet", index=False)
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    return root, inside


@pytest.mark.parametrize("engine", ENGINES)
def test_a_folder_named_like_a_link_out_reads_only_its_own_file(linked, engine):
    """H3: the file checked, 'lin[k]_out/x.parquet', is read; 'link_out/x.parquet' outside never is."""
    root, inside = linked
    path = str(root / "lin[k]_out" / "x.parquet")
    result = scored_counts([path], MAPPING, auc_bins="exact", engine=engine)
    assert result.n_input == 40 and _sizes(result) == _expected(inside)
    assert len(preview([path], 10_000, engine=engine)) == 40
    with pytest.raises(ValueError, match="names a file, but as a glob it also matches .*link_out"):
        scored_counts(path, MAPPING, engine=engine)   # one string is a glob: refused, not read outside


def test_duckdb_reading_a_name_as_a_glob_is_refused_not_read(linked, monkeypatch):
    """If DuckDB did not honour the escaped name (here: no escaping), the check of what its glob matches refuses
    the file instead of reading another one."""
    root, _ = linked
    monkeypatch.setattr(engines._glob, "escape", lambda path: path)
    with pytest.raises(ValueError, match=r"DuckDB reads '.*lin\[k\]_out/x\.parquet' as a glob \(it matches "
                                         r"'.*link_out/x\.parquet'\) and cannot read that file by its name alone\. "
                                         r"Tip: rename"):
        scored_counts([str(root / "lin[k]_out" / "x.parquet")], MAPPING)


@pytest.fixture
def reordered(tmp_path):
    """p1.csv with header y,score,race,sex and p2.csv with y,score,sex,race (other rows)."""
    first, second = _rows(400, 1), _rows(600, 2)
    first.to_csv(tmp_path / "p1.csv", index=False)
    second[["y", "score", "sex", "race"]].to_csv(tmp_path / "p2.csv", index=False)
    return tmp_path, first, second


@pytest.mark.parametrize("engine", ENGINES)
def test_csv_files_are_combined_by_column_name(reordered, engine):
    """H5: race and sex keep their values whatever the column order of each file (as pandas concatenates them)."""
    folder, first, second = reordered
    want = _expected(first, second)
    assert set(want) == {"race=A, sex=F", "race=A, sex=M", "race=B, sex=F", "race=B, sex=M", "race=C, sex=F",
                         "race=C, sex=M"}
    for source in ([str(folder / "p1.csv"), str(folder / "p2.csv")], str(folder / "p*.csv"), str(folder)):
        result = scored_counts(source, MAPPING, auc_bins="exact", engine=engine)
        assert _sizes(result) == want, source
        scored = fc.ScoredData.from_frame(pd.concat([first, second], ignore_index=True), MAPPING)
        np.testing.assert_array_equal(result.confusion["score"].member,
                                      fc.confusion_counts(scored.y_true, scored.y_pred("score", 0.5),
                                                          scored.subgroups).member)
    shown = preview([str(folder / "p2.csv"), str(folder / "p1.csv")], 10_000, engine=engine)
    assert sorted(shown["race"].unique()) == ["A", "B", "C"] and sorted(shown["sex"].unique()) == ["F", "M"]


@pytest.mark.parametrize("engine", ENGINES)
def test_files_with_other_columns_are_refused_with_a_message(reordered, engine):
    folder, first, _ = reordered
    first.rename(columns={"sex": "gender"}).to_csv(folder / "p3.csv", index=False)
    with pytest.raises(ValueError, match=r"The files read together do not have the same columns: '.*p3\.csv' has "
                                         r"'gender' and lacks 'sex' compared with '.*p1\.csv'\. They are combined by "
                                         r"column name, .* Tip: give files with the same column names"):
        scored_counts([str(folder / "p1.csv"), str(folder / "p3.csv")], MAPPING, engine=engine)
    first.to_parquet(folder / "q1.parquet", index=False)
    first.drop(columns=["sex"]).to_parquet(folder / "q2.parquet", index=False)
    with pytest.raises(ValueError, match=r"'.*q2\.parquet' lacks 'sex' compared with '.*q1\.parquet'"):
        preview(str(folder / "q*.parquet"), engine=engine)
    first[["sex", "y", "race", "score"]].to_parquet(folder / "q2.parquet", index=False)   # Parquet: by name
    assert _sizes(scored_counts(str(folder / "q*.parquet"), MAPPING, engine=engine)) == _expected(first, first)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_list_item_that_is_no_file_and_mixed_types_are_refused(reordered, engine):
    folder, first, _ = reordered
    first.to_parquet(folder / "q1.parquet", index=False)
    with pytest.raises(ValueError, match=r"'.*p\*\.csv' is not a file\. A list of paths is read as named"):
        scored_counts([str(folder / "p*.csv")], MAPPING, engine=engine)
    with pytest.raises(ValueError, match="The files mix CSV and Parquet"):
        scored_counts([str(folder / "p1.csv"), str(folder / "q1.parquet")], MAPPING, engine=engine)
    with pytest.raises(ValueError, match="no file matches"):
        scored_counts(str(folder / "none-*.csv"), MAPPING, engine=engine)
