"""Metric tables as files: CSV with its context in header lines, JSON with its context, safe in spreadsheets."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any, Mapping

import numpy as np
import pandas as pd

# A spreadsheet runs a cell that starts with one of these as a formula (OWASP, "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
CONTEXT_MESSAGE = "The context of an exported table must map text keys to JSON values; {problem}."


def neutralize_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of `frame` whose text cells and column names cannot run as spreadsheet formulas.

    A text cell (or column name) that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return gets a leading apostrophe (``'=HYPERLINK(...)``), which spreadsheets show as text; the
    apostrophe is the mitigation OWASP recommends. Numbers (including negative ones) are left as
    numbers; only text is changed.

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    DataFrame
        The same shape and dtypes (text columns stay text).

    References
    ----------
    OWASP, "CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection.

    Examples
    --------
    >>> neutralize_formulas(pd.DataFrame({"subgroup": ["=1+1", "a"], "value": [-0.5, 1.0]})).values.tolist()
    [["'=1+1", -0.5], ['a', 1.0]]
    """
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if values.dtype == object or pd.api.types.is_string_dtype(values):
            out[column] = values.map(_safe_cell)
    out.columns = [_safe_cell(c) for c in out.columns]
    return out


def table_to_csv(frame: pd.DataFrame, context: Mapping[str, Any]) -> str:
    """CSV text of a metric table with its context as ``# key: value`` header lines.

    The header says what the numbers are (dataset, model, threshold, options, software version,
    time), so the file stands on its own; ``pandas.read_csv(path, comment="#")`` reads the
    table back. Cells are made safe with :func:`neutralize_formulas`, and every text cell (and
    column name) is quoted, so a reader that splits at ``;`` or a tab instead of a comma never
    starts a cell inside a text; numbers are not quoted, floats written as their shortest exact
    form (they read back exactly); NaN is an empty quoted cell. Lines end in CR LF (RFC 4180).

    A header line is ``# key: value`` with the value as JSON on one line. A CSV reader splits
    that line at its commas (or semicolons) too, so neither may start a cell of data text: a comma
    or semicolon inside a JSON string is written as its escape ``\\u002c`` or ``\\u003b`` (JSON readers
    read it back; a tab is already escaped), the commas
    between JSON items are followed by a space, and a key other than plain words (letters,
    digits, ``_``, ``.``, ``-`` and single spaces) is written as a JSON string too. Every cell of
    a header line, as ``csv.reader`` splits it, then starts with ``#`` or a space, never with a
    character that a spreadsheet would run as a formula.

    Parameters
    ----------
    frame : DataFrame
    context : mapping of str to JSON values
        Written one key per line, values as JSON (text stays readable: no ASCII escaping).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If the context is not a mapping of text keys to JSON values (``CONTEXT_MESSAGE``).
    """
    lines = [_context_line(key, value) for key, value in _check_context(context).items()]
    body = io.StringIO()
    # RFC 4180 line ends: a cell holding a carriage return or a line feed is then quoted.
    # Every text cell quoted, numbers not: a reader that splits at ';' or a tab (as spreadsheets do in many locales)
    # never starts a cell inside a text, where "a;=1+1" would give the formula =1+1. Floats are written as Python's
    # shortest repr, which reads back exactly.
    neutralize_formulas(frame).to_csv(body, index=False, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\r\n")
    return "".join(line + "\r\n" for line in lines) + body.getvalue()


def table_to_json(frame: pd.DataFrame, context: Mapping[str, Any]) -> str:
    """JSON text of a metric table and its context: ``{"context": {...}, "columns": [...], "rows": [...]}``.

    Numbers are exact (JSON floats round-trip); NaN is ``null``; an infinite value (a ratio with
    a zero rate) is the string ``"inf"`` or ``"-inf"``; text cells are made safe with
    :func:`neutralize_formulas`, since JSON is often opened in a spreadsheet too.

    Parameters
    ----------
    frame : DataFrame
    context : mapping of str to JSON values

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If the context is not a mapping of text keys to JSON values (``CONTEXT_MESSAGE``).
    """
    return json.dumps({"context": _check_context(context), **table_data(frame)}, ensure_ascii=False, allow_nan=False,
                      indent=1)


def table_data(frame: pd.DataFrame) -> dict:
    """``{"columns": [...], "rows": [[...], ...]}`` of `frame`, JSON-ready: cells as :func:`table_to_json` writes them."""
    safe = neutralize_formulas(frame.reset_index(drop=True))
    return {"columns": [str(c) for c in safe.columns],
            "rows": [[_json_cell(v) for v in row] for row in safe.itertuples(index=False, name=None)]}


def table_from_json(text: str) -> tuple[pd.DataFrame, dict]:
    """Read back a table that :func:`table_to_json` wrote.

    Parameters
    ----------
    text : str

    Returns
    -------
    table : DataFrame
        The columns and rows; ``null`` is NaN (None in a text column), and in a column of numbers
        the strings ``"inf"`` / ``"-inf"`` are infinite floats again.
    context : dict
    """
    data = json.loads(text)
    frame = pd.DataFrame(data["rows"], columns=data["columns"])
    for column in frame.columns:
        values = frame[column].tolist()
        if any(v in ("inf", "-inf") for v in values if isinstance(v, str)) and all(
                v is None or v in ("inf", "-inf") or (isinstance(v, (int, float)) and not isinstance(v, bool))
                for v in values):
            frame[column] = np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    return frame, data["context"]


def export_name(*parts: Any, suffix: str) -> str:
    """A safe file name for an export, made of what it holds.

    Each part is reduced to letters, digits, ``_``, ``-`` and ``.`` (other runs become ``-``; a
    data file's extension is dropped; at most 60 characters a part), and the parts are joined
    by ``_``.

    Parameters
    ----------
    *parts : objects shown as text
        E.g. the page, the data file's name, the model, the threshold.
    suffix : str
        The extension, without the dot.

    Returns
    -------
    str

    Examples
    --------
    >>> export_name("Rate disparities", "compas.csv", "decile_score", suffix="csv")
    'Rate-disparities_compas_decile_score.csv'
    """
    words = []
    for part in parts:
        text = re.sub(r"\.(csv|parquet|tsv|txt)$", "", str(part), flags=re.I)
        text = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-._")
        if text:
            words.append(text[:60])
    return "_".join(words or ["table"]) + "." + suffix


def _safe_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


# A JSON string token (as json.dumps writes it: escapes are a backslash and one character, or \uXXXX).
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.-]+(?: [A-Za-z0-9_.-]+)*")


def _context_line(key: str, value) -> str:
    """``# key: value`` with no comma that could start a CSV cell of data text (see :func:`table_to_csv`)."""
    name = key if _PLAIN_KEY.fullmatch(key) else _json(key)
    # json.dumps writes every comma outside a string as ", " and escapes line breaks inside one.
    return f"# {_comma_free(name)}: {_comma_free(_json(value))}"


def _comma_free(text: str) -> str:
    """JSON `text` with each comma and semicolon inside a string written as its escape (``\\u002c``, ``\\u003b``):
    no cell of a reader that splits at either starts inside a string (json.dumps already escapes tabs)."""
    return _JSON_STRING.sub(lambda found: found.group().replace(",", "\\u002c").replace(";", "\\u003b"), text)


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _json_cell(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return None
        return float(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    return str(value)


def _check_context(context) -> dict:
    if not isinstance(context, Mapping):
        raise ValueError(CONTEXT_MESSAGE.format(problem=f"got {type(context).__name__}"))
    out = {}
    for key, value in context.items():
        if not isinstance(key, str):
            raise ValueError(CONTEXT_MESSAGE.format(problem=f"the key {key!r} is not text"))
        try:
            _json(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(CONTEXT_MESSAGE.format(problem=f"the value of {key!r} is not JSON ({exc})")) from None
        out[key] = value
    return out
