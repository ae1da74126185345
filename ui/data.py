"""Cached loading and computation: st.cache_data wrappers around fairness_core calls.

Cached functions are keyed by small strings (the dataset token, the mapping's repr, options);
the large objects they work on are passed with a leading underscore, which Streamlit does not
hash. The token identifies the content (a sample id, or the SHA-256 of the uploaded bytes), so
equal keys always mean equal inputs. Entries are bounded and expire after an hour; nothing is
written to disk.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc

from . import state, text

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_data"
SAMPLES = {
    "credit": {
        "title": "Sample: credit decisions",
        "file": "credit_decisions.csv",
        "mapping": fc.ColumnMapping(label="repaid", positive_label=1,
                                    scores=("score_logistic", "score_boosting"), predicted_label="approved",
                                    protected=("ethnicity",)),
    },
    "moderation": {
        "title": "Sample: text moderation",
        "file": "text_moderation.csv",
        "mapping": fc.ColumnMapping(label="toxicity", positive_label="toxic",
                                    scores=("toxicity_score", "toxicity_score_v2"),
                                    indicators=("female", "male", "christian", "white", "muslim", "black",
                                                "gay", "transgender")),
    },
}
DEFAULT_SAMPLE = "credit"
MAX_SLICE_VALUES = 50  # a non-numeric column with more distinct values is not offered for slicing
CACHE = {"max_entries": 16, "ttl": 3600, "show_spinner": False}


@st.cache_data(**CACHE)
def read_sample(key: str) -> pd.DataFrame:
    """The bundled sample `key` as a DataFrame."""
    return fc.read_table(SAMPLE_DIR / SAMPLES[key]["file"])


@st.cache_data(**CACHE)
def read_upload(token: str, name: str, _data: bytes) -> pd.DataFrame:
    """An uploaded file, parsed once per content (token = SHA-256 of its bytes)."""
    return fc.read_table(_data, name=name)


def token_of(data: bytes) -> str:
    """Content token of uploaded bytes."""
    return "upload:" + hashlib.sha256(data).hexdigest()


@st.cache_data(**CACHE)
def slice_mask(token: str, slice_key: str, _frame: pd.DataFrame, _slice: fc.Slice):
    """Boolean mask of the rows of the dataset in the slice (slice_key = repr of the slice)."""
    return _slice.mask(_frame)


@st.cache_data(**CACHE)
def slice_values(token: str, column: str, _frame: pd.DataFrame):
    """What a slice condition on `column` can keep: a (min, max) range for a numeric column with
    many values, else the list of its values as display text (missing last)."""
    values = _frame[column]
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    if numeric and values.nunique() > 10:
        return float(values.min()), float(values.max())
    return fc.Condition.value_labels(values)


@st.cache_data(**CACHE)
def scored(token: str, mapping_key: str, _frame: pd.DataFrame, _mapping: fc.ColumnMapping,
           _slice: fc.Slice | None = None) -> fc.ScoredData:
    """Validated ScoredData of the rows in the slice (raises ValueError for a bad mapping or an empty slice).

    `mapping_key` must identify both the mapping and the slice (see :func:`analyse`).
    """
    if _slice is not None and _slice.conditions:
        mask = slice_mask(token, repr(_slice), _frame, _slice)
        if not mask.any():
            raise ValueError(f"The slice ({_slice.describe()}) has no rows. Widen it in the sidebar under Slice.")
        _frame = _frame.loc[mask].reset_index(drop=True)
    return fc.ScoredData.from_frame(_frame, _mapping)


def analyse(mapping: fc.ColumnMapping) -> tuple[str, fc.ScoredData]:
    """(cache key, ScoredData) of the current dataset under `mapping` and the sidebar's slice.

    Raises ValueError for a bad mapping or an empty slice.
    """
    current_slice = st.session_state.get(state.SLICE) or fc.Slice()
    key = f"{mapping!r}|{current_slice!r}"
    frame = st.session_state[state.FRAME]
    return key, scored(st.session_state[state.DATASET_TOKEN], key, frame, mapping, current_slice)


def sliced_frame() -> pd.DataFrame:
    """The rows of the current dataset in the sidebar's slice (positions match ScoredData.rows' input)."""
    frame = st.session_state[state.FRAME]
    current_slice = st.session_state.get(state.SLICE) or fc.Slice()
    if not current_slice.conditions:
        return frame
    mask = slice_mask(st.session_state[state.DATASET_TOKEN], repr(current_slice), frame, current_slice)
    return frame.loc[mask].reset_index(drop=True)


@st.cache_data(**CACHE)
def auc_table(token: str, mapping_key: str, score: str, _data: fc.ScoredData) -> pd.DataFrame:
    """Per-subgroup AUC table of one score column (one sort of that column)."""
    return fc.bias_auc_table(_data.y_true, _data.scores[score], _data.subgroups)


@st.cache_data(**CACHE)
def confusion(token: str, mapping_key: str, source: str, threshold: float | None,
              _data: fc.ScoredData) -> fc.ConfusionCounts:
    """Confusion counts at a threshold on `source` (a score column), or of the given predictions."""
    y_pred = _data.y_pred(source, threshold) if threshold is not None else _data.y_pred()
    return fc.confusion_counts(_data.y_true, y_pred, _data.subgroups)


# Interval-bearing results: small tables, several per page view (one per rate, rule and option set).
INTERVAL_CACHE = {**CACHE, "max_entries": 64}


@st.cache_data(**INTERVAL_CACHE)
def disparity(token: str, mapping_key: str, source: str, threshold: float | None, metric: str, distance: str,
              reduction: str, reference: str, include_small: bool, level: float | None, n_boot: int,
              adjust: str | None, _counts: fc.ConfusionCounts) -> fc.DisparityResult:
    """A reduced rate disparity (`metric` as named by rate_disparity) or, for ``metric="equalized_odds"``,
    equalized odds, of the cached confusion counts `_counts` (keyed by token, mapping_key, source and
    threshold, as :func:`confusion`). With `level`, bootstrap intervals with `n_boot` replicates and
    the fixed seed 0 (the same inputs always give the same intervals)."""
    kw = dict(distance_measure=distance, reduction=reduction, reference=reference, include_small=include_small,
              ci=level, n_boot=n_boot, random_state=0, adjust=adjust)
    if metric == "equalized_odds":
        return _counts.equalized_odds(**kw)
    return _counts.disparity(metric, **kw)


@st.cache_data(**INTERVAL_CACHE)
def ratio_scores(token: str, mapping_key: str, source: str, threshold: float | None, rate: str, include_small: bool,
                 level: float | None, n_boot: int, _counts: fc.ConfusionCounts):
    """Every subgroup's ratio score against the rest and the minimum (``rate="selection_rate"``: p% score,
    ``"true_positive_rate"``: equal opportunity score), with bootstrap intervals (seed 0) when `level` is set."""
    return _counts.ratio_scores(rate, include_small=include_small, ci=level, n_boot=n_boot, random_state=0)


@st.cache_data(**INTERVAL_CACHE)
def findings(token: str, mapping_key: str, source: str, threshold: float | None, metrics: tuple, reference: str,
             include_small: bool, level: float | None, n_boot: int, adjust: str | None,
             _counts: fc.ConfusionCounts) -> list:
    """The top rate findings (fairness_core's rate_findings, seed 0) for `metrics` (rate_disparity names)."""
    return fc.rate_findings(_counts, metrics, reference=reference, ci=level, n_boot=n_boot, random_state=0,
                         adjust=adjust, include_small=include_small, limit=3)


@st.cache_data(**INTERVAL_CACHE)
def theil(token: str, mapping_key: str, source: str, threshold: float | None, reference: str, reduction: str,
          include_small: bool, level: float | None, n_boot: int, adjust: str | None,
          _counts: fc.ConfusionCounts) -> fc.DisparityResult:
    """The reduced two-group Theil index of the cached confusion counts (keyed as :func:`disparity`), with
    bootstrap intervals (`n_boot` replicates, seed 0) when `level` is set."""
    return _counts.theil_index(reduction=reduction, reference=reference, include_small=include_small, ci=level,
                               n_boot=n_boot, random_state=0, adjust=adjust)


@st.cache_data(**INTERVAL_CACHE)
def theil_indices(token: str, mapping_key: str, source: str, threshold: float | None, level: float | None,
                  n_boot: int, _counts: fc.ConfusionCounts) -> tuple:
    """(individual, between-group) Theil indices of the cached confusion counts: floats, or with `level`
    ``fc.TheilResult`` objects (bootstrap, seed 0); the between-group one is None when the subgroups
    overlap or leave rows out (it needs disjoint subgroups)."""
    kw = dict(ci=level, n_boot=n_boot, random_state=0)
    individual = _counts.individual_theil_index(**kw)
    try:
        between = _counts.between_group_theil_index(**kw)
    except ValueError:
        between = None
    return individual, between


@st.cache_data(**CACHE)
def auc_intervals(token: str, mapping_key: str, score: str, level: float, n_boot: int,
                  _data: fc.ScoredData) -> pd.DataFrame:
    """Per-subgroup AUC table of one score column with DeLong intervals at `level`, and in its attrs the
    bootstrap replicates (`n_boot`, seed 0) behind the intervals of the power means and the bias AUC score."""
    return fc.bias_auc_table(_data.y_true, _data.scores[score], _data.subgroups, ci=level, n_boot=n_boot,
                             random_state=0)


@st.cache_data(**CACHE)
def calibration(token: str, mapping_key: str, score: str, n_bins: int, strategy: str,
                _data: fc.ScoredData) -> fc.CalibrationCounts:
    """Per-(subgroup, bin) calibration sums of one probability column (and the atoms its bootstrap resamples)."""
    return fc.calibration_counts(_data.y_true, _data.scores[score], _data.subgroups, n_bins=n_bins,
                                 strategy=strategy)


@st.cache_data(**INTERVAL_CACHE)
def calibration_disparity(token: str, mapping_key: str, score: str, n_bins: int, strategy: str,
                          threshold: float | None, min_per_group: int, distance: str, reduction: str, reference: str,
                          include_small: bool, level: float | None, n_boot: int, adjust: str | None,
                          _counts: fc.CalibrationCounts) -> fc.CalibrationDisparityResult:
    """The ECE disparity of the cached calibration counts `_counts` (keyed by token, mapping_key, score,
    n_bins and strategy, as :func:`calibration`), with its policy verdict (`threshold` in the units of
    `distance`; None: the default rule) and, with `level`, bootstrap intervals with `n_boot` replicates
    and the fixed seed 0."""
    return _counts.disparity(threshold=threshold, min_per_group=min_per_group, distance_measure=distance,
                             reduction=reduction, reference=reference, include_small=include_small, ci=level,
                             n_boot=n_boot, random_state=0, adjust=adjust)


def load_sample(key: str) -> None:
    """Make sample `key` the current dataset, with its documented mapping."""
    st.session_state[state.FRAME] = read_sample(key)
    st.session_state[state.DATASET_NAME] = SAMPLES[key]["title"]
    st.session_state[state.DATASET_TOKEN] = "sample:" + key
    st.session_state[state.MAPPING] = SAMPLES[key]["mapping"]


def current():
    """The current (token, cache key, ScoredData), or stop the page with a pointer to the Data page.

    The cache key identifies the mapping and the slice; every cached computation is keyed by it.
    """
    mapping = st.session_state.get(state.MAPPING)
    frame = st.session_state.get(state.FRAME)
    if frame is None or mapping is None:
        st.info("No data is mapped yet. Open the **Data** page to load a file and map its columns.")
        st.stop()
    try:
        key, data = analyse(mapping)
    except ValueError as exc:
        st.error(str(exc))
        st.stop()
    current_slice = st.session_state.get(state.SLICE)
    if current_slice is not None and current_slice.conditions:
        st.caption(f"Slice: {text.md(current_slice.describe())} — {data.n_input:,} of {len(frame):,} rows.")
    if len(data.subgroups.names) < 2:
        st.warning(f"Only one subgroup ({text.md(', '.join(data.subgroups.names))}) is in the analysed rows, so "
                   "there is nothing to compare it with. Choose other protected attributes on the Data page or "
                   "widen the slice in the sidebar.")
    return st.session_state[state.DATASET_TOKEN], key, data


LABEL_NAMES = ("label", "label_value", "target", "y", "y_true", "outcome", "class", "two_year_recid",
               "toxicity", "toxic", "income", "repaid", "default")
POSITIVE_VALUES = (1, True, "1", "yes", "Yes", "true", "True", "toxic", "positive", ">50K")
PROTECTED_NAMES = ("race", "ethnicity", "sex", "gender", "age_group", "age_cat")


@st.cache_data(**CACHE)
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
    """The value most likely meaning 'positive' among a label's values."""
    for candidate in POSITIVE_VALUES:
        for v in values:
            if type(v) is type(candidate) and v == candidate:
                return v
    return values[-1] if values else None


def guess_mapping(frame: pd.DataFrame, profile: pd.DataFrame) -> fc.ColumnMapping:
    """A first column mapping for an uploaded file, for the user to check and adjust."""
    binary = profile.loc[profile["n_unique"] == 2, "column"].tolist()
    lower = {c.lower(): c for c in binary}
    label = next((lower[n] for n in LABEL_NAMES if n in lower), binary[0] if binary else str(frame.columns[0]))
    numeric = profile.loc[profile["numeric"] & (profile["n_unique"] > 2), "column"].tolist()
    scores = [c for c in numeric if c != label and any(k in c.lower() for k in ("score", "prob", "pred", "risk", "toxicity"))][:1]
    names = {c.lower(): c for c in profile["column"]}
    protected = [names[n] for n in PROTECTED_NAMES if n in names and names[n] not in (label, *scores)][:1]
    return fc.ColumnMapping(label=label, positive_label=guess_positive(label_values(frame, label)),
                            scores=tuple(scores), protected=tuple(protected))


def current_score(purpose: str) -> str:
    """The score column chosen under Model, or stop the page saying it needs one for `purpose`."""
    score = st.session_state.get(state.MODEL)
    if score is None:
        st.info(f"This page needs a score column ({purpose}). Choose one under Score column on the Data page.")
        st.stop()
    return score


@st.cache_data(**CACHE)
def class_counts(token: str, mapping_key: str, source: str, threshold: float | None, _data: fc.ScoredData):
    """Per-subgroup confusion matrices of true against predicted classes (the Class-wise bias page).

    Predictions come from the given predicted label column (``source="given"``) or from score
    column `source` at `threshold`.
    """
    predicted = _data.class_predictions(None if source == "given" else source, threshold)
    return fc.class_counts(_data.classes, predicted, _data.subgroups)


@st.cache_data(**INTERVAL_CACHE)
def classwise(token: str, mapping_key: str, source: str, threshold: float | None, metric: str, reduction: str,
              order: tuple | None, include_small: bool, level: float | None, n_boot: int, _counts):
    """Unweighted average bias of the cached class counts `_counts` (keyed as :func:`class_counts`) for the
    subgroups `order` (None: all), with bootstrap intervals (`n_boot` replicates, seed 0) when `level` is set."""
    return _counts.unweighted_average_bias(metric=metric, reduction=reduction,
                                           subgroups=None if order is None else list(order),
                                           include_small=include_small, ci=level, n_boot=n_boot, random_state=0)


@st.cache_data(**CACHE)
def smoothed_edf(token: str, mapping_key: str, concentration: float, include_small: bool, _data: fc.ScoredData,
                 level: float | None = None, n_boot: int = 1000):
    """Smoothed empirical differential fairness of the labels, with bootstrap intervals (seed 0) when `level`
    is set."""
    return fc.smoothed_edf(_data.y_true, _data.subgroups, concentration=concentration, include_small=include_small,
                           ci=level, n_boot=n_boot, random_state=0)


@st.cache_data(**CACHE)
def base_rates(token: str, mapping_key: str, _data: fc.ScoredData, level: float | None = None) -> pd.DataFrame:
    """Per-subgroup base rates (share of positive labels) with their counts, and Wilson intervals at `level`."""
    return fc.base_rates(_data.y_true, _data.subgroups, ci=level)


@st.cache_data(**CACHE)
def correlation(token: str, mapping_key: str, source: str, threshold: float | None, column: str,
                _data: fc.ScoredData, level: float | None = None) -> tuple:
    """(correlation score of the predictions with numeric `column`, rows left out for a missing value).

    With `level`, the score is a ``fc.CorrelationScoreResult`` carrying Fisher's z interval.
    """
    values = sliced_frame()[column].to_numpy(dtype=float, na_value=float("nan"))[_data.rows]
    present = ~np.isnan(values)
    y_pred = _data.y_pred(None if source == "given" else source, threshold)
    return fc.correlation_score(y_pred[present], values[present], ci=level), int((~present).sum())


@st.cache_data(**CACHE)
def label_counts(token: str, mapping_key: str, _data: fc.ScoredData) -> fc.ConfusionCounts:
    """Label counts per subgroup, as the confusion counts of the labels against themselves.

    Their selection rate is the base rate (share of positive labels), so base-rate disparities
    (dataset statistical parity) for any distance, reference and reduction come from these cached
    counts without recomputation; the tests check them against ``fc.dataset_statistical_parity``.
    """
    return fc.confusion_counts(_data.y_true, _data.y_true, _data.subgroups)


@st.cache_data(**INTERVAL_CACHE)
def dataset_parity(token: str, mapping_key: str, distance: str, reduction: str, reference: str, include_small: bool,
                   level: float | None, n_boot: int, adjust: str | None, _counts: fc.ConfusionCounts):
    """Dataset statistical parity (base-rate disparity) of the cached label counts `_counts` (keyed as
    :func:`label_counts`): the statistical-parity disparity of the labels against themselves, as
    ``fc.dataset_statistical_parity`` computes it, with bootstrap intervals (seed 0) when `level` is set."""
    return _counts.disparity("statistical_parity", distance_measure=distance, reduction=reduction, reference=reference,
                             include_small=include_small, ci=level, n_boot=n_boot, random_state=0, adjust=adjust,
                             func="dataset_statistical_parity")


@st.cache_data(**CACHE)
def consistency(token: str, mapping_key: str, features: tuple, n_neighbors: int, _data: fc.ScoredData):
    """kNN consistency of the labels on the chosen feature columns (rows of the analysis only)."""
    rows = sliced_frame().iloc[_data.rows]
    return fc.consistency(rows[list(features)], _data.y_true, n_neighbors=n_neighbors)
