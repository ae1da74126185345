# More than 500 lines: one concept (read_table's formats and limits); tests patch its module-level limits and readers.
"""Reading scored data: CSV (delimiter and encoding detected) and Parquet, into a DataFrame."""

from __future__ import annotations

import codecs
import collections
import csv
import io
import itertools
import json
import os
import re
import threading
import zipfile
import zlib
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
WORKBOOK_MESSAGE = (
    "The file {name!r} is a spreadsheet workbook (Excel), not a CSV or Parquet file. Tip: in the "
    "spreadsheet program, save the sheet as 'CSV UTF-8 (comma delimited)' and upload that file."
)
ZIP_MESSAGE = (
    "The file {name!r} is a ZIP archive, not a CSV or Parquet file. Tip: extract the CSV or Parquet "
    "file from it and upload that file."
)
GZIP_NOTE = "The file {name!r} was gzip-compressed; it was decompressed before reading."
GZIP_MESSAGE = (
    "The file {name!r} is gzip-compressed but could not be decompressed: {error}. Tip: decompress it "
    "yourself and upload the CSV or Parquet file."
)
GZIP_TOO_LARGE_MESSAGE = (
    "The file {name!r} is gzip-compressed and decompresses to more than {limit:,} bytes. Tip: upload "
    "it as Parquet, keep only the columns the analysis needs, or upload a sample of the rows."
)
GZIP_NO_ROWS_MESSAGE = (
    "The file {name!r} is gzip-compressed, and once decompressed it runs for more than {limit:,} bytes without a "
    "line of data (a CSV file ends each row with a line break), so it is not a table that can be read; it was not "
    "decompressed further. Tip: check that it is the file you meant to upload; decompress it yourself and upload "
    "the CSV file (one row per line) or a Parquet file."
)
MIXED_ENCODING_NOTE = (
    "The file {name!r} is UTF-8 except for {count} (the first on line {line:,}), which were "
    "read as Windows-1252 (cp1252), so that a value such as 'é' is one value whichever way it was "
    "written. Tip: save the file as UTF-8."
)
DECIMAL_COMMA_NOTE = (
    "Numbers written with a decimal comma (0,73) were read as numbers (0.73) in: {columns} "
    "(a semicolon-separated file)."
)
DECIMAL_TYPE_NOTE = "Parquet decimal columns were read as floating-point numbers (float64): {columns}."
BLANK_NAMES_NOTE = "Blank column names were named by their position: {columns}."
TOO_MANY_CELLS_MESSAGE = (
    "The file {name!r} is too large to analyse here: it has {rows} rows of {columns:,} columns, over the "
    "limit of {limit:,} cells (rows x columns). Tip: keep only the columns the analysis needs (label, "
    "scores, predicted label, protected attributes), or upload a sample of at most {max_rows:,} rows."
)
LONG_ROWS_MESSAGE = (
    "The file {name!r} has more fields in its first data row ({fields:,}) than names in its header row "
    "({columns:,}), so its values cannot be matched to their columns. Tip: name every column in the header "
    "row, or remove the extra delimiters at the ends of the data rows."
)
NO_HEADER_NOTE = (
    "The first row of {name!r} holds numbers where the data does ({example}), so the file probably "
    "has no header row: that row was read as the column names. Tip: add a header row naming each column."
)

PARQUET_MAGIC = b"PAR1"
GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"  # also .xlsx and .ods workbooks
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy .xls workbooks
MAX_GUNZIPPED = 1 << 30  # a gzip file is decompressed to at most 1 GiB (the app's upload limit)
# ...and a CSV in it may run this far without a line of data (a line that is not blank): no table row is that long,
# and a "bomb" of one value or of blank lines is refused here, after this much work, whatever its decompressed size.
MAX_GUNZIPPED_LINE = 16 << 20
GUNZIP_INPUT = 64 << 10  # gzip data is decompressed this many compressed bytes at a time...
GUNZIP_CHUNK = 1 << 20  # ...into at most this many bytes at a time
MIXED = "utf-8+cp1252"  # _encoding's answer for UTF-8 with some Windows-1252 bytes
DECIMAL_COMMA = r"\s*[+-]?\d+(?:,\d+)?\s*"
NUMBER = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")
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


def read_table(source: Union[str, os.PathLike, bytes, BinaryIO], *, name: str | None = None,
               max_cells: int | None = None) -> pd.DataFrame:
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
    missing, and that in a semicolon-separated CSV a text column whose every value is a number
    written with a decimal comma (``0,73``, ``-1``) becomes float64.

    Also accepted, each with a note: gzip-compressed data (whatever the file name; see below), and a
    CSV that is UTF-8 but for some bytes, which are then read as Windows-1252 (so ``é`` is one value
    whichever way it was written).
    Excel workbooks and ZIP archives are refused with what to do, and so is a CSV whose first data
    row has more fields than its header (``LONG_ROWS_MESSAGE``; pandas would otherwise take the
    extra fields as the row labels and shift every value to the wrong column) or whose later rows
    do (pandas' own "Expected n fields" message). Lines of blank space are skipped, as pandas skips
    them, before the header is found.

    Gzip data is decompressed 1 MiB at a time, twice: first only to check it, keeping none of it,
    then into memory once it has passed. Refused on the way, having held a few MiB whatever it
    decompresses to: more than ``MAX_GUNZIPPED`` bytes (1 GiB, the app's upload limit), and text
    that runs for more than ``MAX_GUNZIPPED_LINE`` bytes (16 MiB) without a line of data (a line
    that is not blank), so that a "gzip bomb" of one value, of NUL bytes or of blank lines is
    refused after 16 MiB of decompression. With `max_cells`, a CSV whose lines of data outnumber
    the rows a table of `max_cells` cells can have (by the width of its header) is refused as a
    plain one is, with only its first lines up to that count (and the rest of their 1 MiB)
    decompressed into memory and parsed. So a gzip file takes the memory of its decompressed
    content (at most 1 GiB) when it is read, and at most what parsing `max_cells` cells takes
    when it is refused.

    Parameters
    ----------
    source : path, bytes or binary file object
    name : str, optional
        The file name shown in error messages (defaults to the path, or "upload").
    max_cells : int, optional
        Refuse a table of more than this many cells (rows x columns), before it is read in full
        where possible: a Parquet file from its metadata; a CSV whose line breaks allow more rows
        than that is parsed only up to one row beyond the limit (a gzip-compressed one is also
        decompressed into memory only that far). None (the default): no limit.

    Returns
    -------
    DataFrame of shape (n_rows, n_columns)

    Raises
    ------
    ValueError
        If the file is empty, has no data rows, repeats column names more than
        ``MAX_REPEATED_NAMES`` (1,000) times in its header, has a row with more fields than its
        header (``LONG_ROWS_MESSAGE`` for the first data row), is an Excel workbook or a ZIP archive,
        is gzip data that is corrupt (``GZIP_MESSAGE``), decompresses to more than ``MAX_GUNZIPPED``
        bytes (``GZIP_TOO_LARGE_MESSAGE``) or to text running more than ``MAX_GUNZIPPED_LINE``
        bytes without a line of data (``GZIP_NO_ROWS_MESSAGE``), or cannot be parsed, or holds
        more than `max_cells` cells. The message says what was wrong and what to do.

    Notes
    -----
    ``frame.attrs["notes"]``, when present, lists corrections made while reading, as sentences:
    gzip data decompressed, bytes read as Windows-1252 in a UTF-8 file, a repeated CSV column
    name made unique by pandas (``x``, ``x.1``), blank names named by position (``Unnamed: 1``),
    decimal commas read as numbers, a first row of numbers read as the header (probably no
    header), nested Parquet columns read as text and Parquet decimal columns read as float64.
    Attributes stored in a Parquet file's own metadata are not kept.
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
    notes = []
    if data[:2] == GZIP_MAGIC:
        data = _gunzip(data, name, max_cells)
        notes.append(GZIP_NOTE.format(name=name))
    if not data or data.isspace():  # (no stripped copy of the whole file)
        raise ValueError(EMPTY_MESSAGE.format(name=name))
    if data[:4] == ZIP_MAGIC:
        raise ValueError((WORKBOOK_MESSAGE if _is_workbook(data) else ZIP_MESSAGE).format(name=name))
    if data[:8] == OLE_MAGIC:
        raise ValueError(WORKBOOK_MESSAGE.format(name=name))
    # A Parquet file starts and ends with its magic bytes (a cut one still holds binary NUL bytes);
    # a CSV whose header merely starts with "PAR1" is a CSV.
    if data[:4] == PARQUET_MAGIC and (data[-4:] == PARQUET_MAGIC or b"\x00" in data[:SNIFF_BYTES]):
        try:
            _check_parquet_cells(data, name, max_cells)
            frame = _read_parquet(data)
        except _TooManyCells:
            raise
        except Exception as exc:  # pyarrow raises several exception types for corrupt files
            raise ValueError(UNREADABLE_MESSAGE.format(name=name, kind="Parquet", error=exc)) from exc
    else:
        frame = _read_csv(data, name, max_cells)
    if len(frame) == 0:
        raise ValueError(NO_ROWS_MESSAGE.format(name=name))
    if max_cells is not None and frame.size > max_cells:  # (a CSV whose rows the line breaks undercounted)
        raise _too_many_cells(name, f"{len(frame):,}", frame.shape[1], max_cells)
    notes += frame.attrs.get("notes", [])
    if notes:
        frame.attrs["notes"] = notes
    return frame


def _gunzip(data: bytes, name: str, max_cells: int | None = None) -> bytes:
    """The decompressed content of gzip `data` (every member; NUL bytes after the last are padding).

    The content is checked as it streams, ``GUNZIP_CHUNK`` (1 MiB) at a time, before any of it is kept, so that
    refusing it costs a bounded amount of memory whatever it holds. Refused, with what to do: content of more than
    ``MAX_GUNZIPPED`` bytes (``GZIP_TOO_LARGE_MESSAGE``) and, unless it is binary (Parquet, ZIP, Excel), a CSV
    that runs for more than ``MAX_GUNZIPPED_LINE`` bytes without a line of data, one that is not blank
    (``GZIP_NO_ROWS_MESSAGE``: a bomb of one value or of blank lines is refused after 16 MiB of work). With
    `max_cells`, a CSV with more lines of data than a table of `max_cells` cells has rows (by the width of its
    header) is read only as far as the reader needs to refuse it (``TOO_MANY_CELLS_MESSAGE``, as for the whole
    file): those lines alone are kept. Only content that passed is decompressed again into one bytes object.
    """
    binary = None  # whether the content is Parquet, ZIP or Excel (known from its first chunk)
    head = b""  # its first SNIFF_BYTES, for the width of a CSV header
    total = since = rows = 0  # bytes; bytes since the last end of a line of data; lines of data
    open_row = False  # whether the last chunk ended inside a line of data
    max_rows, tried = None, False
    for chunk in _gunzip_chunks(data, name):
        start, total = total, total + len(chunk)
        if total > MAX_GUNZIPPED:
            raise ValueError(GZIP_TOO_LARGE_MESSAGE.format(name=name, limit=MAX_GUNZIPPED))
        if binary is None:
            binary = chunk.startswith((PARQUET_MAGIC, ZIP_MAGIC, OLE_MAGIC))
        if binary:
            continue
        if len(head) < SNIFF_BYTES:
            head += chunk[:SNIFF_BYTES - len(head)]
        # Lines of data end where a mark "x" (a byte that is not a space, tab or line break) meets a line break.
        marks = chunk.translate(_LINE_MARKS, b" \t")
        ends = marks.count(b"x\n") + (open_row and marks[:1] == b"\n")
        open_row = marks[-1:] == b"x" if marks else open_row
        since = len(chunk) - 1 - _last_row_end(chunk) if ends else since + len(chunk)
        if since > MAX_GUNZIPPED_LINE:
            raise ValueError(GZIP_NO_ROWS_MESSAGE.format(name=name, limit=MAX_GUNZIPPED_LINE))
        rows += ends
        if max_cells is None:
            continue
        if max_rows is None and len(head) >= SNIFF_BYTES:
            max_rows = max_cells // _header_width(head)
        if max_rows is not None and rows > max_rows + 1 and not tried:  # a header and max_rows + 1 rows (unquoted)
            tried = True
            cut = start + max(chunk.rfind(b"\n"), chunk.rfind(b"\r")) + 1
            _refuse_too_many_cells(_inflate(data, name, cut), name, max_cells)
    return _inflate(data, name, total)


_LINE_MARKS = bytes(ord("\n") if byte in b"\r\n" else ord("x") for byte in range(256))
_LAST_ROW_END = re.compile(rb"[\r\n][ \t]*[^ \t\r\n]")  # searched in a reversed chunk
_NOT_NUL = re.compile(rb"[^\x00]")


def _last_row_end(chunk: bytes) -> int:
    """The position of the last line break in `chunk` that ends a line of data (one not blank), the first line
    break when only the line the previous chunk left open ends in it."""
    found = _LAST_ROW_END.search(chunk[::-1])
    if found:
        return len(chunk) - 1 - found.start()
    return min(p for p in (chunk.find(b"\n"), chunk.find(b"\r")) if p >= 0)


def _header_width(head: bytes) -> int:
    """The number of fields in the header of a CSV that starts with `head`, as the reader finds them; 1 when `head`
    does not hold the whole header or cannot be read."""
    head = head[:max(head.rfind(b"\n"), head.rfind(b"\r")) + 1]
    if not head:
        return 1
    try:
        encoding = _encoding(head, "")
        encoding = "latin-1" if encoding == MIXED else encoding  # (the same fields: delimiters are ASCII)
        header, _ = _first_records(head, encoding, _guess_delimiter(head, encoding))
    except (ValueError, LookupError, csv.Error):  # (UnicodeDecodeError is a ValueError)
        return 1
    return max(len(header), 1)


def _refuse_too_many_cells(prefix: bytes, name: str, max_cells: int) -> None:
    """Raise _TooManyCells when `prefix`, the start of a CSV, already holds more than `max_cells` cells (then the
    whole file does); any other outcome leaves the decision to the reading of the whole file."""
    try:
        _read_csv(prefix, name, max_cells)
    except _TooManyCells:
        raise
    except ValueError:
        pass


def _inflate(data: bytes, name: str, size: int) -> bytes:
    """The first `size` decompressed bytes of gzip `data`, written into one buffer as they stream (no second copy)."""
    buffer = io.BytesIO()
    for chunk in _gunzip_chunks(data, name):
        buffer.write(chunk[:size - buffer.tell()])
        if buffer.tell() >= size:
            break
    return buffer.getvalue()


def _gunzip_chunks(data: bytes, name: str):
    """The decompressed content of gzip `data`, at most ``GUNZIP_CHUNK`` bytes at a time from ``GUNZIP_INPUT``
    compressed bytes at a time: every member, up to NUL bytes that end the data (padding). Raises ValueError
    (``GZIP_MESSAGE``) for corrupt or cut data."""
    view, start = memoryview(data), 0
    while start < len(view):
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        position = start
        try:
            while not decompressor.eof and position < len(view):
                chunk = decompressor.decompress(view[position:position + GUNZIP_INPUT], GUNZIP_CHUNK)
                position = min(position + GUNZIP_INPUT, len(view))
                while True:
                    if chunk:
                        yield chunk
                    if decompressor.eof or not decompressor.unconsumed_tail:  # (at its end, the tail is stale)
                        break
                    chunk = decompressor.decompress(decompressor.unconsumed_tail, GUNZIP_CHUNK)
        except zlib.error as exc:
            raise ValueError(GZIP_MESSAGE.format(name=name, error=exc)) from exc
        if not decompressor.eof:  # (output a chunk left pending comes before the member's last 8 bytes are read)
            raise ValueError(GZIP_MESSAGE.format(name=name, error="the compressed data ends early"))
        start = position - len(decompressor.unused_data)
        if not _NOT_NUL.search(data, start):  # trailing padding
            break


def _is_workbook(data: bytes) -> bool:
    """Whether ZIP `data` is a spreadsheet workbook (.xlsx: an ``xl/`` folder; .ods: its mimetype)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False
    return any(n.startswith("xl/") for n in names) or data[30:80].find(b"opendocument.spreadsheet") >= 0


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
    # Decimal columns arrive as Python Decimal objects, which no metric takes: make them numbers.
    decimal = [f.name for f in fields if pa.types.is_decimal(f.type)]
    for column in decimal:
        frame[column] = frame[column].astype("float64")
    # pandas restores DataFrame.attrs from the file's metadata: file content, not our notes.
    frame.attrs = {}
    notes = []
    if nested:
        notes.append(NESTED_NOTE.format(columns=", ".join(map(repr, nested))))
    if decimal:
        notes.append(DECIMAL_TYPE_NOTE.format(columns=", ".join(map(repr, decimal))))
    if notes:
        frame.attrs["notes"] = notes
    return frame


def _json_text(value: object) -> str:
    """A nested Arrow value (as ``to_pylist`` gives it) as stable JSON text."""
    return json.dumps(value, ensure_ascii=False, default=str)


class _TooManyCells(ValueError):
    """A table over the `max_cells` of :func:`read_table` (a ValueError with its message)."""


def _too_many_cells(name: str, rows: str, columns: int, max_cells: int) -> _TooManyCells:
    return _TooManyCells(TOO_MANY_CELLS_MESSAGE.format(name=name, rows=rows, columns=columns, limit=max_cells,
                                                      max_rows=max_cells // max(columns, 1)))


def _check_parquet_cells(data: bytes, name: str, max_cells: int | None) -> None:
    """Raise _TooManyCells when the Parquet file's metadata counts more than `max_cells` cells (its pandas
    index columns left out); a file whose metadata cannot be read is left to the reader's message."""
    if max_cells is None:
        return
    import pyarrow.parquet as pq

    schema = pq.read_schema(io.BytesIO(data))
    index_columns = {c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)}
    n_rows = pq.read_metadata(io.BytesIO(data)).num_rows
    n_columns = len([f for f in schema if f.name not in index_columns])
    if n_rows * n_columns > max_cells:
        raise _too_many_cells(name, f"{n_rows:,}", n_columns, max_cells)


def _read_csv(data: bytes, name: str, max_cells: int | None = None) -> pd.DataFrame:
    encoding = _encoding(data, name)
    notes = []
    if encoding == MIXED:
        data, count, line = _utf8_with_cp1252(data)
        encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
        notes.append(MIXED_ENCODING_NOTE.format(name=name, line=line,
                                                count=f"{count:,} byte" + ("s" if count > 1 else "")))
    sep = _guess_delimiter(data, encoding)
    try:
        header, first = _first_records(data, encoding, sep)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(UNREADABLE_MESSAGE.format(name=name, kind="CSV", error=str(exc).strip())) from exc
    fields = len(first) if first is not None else _longer_first_row(data, sep, encoding)
    if fields is not None and fields > len(header):
        # pandas would take the extra leading fields as the index (the values shifted one column), and with
        # thousands of them build a MultiIndex in quadratic time; refused before pandas parses the rows.
        raise ValueError(LONG_ROWS_MESSAGE.format(name=name, fields=fields, columns=len(header)))
    names = collections.Counter(h for h in header if h != "")  # pandas names blank cells "Unnamed: i"
    repeated = names.total() - len(names)
    if repeated > MAX_REPEATED_NAMES:
        raise ValueError(REPEATED_NAMES_MESSAGE.format(name=name, count=repeated, example=names.most_common(1)[0][0]))
    frame = None
    if max_cells is not None:
        frame = _read_csv_bounded(data, name, sep, encoding, len(header), max_cells)
    if frame is None and encoding.startswith("utf-8") and "" not in header and len(set(header)) == len(header):
        frame = _read_csv_arrow(data, sep, encoding, header)
    if frame is None:
        try:
            frame = _pandas_csv(data, sep=sep, encoding=encoding, low_memory=False)
        except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
            raise ValueError(UNREADABLE_MESSAGE.format(name=name, kind="CSV", error=str(exc).strip())) from exc
    # pandas renames a repeated name (x, x.1) and names a blank one by position; say so, since the
    # file's header did not.
    if len(header) == frame.shape[1]:
        pairs = list(zip(header, map(str, frame.columns)))
        renamed = [f"{old!r} -> {new!r}" for old, new in pairs if old != new and old != ""]
        if renamed and len(set(header)) < len(header):
            notes.append(DUPLICATE_NOTE.format(columns=", ".join(renamed)))
        blank = [repr(new) for old, new in pairs if old == ""]
        if blank:
            more = f" and {len(blank) - 10:,} more" if len(blank) > 10 else ""
            notes.append(BLANK_NAMES_NOTE.format(columns=", ".join(blank[:10]) + more))
    if sep == ";":
        converted = _decimal_commas(frame)
        if converted:
            notes.append(DECIMAL_COMMA_NOTE.format(columns=", ".join(map(repr, converted))))
    numeric = [str(c) for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c].dtype)
               and not pd.api.types.is_bool_dtype(frame[c].dtype)]
    if numeric and all(NUMBER.fullmatch(c) for c in numeric):
        notes.append(NO_HEADER_NOTE.format(name=name, example=", ".join(map(repr, numeric[:3]))))
    if notes:
        frame.attrs["notes"] = notes
    return frame


def _read_csv_bounded(data: bytes, name: str, sep: str, encoding: str, n_columns: int,
                      max_cells: int) -> pd.DataFrame | None:
    """Raise _TooManyCells when CSV `data` has more than `max_cells` cells, reading no more rows than the limit
    allows plus one; return the table when it had to be read to tell (None: its line breaks alone show that it
    fits, or that it does not hold a whole row under the limit).

    Every record but the header ends with a line break (LF, CRLF or CR), so the file has at most as
    many data rows as the larger of its LF and CR counts; quoted line breaks only make that an
    overestimate, which the bounded read corrects.
    """
    max_rows = max_cells // max(n_columns, 1)
    if len(data) <= max_rows or _line_breaks(data) <= max_rows:   # (no more line breaks than bytes)
        return None
    try:
        frame = _pandas_csv(data, sep=sep, encoding=encoding, low_memory=False, nrows=max_rows + 1)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(UNREADABLE_MESSAGE.format(name=name, kind="CSV", error=str(exc).strip())) from exc
    if len(frame) > max_rows:
        raise _too_many_cells(name, f"more than {max_rows:,}", n_columns, max_cells)
    return frame


def _line_breaks(data: bytes) -> int:
    """The larger of the LF and CR counts of `data` (an upper bound on its records); CRs are counted only when
    there is one (a search that stops at the first)."""
    return max(data.count(b"\n"), data.count(b"\r") if b"\r" in data else 0)


def _decimal_commas(frame: pd.DataFrame) -> list[str]:
    """Convert, in place, the text columns of `frame` whose every value is a number written with a decimal
    comma (at least one holding a comma) to float64; return their names."""
    converted = []
    for column in list(frame.columns):
        values = frame[column]
        if not (pd.api.types.is_string_dtype(values.dtype) or values.dtype == object):
            continue
        present = values.dropna()
        head = present.iloc[:SNIFF_LINES]
        if not len(head) or not all(isinstance(v, str) and re.fullmatch(DECIMAL_COMMA, v) for v in head):
            continue
        text = present.astype(str)
        if not (text.str.fullmatch(DECIMAL_COMMA).all() and text.str.contains(",", regex=False).any()):
            continue
        frame[column] = pd.to_numeric(values.astype(str).where(values.notna()).str.replace(",", ".", regex=False)
                                      ).astype("float64")
        converted.append(str(column))
    return converted


def _read_csv_arrow(data: bytes, sep: str, encoding: str, header: list[str]) -> pd.DataFrame | None:
    """UTF-8 CSV `data` parsed by pyarrow, or None where pandas' parser must decide.

    pyarrow is given pandas' missing-value markers and boolean words, and accepts quoted line
    breaks (looked for only when `data` holds a quote character: without one pyarrow parses its
    blocks in parallel). Its result is kept only when it is pandas' result: the names are the
    header as written, every column is int64, float64, text, boolean without missing values or entirely
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
            # Without a quote character no value can hold a line break: pyarrow then splits the file into
            # blocks at line breaks and parses them in parallel (about twice as fast).
            parse_options=pa_csv.ParseOptions(delimiter=sep, newlines_in_values=b'"' in data),
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
    try:
        head = _pandas_csv(data, sep=sep, encoding=encoding, nrows=SNIFF_LINES)
    except pd.errors.ParserError:   # pandas' own reading decides, and says what is wrong
        return None
    if [str(c) for c in head.columns] != header:   # pandas names the columns otherwise: its reading decides
        return None
    for name in header:
        ours, theirs = frame[name].dtype, head[name].dtype
        if not (ours == theirs or head[name].isna().all()
                or (ours.kind == "f" and theirs.kind == "i")):
            return None
    return frame


def _pandas_csv(data: bytes, **kwargs) -> pd.DataFrame:
    """``pandas.read_csv`` of `data` with no row labels taken from the data (``index_col=False``), where a row with
    more fields than the header is an error (pandas' ``ParserError``), not a warning and a row cut short."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            return pd.read_csv(io.BytesIO(data), index_col=False, **kwargs)
        except pd.errors.ParserWarning as exc:
            raise pd.errors.ParserError(f"a row has more fields than the header ({exc})") from None


def _first_records(data: bytes, encoding: str, sep: str) -> tuple[list[str], list[str] | None]:
    """The header (the first record that is not blank, as written: before pandas makes its names unique)
    and the first data record after it (None when there is none).

    Read lazily, as pandas does: LF, CRLF and CR end a record, quoted fields may span lines, and a
    record that is empty or only spaces and tabs is blank (pandas' ``skip_blank_lines``). Time is
    linear in the length of the two records. A data record that ``csv.reader`` cannot read (a field
    over its ``field_size_limit``, 128 KiB) is None (:func:`_longer_first_row` counts its fields).
    """
    text = io.TextIOWrapper(io.BytesIO(data), encoding=encoding, newline="")
    records = _filled(csv.reader(text, delimiter=sep), sep)
    header = next(records, [])
    try:
        return header, next(records, None)
    except csv.Error:
        return header, None


def _longer_first_row(data: bytes, sep: str, encoding: str) -> int | None:
    """The fields of the first data record as pandas' tokenizer counts them, when more than the header's (else
    None): for a record that ``csv.reader`` could not read. Only the header and that record are tokenized."""
    try:
        pd.read_csv(io.BytesIO(data), sep=sep, encoding=encoding, header=None, nrows=2, dtype=str, index_col=False)
    except pd.errors.ParserError as exc:
        found = re.search(r"Expected \d+ fields in line \d+, saw (\d+)", str(exc))
        return int(found.group(1)) if found else None
    except (UnicodeDecodeError, ValueError):
        return None
    return None


def _filled(records, sep: str):
    """The records that are not blank: neither empty nor a single field of spaces and tabs (other than `sep`)."""
    blank = " \t".replace(sep, "")
    return (r for r in records if r and not (len(r) == 1 and r[0] and not r[0].strip(blank)))


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
            counts = [len(row) for row in itertools.islice(_filled(reader, sep), SNIFF_LINES + 1)]
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


_fallback = threading.local()


def _cp1252_fallback(error: UnicodeDecodeError) -> tuple[str, int]:
    """Decode error handler: the bytes that are not UTF-8 as Windows-1252, counted in ``_fallback``."""
    chunk = error.object[error.start:error.end]
    _fallback.count += len(chunk)
    if _fallback.first is None:
        _fallback.first = error.start
    return chunk.decode("cp1252", errors="replace"), error.end


codecs.register_error("fairness_core.cp1252", _cp1252_fallback)


def _utf8_with_cp1252(data: bytes) -> tuple[bytes, int, int]:
    """(`data` as UTF-8 with its non-UTF-8 bytes read as Windows-1252, their count, the line of the first)."""
    _fallback.count, _fallback.first = 0, None
    text = data.decode("utf-8", errors="fairness_core.cp1252")
    first = _fallback.first or 0
    line = data.count(b"\n", 0, first) + 1 if b"\n" in data[:SNIFF_BYTES] else data.count(b"\r", 0, first) + 1
    return text.encode("utf-8"), _fallback.count, line


def _has_utf8_characters(data: bytes) -> bool:
    """Whether `data` holds a multi-byte UTF-8 character (which a single-byte encoding hardly ever produces),
    decoded ``DECODE_CHUNK`` bytes at a time by the C decoder, dropping bytes that are not UTF-8."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
    view = memoryview(data)
    return any(not decoder.decode(view[start:start + DECODE_CHUNK]).isascii()
               for start in range(0, len(view), DECODE_CHUNK))


def _encoding(data: bytes, name: str) -> str:
    """The encoding of CSV `data`: ``utf-8-sig``/``utf-8`` when valid UTF-8; ``MIXED`` when UTF-8
    characters appear beside bytes that are not UTF-8 (and no NUL byte: not UTF-16/32); else the
    one ``charset_normalizer`` finds."""
    if _is_utf8(data):
        return "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
    if b"\x00" not in data[:SNIFF_BYTES] and _has_utf8_characters(data):
        return MIXED
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
