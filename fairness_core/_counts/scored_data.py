"""The validated boundary: a table plus a column mapping -> ScoredData."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Optional

import numpy as np
import pandas as pd

from .._data.columns import ColumnMapping
from .._subgroups.patterns import text_codes
from .._subgroups.subgroups import Subgroups
from .classes import ClassCounts, class_counts
from .weights import effective_size, weight_column
from .._stats.intervals import weighted_wilson_interval, wilson_interval


MAX_SUBGROUPS = 200
MISSING_COLUMN = "Column {col!r} ({role}) is not in the data. Available columns: {available}."
LABEL_VALUES = (
    "The label column {col!r} must have exactly two values; it has {n}: {values}. Tip: choose a "
    "binary outcome column, or keep all classes (all_classes=True): the positive label is then "
    "compared with all other classes, and the Class-wise bias page uses every class."
)
LABEL_TOO_FEW = "The label column {col!r} must have at least two values; it has {n}: {values}."
LABEL_ALIKE = (
    "The label column {col!r} holds values that read alike but differ in type: {values}. Tip: make the "
    "column one type (e.g. all numbers or all text) before loading it, so that each outcome is one value."
)
POSITIVE_MISSING = "The positive label {value!r} does not occur in the label column {col!r}. Its values are: {values}."
SCORE_TYPE = (
    "The score column {col!r} holds {dtype} values, not numbers. Tip: choose a column of model "
    "scores or probabilities."
)
SCORE_COMPLEX = (
    "The score column {col!r} holds complex numbers ({dtype}); a score is a real number, and dropping the "
    "imaginary parts would change the values. Tip: choose a column of real model scores or probabilities."
)
PREDICTED_VALUES = (
    "The predicted label column {col!r} must have two values (or one); it has {n}: {values}."
)
PREDICTED_POSITIVE = (
    "Cannot tell which value of the predicted label column {col!r} means positive: its values are "
    "{values} and the positive label is {positive!r}. Tip: use the label's values, or 0/1."
)
NO_MODEL = "Choose at least one score column or a predicted label column."
NO_GROUPS = "Choose at least one protected attribute or identity column."
ROLE_CLASH = "Column {col!r} is used both as {a} and as {b}. Tip: give each column one role."
NO_ROWS_LEFT = "No rows are left after excluding rows with missing values: {reasons}."
NO_ROWS = "The table has no rows. Tip: check that the file holds data below its header, or widen the slice."
# Why a row is left out for its score: NaN, empty and +-inf alike (no threshold or rank is defined for them).
MISSING_SCORE = "missing or infinite score in {col!r}"
MISSING_WEIGHT = "missing weight in {col!r}"
ZERO_WEIGHT = "weight 0 in {col!r}"


@dataclass(frozen=True, eq=False)
class ScoredData:
    """Validated scored data: labels, scores, predictions and subgroups of the rows kept.

    Build it with :meth:`from_frame`. Every row left out is counted in ``exclusions``.

    Attributes
    ----------
    mapping : ColumnMapping
    y_true : ndarray of int8, shape (n_rows,)
        1 for the positive label, 0 otherwise.
    scores : dict of str -> ndarray of float64, shape (n_rows,)
    predicted : ndarray of int8 of shape (n_rows,) or None
        The given predicted labels (1 = positive).
    classes : ndarray of str, shape (n_rows,)
        The label as text (integral floats written as integers), for class-wise metrics.
    predicted_classes : ndarray of str of shape (n_rows,) or None
        The given predicted labels as text, in the label's vocabulary: with ``all_classes`` the
        column's own values; otherwise the positive label's text for predicted positives and the
        other label value's text for predicted negatives.
    class_labels : tuple of str
        Every class text of ``classes`` and ``predicted_classes`` (and the two label values), sorted.
    class_codes : ndarray of int32, shape (n_rows,)
        Each row's true class as its position in ``class_labels`` (``classes`` is
        ``class_labels[class_codes]``), so class-wise counts never compare text.
    predicted_class_codes : ndarray of int32 of shape (n_rows,) or None
        The same for ``predicted_classes``.
    subgroups : Subgroups
    weights : ndarray of float64 of shape (n_rows,) or None
        The sample weights of the kept rows (all > 0) when the mapping names a ``weight`` column.
    exclusions : DataFrame
        Columns ``reason, rows``: each excluded row counted once, under the first reason that
        applies (missing label, then missing score, then missing predicted label, then a missing
        weight, then a weight of 0).
    n_input : int
        Rows in the table before exclusion.
    rows : ndarray of int
        Positions (0-based) of the kept rows in the input table.
    """

    mapping: ColumnMapping
    y_true: np.ndarray
    scores: dict
    predicted: Optional[np.ndarray]
    subgroups: Subgroups
    exclusions: pd.DataFrame
    n_input: int
    rows: np.ndarray = field(repr=False)
    classes: np.ndarray = field(default=None, repr=False)
    predicted_classes: Optional[np.ndarray] = field(default=None, repr=False)
    class_labels: tuple = field(default=(), repr=False)
    class_codes: Optional[np.ndarray] = field(default=None, repr=False)
    predicted_class_codes: Optional[np.ndarray] = field(default=None, repr=False)
    weights: Optional[np.ndarray] = field(default=None, repr=False)

    @property
    def n_rows(self) -> int:
        """Rows kept for the analysis."""
        return len(self.y_true)

    @property
    def base_rate(self) -> float:
        """Share of positive labels among the kept rows (with weights: their share of the total weight)."""
        if not self.n_rows:
            return float("nan")
        return float(self.y_true.mean() if self.weights is None else self.weights[self.y_true == 1].sum()
                     / self.weight_total)

    def base_rate_interval(self, level: float) -> tuple[float, float]:
        """Wilson's interval of :attr:`base_rate` at confidence `level` (in (0, 1)); with weights, on the effective
        sample size of the weighted share (``_stats.intervals.weighted_wilson_interval``). NaN without rows."""
        if not self.n_rows:
            return float("nan"), float("nan")
        if self.weights is None:
            low, high = wilson_interval(int(self.y_true.sum()), self.n_rows, level)
        else:
            w, positive = self.weights, self.y_true == 1
            low, high = weighted_wilson_interval(w[positive].sum(), w.sum(), (w[positive] ** 2).sum(),
                                                 (w[~positive] ** 2).sum(), level)
        return float(np.asarray(low).reshape(-1)[0]), float(np.asarray(high).reshape(-1)[0])

    @property
    def weighted(self) -> bool:
        """Whether the mapping has a weight column (``weights`` is set)."""
        return self.weights is not None

    @property
    def weight_total(self) -> float:
        """The kept rows' sum of weights; the number of kept rows without weights."""
        return float(self.n_rows if self.weights is None else self.weights.sum())

    @property
    def effective_rows(self) -> float:
        """Kish's effective sample size (sum w)^2 / sum w^2 of the kept rows; the number of rows without weights."""
        w = self.weights
        return float(self.n_rows if w is None else effective_size(self.weight_total, w @ w))

    def y_pred(self, score: Optional[str] = None, threshold: Optional[float] = None) -> np.ndarray:
        """Binary predictions: ``score >= threshold`` for a score column, else the given column.

        Parameters
        ----------
        score : str, optional
            One of ``mapping.scores``; needs `threshold` on the score's own scale.
        threshold : float, optional

        Returns
        -------
        ndarray of int8, shape (n_rows,)

        Raises
        ------
        ValueError
            If neither a score with a threshold nor a predicted label column is available.
        """
        if score is not None:
            if score not in self.scores:
                raise ValueError(f"Score column {score!r} is not mapped. Mapped: {list(self.scores)}.")
            if threshold is None or np.isnan(threshold):
                raise ValueError("A decision threshold (a number, not NaN) is needed to turn a score into "
                                 "predicted labels.")
            return (self.scores[score] >= threshold).astype(np.int8)
        if self.predicted is None:
            raise ValueError("No predicted label column is mapped; choose a score column and a threshold.")
        return self.predicted

    def class_predictions(self, score: Optional[str] = None, threshold: Optional[float] = None) -> np.ndarray:
        """Predicted classes as text: the given column, or a thresholded score for a binary label.

        Parameters
        ----------
        score : str, optional
            One of ``mapping.scores``; rows with ``score >= threshold`` get the positive label's
            text, the others the other label value's text.
        threshold : float, optional

        Returns
        -------
        ndarray of str, shape (n_rows,)

        Raises
        ------
        ValueError
            If a score is asked for with a label that does not have exactly two classes, or no
            predicted label column is mapped.
        """
        if score is None:
            if self.predicted_classes is None:
                raise ValueError("No predicted label column is mapped; choose a score column and a threshold.")
            return self.predicted_classes
        positive, negative = self._binary_classes()
        return np.where(self.y_pred(score, threshold) == 1, positive, negative).astype(object)

    def _binary_classes(self) -> tuple[str, str]:
        """(positive, negative) class text of a two-class label, or ValueError."""
        classes = self.class_names
        if len(classes) != 2:
            raise ValueError(f"A score can only predict a label with two classes; this label has {len(classes)}. "
                             "Tip: map a predicted label column for a multi-class label.")
        positive = _as_text([self.mapping.positive_label])[0]
        return positive, classes[0] if classes[1] == positive else classes[1]

    def class_counts(self, score: Optional[str] = None, threshold: Optional[float] = None) -> ClassCounts:
        """Per-subgroup confusion matrices of true against predicted classes (the Class-wise bias page).

        Equal to ``class_counts(self.classes, self.class_predictions(score, threshold),
        self.subgroups)``, but counted from the integer class codes (``class_codes``, passed as
        categoricals), so no class text is sorted or compared row by row.

        Parameters
        ----------
        score : str, optional
            A score column whose ``score >= threshold`` predicts the positive class of a two-class
            label; default: the mapped predicted label column.
        threshold : float, optional

        Returns
        -------
        ClassCounts

        Raises
        ------
        ValueError
            As :meth:`class_predictions`.
        """
        categories = list(self.class_labels)
        if score is None:
            if self.predicted_class_codes is None:
                raise ValueError("No predicted label column is mapped; choose a score column and a threshold.")
            predicted = self.predicted_class_codes
        else:
            texts = self._binary_classes()
            categories += [text for text in dict.fromkeys(texts) if text not in categories]
            positive, negative = (categories.index(text) for text in texts)
            predicted = np.where(self.y_pred(score, threshold) == 1, positive, negative).astype(np.int32)
        truth, predicted = (pd.Categorical.from_codes(codes, categories=categories)
                            for codes in (self.class_codes, predicted))
        return class_counts(truth, predicted, self.subgroups, sample_weight=self.weights)

    @cached_property
    def score_ranges(self) -> dict:
        """Per score column: (smallest, largest, every score a whole number: equal to its floor, as scores are finite),
        computed once (what ``threshold_for_range`` needs; ``engines.ScoredCounts.score_ranges`` holds the same)."""
        return {name: (float(v.min()), float(v.max()), bool(np.array_equal(np.floor(v), v)))
                for name, v in self.scores.items()}

    @cached_property
    def class_names(self) -> list:
        """The distinct values of ``classes``, sorted."""
        if self.class_codes is None:
            return sorted(pd.unique(self.classes))
        present = np.bincount(self.class_codes, minlength=len(self.class_labels)) > 0
        return [text for text, seen in zip(self.class_labels, present) if seen]

    def subgroup_table(self) -> pd.DataFrame:
        """Subgroups with their sizes: ``subgroup, size, share, n_positive, n_negative, small``.

        With weights (``weights`` not None), as the weighted count tables: ``n_positive`` and ``n_negative``
        are sums of weights, ``share`` the subgroup's share of the total weight, ``size`` Kish's effective
        sample size (sum w)^2 / sum w^2 of its rows and ``small`` flags an effective size below the mapping's
        ``min_size``; two more columns, ``rows`` and ``weight``, give its rows and its sum of weights.
        """
        g = self.subgroups
        if self.weights is None:
            sizes = g.sizes.astype(np.int64)
            positives = g.sum(self.y_true).astype(np.int64)
            return pd.DataFrame({
                "subgroup": g.names, "size": sizes, "share": sizes / max(self.n_rows, 1),
                "n_positive": positives, "n_negative": sizes - positives, "small": g.small,
            })
        w = self.weights
        total, squares, positives = g.sum(w), g.sum(w * w), g.sum(w * self.y_true)
        sizes = effective_size(total, squares)
        return pd.DataFrame({
            "subgroup": g.names, "size": sizes, "share": total / w.sum(), "n_positive": positives,
            "n_negative": total - positives, "small": sizes < self.mapping.min_size,
            "rows": g.sizes.astype(np.int64), "weight": total,
        })

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, mapping: ColumnMapping) -> "ScoredData":
        """Validate `frame` under `mapping`.

        Parameters
        ----------
        frame : DataFrame of shape (n_input, n_columns)
        mapping : ColumnMapping

        Returns
        -------
        ScoredData

        Raises
        ------
        ValueError
            For a missing column, a column in two roles, a label without exactly two values, a
            positive label that does not occur, a non-numeric or complex score (``SCORE_COMPLEX``),
            an ambiguous predicted label column, no score/prediction or no protected column chosen,
            no rows left, or too many subgroups. Each message says what to do.
        """
        m = mapping
        _check_roles(frame, m)
        n_input = len(frame)
        if n_input == 0:
            raise ValueError(NO_ROWS)
        reasons, excluded = np.full(n_input, "", dtype=object), np.zeros(n_input, dtype=bool)   # rows with a reason

        label = frame[m.label]
        values = pd.unique(label.dropna())
        if len(values) < 2:
            raise ValueError(LABEL_TOO_FEW.format(col=m.label, n=len(values), values=_show(values)))
        if len(values) != 2 and not m.all_classes:
            raise ValueError(LABEL_VALUES.format(col=m.label, n=len(values), values=_show(values)))
        texts = [str(v) for v in values]
        if len(set(texts)) < len(texts):
            raise ValueError(LABEL_ALIKE.format(col=m.label, values=_show(values)))
        matches = [v for v in values if _same(v, m.positive_label)]
        if not matches:
            raise ValueError(POSITIVE_MISSING.format(value=m.positive_label, col=m.label, values=_show(values)))
        # A missing label (also in a nullable Int64 / boolean column) is excluded below, never a negative.
        is_positive = (label == matches[0]).to_numpy(dtype=bool, na_value=False)
        _mark(reasons, excluded, label.isna().to_numpy(), "missing label")

        scores = {}
        for col in m.scores:
            s = frame[col]
            if s.dtype == bool or not pd.api.types.is_numeric_dtype(s):
                raise ValueError(SCORE_TYPE.format(col=col, dtype=s.dtype))
            if pd.api.types.is_complex_dtype(s):
                raise ValueError(SCORE_COMPLEX.format(col=col, dtype=s.dtype))
            arr = s.to_numpy(dtype=np.float64, na_value=np.nan)
            _mark(reasons, excluded, ~np.isfinite(arr), MISSING_SCORE.format(col=col))
            scores[col] = arr

        predicted = None
        if m.predicted_label is not None:
            col = m.predicted_label
            pred = frame[col]
            pvalues = pd.unique(pred.dropna())
            if m.all_classes:
                positive = next((v for v in pvalues if _same(v, matches[0])), None)
            else:
                if len(pvalues) > 2:
                    raise ValueError(PREDICTED_VALUES.format(col=col, n=len(pvalues), values=_show(pvalues)))
                positive = _predicted_positive(pvalues, m.positive_label, col)
            _mark(reasons, excluded, pred.isna().to_numpy(), f"missing predicted label in {col!r}")
            predicted = (np.zeros(n_input, bool) if positive is None
                         else (pred == positive).to_numpy(dtype=bool, na_value=False))

        weights = None
        if m.weight is not None:
            weights = weight_column(frame[m.weight], m.weight)
            _mark(reasons, excluded, np.isnan(weights), MISSING_WEIGHT.format(col=m.weight))
            _mark(reasons, excluded, weights == 0, ZERO_WEIGHT.format(col=m.weight))

        keep, every = ~excluded, not excluded.any()   # every row kept: the columns are read as they are, not gathered
        if not keep.any():
            raise ValueError(NO_ROWS_LEFT.format(reasons=_reason_text(reasons)))
        columns = list(dict.fromkeys([*m.protected, *m.indicators]))   # only these (a wide frame's others are not needed)
        kept = (frame[columns] if every else frame.loc[keep, columns]).reset_index(drop=True)
        subgroups = _subgroups(kept, m)
        y_true = is_positive[keep].astype(np.int8)
        # Classes as integer codes into one sorted vocabulary of texts (each distinct value is
        # converted to text once); the text arrays are gathered from it. No kept row has a missing
        # label or predicted label, so text_codes' last text, MISSING, is never used.
        coded = [_text_coded(label if every else label[keep])]
        if predicted is not None:
            if m.all_classes:
                coded.append(_text_coded(frame[m.predicted_label][keep]))
            else:
                negative = values[1] if _same(values[0], matches[0]) else values[0]
                coded.append((predicted[keep].astype(np.intp), _as_text([negative, matches[0]])))
        class_labels, codes = _vocabulary(coded)
        class_codes = codes[0]
        predicted_class_codes = codes[1] if predicted is not None else None
        vocabulary = np.asarray(class_labels, dtype=object)
        classes = vocabulary[class_codes]
        predicted_classes = None if predicted_class_codes is None else vocabulary[predicted_class_codes]
        counts = pd.Series(reasons[~keep]).value_counts()
        exclusions = pd.DataFrame({"reason": counts.index.astype(str), "rows": counts.to_numpy(dtype=np.int64)})
        return cls(
            mapping=m, y_true=y_true, scores={c: a[keep] for c, a in scores.items()},
            predicted=None if predicted is None else predicted[keep].astype(np.int8),
            subgroups=subgroups, exclusions=exclusions, n_input=n_input, rows=np.flatnonzero(keep),
            classes=classes, predicted_classes=predicted_classes, class_labels=class_labels,
            class_codes=class_codes, predicted_class_codes=predicted_class_codes,
            weights=None if weights is None else weights[keep])


def _check_roles(frame: pd.DataFrame, m: ColumnMapping) -> None:
    roles = [(m.label, "the label")] + [(c, "a score") for c in m.scores]
    if m.predicted_label is not None:
        roles.append((m.predicted_label, "the predicted label"))
    if m.weight is not None:
        roles.append((m.weight, "the weight"))
    roles += [(c, "a protected attribute") for c in m.protected] + [(c, "an identity column") for c in m.indicators]
    seen: dict = {}
    available = ", ".join(map(repr, list(frame.columns)[:30]))
    for col, role in roles:
        if col not in frame.columns:
            raise ValueError(MISSING_COLUMN.format(col=col, role=role, available=available))
        if col in seen and seen[col] != role:
            raise ValueError(ROLE_CLASH.format(col=col, a=seen[col], b=role))
        seen[col] = role
    if not m.scores and m.predicted_label is None:
        raise ValueError(NO_MODEL)
    if not m.protected and not m.indicators:
        raise ValueError(NO_GROUPS)


def _subgroups(kept: pd.DataFrame, m: ColumnMapping) -> Subgroups:
    parts = []
    if m.protected:
        parts.append(Subgroups.from_attributes(kept, list(m.protected), intersect=m.intersect,
                                               min_size=m.min_size, n_bins=m.n_bins,
                                               max_subgroups=MAX_SUBGROUPS - len(m.indicators)))
    if m.indicators:
        parts.append(Subgroups.from_indicators(kept, list(m.indicators), threshold=m.indicator_threshold,
                                               min_size=m.min_size))
    if len(parts) == 1:
        return parts[0]
    return Subgroups(parts[0].names + parts[1].names,
                     np.hstack([p.membership for p in parts]), np.hstack([p.background for p in parts]),
                     m.min_size, None)


def _same(a: Any, b: Any) -> bool:
    """Value equality that also matches 1 == '1'-style mismatches of type between widgets and data."""
    if a is b:
        return True
    with contextlib.suppress(TypeError, ValueError):
        if a == b:
            return True
    return str(a) == str(b)


def _predicted_positive(values, positive_label, col):
    for candidate in (positive_label, 1, True):
        if any(_same(v, candidate) for v in values):
            return next(v for v in values if _same(v, candidate))
    if len(values) < 2:  # a single value that is not the positive label: every prediction is negative
        return None
    raise ValueError(PREDICTED_POSITIVE.format(col=col, values=_show(values), positive=positive_label))


def _text_coded(values) -> tuple[np.ndarray, np.ndarray]:
    """(codes, texts) of values without missing ones: ``texts[codes]`` is each row's text."""
    codes, texts = text_codes(values)
    return codes, texts[:-1]  # the last text is MISSING, the text of code -1


def _vocabulary(coded: list) -> tuple[tuple, list]:
    """One sorted vocabulary of class texts, and each array's codes into it.

    `coded` holds ``(codes, texts)`` pairs: ``texts[codes]`` is each row's text.
    """
    vocabulary = tuple(sorted({text for _, texts in coded for text in texts}))
    position = {text: i for i, text in enumerate(vocabulary)}
    return vocabulary, [np.array([position[t] for t in texts], dtype=np.int32)[codes] for codes, texts in coded]


def _as_text(values) -> np.ndarray:
    """Values as display text (1.0 -> '1'), converting each distinct value once."""
    codes, labels = text_codes(values)
    return labels[codes]


def _mark(reasons: np.ndarray, excluded: np.ndarray, mask: np.ndarray, reason: str) -> None:
    new = mask & ~excluded   # the rows of `mask` without a reason yet: a row's first reason is the one reported
    reasons[new], excluded[new] = reason, True


def _reason_text(reasons: np.ndarray) -> str:
    counts = pd.Series(reasons).value_counts()
    return ", ".join(f"{n:,} rows with {r}" for r, n in counts.items())


def _show(values) -> str:
    values = list(values)
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in values[:8])
    return shown + (", ..." if len(values) > 8 else "")
