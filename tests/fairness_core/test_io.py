"""read_table: CSV dialects and encodings, Parquet, empty files, the COMPAS duplicate header."""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._io import DUPLICATE_NOTE, EMPTY_MESSAGE, NO_ROWS_MESSAGE, UNREADABLE_MESSAGE


@pytest.fixture
def frame():
    """Accented category values (Western European), floats and ints."""
    return pd.DataFrame({
        "city": ["Besançon", "Orléans", "Málaga", "Zürich", "São Paulo", "Ærøskøbing"],
        "name_x": ["José", "Zoë", "François", "Muñoz", "Ana", "Søren"],
        "score": [0.1, 0.25, 0.5, 0.75, 0.9, 0.3],
        "label": [0, 1, 0, 1, 1, 0],
    })


def csv_bytes(frame: pd.DataFrame, *, sep: str = ",", encoding: str = "utf-8") -> bytes:
    return frame.to_csv(index=False, sep=sep).encode(encoding)


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_delimiters_are_detected(frame, sep):
    data = csv_bytes(frame, sep=sep)
    assert sep.encode() in data.splitlines()[0]
    pd.testing.assert_frame_equal(fc.read_table(data), frame)


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
@pytest.mark.parametrize("sep", [",", ";"])
def test_legacy_western_encodings_keep_accented_values(frame, encoding, sep):
    data = csv_bytes(frame, sep=sep, encoding=encoding)
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # really not UTF-8
    pd.testing.assert_frame_equal(fc.read_table(data), frame)


def test_cp1252_only_characters(frame):
    # The euro sign and curly quotes exist in cp1252 but not in latin-1.
    special = frame.assign(note=["5 €", "“ok”", "–", "naïve", "œuvre", "Š"])
    pd.testing.assert_frame_equal(fc.read_table(csv_bytes(special, sep=";", encoding="cp1252")), special)


def test_utf8_with_byte_order_mark(frame):
    data = csv_bytes(frame, encoding="utf-8-sig")
    assert data.startswith(b"\xef\xbb\xbf")
    out = fc.read_table(data)
    assert list(out.columns) == list(frame.columns)  # no BOM glued to the first name
    pd.testing.assert_frame_equal(out, frame)


def test_byte_order_mark_does_not_hide_a_duplicate_first_column():
    out = fc.read_table(b"\xef\xbb\xbfa;b;a\n1;2;3\n")
    assert list(out.columns) == ["a", "b", "a.1"]
    assert out.attrs["notes"] == [DUPLICATE_NOTE.format(columns="'a' -> 'a.1'")]


def test_parquet_bytes_path_and_file_object(frame, tmp_path):
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    data = buffer.getvalue()
    pd.testing.assert_frame_equal(fc.read_table(data), frame)
    pd.testing.assert_frame_equal(fc.read_table(io.BytesIO(data)), frame)
    path = tmp_path / "scores.parquet"
    path.write_bytes(data)
    pd.testing.assert_frame_equal(fc.read_table(path), frame)
    pd.testing.assert_frame_equal(fc.read_table(str(path)), frame)


def test_csv_from_path_and_file_object(frame, tmp_path):
    path = tmp_path / "scores.csv"
    path.write_bytes(csv_bytes(frame, sep=";"))
    pd.testing.assert_frame_equal(fc.read_table(path), frame)
    with open(path, "rb") as fh:
        pd.testing.assert_frame_equal(fc.read_table(fh), frame)


@pytest.mark.parametrize("data", [b"", b"   \n\n"])
def test_empty_file_raises(data):
    with pytest.raises(ValueError, match=re.escape(EMPTY_MESSAGE.format(name="upload"))):
        fc.read_table(data)


def test_empty_file_message_names_the_file(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=re.escape(EMPTY_MESSAGE.format(name=str(path)))):
        fc.read_table(path)
    with pytest.raises(ValueError, match=re.escape(EMPTY_MESSAGE.format(name="mine.csv"))):
        fc.read_table(b"", name="mine.csv")


@pytest.mark.parametrize("data", [b"label,score,group\n", b"label;score;group\r\n", b"label,score"])
def test_header_only_file_raises(data):
    with pytest.raises(ValueError, match=re.escape(NO_ROWS_MESSAGE.format(name="upload"))):
        fc.read_table(data)


def test_corrupt_parquet_raises_readable_message():
    with pytest.raises(ValueError, match=re.escape("could not be read as Parquet")) as info:
        fc.read_table(b"PAR1 this is not really parquet")
    assert str(info.value).startswith(UNREADABLE_MESSAGE.split("{error}")[0].format(
        name="upload", kind="Parquet"))


def test_duplicate_names_are_reported():
    out = fc.read_table(b"a,b,a\n1,2,3\n4,5,6\n")
    assert list(out.columns) == ["a", "b", "a.1"]
    assert out.attrs["notes"] == [DUPLICATE_NOTE.format(columns="'a' -> 'a.1'")]


def test_no_note_without_duplicates(frame):
    assert "notes" not in fc.read_table(csv_bytes(frame)).attrs


def test_compas_reads_all_rows_and_notes_the_duplicate_header(data_file):
    out = fc.read_table(data_file("compas/compas-scores-two-years.csv"))
    shape = out.shape
    notes = out.attrs.get("notes")
    columns = set(out.columns)
    del out  # holds real names and dates of birth; nothing below looks at them
    assert shape == (7214, 53)
    assert notes == [DUPLICATE_NOTE.format(
        columns="'decile_score' -> 'decile_score.1', 'priors_count' -> 'priors_count.1'")]
    assert {"decile_score", "decile_score.1", "two_year_recid", "race"} <= columns
