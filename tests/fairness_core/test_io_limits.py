"""read_table's max_cells: a table over the limit is refused with what to do, before it is read in full."""

import io
import re

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._data import reading as _io
from fairness_core._data.reading import TOO_MANY_CELLS_MESSAGE


def table(n_rows: int) -> pd.DataFrame:
    i = np.arange(n_rows)
    return pd.DataFrame({"label": i % 2, "score": np.round(i / n_rows, 4), "race": np.array(["A", "B"])[i % 2]})


def csv(frame: pd.DataFrame, line_end: str = "\n") -> bytes:
    return frame.to_csv(index=False, lineterminator=line_end).encode()


def parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    return buffer.getvalue()


def message(name, rows, columns, limit):
    return TOO_MANY_CELLS_MESSAGE.format(name=name, rows=rows, columns=columns, limit=limit,
                                         max_rows=limit // columns)


@pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_a_csv_at_the_limit_is_read_and_one_cell_more_is_refused(line_end):
    data = csv(table(100), line_end)
    assert fc.read_table(data, max_cells=300).shape == (100, 3)  # exactly 300 cells: read
    assert fc.read_table(data).shape == (100, 3)  # no limit by default
    with pytest.raises(ValueError, match=re.escape(message("big.csv", "more than 99", 3, 299))):
        fc.read_table(data, name="big.csv", max_cells=299)


def test_an_over_limit_csv_is_parsed_no_further_than_one_row_past_the_limit(monkeypatch):
    seen = {}
    read_csv = pd.read_csv

    def spy(*args, **kwargs):
        seen.setdefault("nrows", []).append(kwargs.get("nrows"))
        return read_csv(*args, **kwargs)

    monkeypatch.setattr(_io.pd, "read_csv", spy)
    monkeypatch.setattr(_io, "_read_csv_arrow", lambda *a, **k: pytest.fail("the whole file was parsed"))
    with pytest.raises(ValueError, match="over the limit of 3,000 cells"):
        fc.read_table(csv(table(100_000)), max_cells=3_000)
    assert seen["nrows"] == [1_001]  # max_cells // 3 columns + 1: the rest of the 100,000 rows never parsed


def test_quoted_line_breaks_do_not_count_as_rows():
    # 100 rows, each with a line break inside quotes: 200 line breaks, but 200 cells
    data = ("note,score\n" + "".join(f'"first line\nsecond line",{i}\n' for i in range(100))).encode()
    out = fc.read_table(data, max_cells=200)
    assert out.shape == (100, 2) and out["note"].iloc[0] == "first line\nsecond line"
    with pytest.raises(ValueError, match=re.escape(message("upload", "more than 99", 2, 199))):
        fc.read_table(data, max_cells=199)


def test_an_over_limit_parquet_file_is_refused_from_its_metadata(monkeypatch):
    data = parquet(table(100))
    assert fc.read_table(data, max_cells=300).shape == (100, 3)
    monkeypatch.setattr(_io, "_read_parquet", lambda *a: pytest.fail("the table was read"))
    with pytest.raises(ValueError, match=re.escape(message("big.parquet", "100", 3, 299))):
        fc.read_table(data, name="big.parquet", max_cells=299)


def test_a_parquet_index_is_not_counted_as_a_column():
    frame = table(100).set_index("race")  # written as a column, read back as the index
    assert fc.read_table(parquet(frame), max_cells=200).shape == (100, 2)
