"""The column profile of the loaded table and the first guess of its mapping: per column its type and distinct
values, what a slice on it can keep, which columns are numeric features, the label's values and the likely
positive one; memoized per dataset token."""

from __future__ import annotations

import pandas as pd

import fairness_core as fc

from ..session.memo import memo
from . import analysis

MAX_SLICE_VALUES = 50  # a non-numeric column with more distinct values is not offered for slicing
PROFILE_HEAD = 10_000  # column_profile counts the distinct values of a column's first rows before all of them
NOT_SCORES_MESSAGE = (
    "Not offered as score columns, because their numbers are written as text: {reasons}. Tip: write the numbers "
    "with a decimal point and without % signs or thousands separators (a semicolon-separated file may use decimal "
    "commas: they are read as numbers), then upload the file again."
)


@memo(analysis.SMALL)
def slice_values(token: str, column: str, _frame: pd.DataFrame):
    """What a slice condition on `column` can keep: a (min, max) range for a numeric column with
    many values, else the list of its values as display text (missing last)."""
    values = _frame[column]
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    if numeric and values.nunique() > 10:
        return float(values.min()), float(values.max())
    return fc.Condition.value_labels(values)


@memo(analysis.SMALL)
def column_profile(token: str, _frame: pd.DataFrame) -> pd.DataFrame:
    """Per column: dtype, whether numeric, the number of distinct non-missing values (``n_unique``: of their text
    when some are unhashable, such as lists or dicts; see :func:`n_unique` for when it is a lower bound) and of
    missing values."""
    numeric = [pd.api.types.is_numeric_dtype(_frame[c]) and not pd.api.types.is_bool_dtype(_frame[c])
               for c in _frame.columns]
    return pd.DataFrame({
        "column": [str(c) for c in _frame.columns],
        "dtype": [str(t) for t in _frame.dtypes],
        "numeric": numeric,
        "n_unique": [n_unique(_frame[c]) for c in _frame.columns],
        "n_missing": [int(v) for v in _frame.isna().sum()],
    })


def n_unique(values: pd.Series) -> int:
    """The number of distinct non-missing values of a column, as far as the app compares it.

    Counting the distinct values of a column with many (a score, an amount) hashes every row, a tenth of a
    second or more per million. So when the first ``PROFILE_HEAD`` rows already hold more than
    ``MAX_SLICE_VALUES`` distinct values (and, in an integer column, a repeated or missing one, so that it is no
    row identifier), their count is returned: a lower bound, which every comparison the app makes (at most
    ``MAX_SLICE_VALUES``, more than 2, all distinct in an integer column) reads as it would read the exact count.

    Parameters
    ----------
    values : Series
        The column; unhashable values (lists, dicts) are counted by their text.

    Returns
    -------
    int
        The exact count up to ``MAX_SLICE_VALUES`` and for an integer column of distinct values, else at least
        ``MAX_SLICE_VALUES + 1``.
    """
    if len(values) > PROFILE_HEAD:
        head = values.iloc[:PROFILE_HEAD]
        found = _distinct_count(head)
        repeats = found < len(head)   # a value repeated, or missing
        if found > MAX_SLICE_VALUES and (repeats or not pd.api.types.is_integer_dtype(values.dtype)):
            return found
    return _distinct_count(values)


def _distinct_count(values: pd.Series) -> int:
    try:
        return int(values.nunique(dropna=True))
    except TypeError:   # unhashable values (lists, dicts): counted by their text
        return int(values.dropna().map(str).nunique())


@memo(analysis.SMALL)
def numbers_as_text(token: str, _frame: pd.DataFrame) -> dict:
    """Text columns holding numbers in a form read as text (decimal comma, %, thousands separators), with
    the reason (``fc.numbers_as_text``)."""
    return fc.numbers_as_text(_frame)


def numeric_columns(token: str, frame: pd.DataFrame) -> list:
    """Names of the numeric (non-boolean) columns of the dataset."""
    profile = column_profile(token, frame)
    return profile.loc[profile["numeric"], "column"].tolist()


def feature_columns(token: str, frame: pd.DataFrame, mapping: fc.ColumnMapping) -> list:
    """Numeric columns in no role of `mapping` that are neither binary nor row identifiers.

    A row identifier is an integer column whose values are all distinct; these make poor default
    features for consistency or the correlation score.
    """
    info = column_profile(token, frame).set_index("column")
    roles = {mapping.label, *mapping.scores, mapping.predicted_label, *mapping.protected, *mapping.indicators,
             mapping.weight}
    identifier = info["dtype"].str.startswith("int") & (info["n_unique"] == len(frame))
    return [c for c in info.index[info["numeric"]] if c not in roles and info.loc[c, "n_unique"] > 2
            and not identifier[c]]


def label_values(frame: pd.DataFrame, column: str, limit: int = 50) -> list:
    """Distinct non-missing values of a label column, sorted, at most `limit`."""
    values = pd.unique(frame[column].dropna())[: limit]
    try:
        return sorted(values.tolist())
    except TypeError:
        return sorted(values.tolist(), key=str)


def guess_positive(values: list):
    """The value most likely meaning 'positive' among a label's values (fairness_core's guess)."""
    return fc.guess_positive(values)


@memo(analysis.SMALL)
def first_guess(token: str, _frame: pd.DataFrame) -> fc.MappingGuess:
    """fairness_core's first mapping guess for the dataset `token`, with the roles it could not fill."""
    return fc.guess_mapping(_frame)


def guess_mapping(frame: pd.DataFrame, profile: pd.DataFrame | None = None, token: str | None = None
                  ) -> fc.ColumnMapping:
    """A first column mapping for an uploaded file, for the user to check and adjust
    (``fairness_core.guess_mapping``: every score column, predicted label and protected attribute); with the
    dataset's `token`, the memoized :func:`first_guess`, so that a dataset is guessed once."""
    guess = fc.guess_mapping(frame) if token is None else first_guess(token, frame)
    if guess.mapping is None:
        return fc.ColumnMapping(label=str(frame.columns[0]) if frame.shape[1] else "", positive_label=None)
    return guess.mapping
