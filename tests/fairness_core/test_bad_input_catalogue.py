"""The bad-input catalogue, through fairness_core: each entry is an input built here (no committed
binaries) with the exact message it gets or the documented correction made while reading it.

Entries already covered elsewhere are not repeated: empty and header-only files, semicolon/tab/pipe
delimiters, UTF-8 with a byte-order mark, cp1252, CR/LF/CRLF endings with quoted line breaks, duplicate
names and the '",' stall (test_io.py); nested Parquet columns (test_io.py); ±inf and IDs above 2**53 as
attributes, nullable Int64/boolean labels, labels 1 and "1" (test_hostile_names.py).
"""

from __future__ import annotations

import decimal
import gzip
import io
import json
import re
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
import fairness_core._data.reading as fio
from fairness_core._counts.scored_data import LABEL_TOO_FEW, LABEL_VALUES, SCORE_TYPE
from fairness_core._subgroups.subgroups import TOO_MANY_MESSAGE
from tests.support import examples

N = 60
LABEL = [i % 2 for i in range(N)]
SCORES = [round((i * 7 % 10) / 10 + 0.05, 2) for i in range(N)]
GROUPS = ["ABC"[(i // 2) % 3] for i in range(N)]


def table_text(sep: str = ",", score=None, group=None, ending: str = "\n") -> str:
    """label, score, race: the catalogue's plain table as CSV text (values may be replaced)."""
    scores = score or SCORES
    groups = group or GROUPS
    rows = [sep.join(["label", "score", "race"])] + [sep.join(map(str, r)) for r in zip(LABEL, scores, groups)]
    return ending.join(rows) + ending


PLAIN = pd.DataFrame({"label": LABEL, "score": SCORES, "race": GROUPS})


def workbook() -> bytes:
    """The parts of an .xlsx file that identify it (a ZIP holding xl/workbook.xml)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")
        archive.writestr("xl/worksheets/sheet1.xml", "<worksheet/>")
    return buffer.getvalue()


def archive() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("scores.csv", table_text())
    return buffer.getvalue()


def mixed_encoding() -> bytes:
    """A UTF-8 file whose last 3 rows were appended by a cp1252 program: 'Besançon' both ways."""
    head = table_text(group=["Besançon" if g == "A" else g for g in GROUPS]).encode()
    tail = "".join(f"{i % 2},0.5,Besançon\n" for i in range(3)).encode("cp1252")
    return head + tail


# Reading: refused with a message ----------------------------------------------------------------

REFUSED = [
    ("binary garbage", np.random.default_rng(0).bytes(5000), fio.ENCODING_MESSAGE.format(name="x.csv")),
    ("Excel workbook renamed .csv", workbook(), fio.WORKBOOK_MESSAGE.format(name="x.csv")),
    ("legacy .xls renamed .csv", fio.OLE_MAGIC + bytes(504), fio.WORKBOOK_MESSAGE.format(name="x.csv")),
    ("ZIP archive renamed .csv", archive(), fio.ZIP_MESSAGE.format(name="x.csv")),
    ("cut gzip file", gzip.compress(table_text().encode())[:-30],
     fio.GZIP_MESSAGE.format(name="x.csv", error="the compressed data ends early")),
    ("gzip of nothing", gzip.compress(b""), fio.EMPTY_MESSAGE.format(name="x.csv")),
    ("ragged: a row longer than the header", b"a,b,c\n1,2,3\n4,5,6,7\n", fio.UNREADABLE_MESSAGE.format(
        name="x.csv", kind="CSV", error="Error tokenizing data. C error: Expected 3 fields in line 3, saw 4")),
]


@pytest.mark.parametrize("data, message", [e[1:] for e in REFUSED], ids=[e[0] for e in REFUSED])
def test_refused_with_the_message(data, message):
    with pytest.raises(ValueError) as info:
        fc.read_table(data, name="x.csv")
    assert str(info.value) == message


def test_gzip_beyond_the_decompressed_limit_is_refused(monkeypatch):
    monkeypatch.setattr(fio, "MAX_GUNZIPPED", 1000)
    data = gzip.compress(b"a,b\n" + b"1,2\n" * 1000)   # 4 KB decompressed, 30 bytes compressed: a small bomb
    with pytest.raises(ValueError) as info:
        fc.read_table(data, name="bomb.csv.gz")
    assert str(info.value) == fio.GZIP_TOO_LARGE_MESSAGE.format(name="bomb.csv.gz", limit=1000)


def gzip_bomb(head: bytes, unit: bytes, size: int) -> bytes:
    """gzip of `head` then `unit` repeated to `size` bytes, compressed 1 MiB at a time (never held decompressed)."""
    strategy = zlib.Z_RLE if len(unit) == 1 else zlib.Z_DEFAULT_STRATEGY   # (fast, and small for one byte)
    compressor = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS, 9, strategy)
    block = unit * ((1 << 20) // len(unit))
    parts = [compressor.compress(head)] + [compressor.compress(block) for _ in range(size // len(block))]
    return b"".join(parts) + compressor.flush()


def counting_decompression(monkeypatch) -> list[int]:
    """The sizes of the chunks read_table decompresses from now on (each pass over gzip data counted)."""
    sizes, chunks = [], fio._gunzip_chunks
    monkeypatch.setattr(fio, "_gunzip_chunks", lambda *args: (sizes.append(len(c)) or c for c in chunks(*args)))
    return sizes


def inflated(monkeypatch) -> list[int]:
    """The sizes read_table decompresses gzip data to, into memory, from now on."""
    sizes, inflate = [], fio._inflate
    monkeypatch.setattr(fio, "_inflate", lambda data, name, size: sizes.append(size) or inflate(data, name, size))
    return sizes


@pytest.mark.parametrize("head, unit", [(b"", b"\0"), (b"label,score\n", b"1"), (b"label,score\n0,0.5\n", b"\r\n"),
                                        (b"label,score\n0,0.5\n", b" \t \n")],
                         ids=["NUL bytes", "one value without a line break", "blank lines", "lines of spaces"])
def test_a_gzip_bomb_is_refused_after_a_bounded_decompression(monkeypatch, head, unit):
    # L4: a 4 MB gzip of 4 GiB was decompressed up to 1 GiB (2 GiB of memory) before it was refused.
    data = gzip_bomb(head, unit, 256 << 20)
    assert len(data) < 2 << 20 and int.from_bytes(data[-4:], "little") == len(head) + (256 << 20)  # (its ISIZE)
    sizes, kept = counting_decompression(monkeypatch), inflated(monkeypatch)
    with pytest.raises(ValueError) as info:
        fc.read_table(data, name="bomb.csv.gz", max_cells=20_000_000)
    assert str(info.value) == fio.GZIP_NO_ROWS_MESSAGE.format(name="bomb.csv.gz", limit=16 << 20)
    # checked as it streamed, 16-17 MiB of the 256, none of it kept
    assert fio.MAX_GUNZIPPED_LINE < sum(sizes) <= fio.MAX_GUNZIPPED_LINE + fio.GUNZIP_CHUNK and kept == []


def test_gzip_with_more_rows_than_max_cells_is_refused_having_decompressed_only_the_rows_it_needs(monkeypatch):
    data = gzip_bomb(b"label,score\n", b"0,1\n", 256 << 20)   # 67 million rows, 200 times the limit
    plain = b"label,score\n" + b"0,1\n" * 20_001
    with pytest.raises(ValueError) as info:
        fc.read_table(plain, name="rows.csv", max_cells=40_000)
    message = fio.TOO_MANY_CELLS_MESSAGE.format(name="rows.csv", rows="more than 20,000", columns=2, limit=40_000,
                                                max_rows=20_000)
    assert str(info.value) == message
    sizes, kept = counting_decompression(monkeypatch), inflated(monkeypatch)
    with pytest.raises(ValueError) as info:
        fc.read_table(data, name="rows.csv", max_cells=40_000)
    assert str(info.value) == message   # the plain file's message
    # only the first chunk holding more than 20,000 rows was decompressed into memory: 1 MiB, not 256
    assert kept == [fio.GUNZIP_CHUNK] and sum(sizes) == 2 * fio.GUNZIP_CHUNK


def test_a_gzip_csv_of_many_chunks_reads_as_the_plain_file(monkeypatch):
    rng = np.random.default_rng(0)
    n = 250_000
    frame = pd.DataFrame({"label": rng.integers(0, 2, n), "score": rng.random(n).round(4),
                          "race": rng.choice(["A", "B", "C"], n),
                          "note": rng.choice(["one", "two\n\nlines", "a, b"], n)})   # quoted line breaks
    plain = frame.to_csv(index=False, lineterminator="\r\n").encode()
    data = gzip.compress(plain, 1)
    assert len(plain) > 4 * fio.GUNZIP_CHUNK
    kept = inflated(monkeypatch)
    for max_cells in (None, frame.size):
        out = fc.read_table(data, name="f.csv", max_cells=max_cells)
        pd.testing.assert_frame_equal(out, fc.read_table(plain, name="f.csv", max_cells=max_cells))
        assert len(out) == n and out["note"].tolist() == frame["note"].tolist()
        assert out.attrs["notes"] == [fio.GZIP_NOTE.format(name="f.csv")]
    # With the limit, its lines of data (a quoted line break starts one more) outnumber the rows allowed: its start
    # was read first, held no more rows than that, and then the whole file was.
    assert kept[0] == kept[2] == len(plain) and 0 < kept[1] < len(plain) and len(kept) == 3
    with pytest.raises(ValueError) as refused:
        fc.read_table(data, name="f.csv", max_cells=frame.size - 1)
    assert str(refused.value) == fio.TOO_MANY_CELLS_MESSAGE.format(
        name="f.csv", rows=f"more than {n - 1:,}", columns=4, limit=frame.size - 1, max_rows=n - 1)


@pytest.mark.parametrize("chunk, piece", [(7, 13), (300, 5000), (1 << 20, 1)])
def test_gzip_is_streamed_whole_at_any_chunk_size(monkeypatch, chunk, piece):
    monkeypatch.setattr(fio, "GUNZIP_CHUNK", chunk)
    monkeypatch.setattr(fio, "GUNZIP_INPUT", piece)
    text = table_text().encode()
    for level in (0, 9):
        member = gzip.compress(text, level)
        for data, expected in [(member, text), (member + gzip.compress(text[:50]), text + text[:50]),
                               (gzip.compress(b"") + member + b"\0" * 64, text)]:
            assert b"".join(fio._gunzip_chunks(data, "x")) == expected
            assert fio._inflate(data, "x", 100) == expected[:100]
        pd.testing.assert_frame_equal(fc.read_table(member, max_cells=1000), PLAIN)


# Reading: the documented corrections -------------------------------------------------------------

def test_gzip_is_decompressed_whatever_the_name():
    for name in ("scores.csv.gz", "renamed.csv"):
        out = fc.read_table(gzip.compress(table_text(";").encode()), name=name)
        pd.testing.assert_frame_equal(out, PLAIN)
        assert out.attrs["notes"] == [fio.GZIP_NOTE.format(name=name)]
    # several gzip members (as `cat a.gz b.gz` makes) are one file
    two = gzip.compress(table_text().encode()) + gzip.compress(b"1,0.5,A\n")
    assert len(fc.read_table(two)) == N + 1


def test_gzip_of_parquet_is_read_as_parquet():
    buffer = io.BytesIO()
    PLAIN.to_parquet(buffer, index=False)
    pd.testing.assert_frame_equal(fc.read_table(gzip.compress(buffer.getvalue())), PLAIN)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_is_read(encoding):
    text = table_text(group=["Besançon" if g == "A" else g for g in GROUPS])
    out = fc.read_table(text.encode(encoding))   # (without a byte-order mark, charset detection finds it)
    pd.testing.assert_frame_equal(out, fc.read_table(text.encode()))
    assert sorted(out["race"].unique()) == ["B", "Besançon", "C"]


def test_mixed_encodings_are_decoded_consistently_and_said():
    out = fc.read_table(mixed_encoding(), name="mixed.csv")
    assert out["race"].value_counts().to_dict() == {"Besançon": 23, "B": 20, "C": 20}  # one value, not two
    assert out.attrs["notes"] == [fio.MIXED_ENCODING_NOTE.format(name="mixed.csv", count="3 bytes", line=N + 2)]
    # with a byte-order mark and semicolons too
    data = b"\xef\xbb\xbf" + mixed_encoding().replace(b",", b";")
    out = fc.read_table(data, name="m.csv")
    assert list(out.columns) == ["label", "score", "race"] and out["race"].nunique() == 3
    # a file in cp1252 alone (no UTF-8 character) is cp1252, without a note
    plain = table_text(group=["Besançon" if g == "A" else g for g in GROUPS]).encode("cp1252")
    assert "notes" not in fc.read_table(plain).attrs


def test_decimal_commas_in_a_semicolon_file_are_read_as_numbers():
    text = table_text(";", score=[str(s).replace(".", ",") for s in SCORES])
    assert "0,75" in text
    out = fc.read_table(text.encode(), name="de.csv")
    pd.testing.assert_frame_equal(out, PLAIN)
    assert out.attrs["notes"] == [fio.DECIMAL_COMMA_NOTE.format(columns="'score'")]
    # a missing value stays missing; a column that is not all numbers stays text
    text = "y;s;t\n1;0,5;a,b\n0;;1,5\n1;-2;2,5\n"
    out = fc.read_table(text.encode())
    assert out["s"].tolist()[::2] == [0.5, -2.0] and np.isnan(out["s"][1])
    assert out["t"].tolist() == ["a,b", "1,5", "2,5"]


@pytest.mark.parametrize("values, reason", [
    (["0,73", "0,5", "1"], "holds numbers written with a decimal comma (for example '0,73')"),
    (["73 %", "5%", "100 %"], "holds percentages written with a % sign (for example '73 %')"),
    (["1,234.5", "12.5", "7"], "holds numbers written with thousands separators (for example '1,234.5')"),
    (["1.234,5", "0,5"], "holds numbers written with a decimal comma (for example '1.234,5')"),
    (["1,234", "2,500"], "holds numbers written with a comma, a decimal comma or a thousands separator "
                         "(for example '1,234')"),
], ids=["decimal comma", "percent", "thousands", "European thousands", "comma either way"])
def test_numbers_written_as_text_are_named_with_the_reason(values, reason):
    # In a comma-separated file these stay text (they are quoted); the Data page says why they are no score.
    frame = pd.DataFrame({"label": [0, 1] * 3, "score": (values * 6)[:6], "name": ["x", "1"] * 3})
    data = frame.to_csv(index=False).encode()
    out = fc.read_table(data)
    assert not pd.api.types.is_numeric_dtype(out["score"])
    assert fc.numbers_as_text(out) == {"score": reason}


def test_no_header_is_noted():
    text = "".join(f"{y},{s},{g}\n" for y, s, g in zip(LABEL, SCORES, GROUPS))
    out = fc.read_table(text.encode(), name="nohead.csv")
    assert list(out.columns) == ["0", "0.05", "A"] and len(out) == N - 1
    assert out.attrs["notes"] == [fio.NO_HEADER_NOTE.format(name="nohead.csv", example="'0', '0.05'")]
    assert "notes" not in fc.read_table(table_text().encode()).attrs   # a real header: no note


def test_ragged_short_rows_get_missing_values():
    out = fc.read_table(b"a,b,c\n1,2,3\n4,5\n")
    assert out.shape == (2, 3) and np.isnan(out.loc[1, "c"]) and out.loc[1, "b"] == 5


def test_blank_and_very_long_column_names():
    long_name = "x" * 10_000
    out = fc.read_table(f"label,,{long_name},\n0,1,2,3\n1,4,5,6\n".encode())
    assert list(out.columns) == ["label", "Unnamed: 1", long_name, "Unnamed: 3"]
    assert out.attrs["notes"] == [fio.BLANK_NAMES_NOTE.format(columns="'Unnamed: 1', 'Unnamed: 3'")]
    many = ("a" + "," * 30 + "\n" + "1" + ",2" * 30 + "\n").encode()
    note = fc.read_table(many).attrs["notes"][0]
    assert note.endswith("'Unnamed: 10' and 20 more.")


def test_five_thousand_columns_are_read_and_guessed():
    names = ["label", "score", "race"] + [f"f{i}" for i in range(4997)]
    rows = [",".join(names)] + [",".join([str(y), str(s), g] + ["1.5"] * 4997) for y, s, g in zip(LABEL, SCORES, GROUPS)]
    out = fc.read_table("\n".join(rows).encode())
    assert out.shape == (N, 5000)
    guess = fc.guess_mapping(out)
    assert (guess.mapping.label, guess.mapping.scores, guess.mapping.protected) == ("label", ("score",), ("race",))


# Parquet column types -------------------------------------------------------------------------------

def parquet(**columns) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.table({"label": pa.array(LABEL), **columns}), buffer)
    return buffer.getvalue()


def test_parquet_decimal_columns_are_read_as_numbers():
    import pyarrow as pa

    data = parquet(score=pa.array([decimal.Decimal(str(s)) for s in SCORES], pa.decimal128(4, 2)))
    out = fc.read_table(data)
    assert out["score"].dtype == np.float64 and out["score"].tolist() == SCORES
    assert out.attrs["notes"] == [fio.DECIMAL_TYPE_NOTE.format(columns="'score'")]
    assert fc.guess_mapping(out).mapping.scores == ("score",)


def test_parquet_datetime_and_categorical_columns():
    import pyarrow as pa

    days = pd.date_range("2024-01-01", periods=3).repeat(N // 3)
    data = parquet(score=pa.array(SCORES), day=pa.array(days),
                   race=pa.array(pd.Categorical(GROUPS)), outcome=pa.array(pd.Categorical(np.where(LABEL, "yes", "no"))))
    out = fc.read_table(data)
    assert isinstance(out["race"].dtype, pd.CategoricalDtype) and out["day"].dtype.kind == "M"
    # a categorical label and attribute, and a datetime attribute (one subgroup per timestamp)
    scored = fc.ScoredData.from_frame(out, fc.ColumnMapping(label="outcome", positive_label="yes", scores=("score",),
                                                             protected=("race", "day"), intersect=False))
    assert scored.subgroups.names == ["race=A", "race=B", "race=C"] + [
        f"day=2024-01-0{d}T00:00:00.000000" for d in (1, 2, 3)]
    assert int(scored.y_true.sum()) == N // 2


# Mapping: labels, scores and attributes ---------------------------------------------------------------

def scored(frame: pd.DataFrame, **mapping) -> fc.ScoredData:
    options = {"label": "label", "positive_label": 1, "scores": ("score",), "protected": ("race",)} | mapping
    return fc.ScoredData.from_frame(frame, fc.ColumnMapping(**options))


def refused(frame: pd.DataFrame, **mapping) -> str:
    with pytest.raises(ValueError) as info:
        scored(frame, **mapping)
    return str(info.value)


def test_label_with_one_class_or_a_single_row():
    assert refused(PLAIN.assign(label=1)) == LABEL_TOO_FEW.format(col="label", n=1, values="1")
    assert refused(PLAIN.iloc[:1]) == LABEL_TOO_FEW.format(col="label", n=1, values="0")


def test_label_with_three_classes_or_mixed_spellings():
    three = PLAIN.assign(label=[i % 3 for i in range(N)])
    assert refused(three) == LABEL_VALUES.format(col="label", n=3, values="0, 1, 2")
    assert scored(three, all_classes=True).class_labels == ("0", "1", "2")
    spelled = PLAIN.assign(label=["yes", "Yes", "YES", "no"] * (N // 4))
    assert refused(spelled, positive_label="yes") == LABEL_VALUES.format(
        col="label", n=4, values="'yes', 'Yes', 'YES', 'no'")


def test_missing_labels_and_scores_are_excluded_and_counted():
    frame = PLAIN.astype({"label": "float64"})
    frame.loc[:4, "label"] = np.nan
    frame.loc[10:12, "score"] = np.nan
    frame.loc[20, "score"], frame.loc[21, "score"] = np.inf, -np.inf
    data = scored(frame)
    assert data.n_rows == N - 10
    assert dict(data.exclusions.values.tolist()) == {"missing label": 5, "missing or infinite score in 'score'": 5}


def test_nullable_float_and_string_columns():
    frame = PLAIN.astype({"score": "Float64", "race": "string"})
    frame.loc[0, "score"], frame.loc[1, "race"] = pd.NA, pd.NA
    data = scored(frame)
    assert data.n_rows == N - 1 and "(missing)" in data.subgroups.names


@pytest.mark.parametrize("values", [["0.5"] * N, ["73 %"] * N], ids=["text", "percent"])
def test_scores_as_text_are_refused(values):
    assert refused(PLAIN.assign(score=pd.Series(values, dtype="str"))) == SCORE_TYPE.format(col="score", dtype="str")


def test_constant_scores_give_half_auc_everywhere():
    table = fc.bias_auc_table(PLAIN["label"], np.full(N, 0.3), PLAIN["race"])
    assert table[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy().tolist() == [[0.5] * 3] * 3


def test_scores_above_1e307():
    huge = np.array(SCORES) * 1.7e308
    table = fc.bias_auc_table(PLAIN["label"], huge, PLAIN["race"])
    pd.testing.assert_frame_equal(table, fc.bias_auc_table(PLAIN["label"], np.array(SCORES), PLAIN["race"]))
    threshold = fc.default_threshold(huge)
    assert np.isfinite(threshold) and huge.min() < threshold < huge.max()
    counts = fc.threshold_counts(PLAIN["label"], huge, PLAIN["race"]).at(threshold)
    assert counts.table()["size"].sum() == N


def test_scores_outside_the_unit_interval_on_calibration():
    with pytest.raises(ValueError, match=re.escape("[0, 1]")) as info:
        fc.expected_calibration_error(PLAIN["label"], np.array(SCORES) * 10)
    assert "the values range from 0.5 to 9.5" in str(info.value)


def test_an_id_as_attribute():
    ids = pd.DataFrame({"label": np.arange(100_000) % 2, "score": np.linspace(0, 1, 100_000),
                        "race": [f"u{i}" for i in range(100_000)]})
    assert refused(ids) == TOO_MANY_MESSAGE.format(n=100_000, max=200)
    numeric = scored(ids.assign(race=np.arange(100_000)))   # a numeric ID: four quantile bins
    assert len(numeric.subgroups.names) == 4 and numeric.subgroups.sizes.tolist() == [25_000] * 4


def test_float_and_all_missing_attributes():
    floats = scored(PLAIN.assign(race=np.linspace(0, 1, N)))
    assert len(floats.subgroups.names) == 4 and floats.subgroups.sizes.sum() == N
    missing = scored(PLAIN.assign(race=[None] * N))
    assert missing.subgroups.names == [fc.MISSING]


def test_subgroups_without_positives_or_negatives_are_undefined_not_errors():
    frame = PLAIN.assign(label=[1 if g == "A" else 0 if g == "B" else y for g, y in zip(GROUPS, LABEL)])
    table = fc.bias_auc_table(frame["label"], frame["score"], frame["race"]).set_index("subgroup")
    assert np.isnan(table.loc["A", "subgroup_auc"]) and np.isnan(table.loc["B", "subgroup_auc"])
    assert table.loc["A", "note"].startswith("subgroup AUC undefined: no negative examples")
    assert table.loc["B", "note"].startswith("subgroup AUC undefined: no positive examples")
    rates = fc.group_rates(frame["label"], (frame["score"] >= 0.5).astype(int), frame["race"]).set_index("subgroup")
    assert np.isnan(rates.loc["A", "false_positive_rate"]) and np.isnan(rates.loc["B", "true_positive_rate"])


def test_a_zero_row_slice_gives_nan_with_a_warning():
    # The documented behaviour of subset_score (scikit-lego): an empty slice is NaN and says so; the app refuses
    # it with fairness_dashboard.data.analysis.EMPTY_SLICE_MESSAGE (tests/app/test_bad_input_catalogue_app.py).
    mask = fc.Slice((fc.Condition("race", values=("A",)), fc.Condition("label", values=("2",)))).mask(PLAIN)
    assert not mask.any()
    with pytest.warns(RuntimeWarning, match="the slice has no rows, so the metric is NaN"):
        value = fc.subset_score(fc.rate_disparity, mask, PLAIN["label"], PLAIN["label"], PLAIN["race"],
                                metric="statistical_parity")
    assert np.isnan(value)


# Configurations: one declared schema with a bound on every field that sizes a computation ------

CONFIG = fc.ReviewConfig(mapping=fc.ColumnMapping(label="y", positive_label=1, scores=("s",),
                                                  protected=("g",))).to_dict()


def with_option(**options) -> dict:
    return CONFIG | {"options": CONFIG["options"] | options}


BAD_CONFIGS = [
    (with_option(cal_n_bins=10 ** 7), "options.cal_n_bins: 10000000 is greater than the maximum of 50"),
    (with_option(cal_n_bins=20_000), "options.cal_n_bins: 20000 is greater than the maximum of 50"),
    (with_option(n_boot=1e9), "options.n_boot: 1000000000.0 is greater than the maximum of 10000"),
    (with_option(cal_min_per_group=-1), "options.cal_min_per_group: -1 is less than the minimum of 1"),
    (with_option(auc_p=float("nan")), "options.auc_p: nan is not a finite number"),
    (with_option(auc_weight=5), "options.auc_weight: 5 is greater than the maximum of 1"),
    (with_option(rate_distance="bogus"), "options.rate_distance: 'bogus' is not one of ['diff', 'ratio']"),
    (with_option(rate_max_difference=-1), "options.rate_max_difference: -1 is less than the minimum of 0"),
    (with_option(consistency_neighbors=10 ** 6), "options.consistency_neighbors: 1000000 is greater than the maximum"),
    (CONFIG | {"options": 5}, "options: 5 is not of type 'object'"),
    (CONFIG | {"options": ["ci"]}, "options: ['ci'] is not of type 'object'"),
    (CONFIG | {"mapping": CONFIG["mapping"] | {"label": {"x": 1}}}, "mapping.label: {'x': 1} is not of type 'string'"),
    (CONFIG | {"mapping": CONFIG["mapping"] | {"scores": [["score"]]}}, "mapping.scores.0: ['score'] is not of type"),
    (CONFIG | {"mapping": CONFIG["mapping"] | {"n_bins": 10 ** 6}}, "mapping.n_bins: 1000000 is greater than"),
    (CONFIG | {"thresholds": [1, 2]}, "thresholds: [1, 2] is not of type 'object'"),
    (CONFIG | {"thresholds": {"s": float("inf")}}, "thresholds.s: inf is not a finite number"),
    (CONFIG | {"thresholds": {"s": float("nan")}}, "thresholds.s: nan is not a finite number"),
    (CONFIG | {"slice": {"a": 1}}, "slice: {'a': 1} is not of type 'array'"),
    (CONFIG | {"slice": [{"column": "age", "low": "ten", "high": 5}]}, "slice.0.low: 'ten' is not valid"),
    (CONFIG | {"view": [1]}, "view: [1] is not of type 'object'"),
]


@pytest.mark.parametrize("data, message", BAD_CONFIGS, ids=[m.split(":")[0] + str(i) for i, (_, m) in
                                                            enumerate(BAD_CONFIGS)])
def test_a_configuration_outside_its_schema_is_refused_naming_the_field(data, message):
    with pytest.raises(ValueError, match="The review configuration is not valid: ") as raised:
        fc.ReviewConfig.from_dict(data)
    assert message in str(raised.value)


def test_a_configuration_built_in_python_is_checked_against_the_same_bounds():
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("s",))
    with pytest.raises(ValueError, match="options.cal_n_bins: 10000000 is greater than the maximum of 50"):
        fc.ReviewConfig(mapping=mapping, cal_n_bins=10 ** 7)
    with pytest.raises(ValueError, match="options.n_boot: 5 is less than the minimum of 100"):
        fc.ReviewConfig(mapping=mapping, n_boot=5)
    assert fc.ReviewConfig.from_dict(with_option(cal_n_bins=50.0, n_boot=2000.0)).cal_n_bins == 50  # whole floats


def test_deeply_nested_json_is_refused_with_a_message():
    with pytest.raises(ValueError, match="nested too deeply"):
        fc.ReviewConfig.from_json("[" * 100_000 + "]" * 100_000)


def json_values():
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers(-10 ** 12, 10 ** 12) | st.floats() | st.text(max_size=8)
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(max_size=8), inner, max_size=4), max_leaves=20)


def configuration_like():
    """Configurations with fields replaced by any JSON value, and any JSON value itself."""
    from hypothesis import strategies as st

    keys = list(CONFIG) + [f"options.{k}" for k in CONFIG["options"]] + [f"mapping.{k}" for k in CONFIG["mapping"]]

    def replaced(changes):
        data = {k: (dict(v) if isinstance(v, dict) else v) for k, v in CONFIG.items()}
        for key, value in changes.items():
            part, _, name = key.partition(".")
            if name and isinstance(data.get(part), dict):
                data[part][name] = value
            else:
                data[part] = value
        return data

    return json_values() | st.dictionaries(st.sampled_from(keys), json_values(), min_size=1, max_size=3).map(replaced)


def test_any_json_configuration_restores_or_is_refused_with_a_message():
    from hypothesis import given, settings

    @settings(max_examples=examples(400), deadline=None)
    @given(configuration_like())
    def check(data):
        try:
            config = fc.ReviewConfig.from_dict(data)
        except ValueError as exc:
            assert str(exc).startswith("The review configuration is not valid: ")
            return
        assert fc.ReviewConfig.from_json(config.to_json()) == config   # what restores, round-trips

    check()


# Hostile-input check (M3, M6, M8, L1, L6 and the older items): each at its root ---------------------------------

LONG_FIRST_ROW = b"y,p\n1,0.2,a\n0,0.7,b\n1,0.9,c\n"   # every data row one field longer than the header
STALL = b"a,b\n" + b',"' * 32768 + b"\n"                  # 64 KB: once 38 s in pandas' implicit index


def long_rows_message(name: str, fields: int, columns: int) -> str:
    return fio.LONG_ROWS_MESSAGE.format(name=name, fields=fields, columns=columns)


def test_rows_longer_than_the_header_are_refused_not_shifted():
    # M6: pandas took the first field as the index, so 'y' held the scores, without a message.
    with pytest.raises(ValueError) as info:
        fc.read_table(LONG_FIRST_ROW, name="x.csv")
    assert str(info.value) == long_rows_message("x.csv", 3, 2)
    with pytest.raises(ValueError) as info:   # a trailing delimiter on the data rows only: the same shift
        fc.read_table(b"y,p\n1,0.2,\n0,0.7,\n", name="x.csv")
    assert str(info.value) == long_rows_message("x.csv", 3, 2)
    with pytest.raises(ValueError) as info:   # a later row: pandas' own message, as before
        fc.read_table(b"y,p\n1,0.2\n0,0.7,b\n", name="x.csv")
    assert str(info.value) == fio.UNREADABLE_MESSAGE.format(
        name="x.csv", kind="CSV", error="Error tokenizing data. C error: Expected 2 fields in line 3, saw 3")
    # the same under the app's cell limit (the bounded read)
    with pytest.raises(ValueError) as info:
        fc.read_table(b"y,p\n" + b"1,0.2,a\n" * 50, name="x.csv", max_cells=10)
    assert str(info.value) == long_rows_message("x.csv", 3, 2)
    # a first row with a field over csv.reader's 128 KiB limit: its fields counted by pandas' tokenizer instead
    text = "x" * 200_000
    with pytest.raises(ValueError) as info:
        fc.read_table(f"y,p\n{text},0.2,a\n".encode(), name="x.csv")
    assert str(info.value) == long_rows_message("x.csv", 3, 2)
    assert fc.read_table(f"y,p\n{text},0.2\n".encode())["y"].tolist() == [text]
    # a header and rows that both end in a delimiter have as many fields: read, the blank column named by position
    out = fc.read_table(b"y,p,\n1,0.2,\n0,0.7,\n")
    assert list(out.columns) == ["y", "p", "Unnamed: 2"] and out["p"].tolist() == [0.2, 0.7]


def test_sixty_four_kilobytes_of_quoted_commas_are_refused_at_once():
    # M6: the 16,385 fields of this one row became a MultiIndex of 16,383 levels, built in quadratic time.
    with pytest.raises(ValueError) as info:
        fc.read_table(STALL, name="x.csv")
    assert str(info.value) == long_rows_message("x.csv", 16_385, 2)
    with pytest.raises(ValueError) as info:   # as a later row: pandas' tokenizer refuses it in one pass
        fc.read_table(b"a,b\n1,2\n" + STALL[4:], name="x.csv")
    assert str(info.value) == fio.UNREADABLE_MESSAGE.format(
        name="x.csv", kind="CSV", error="Error tokenizing data. C error: Expected 2 fields in line 3, saw 16385")


def test_a_blank_first_line_is_skipped_as_pandas_skips_it():
    # L1: b" \r;" raised KeyError(' '): the header was taken from the blank line, pyarrow named a column ' ' and
    # pandas' check of its types had no such column. Blank lines are skipped before the header, as pandas does.
    with pytest.raises(ValueError) as info:
        fc.read_table(b" \r;", name="x.csv")
    assert str(info.value) == fio.UNREADABLE_MESSAGE.format(name="x.csv", kind="CSV",
                                                            error="No columns to parse from file")
    out = fc.read_table(b"  \r\n" + table_text().encode())   # pyarrow's reading (a column ' ') is not kept
    pd.testing.assert_frame_equal(out, PLAIN)
    semicolons = fc.read_table(b" \t \n" + table_text(";").encode())   # and the delimiter is still found
    pd.testing.assert_frame_equal(semicolons, PLAIN)


def hostile_review(tmp_path) -> fc.Review:
    """A review whose file, column and subgroup names hold commas before formula characters (M3)."""
    # N4: and semicolons or tabs before them, for the readers that split there (most continental European locales)
    frame = pd.DataFrame({"y": [0, 1] * 40, "s,=2+2": np.tile([0.2, 0.8, 0.4, 0.6], 20),
                          "g,@x;=3": ["a,=1+1", "b,-cmd", '"c,+1"', "=d", "e;=1+1", "f\t@SUM(1)", 'g;=HYPERLINK("x")',
                                      "h\n=1"] * 10})
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("s,=2+2",), protected=("g,@x;=3",), min_size=5)
    return fc.build_review(frame, fc.ReviewConfig(mapping=mapping, ci=None), source={"name": "x,=1+1;@2.csv"})


def formula_cells(text: str) -> list[str]:
    """The cells of CSV `text`, as Python's csv module reads them with a comma, a semicolon or a tab as the separator,
    that a spreadsheet would run (not numbers)."""
    import csv

    bad = []
    rows = [row for separator in (",", ";", "\t")   # as readers split in other locales too (N4)
            for row in csv.reader(io.StringIO(text, newline=""), delimiter=separator)]
    for row in rows:
        for cell in row:
            if cell.startswith(("=", "+", "-", "@", "\t", "\r")):
                try:
                    float(cell)
                except ValueError:
                    bad.append(cell)
    return bad


def test_no_cell_of_an_exported_csv_starts_a_formula_context_lines_included(tmp_path):
    # M3: the '# key: "value"' lines were split at a comma in a name, so 'x,=1+1.csv' gave the cell '=1+1'.
    review = hostile_review(tmp_path)
    texts = {key: fc.table_to_csv(table, {"table": key} | review.context()) for key, table in review.tables().items()}
    assert len(texts) > 10
    for key, text in texts.items():
        assert formula_cells(text) == [], key
        head = [line for line in text.splitlines() if line.startswith("#")]
        assert head[1].startswith('# source: {"name": "x\\u002c=1+1\\u003b@2.csv", ')   # JSON: reads back as the name
        assert json.loads(head[1].split(": ", 1)[1])["name"] == "x,=1+1;@2.csv"
    table = pd.read_csv(io.StringIO(texts["s,=2+2.rates"]), comment="#")   # the table itself reads back
    assert set(table["subgroup"]) == {"a,=1+1", "b,-cmd", '"c,+1"', "'=d", "e;=1+1", "f\t@SUM(1)",
                                      'g;=HYPERLINK("x")', "h\n=1"}
    # any key and value: commas in strings escaped, keys other than plain words as JSON
    text = fc.table_to_csv(pd.DataFrame({"v": [1]}), {"a,=b": ["p", "-q", "r,@x"], "k\nx": "v\r,\t=1", "n": [1, -2]})
    assert formula_cells(text) == []
    assert text.splitlines()[:3] == ['# "a\\u002c=b": ["p", "-q", "r\\u002c@x"]', '# "k\\nx": "v\\r\\u002c\\t=1"',
                                     "# n: [1, -2]"]
    text = fc.table_to_csv(pd.DataFrame({"v": ["x;=1", "y\t@2"]}), {"a;=b": "c;-d"})
    assert formula_cells(text) == [] and text.splitlines()[0] == '# "a\\u003b=b": "c\\u003b-d"'


def test_exact_auc_levels_are_bounded_by_default(tmp_path):
    # M8: 10^7 distinct scores took 7.5 GB; scored_counts now refuses more than 2,000,000 unless told otherwise.
    from fairness_core.engines import scored_counts
    from fairness_core.engines._scored_counts import TOO_MANY_LEVELS

    path = many_levels(tmp_path)
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("p",), protected=("g",))
    with pytest.raises(ValueError) as info:
        scored_counts(str(path), mapping, auc_bins="exact")
    assert str(info.value) == TOO_MANY_LEVELS.format(col="p", n=2_000_001, max=2_000_000)


def many_levels(folder: Path) -> Path:
    """A Parquet file of 2,000,001 rows, each with its own score (one more than exact levels may hold)."""
    n = 2_000_001
    path = folder / "levels.parquet"
    pd.DataFrame({"y": (np.arange(n) % 2).astype(np.int8), "p": np.arange(n) / n,
                  "g": np.where(np.arange(n) % 3 == 0, "a", "b")}).to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("values", [[0.3, 0.7], [0, 1]], ids=["0.3/0.7", "0/1"])
@pytest.mark.parametrize("name", ["score", "prob", "proba", "probability", "pred_proba", "p_model"])
def test_a_two_valued_column_named_as_a_score_is_guessed_a_score(name, values):
    # L6: a two-valued numeric 'score' was guessed the predicted label (and then refused: its values are not the
    # label's). A 0/1 'score' alone stays a predicted label: Aequitas' layout (test_mapping_guess.py, adult).
    frame = PLAIN.drop(columns="score").assign(**{name: values * (N // 2)})
    guess = fc.guess_mapping(frame)
    if name == "score" and values == [0, 1]:
        assert (guess.mapping.scores, guess.mapping.predicted_label) == ((), "score")
        return
    assert (guess.mapping.label, guess.mapping.scores, guess.mapping.predicted_label) == ("label", (name,), None)
    assert guess.missing == ()
    assert fc.ScoredData.from_frame(frame, guess.mapping).n_rows == N   # the guess validates


def test_correlation_of_perfectly_correlated_huge_or_tiny_values_is_minus_one():
    # correlation_score is -|r|: perfectly correlated inputs give r = 1, so -1 (the worst score), at any scale;
    # x * 1e200 overflowed in the products and gave NaN.
    x = np.arange(10.0)
    for scale in (1e200, 1e-300, 1.0):
        assert fc.correlation_score(x * scale, x * scale) == -1.0
        result = fc.correlation_score(x * scale, -x * scale, ci=0.95)
        assert (result.value, result.r) == (-1.0, -1.0)
    assert fc.correlation_score(np.array([1e308, -1e308, 5e307]), np.array([1.0, 0.0, 0.7])) == pytest.approx(
        -abs(np.corrcoef([1.0, -1.0, 0.5], [1.0, 0.0, 0.7])[0, 1]), abs=1e-12)


@pytest.mark.parametrize("threshold", [float("nan"), float("inf"), None, "0.5", True])
def test_an_indicator_threshold_that_is_not_a_finite_number_is_refused(threshold):
    # Subgroups.from_indicators(threshold=nan) made every subgroup empty without a word.
    frame = pd.DataFrame({"gay": [0.0, 0.4, 0.6, 1.0]})
    with pytest.raises(ValueError) as info:
        fc.Subgroups.from_indicators(frame, ["gay"], threshold=threshold)
    assert str(info.value) == ("The 'threshold' parameter of Subgroups.from_indicators must be numeric and finite. "
                               f"Got {threshold!r} instead.")
    assert fc.Subgroups.from_indicators(frame, ["gay"], threshold=0.5, min_size=1).sizes.tolist() == [2]


def test_complex_scores_are_refused_not_cut_to_their_real_part():
    from fairness_core._counts.scored_data import SCORE_COMPLEX

    frame = PLAIN.assign(score=np.array(SCORES) + 1j)
    assert refused(frame) == SCORE_COMPLEX.format(col="score", dtype="complex128")
    config = fc.ReviewConfig(mapping=fc.ColumnMapping(label="label", positive_label=1, scores=("score",),
                                                      protected=("race",)))
    with pytest.raises(ValueError, match=re.escape(SCORE_COMPLEX.format(col="score", dtype="complex128"))):
        fc.build_review(frame, config)
    assert fc.guess_mapping(frame).mapping.scores == ()   # never proposed as a score
    with pytest.raises(ValueError, match="must be numeric and finite. Got dtype complex128"):   # the metric checks
        fc.bias_auc_table(PLAIN["label"], frame["score"].to_numpy(), PLAIN["race"])
