"""The column profile of the loaded table and the first guess of its mapping: per column its type and distinct
values, what a slice on it can keep, which columns are numeric features, the label's values and the likely
positive one; memoized per dataset token."""

from __future__ import annotations

import pandas as pd

import fairness_core as fc

from . import analysis
from .memo import memo

MAX_SLICE_VALUES = 50  # a non-numeric column with more distinct values is not offered for slicing
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
    """Per column: dtype, whether numeric, and the number of distinct non-missing values (of their text
    when some are unhashable, such as lists or dicts)."""

    def n_unique(values: pd.Series) -> int:
        try:
            return int(values.nunique(dropna=True))
        except TypeError:
            return int(values.dropna().map(str).nunique())

    numeric = [pd.api.types.is_numeric_dtype(_frame[c]) and not pd.api.types.is_bool_dtype(_frame[c])
               for c in _frame.columns]
    return pd.DataFrame({
        "column": [str(c) for c in _frame.columns],
        "dtype": [str(t) for t in _frame.dtypes],
        "numeric": numeric,
        "n_unique": [n_unique(_frame[c]) for c in _frame.columns],
        "n_missing": [int(v) for v in _frame.isna().sum()],
    })


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
    roles = {mapping.label, *mapping.scores, mapping.predicted_label, *mapping.protected, *mapping.indicators}
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


def guess_mapping(frame: pd.DataFrame, profile: pd.DataFrame | None = None) -> fc.ColumnMapping:
    """A first column mapping for an uploaded file, for the user to check and adjust
    (``fairness_core.guess_mapping``: every score column, predicted label and protected attribute)."""
    guess = fc.guess_mapping(frame)
    if guess.mapping is None:
        return fc.ColumnMapping(label=str(frame.columns[0]) if frame.shape[1] else "", positive_label=None)
    return guess.mapping
