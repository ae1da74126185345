"""Reading scored data: CSV (delimiter and encoding detected) and Parquet, into a DataFrame."""

from __future__ import annotations

import codecs
import collections
import csv
import io
import itertools
import json
import os
from typing import BinaryIO, Union

import pandas as pd

EMPTY_MESSAGE = "The file {name!r} is empty. Tip: upload a CSV or Parquet file with a header row and data rows."
NO_ROWS_MESSAGE = "The file {name!r} has a header but no data rows."
UNREADABLE_MESSAGE = (
    "The file {name!r} could not be read as {kind}: {error}. Tip: save it as a comma-separated "
    "CSV (UTF-8) with one header row, or as Parquet."
)
ENCODING_MESSAGE = (
    "The file {name!r} is not text in a known encoding. Tip: save it as CSV with UTF-8 encoding, "
    "or as Parquet."
)
DUPLICATE_NOTE = "Duplicate column names were made unique by pandas: {columns}."
REPEATED_NAMES_MESSAGE = (
    "The file {name!r} repeats column names {count:,} times in its first row (for example {example!r}), "
    "so that row is probably not a header. Tip: save it as CSV with one header row that names each "
    "column once."
)
NESTED_NOTE = (
    "Nested values (lists, structs or maps) were read as text, one JSON value per row, in: {columns}. "
    "Tip: to use one as a label, score or attribute, flatten it into plain columns."
)

PARQUET_MAGIC = b"PAR1"
DELIMITERS = ",;\t|"
SNIFF_BYTES = 64 * 1024  # the delimiter guess decodes at most this many bytes...
SNIFF_LINES = 50  # ...and looks at no more than this many non-blank records of them
# pandas makes repeated names unique in time quadratic in their number (about 2.5 s for 16,000);
# a header repeating names more often than this is refused before pandas sees it.
MAX_REPEATED_NAMES = 1000
DECODE_CHUNK = 1 << 20  # the UTF-8 check decodes this many bytes at a time, never the whole file at once
# pandas' default missing-value markers (read_csv's na_values), given to pyarrow so both read the same.
NA_VALUES = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
             "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")


def read_table(source: Union[str, os.PathLike, bytes, BinaryIO], *, name: str | None = None) -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame.

    Parquet is recognised by its magic bytes (``PAR1`` at both ends, or at the start of binary data).
    For CSV the
    encoding is UTF-8 (with or without a byte-order mark), else the one ``charset_normalizer``
    detects (Windows-1252 when it is among the most plausible). The delimiter is one of ``, ; TAB
    |``: the one that splits the first 50 records of the first 64 KiB most consistently into as many
    fields as the header (more than one), comma when none does; the guess takes time linear in that
    bounded sample (no ``csv.Sniffer``, whose regular expressions can backtrack for minutes on
    crafted input). LF, CRLF and CR-only line endings are all accepted. UTF-8 files are parsed by
    pyarrow's multi-threaded CSV reader when its result is the one pandas' own parser gives (plain
    integer, float, boolean and text columns, distinct non-blank names, the same column types as
    pandas finds in the first rows); otherwise, and for other encodings, by pandas' parser. Either
    way values get pandas' usual type inference and missing-value markers; nothing is coerced
    afterwards, except that Parquet columns of nested Arrow types (list, struct, map, union) become
    text: one JSON value per row (a map as a list of ``[key, value]`` pairs), missing values staying
    missing.

    Parameters
    ----------
    source : path, bytes or binary file object
    name : str, optional
        The file name shown in error messages (defaults to the path, or "upload").

    Returns
    -------
    DataFrame of shape (n_rows, n_columns)

    Raises
    ------
    ValueError
        If the file is empty, has no data rows, repeats column names more than
        ``MAX_REPEATED_NAMES`` (1,000) times in its header, or cannot be parsed. The message says
        what was wrong and what to do.

    Notes
    -----
    ``frame.attrs["notes"]``, when present, lists corrections made while reading, as sentences:
    a repeated CSV column name made unique by pandas (``x``, ``x.1``), and nested Parquet columns
    read as text. Attributes stored in a Parquet file's own metadata are not kept.
    """
    if isinstance(source, (str, os.PathLike)):
        name = name or os.fspath(source)
        with open(source, "rb") as fh:
            data = fh.read()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        data = source.read()
    name = name or "upload"
    if not data or data.isspace():  # (no stripped copy of the whole file)
        raise ValueError(EMPTY_MESSAGE.format(name=name))
    # A Parquet file starts and ends with its magic bytes (a cut one still holds binary NUL bytes);
    # a CSV whose header merely starts with "PAR1" is a CSV.
    if data[:4] == PARQUET_MAGIC and (data[-4:] == PARQUET_MAGIC or b"\x00" in data[:SNIFF_BYTES]):
        try:
            frame = _read_parquet(data)
        except Exception as exc:  # pyarrow raises several exception types for corrupt files
            raise ValueError(UNREADABLE_MESSAGE.format(name=name, kind="Parquet", error=exc)) from exc
    else:
        frame = _read_csv(data, name)
    if len(frame) == 0:
        raise ValueError(NO_ROWS_MESSAGE.format(name=name))
    return frame


def _read_parquet(data: bytes) -> pd.DataFrame:
    """Parquet bytes as a DataFrame; nested columns as JSON text (see :func:`read_table`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(io.BytesIO(data))
    index_columns = {c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)}
    fields = [f for f in schema if f.name not in index_columns]
    nested = [f.name for f in fields if pa.types.is_nested(f.type)]
    if not nested:
        frame = pd.read_parquet(io.BytesIO(data))
    else:
        plain = [f.name for f in fields if f.name not in nested]
        frame = pd.read_parquet(io.BytesIO(data), columns=plain)
        table = pq.read_table(io.BytesIO(data), columns=nested, use_pandas_metadata=False)
        for position, field in enumerate(fields):
            if field.name in nested:
                texts = [None if value is None else _json_text(value)
                         for value in table.column(field.name).to_pylist()]
                frame.insert(position, field.name, pd.Series(texts, index=frame.index, dtype="str"))
    # pandas restores DataFrame.attrs from the file's metadata: file content, not our notes.
    frame.attrs = {}
    if nested:
        frame.attrs["notes"] = [NESTED_NOTE.format(columns=", ".join(map(repr, nested)))]
    return frame


def _json_text(value: object) -> str:
    """A nested Arrow value (as ``to_pylist`` gives it) as stable JSON text."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _read_csv(data: bytes, name: str) -> pd.DataFrame:
    encoding = _encoding(data, name)
    sep = _guess_delimiter(data, encoding)
    try:
        header = _raw_header(data, encoding, sep)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(UNREADABLE_MESSAGE.format(name=name, kind="CSV", error=str(exc).strip())) from exc
    names = collections.Counter(h for h in header if h != "")  # pandas names blank cells "Unnamed: i"
    repeated = names.total() - len(names)
    if repeated > MAX_REPEATED_NAMES:
        raise ValueError(REPEATED_NAMES_MESSAGE.format(name=name, count=repeated, example=names.most_common(1)[0][0]))
    frame = None
    if encoding.startswith("utf-8") and "" not in header and len(set(header)) == len(header):
        frame = _read_csv_arrow(data, sep, encoding, header)
    if frame is None:
        try:
            frame = pd.read_csv(io.BytesIO(data), sep=sep, encoding=encoding, low_memory=False)
        except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
            raise ValueError(UNREADABLE_MESSAGE.format(name=name, kind="CSV", error=str(exc).strip())) from exc
    # pandas renames a repeated name (x, x.1); say so, since the file's header did not.
    if len(header) == frame.shape[1]:
        renamed = [f"{old!r} -> {new!r}" for old, new in zip(header, map(str, frame.columns)) if old != new]
        if renamed and len(set(header)) < len(header):
            frame.attrs["notes"] = [DUPLICATE_NOTE.format(columns=", ".join(renamed))]
    return frame


def _read_csv_arrow(data: bytes, sep: str, encoding: str, header: list[str]) -> pd.DataFrame | None:
    """UTF-8 CSV `data` parsed by pyarrow, or None where pandas' parser must decide.

    pyarrow is given pandas' missing-value markers and boolean words, and accepts quoted line
    breaks. Its result is kept only when it is pandas' result: the names are the header as
    written, every column is int64, float64, text, boolean without missing values or entirely
    missing (which pandas reads as float64), and pandas' parser finds compatible types in the
    first ``SNIFF_LINES`` rows (an integer column there may hold floats or missing values
    further on; a column entirely missing there may hold anything). Anything else (dates,
    undecodable bytes, ragged rows, numbers pyarrow reads as text) returns None.
    """
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    try:
        table = pa_csv.read_csv(
            pa.py_buffer(data),
            parse_options=pa_csv.ParseOptions(delimiter=sep, newlines_in_values=True),
            convert_options=pa_csv.ConvertOptions(null_values=list(NA_VALUES), strings_can_be_null=True,
                                                  true_values=["True", "TRUE", "true"],
                                                  false_values=["False", "FALSE", "false"]))
    except (pa.ArrowException, ValueError):
        return None
    if table.column_names != header:
        return None
    for i, (field, column) in enumerate(zip(table.schema, table.columns)):
        kind = field.type
        if pa.types.is_null(kind):
            table = table.set_column(i, field.name, pa.nulls(table.num_rows, pa.float64()))
        elif not (pa.types.is_int64(kind) or pa.types.is_float64(kind) or pa.types.is_string(kind)
                  or pa.types.is_large_string(kind) or (pa.types.is_boolean(kind) and column.null_count == 0)):
            return None
    frame = table.to_pandas(split_blocks=True, self_destruct=True)
    del table
    head = pd.read_csv(io.BytesIO(data), sep=sep, encoding=encoding, nrows=SNIFF_LINES)
    for name in header:
        ours, theirs = frame[name].dtype, head[name].dtype
        if not (ours == theirs or head[name].isna().all()
                or (ours.kind == "f" and theirs.kind == "i")):
            return None
    return frame


def _raw_header(data: bytes, encoding: str, sep: str) -> list[str]:
    """The first non-blank record of the CSV, as written (before pandas makes its names unique).

    Read lazily, as pandas does: LF, CRLF and CR end a record, quoted fields may span lines.
    """
    text = io.TextIOWrapper(io.BytesIO(data), encoding=encoding, newline="")
    return next(filter(None, csv.reader(text, delimiter=sep)), [])


def _guess_delimiter(data: bytes, encoding: str) -> str:
    """The delimiter among ``DELIMITERS`` that best fits a bounded sample of `data`, else a comma.

    Only the first ``SNIFF_BYTES`` bytes are decoded and only their first ``SNIFF_LINES``
    non-blank records are parsed, once per candidate, by ``csv.reader`` (a linear state machine;
    quotes are honoured and LF, CRLF and CR all end a record). A candidate fits when it splits the
    header into more than one field; the best splits the most records into as many fields as the
    header (then: more fields; then: earlier in ``DELIMITERS``).
    """
    truncated = len(data) > SNIFF_BYTES
    sample = data[:SNIFF_BYTES].decode(encoding, errors="ignore")
    best, best_key = ",", None
    for sep in DELIMITERS:
        reader = csv.reader(io.StringIO(sample, newline=""), delimiter=sep)
        try:
            counts = [len(row) for row in itertools.islice(filter(None, reader), SNIFF_LINES + 1)]
        except csv.Error:
            continue
        if truncated and len(counts) > 1 and len(counts) <= SNIFF_LINES:
            counts.pop()  # the last record was cut by the byte limit
        counts = counts[:SNIFF_LINES]
        if not counts or counts[0] < 2:
            continue
        key = (sum(c == counts[0] for c in counts) / len(counts), counts[0])
        if best_key is None or key > best_key:
            best, best_key = sep, key
    return best


def _is_utf8(data: bytes) -> bool:
    """Whether `data` is valid UTF-8, decoded ``DECODE_CHUNK`` bytes at a time (no decoded copy of it all)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(view), DECODE_CHUNK):
            decoder.decode(view[start:start + DECODE_CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _encoding(data: bytes, name: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if _is_utf8(data):
        return "utf-8"
    from charset_normalizer import from_bytes

    matches = from_bytes(data[: 4 * SNIFF_BYTES])
    best = matches.best()
    if best is None:
        raise ValueError(ENCODING_MESSAGE.format(name=name))
    # A short file often fits several single-byte code pages equally well (e.g. cp1250 and cp1257
    # for "São Paulo"); prefer Windows-1252, the usual encoding of Western spreadsheet exports.
    if any("cp1252" in m.could_be_from_charset and m.chaos <= best.chaos for m in matches):
        return "cp1252"
    return best.encoding
