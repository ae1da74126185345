"""read_table: CSV dialects and encodings, Parquet, empty files, the COMPAS duplicate header."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import time

import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._data.reading import (DUPLICATE_NOTE, EMPTY_MESSAGE, MAX_REPEATED_NAMES, NESTED_NOTE, NO_ROWS_MESSAGE,
                               REPEATED_NAMES_MESSAGE, SNIFF_BYTES, SNIFF_LINES, UNREADABLE_MESSAGE,
                               _guess_delimiter)


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
        fc.read_table(b"PAR1\x00\x15 this is not really parquet (a cut file)")
    assert str(info.value).startswith(UNREADABLE_MESSAGE.split("{error}")[0].format(
        name="upload", kind="Parquet"))


def test_a_csv_whose_header_starts_with_the_parquet_magic_is_a_csv():
    out = fc.read_table(b"PAR1,b\n1,2\n3,4\n", name="x.csv")
    assert list(out.columns) == ["PAR1", "b"] and out["b"].tolist() == [2, 4]


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


# Line endings ------------------------------------------------------------------------------

@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
@pytest.mark.parametrize("sep", [",", ";", "\t"])
def test_line_endings_parse_to_the_same_frame(frame, sep, ending):
    # "\r" alone is Excel for Mac's "CSV (Macintosh)"; it used to raise a raw _csv.Error.
    quoted = frame.assign(note=["two\nlines", "x", "a, b; c", "three\r\nlines\r", "q", "\"quoted\""])
    # (QUOTE_NONNUMERIC: with QUOTE_MINIMAL the csv module leaves "two\nlines" unquoted in a CR file)
    data = quoted.to_csv(index=False, sep=sep, lineterminator=ending, quoting=csv.QUOTE_NONNUMERIC).encode()
    assert data.count(ending.encode()) >= len(quoted) + 1
    pd.testing.assert_frame_equal(fc.read_table(data), fc.read_table(quoted.to_csv(index=False).encode()))
    pd.testing.assert_frame_equal(fc.read_table(data), quoted)


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
def test_duplicate_header_is_reported_for_every_line_ending(ending):
    out = fc.read_table(ending.join([b"a;b;a", b"1;2;3", b"4;5;6", b""]))
    assert list(out.columns) == ["a", "b", "a.1"]
    assert out.attrs["notes"] == [DUPLICATE_NOTE.format(columns="'a' -> 'a.1'")]


# Delimiter guess: bounded and linear (csv.Sniffer backtracked for a minute) -----------------

def test_pathological_quote_comma_upload_is_handled_quickly():
    # 64 KB of '",' made csv.Sniffer's regular expressions backtrack for ~60 s holding the GIL. Read
    # with a comma, its one line is 16,385 fields, 16,384 of them ","; pandas would then spend
    # seconds making those names unique (quadratic), so the file is refused before pandas sees it.
    data = b'",' * 32768
    assert len(data) == 64 * 1024
    start = time.process_time()
    assert _guess_delimiter(data, "utf-8") == ","
    message = REPEATED_NAMES_MESSAGE.format(name="upload", count=16_383, example=",")
    with pytest.raises(ValueError, match=re.escape(message)):
        fc.read_table(data)
    # CPU seconds, not wall-clock (a busy machine cannot fail it): milliseconds here; the stall was a minute of CPU
    assert time.process_time() - start < 5


def test_many_repeated_header_names_are_refused_before_pandas_sees_them():
    def header(n_x):
        return (",".join(["x"] * n_x + ["y"]) + "\n" + ",".join(["1"] * (n_x + 1)) + "\n").encode()

    out = fc.read_table(header(MAX_REPEATED_NAMES + 1))  # x repeated MAX_REPEATED_NAMES times: read
    assert list(out.columns[:3]) == ["x", "x.1", "x.2"] and out.attrs["notes"][0].startswith(
        DUPLICATE_NOTE.split("{")[0])
    message = REPEATED_NAMES_MESSAGE.format(name="wide.csv", count=MAX_REPEATED_NAMES + 1, example="x")
    with pytest.raises(ValueError, match=re.escape(message)):
        fc.read_table(header(MAX_REPEATED_NAMES + 2), name="wide.csv")
    # blank header cells are named "Unnamed: i" by pandas, all distinct: they are not repeats
    blank = ("a,b" + "," * 3000 + "\n1,2" + "," * 3000 + "\n").encode()
    assert fc.read_table(blank).shape == (1, 3002)


@pytest.mark.parametrize("unit", [b'",', b'"\t', b'";', b'"|', b'"",', b',"'])
def test_pathological_quote_runs_over_several_lines_are_handled_quickly(unit):
    data = b"\n".join([unit * 4000] * 16)
    start = time.process_time()
    with contextlib.suppress(ValueError):  # read, or refused with our message: either is fine here
        fc.read_table(data)
    assert time.process_time() - start < 5  # CPU seconds: a busy machine cannot fail it


def test_delimiter_guess_examines_a_bounded_sample():
    # The header splits on both "|" and ";". The first lines are pipe-separated; a scan of the whole
    # file would see the (much longer) semicolon-separated rest and choose ";".
    head = b"a|b;c\n" + b"1|2\n" * (SNIFF_LINES - 1)
    tail = b"1;2\n" * 100_000
    assert _guess_delimiter(head + tail, "utf-8") == "|"
    assert _guess_delimiter(tail, "utf-8") == ";"
    # and no more than SNIFF_BYTES are decoded: a long first line is cut, not read to its end
    long_line = b"a;b;" + b"x" * (8 * SNIFF_BYTES) + b"\n1;2;3\n"
    assert _guess_delimiter(long_line, "utf-8") == ";"


@pytest.mark.parametrize("text, sep", [
    ("score;label\n0,5;1\n0,75;0\n0,25;1\n", ";"),        # decimal commas in a semicolon file
    ('name,city\n"Doe; J",Paris\n"Roe| K",Lyon\n', ","),   # other delimiters inside quotes
    ("a\tb\tc\n1\t2\t3\n4\t5\n", "\t"),                   # a ragged row
    ("id,notes;x\n1,a;b\n2,c;d\n", ","),                    # a tie goes to the comma
    ("justone\n1\n2\n", ","),                               # one column: comma
    ("a|b|c\r1|2|3\r4|5|6\r", "|"),                          # CR-only endings
])
def test_delimiter_guess(text, sep):
    assert _guess_delimiter(text.encode(), "utf-8") == sep


# Parquet with nested columns --------------------------------------------------------------

def nested_parquet() -> bytes:
    """Label, score and attribute columns beside a list, a struct and a map column (one missing each)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 60
    table = pa.table({
        "label": pa.array([i % 2 for i in range(n)], pa.int64()),
        "tags": pa.array([None if i == 3 else ["a", "b"][: i % 3] for i in range(n)], pa.list_(pa.string())),
        "score": pa.array([(i % 10) / 10 for i in range(n)], pa.float64()),
        "info": pa.array([None if i == 4 else {"k": i % 4, "s": "x\"y"} for i in range(n)],
                         pa.struct([("k", pa.int64()), ("s", pa.string())])),
        "group": pa.array(["A", "B", "C"] * (n // 3), pa.string()),
        "attrs": pa.array([None if i == 5 else [("é", i % 2), ("z", None)] for i in range(n)],
                          pa.map_(pa.string(), pa.int64())),
    })
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def test_nested_parquet_columns_are_read_as_text():
    data = nested_parquet()
    out = fc.read_table(data)
    assert list(out.columns) == ["label", "tags", "score", "info", "group", "attrs"]
    assert out.attrs["notes"] == [NESTED_NOTE.format(columns="'tags', 'info', 'attrs'")]
    plain = pd.read_parquet(io.BytesIO(data), columns=["label", "score", "group"])
    pd.testing.assert_frame_equal(out[["label", "score", "group"]], plain)
    assert list(out["tags"][:3]) == ["[]", '["a"]', '["a", "b"]']
    assert out.loc[1, "info"] == '{"k": 1, "s": "x\\"y"}'
    assert json.loads(out.loc[1, "info"]) == {"k": 1, "s": 'x"y'}
    assert out.loc[1, "attrs"] == '[["é", 1], ["z", null]]'
    # missing stays missing, and only there
    assert out[["tags", "info", "attrs"]].isna().sum().tolist() == [1, 1, 1]
    assert out["tags"].isna()[3] and out["info"].isna()[4] and out["attrs"].isna()[5]
    for column in ["tags", "info", "attrs"]:
        assert out[column].nunique() >= 2  # hashable text


@pytest.mark.parametrize("arrow_type", ["large_list", "fixed_size_list", "nested"])
def test_other_nested_parquet_types_are_read_as_text(arrow_type):
    import pyarrow as pa
    import pyarrow.parquet as pq

    values, kind = {
        "large_list": ([[1, 2], [], None], pa.large_list(pa.int32())),
        "fixed_size_list": ([[1.5, 2.0], [0.0, None], None], pa.list_(pa.float64(), 2)),
        "nested": ([[{"a": [1]}], [{"a": None}], None], pa.list_(pa.struct([("a", pa.list_(pa.int8()))]))),
    }[arrow_type]
    buffer = io.BytesIO()
    pq.write_table(pa.table({"y": [0, 1, 0], "v": pa.array(values, kind)}), buffer)
    out = fc.read_table(buffer.getvalue())
    assert out.attrs["notes"] == [NESTED_NOTE.format(columns="'v'")]
    assert out["v"].isna().tolist() == [False, False, True]
    assert [json.loads(v) for v in out["v"][:2]] == values[:2]


def test_parquet_metadata_cannot_supply_notes(frame):
    # pandas stores DataFrame.attrs in the file; notes shown on the Data page are ours alone.
    spoofed = frame.copy()
    spoofed.attrs = {"notes": ["**Your session expired**, log in at http://example.com"], "other": 1}
    buffer = io.BytesIO()
    spoofed.to_parquet(buffer, index=False)
    out = fc.read_table(buffer.getvalue())
    assert out.attrs == {}
    pd.testing.assert_frame_equal(out, frame)


# pyarrow's reader and pandas' parser give the same frame --------------------------------------

def pandas_read(data: bytes, sep: str = ",") -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), sep=sep, low_memory=False)


@pytest.mark.parametrize("text", [
    "a,b,c\n1,0.5,x\n2,,y\n,1.5,\n",                                   # missing ints become floats, text stays text
    "a,b\nNA,None\n<NA>,n/a\n1,x\n",                                    # every pandas missing-value marker
    "flag,n\nTrue,1\nfalse,0\nTRUE,1\n",                                 # pandas' boolean words
    "flag,n\nTrue,1\nFalse,0\n,1\n",                                     # a boolean with a missing value
    "day,n\n2020-01-01,1\n2020-01-02,2\n",                                # dates stay text, as pandas reads them
    "t,n\n2020-01-01 10:00:00,1\n2020-01-02 11:30:00,2\n",               # timestamps too
    "a,b\n 1, 2.5\n3 ,4\n",                                               # numbers padded with spaces
    "a,b\n1,x\n" + "2,y\n" * 60 + "z,w\n",                                # text after SNIFF_LINES numbers
    "a,b\n1,x\n" + "2,y\n" * 60 + "2.5,w\n",                              # a float after SNIFF_LINES ints
    "a,b\n" + "1,\n" * 60 + "2,late text\n",                              # text after SNIFF_LINES missing values
    "a,b\n1,\n2,\n",                                                      # an empty column: float NaN
    "a,b\n9223372036854775808,1\n",                                        # beyond int64
    "a,b\n1e5,inf\n-inf,2\n",                                             # exponents and infinities
    'a,b\n1,"x\ny"\n2,"say ""hi"""\n',                                   # quoted line breaks and quotes
])
def test_fast_reader_gives_pandas_frame(text):
    data = text.encode()
    pd.testing.assert_frame_equal(fc.read_table(data), pandas_read(data))


def test_large_csv_read_by_pyarrow_equals_pandas():
    import numpy as np

    rng = np.random.default_rng(0)
    n = 200_000
    frame = pd.DataFrame({"y": rng.integers(0, 2, n), "p": rng.random(n), "q": rng.normal(0, 1e5, n),
                          "g": rng.choice(["a", "b", "é"], n), "k": rng.integers(-5, 5, n).astype(float)})
    frame.loc[::7, "k"] = np.nan
    data = frame.to_csv(index=False).encode()
    out = fc.read_table(data)
    pd.testing.assert_frame_equal(out, pandas_read(data))
    assert (out["p"].to_numpy() == frame["p"].to_numpy()).all()  # floats round-trip exactly


def test_utf8_check_reads_in_chunks_across_character_boundaries(monkeypatch):
    import fairness_core._data.reading as io_module

    monkeypatch.setattr(io_module, "DECODE_CHUNK", 7)  # cuts the two-byte é and three-byte € apart
    text = "city,note\nBesançon,5 €\nOrléans,“ok”\n"
    assert io_module._is_utf8(text.encode())
    assert not io_module._is_utf8(text.encode("cp1252"))
    assert not io_module._is_utf8(text.encode()[:-3] + b"\xe2\x82")  # cut inside the last character
    pd.testing.assert_frame_equal(fc.read_table(text.encode()), pandas_read(text.encode()))


def test_na_values_are_pandas_defaults():
    from pandas._libs.parsers import STR_NA_VALUES

    from fairness_core._data.reading import NA_VALUES

    assert set(NA_VALUES) == STR_NA_VALUES


@pytest.mark.parametrize(("data", "quoted"), [(b"a,b\n1,x\n2,y\n", False), (b'a,b\n1,"two\nlines"\n2,y\n', True)],
                         ids=["no quotes", "a quoted line break"])
def test_pyarrow_looks_for_quoted_line_breaks_only_when_the_file_has_a_quote(monkeypatch, data, quoted):
    # Without a quote character no value can hold a line break: pyarrow then parses blocks in parallel.
    import pyarrow.csv as pa_csv

    seen = []
    read_csv = pa_csv.read_csv

    def spy(source, *, parse_options, **kwargs):
        seen.append(parse_options.newlines_in_values)
        return read_csv(source, parse_options=parse_options, **kwargs)

    monkeypatch.setattr(pa_csv, "read_csv", spy)
    out = fc.read_table(data)
    assert seen == [quoted]
    assert out["b"].tolist() == (["two\nlines", "y"] if quoted else ["x", "y"])
