"""Files read by DuckDB: exactly the files named (glob characters escaped), several combined into one relation with
each column's type over every file, and CSV columns of true/false words read as booleans."""

from __future__ import annotations

import glob as _glob
import os

from ._limits import CSV_TYPES
from ._sources import GLOB_CHARACTERS, NOT_LITERAL, _check_columns, _is_csv, _local, _source_files


def _duckdb_literal(con, path: str) -> str:
    """`path` as DuckDB reads that file alone: glob characters escaped as ``glob.escape`` escapes them (``[[]``,
    ``[*]``, ``[?]``: DuckDB's glob honours them, a backslash it does not), and the escaped pattern checked to match
    exactly that file (ValueError ``NOT_LITERAL`` otherwise)."""
    if not any(ch in path for ch in GLOB_CHARACTERS):
        return path   # DuckDB globs nothing in it
    escaped = _glob.escape(path)
    found = [row[0] for row in con.execute("SELECT file FROM glob(?)", [escaped]).fetchall()]
    if [_local(f) for f in found] != [path]:
        raise ValueError(NOT_LITERAL.format(engine="DuckDB", path=path,
                                            found=f"it matches {', '.join(map(repr, found)) or 'nothing'}"))
    return escaped


def _duckdb_files(con, source):
    """A DuckDB relation of exactly the files `source` names (:func:`_source_files`; a string globbed by DuckDB's
    ``glob``), several combined by column name (``union_by_name``: CSV columns in another order, Parquet types
    widened), once :func:`_check_columns` found the same columns in each. CSV columns of ``true``/``false`` words
    are booleans (:func:`_csv_booleans`), as the in-memory reader and polars read them."""
    files = _source_files(source, lambda p: sorted(row[0] for row in con.execute(
        "SELECT file FROM glob(?)", [os.path.expanduser(p)]).fetchall()), "duckdb")
    where = [_duckdb_literal(con, p) for p in files]

    def read(paths: list, types: list = CSV_TYPES):
        many = {"union_by_name": True} if len(paths) > 1 else {}
        target = paths if len(paths) > 1 else paths[0]
        if _is_csv(files[0]):
            # No BOOLEAN guess: DuckDB's sniffer reads yes/no as booleans, which would rename the label's values.
            return con.read_csv(target, auto_type_candidates=types, **many)
        return con.read_parquet(target, **many)

    if not (_is_csv(files[0]) and len(files) > 1):
        _check_columns(files, lambda i: read([where[i]]).columns)
        relation = read(where)
        return _csv_booleans(relation, read(where, CSV_TYPES + ["BOOLEAN"])) if _is_csv(files[0]) else relation
    # Several CSV files: each header read once by Python's csv module (a DuckDB read per file cost 10 times the CPU
    # over 300 small files), and files whose columns come in the same order read as one relation of the types
    # DuckDB's sniffer finds over every file, given to it explicitly, so that no query sniffs the files again
    # (union_by_name sniffs every file at each query; a sniff of the first file alone would cast a later file's
    # 0.5 to the integer 1). Files with their columns in other orders are combined by name.
    delimiter, quote, escape = con.execute("SELECT Delimiter, Quote, Escape FROM sniff_csv(?)",
                                           [files[0]]).fetchall()[0]
    headers = [_csv_header(p, delimiter) for p in files]
    _check_columns(files, lambda i: headers[i])
    if any(h != headers[0] for h in headers):
        return _csv_booleans(read(where), read(where, CSV_TYPES + ["BOOLEAN"]))
    sniffed = con.read_csv(where, auto_type_candidates=CSV_TYPES, files_to_sniff=-1)
    dialect = {k: v for k, v in (("quotechar", quote), ("escapechar", escape)) if len(v) == 1}
    relation = con.read_csv(where, columns=dict(zip(sniffed.columns, map(str, sniffed.types))), header=True,
                            delimiter=delimiter, auto_detect=False, **dialect)
    # Boolean candidates from the first file (a column of true/false words there), checked over every row.
    return _csv_booleans(relation, con.read_csv(where[0], auto_type_candidates=CSV_TYPES + ["BOOLEAN"]))


HEADER_BYTES = 1 << 20   # a CSV header is read from at most this many bytes of its file


def _csv_header(path: str, delimiter: str) -> list:
    """The column names of a CSV file (``.gz`` too): its first row, read by Python's csv module from at most
    ``HEADER_BYTES`` (ValueError if no row ends there)."""
    import csv
    import gzip
    import io

    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rb") as file:
        head = file.read(HEADER_BYTES)
    text = head.decode("utf-8-sig", errors="replace")
    if len(head) == HEADER_BYTES and "\n" not in text and "\r" not in text:
        raise ValueError(f"The first line of {path!r} is longer than {HEADER_BYTES // 2 ** 20} MB: it is no CSV "
                         "header. Tip: check the file.")
    try:
        return next(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter or ","), [])
    except csv.Error as exc:
        raise ValueError(f"The header of {path!r} cannot be read as CSV ({exc}). Tip: check the file.") from None


TRUE_FALSE = ("true", "True", "TRUE", "false", "False", "FALSE")   # the in-memory reader's boolean words


def _csv_booleans(relation, sniffed):
    """`relation` (a CSV read without BOOLEAN guesses) with its columns of ``true``/``false`` words cast to BOOLEAN.

    DuckDB's sniffer with BOOLEAN among its candidates (`sniffed`) names the columns that may be booleans,
    but also reads yes/no, t/f, y/n as booleans; one query over those columns keeps the ones whose every
    value (missing ones aside) is ``true``, ``True``, ``TRUE`` or ``false``, ``False``, ``FALSE``, the
    words the in-memory reader and polars read as booleans. Others stay text (a label ``yes``/``no``
    keeps its values)."""
    from . import _sql

    candidates = [c for c, plain, guess in zip(relation.columns, relation.types, sniffed.types)
                  if str(guess) == "BOOLEAN" and str(plain) == "VARCHAR"]
    if not candidates:
        return relation
    words = ", ".join(_sql.literal(w) for w in TRUE_FALSE)
    checks = relation.aggregate(", ".join(
        f"COALESCE(BOOL_AND({_sql.ident(c)} IN ({words})), FALSE) AS {_sql.ident('b' + str(i))}"
        for i, c in enumerate(candidates))).fetchall()[0]
    booleans = {c for c, ok in zip(candidates, checks) if ok}
    if not booleans:
        return relation
    return relation.project(", ".join(
        f"CAST({_sql.ident(c)} AS BOOLEAN) AS {_sql.ident(c)}" if c in booleans else _sql.ident(c)
        for c in relation.columns))
