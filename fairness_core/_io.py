"""Reading scored data: CSV (delimiter and encoding detected) and Parquet, into a DataFrame."""

from __future__ import annotations

import contextlib
import csv
import io
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

PARQUET_MAGIC = b"PAR1"
DELIMITERS = ",;\t|"
SNIFF_BYTES = 64 * 1024


def read_table(source: Union[str, os.PathLike, bytes, BinaryIO], *, name: str | None = None) -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame.

    Parquet is recognised by its magic bytes. For CSV the encoding is UTF-8 (with or without a
    byte-order mark), else the one ``charset_normalizer`` detects (Windows-1252 when it is among
    the most plausible); the delimiter is one of
    ``, ; TAB |``, chosen by ``csv.Sniffer`` on the first 64 KiB. Values are parsed by pandas'
    usual type inference; nothing is coerced afterwards.

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
        If the file is empty, has no data rows, or cannot be parsed. The message says what was
        wrong and what to do. A repeated column name is made unique by pandas (``x``, ``x.1``) and
        reported in ``frame.attrs["notes"]``.
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
    if not data.strip():
        raise ValueError(EMPTY_MESSAGE.format(name=name))
    if data[:4] == PARQUET_MAGIC:
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # pyarrow raises several exception types for corrupt files
            raise ValueError(UNREADABLE_MESSAGE.format(name=name, kind="Parquet", error=exc)) from exc
    else:
        frame = _read_csv(data, name)
    if len(frame) == 0:
        raise ValueError(NO_ROWS_MESSAGE.format(name=name))
    return frame


def _read_csv(data: bytes, name: str) -> pd.DataFrame:
    encoding = _encoding(data, name)
    sample = data[:SNIFF_BYTES].decode(encoding, errors="ignore")
    try:
        sep = csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter
    except csv.Error:
        sep = ","
    try:
        frame = pd.read_csv(io.BytesIO(data), sep=sep, encoding=encoding, low_memory=False)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(UNREADABLE_MESSAGE.format(name=name, kind="CSV", error=str(exc).strip())) from exc
    # pandas renames a repeated name (x, x.1); say so, since the file's header did not.
    header = next(csv.reader(io.StringIO(sample), delimiter=sep), [])
    if len(header) == frame.shape[1]:
        renamed = [f"{old!r} -> {new!r}" for old, new in zip(header, map(str, frame.columns)) if old != new]
        if renamed and len(set(header)) < len(header):
            frame.attrs["notes"] = [DUPLICATE_NOTE.format(columns=", ".join(renamed))]
    return frame


def _encoding(data: bytes, name: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    with contextlib.suppress(UnicodeDecodeError):
        data.decode("utf-8")
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
