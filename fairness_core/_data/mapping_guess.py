"""A first guess of which columns of a scored table play which role (label, scores, predicted
label, protected attributes, identity columns), for the user to check.

The guess reads column names (split into lower-case words: ``TOXICITY@1`` -> ``toxicity, 1``;
``scoreLogistic`` -> ``score, logistic``) and light value profiles (number of distinct values,
numeric or not, range). It never raises on an odd table: what it cannot find it lists, one
sentence per missing role, so the app can say what to choose instead of failing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .columns import ColumnMapping

# Exact names of a true-label column, most specific first.
LABEL_NAMES = ("y_true", "ytrue", "label", "label_value", "true_label", "target", "outcome", "actual", "truth",
               "ground_truth", "class", "y", "two_year_recid", "is_recid", "recid", "toxicity", "toxic", "income",
               "repaid", "default", "first_pf", "passed", "pass")
# Words that make a column a label candidate when no exact name matches.
LABEL_WORDS = {"label", "target", "outcome", "actual", "truth", "class", "recid", "repaid", "default"}
# Words of a model output on a continuous scale (p_... is a probability: 'p_hgb', 'p_logreg').
SCORE_WORDS = {"score", "scores", "prob", "proba", "probs", "probability", "probabilities", "risk", "logit", "logits",
               "decile", "toxicity", "yhat", "confidence", "propensity"}
# Words of a probability (or its log-odds): a column so named is a score even with two values, 0 and 1 among them.
PROBABILITY_WORDS = {"prob", "proba", "probs", "probability", "probabilities", "logit", "logits", "confidence",
                     "propensity"}
# Words of a given decision (a two-valued column).
PREDICTION_WORDS = {"pred", "preds", "prediction", "predicted", "decision", "approved", "flag", "flagged", "yhat",
                    "score", "classification", "selected", "accepted"}
# Words of a protected attribute.
PROTECTED_WORDS = {"sex", "gender", "race", "ethnicity", "ethnic", "age", "religion", "religious", "disability",
                   "disabled", "nationality", "citizenship", "citizen", "marital", "foreign", "native", "caste",
                   "orientation", "pregnancy", "pregnant", "veteran"}
# Identity terms used as indicator columns (Jigsaw identity columns and the madlibs terms).
IDENTITY_NAMES = {
    "lesbian", "gay", "bisexual", "transgender", "trans", "cis", "queer", "lgbt", "lgbtq", "homosexual", "straight",
    "heterosexual", "male", "female", "nonbinary", "other_gender", "african", "african_american", "black", "white",
    "european", "hispanic", "latino", "latina", "latinx", "mexican", "canadian", "american", "asian", "indian",
    "middle_eastern", "chinese", "japanese", "other_race_or_ethnicity", "christian", "muslim", "jewish", "buddhist",
    "catholic", "protestant", "sikh", "taoist", "hindu", "atheist", "other_religion", "old", "older", "young",
    "younger", "teenage", "millenial", "millennial", "middle_aged", "elderly", "blind", "deaf", "paralyzed",
    "homosexual_gay_or_lesbian", "psychiatric_or_mental_illness", "intellectual_or_learning_disability",
    "physical_disability", "other_disability", "other_sexual_orientation",
}
# Names and words of a sample weight column (survey person weights: fnlwgt in UCI Adult, pwgtp / perwt in census
# microdata, wtfinl in the CPS; importance or inverse-probability weights).
WEIGHT_NAMES = {"weight", "weights", "wgt", "wt", "fnlwgt", "pwgtp", "perwt", "wtfinl", "sample_weight",
                "sampling_weight", "survey_weight", "person_weight", "ipw", "importance_weight"}
WEIGHT_WORDS = {"weight", "weights", "wgt", "fnlwgt", "pwgtp", "perwt", "wtfinl", "ipw"}
# Words of a column that dates each row (the Over time page's time column): proposed only when its values are
# datetimes or ISO 8601 text that all parse as such.
TIME_WORDS = {"date", "time", "timestamp", "datetime", "day", "week", "month", "dt"}
POSITIVE_VALUES = (1, True, "1", "yes", "Yes", "YES", "true", "True", "toxic", "positive", ">50K", ">50K.", "good",
                   "pass", "approved")
MAX_PROTECTED_VALUES = 50  # a text column with more distinct values is not offered as an attribute

MISSING_LABEL = ("No column looks like a true label with two values (names such as label, target, y_true or "
                 "outcome): choose the Label column.")
MISSING_OUTPUT = ("No column looks like a model score (names such as score, prob, p_..., risk) or a predicted "
                  "label (pred, decision): choose a Score column or a Predicted label column.")
MISSING_GROUPS = ("No column looks like a protected attribute (sex, gender, race, ethnicity, age, religion, "
                  "disability, nationality, ...) or an identity column: choose at least one.")
# Why a column of numbers was read as text, by the form of its numbers (see numbers_as_text).
TEXT_NUMBER_REASONS = {
    "decimal_comma": "holds numbers written with a decimal comma (for example {example!r})",
    "percent": "holds percentages written with a % sign (for example {example!r})",
    "thousands": "holds numbers written with thousands separators (for example {example!r})",
    "comma": "holds numbers written with a comma, a decimal comma or a thousands separator (for example {example!r})",
}
TEXT_NUMBER_SAMPLE = 1000  # numbers_as_text looks at this many non-missing values of a column
_PLAIN = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_PERCENT = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)\s*%")
_THOUSANDS = re.compile(r"[+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d*)?")
_DECIMAL_COMMA = re.compile(r"[+-]?\d{1,3}(?:\.\d{3})+,\d+|[+-]?\d+,\d+")


@dataclass(frozen=True)
class MappingGuess:
    """A proposed column mapping and what it could not find.

    Attributes
    ----------
    mapping : ColumnMapping or None
        The proposal; None when the table has no column at all.
    missing : tuple of str
        One sentence per role the guess could not fill (``MISSING_LABEL``, ``MISSING_OUTPUT``,
        ``MISSING_GROUPS``), saying what to choose.
    weight : str or None
        A column that looks like sample weights, proposed but **not** in `mapping`: weights change
        every number, so the caller asks before applying them (the app offers a button).
    """

    mapping: ColumnMapping | None
    missing: tuple = ()
    weight: str | None = None


def words(name: object) -> list[str]:
    """A column name as lower-case words: split at non-alphanumerics and at camelCase humps.

    >>> words("TOXICITY@1"), words("scoreLogistic"), words("p_hgb")
    (['toxicity', '1'], ['score', 'logistic'], ['p', 'hgb'])
    """
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(name))
    return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]


def guess_positive(values: list):
    """The value most likely meaning 'positive' among a label's distinct values.

    Parameters
    ----------
    values : list
        The label's distinct values, sorted.

    Returns
    -------
    object or None
        The first known positive value found (``POSITIVE_VALUES``: 1, True, 'yes', '>50K', ...,
        compared with its type), else the last value; None for no values.
    """
    for candidate in POSITIVE_VALUES:
        for v in values:
            if type(v) is type(candidate) and v == candidate:
                return v
    return values[-1] if values else None


def _number_form(value: object) -> str | None:
    """'plain', 'percent', 'thousands', 'decimal_comma' or 'comma' (either of the last two) for a number
    written as text; None for anything else."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if _PLAIN.fullmatch(text):
        return "plain"
    if _PERCENT.fullmatch(text):
        return "percent"
    thousands, decimal = bool(_THOUSANDS.fullmatch(text)), bool(_DECIMAL_COMMA.fullmatch(text))
    if thousands and decimal:
        return "comma"
    return "thousands" if thousands else "decimal_comma" if decimal else None


def numbers_as_text(frame: pd.DataFrame) -> dict:
    """The text columns of `frame` that hold numbers in a form read as text, each with the reason.

    A column qualifies when each of its first ``TEXT_NUMBER_SAMPLE`` (1,000) non-missing values is
    a number and some are written in one of these forms: with a decimal comma (``0,73``,
    ``1.234,5``), as a percentage (``73 %``, ``73%``), or with thousands separators
    (``1,234.5``); a value such as ``1,234`` fits both comma forms. Such columns are not numeric,
    so they cannot be scores or identity columns.

    Parameters
    ----------
    frame : DataFrame
        The table as read.

    Returns
    -------
    dict of str -> str
        Column name (as text) -> the reason, a phrase from ``TEXT_NUMBER_REASONS`` with the first
        value of that form: ``{'score': "holds numbers written with a decimal comma (for example
        '0,73')"}``. Columns in file order.

    Examples
    --------
    >>> numbers_as_text(pd.DataFrame({"p": ["73 %", "5 %"], "q": ["0,5", "1"], "r": ["x", "1"]}))
    {'p': "holds percentages written with a % sign (for example '73 %')", \
'q': "holds numbers written with a decimal comma (for example '0,5')"}
    """
    found = {}
    for column in frame.columns:
        values = frame[column]
        if not (pd.api.types.is_string_dtype(values.dtype) or values.dtype == object):
            continue
        sample = values.iloc[:10 * TEXT_NUMBER_SAMPLE].dropna().iloc[:TEXT_NUMBER_SAMPLE]
        forms = [_number_form(v) for v in sample]
        if not forms or None in forms:
            continue
        kinds = set(forms) - {"plain"}
        if kinds == {"percent"}:
            kind = "percent"
        elif kinds and kinds <= {"thousands", "comma"}:
            kind = "thousands" if "thousands" in kinds else "comma"
        elif kinds and kinds <= {"decimal_comma", "comma"}:
            kind = "decimal_comma"
        else:
            continue
        example = next(v for v, f in zip(sample, forms) if f == kind or (kind != "percent" and f == "comma"))
        found[str(column)] = TEXT_NUMBER_REASONS[kind].format(example=example)
    return found


def _distinct(values: pd.Series, limit: int = 64) -> list:
    found = pd.unique(values.dropna())[:limit]
    try:
        return sorted(found.tolist())
    except TypeError:
        return sorted(found.tolist(), key=str)


def _profile(frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for col in frame.columns:
        values = frame[col]
        numeric = bool(pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
                       and not pd.api.types.is_complex_dtype(values))   # complex: never a score
        try:
            n_unique = int(values.nunique(dropna=True))
        except TypeError:  # unhashable values (lists, dicts)
            n_unique = int(values.dropna().map(str).nunique())
        low = high = np.nan
        integral = False
        if numeric and n_unique:
            v = values.to_numpy(dtype="float64", na_value=np.nan)
            finite = v[np.isfinite(v)]
            if finite.size:
                low, high = float(finite.min()), float(finite.max())
                integral = bool(np.all(finite == np.round(finite)))
        rows.append({"column": str(col), "words": words(col), "numeric": numeric, "n_unique": n_unique,
                     "low": low, "high": high, "integral": integral})
    return pd.DataFrame(rows)


def guess_mapping(frame: pd.DataFrame) -> MappingGuess:
    """Propose a column mapping for `frame`, and say which roles it could not fill.

    It proposes the label, every score column, a predicted label, every protected attribute and
    every identity column. Rules, in order (each column gets at most one role):

    - **identity columns**: numeric columns with values in [0, 1] named by an identity term
      (``IDENTITY_NAMES``: ``female``, ``black``, ``muslim``, ``gay``, ...);
    - **label**: a two-valued column with an exact label name (``LABEL_NAMES``, most specific first),
      else one with a label word in its name (``LABEL_WORDS``) that is not named as a score (see
      scores), else the first two-valued column that plays no other role; without any, a column
      with a label name and up to 20 values (``all_classes=True``). The positive value: 1, True,
      'yes', '>50K', ... (``POSITIVE_VALUES``), else the last value sorted;
    - **scores**: numeric columns with a score word (``SCORE_WORDS``, or a first word ``p`` as in
      ``p_hgb``) and more than two values, or two values unless those are 0 and 1 and the name
      has a prediction word but no probability word (``PROBABILITY_WORDS``: a two-valued
      ``score`` of 0.2 and 0.8, or a ``pred_proba`` of 0 and 1, is a score; a ``score`` of 0 and
      1 is a predicted label, as in Aequitas' layout); when none is named so, numeric non-integer
      columns in [0, 1] with at least 10 distinct values. A column equal to an earlier score (a
      duplicated column such as ``decile_score.1``) is skipped;
    - **weight** (proposed in ``MappingGuess.weight``, never put in the mapping): the first numeric
      column named as a sample weight (``WEIGHT_NAMES``, or a word of ``WEIGHT_WORDS``: ``fnlwgt``,
      ``pwgtp``, ``person_weight``) whose values look like weights (:func:`looks_like_weights`:
      >= 0, not two-valued, whole counts or a mean between 0.05 and 20); it takes no other role;
    - **predicted label**: the first two-valued column with a prediction word (``PREDICTION_WORDS``)
      that is not a score;
    - **protected attributes**: columns with a protected word (``PROTECTED_WORDS``) that are numeric
      (binned later) or have at most ``MAX_PROTECTED_VALUES`` values; a numeric ``age`` is left out
      when a categorical age column (``age_cat``, ``age_group``) is there.
    - **time**: the first column left whose name has a time word (``TIME_WORDS``: ``decision_date``,
      ``timestamp``, ``week``) and whose values are datetimes, or text that all reads as ISO 8601
      dates or times (:func:`looks_like_times`).

    Parameters
    ----------
    frame : DataFrame
        The table as read (column names of any type; they are used as text).

    Returns
    -------
    MappingGuess
        The proposal and, per role it could not fill, a sentence saying what to choose.

    Examples
    --------
    >>> frame = pd.DataFrame({"y_true": [0, 1, 1, 0], "p_hgb": [0.1, 0.8, 0.6, 0.3],
    ...                       "p_logreg": [0.2, 0.7, 0.9, 0.4], "sex": list("FMFM")})
    >>> guess = guess_mapping(frame)
    >>> guess.mapping.label, guess.mapping.scores, guess.mapping.protected, guess.missing
    ('y_true', ('p_hgb', 'p_logreg'), ('sex',), ())
    """
    if frame.shape[1] == 0:
        return MappingGuess(None, (MISSING_LABEL, MISSING_OUTPUT, MISSING_GROUPS))
    prof = _profile(frame)
    name = dict(zip(prof["column"], frame.columns))
    info = prof.set_index("column")
    taken: set = set()

    def has(col, vocabulary) -> bool:
        return bool(set(info.loc[col, "words"]) & vocabulary)

    unit = info["numeric"] & (info["low"] >= 0) & (info["high"] <= 1)
    indicators = [c for c in info.index if unit[c] and c.lower() in IDENTITY_NAMES]
    taken.update(indicators)

    binary = [c for c in info.index if info.loc[c, "n_unique"] == 2 and c not in taken]
    protected_like = {c for c in info.index if has(c, PROTECTED_WORDS)}

    def score_named(col) -> bool:
        return has(col, SCORE_WORDS) or (info.loc[col, "words"][:1] == ["p"] and len(info.loc[col, "words"]) > 1)

    def decision_values(col) -> bool:   # 0 and 1 (a predicted label's values as much as a score's)
        return bool(info.loc[col, "integral"] and info.loc[col, "low"] >= 0 and info.loc[col, "high"] <= 1)

    # Two-valued columns named as scores: scores, unless 0/1 under a prediction word and no probability word.
    two_level = {c for c in binary if info.loc[c, "numeric"] and score_named(c)
                 and (has(c, PROBABILITY_WORDS) or not (decision_values(c) and has(c, PREDICTION_WORDS)))}
    prediction_like = {c for c in binary if has(c, PREDICTION_WORDS) and c not in two_level}
    lower = {c.lower(): c for c in binary}
    label = next((lower[n] for n in LABEL_NAMES if n in lower), None)
    label = label or next((c for c in binary if has(c, LABEL_WORDS) and c not in prediction_like | two_level), None)
    label = label or next((c for c in binary if c not in protected_like | prediction_like | two_level), None)
    all_classes = False
    if label is None:
        lower_all = {c.lower(): c for c in info.index if c not in taken and 2 < info.loc[c, "n_unique"] <= 20}
        label = next((lower_all[n] for n in LABEL_NAMES if n in lower_all), None)
        all_classes = label is not None
    if label is not None:
        taken.add(label)

    weight = next((c for c in info.index if c not in taken and info.loc[c, "numeric"] and info.loc[c, "n_unique"] != 2
                   and (c.lower() in WEIGHT_NAMES or has(c, WEIGHT_WORDS)) and looks_like_weights(frame[name[c]])),
                  None)
    if weight is not None:
        taken.add(weight)
    numeric_many = [c for c in info.index if c not in taken and info.loc[c, "numeric"] and info.loc[c, "n_unique"] > 2]
    named = [c for c in info.index if c not in taken and ((c in numeric_many and score_named(c)) or c in two_level)]
    scores = named or [c for c in numeric_many if unit[c] and not info.loc[c, "integral"]
                       and info.loc[c, "n_unique"] >= 10 and c not in protected_like]
    kept = []
    for c in scores:
        if not any(frame[name[c]].equals(frame[name[k]]) for k in kept):
            kept.append(c)
    scores = kept
    taken.update(c for c in named if c not in scores)  # duplicates take no other role
    taken.update(scores)

    predicted = next((c for c in binary if c in prediction_like and c not in taken), None)
    if predicted is not None:
        taken.add(predicted)

    protected = [c for c in info.index if c in protected_like and c not in taken
                 and (info.loc[c, "numeric"] or info.loc[c, "n_unique"] <= MAX_PROTECTED_VALUES)
                 and info.loc[c, "n_unique"] >= 1]
    categorical_age = any("age" in info.loc[c, "words"] and not info.loc[c, "numeric"] for c in protected)
    protected = [c for c in protected
                 if not (categorical_age and info.loc[c, "numeric"] and info.loc[c, "words"] == ["age"])]

    taken.update(protected)
    time = next((c for c in info.index if c not in taken and has(c, TIME_WORDS) and looks_like_times(frame[name[c]])),
                None)

    missing = []
    if label is None:
        missing.append(MISSING_LABEL)
    if not scores and predicted is None:
        missing.append(MISSING_OUTPUT)
    if not protected and not indicators:
        missing.append(MISSING_GROUPS)
    if label is None:
        label = str(prof["column"].iloc[0])
    positive = guess_positive(_distinct(frame[name[label]]))
    mapping = ColumnMapping(label=label, positive_label=positive, scores=tuple(scores), predicted_label=predicted,
                            protected=tuple(protected), indicators=tuple(indicators), all_classes=all_classes,
                            positive_outcome=guess_outcome(label, positive)[0], time=time)
    return MappingGuess(mapping, tuple(missing), weight)


def looks_like_times(values: pd.Series) -> bool:
    """Whether a column's values are datetimes, or text whose every value (of the first 64 distinct ones) reads as an
    ISO 8601 date or time (``2024-03-01``, ``2024-03-01T09:30:00+01:00``); numbers never are (a week number or a year
    may be a time, but is not guessed to be one).

    Parameters
    ----------
    values : Series

    Returns
    -------
    bool

    Examples
    --------
    >>> looks_like_times(pd.Series(["2024-01-31", "2024-02-01", None]))
    True
    >>> looks_like_times(pd.Series(["2024-01-31", "soon"])), looks_like_times(pd.Series([2023, 2024]))
    (False, False)
    """
    if isinstance(values.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(values):
        return bool(values.notna().any())
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return False
    sample = [v for v in _distinct(values) if isinstance(v, str)]
    if not sample or any(not re.fullmatch(r"\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?", v.strip())
                         for v in sample):
        return False
    return bool(pd.to_datetime(pd.Series(sample), format="ISO8601", utc=True, errors="coerce").notna().all())


def looks_like_weights(values: pd.Series) -> bool:
    """Whether a numeric column's values look like sample weights rather than a measurement named "weight".

    Sampling, frequency or importance weights are finite and >= 0, with some weight > 0, and either whole
    counts (survey person weights such as ``fnlwgt`` or ``PWGTP``) or scaled near 1 (a mean between 0.05
    and 20: inverse-probability and importance weights). A body weight in kilograms (72.5, 81.3, ...) is
    neither; one recorded in whole kilograms would still be proposed, which is why a guessed weight column
    is only proposed, never applied.

    Parameters
    ----------
    values : Series
        The column.

    Returns
    -------
    bool
    """
    v = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    v = v[~np.isnan(v)]
    if not v.size or not np.all(np.isfinite(v)) or v.min() < 0 or v.max() <= 0:
        return False
    return bool(np.all(v == np.round(v)) or 0.05 <= float(v.mean()) <= 20)


# Words that read like a harm to the person when they name the predicted event (label name or positive value).
ADVERSE_WORDS = frozenset({
    "deny", "denied", "denial", "reject", "rejected", "rejection", "decline", "declined", "default", "defaulted",
    "delinquent", "delinquency", "recid", "recidivism", "recidivist", "reoffend", "rearrest", "arrest", "arrested",
    "fraud", "fraudulent", "toxic", "toxicity", "churn", "churned", "fail", "failed", "failure", "risk", "bad",
    "charged", "convicted", "abuse", "harm", "terminated", "fired", "dropout", "readmit", "readmitted",
    "readmission", "sick", "disease", "death", "died", "dead", "violent", "violence", "flagged", "flag", "spam",
    "attrition", "loss", "lost", "insult", "threat", "obscene", "hate"})


def guess_outcome(label: object, positive: object) -> tuple[str, str]:
    """Whether the event a label names is likely favourable or adverse for the person, and why.

    Parameters
    ----------
    label : object
        The label column's name.
    positive : object
        The positive label value (the event the score predicts).

    Returns
    -------
    (str, str)
        ``('adverse', reason)`` when a word of the label's name or of the positive value reads like
        a harm (``ADVERSE_WORDS``: deny, default, reject, recid, fraud, toxic, churn, ...), the
        reason naming that word; else ``('favourable', '')``. A guess for the app to propose, which
        the user confirms or changes.

    Examples
    --------
    >>> guess_outcome("deny", "yes")
    ('adverse', "the label's name reads like a harm (deny)")
    >>> guess_outcome("two_year_recid", 1)[0], guess_outcome("repaid", 1)[0], guess_outcome("income", ">50K")[0]
    ('adverse', 'favourable', 'favourable')
    """
    for where, text in (("the label's name", label), ("the positive value", positive)):
        found = [w for w in words(text) if w in ADVERSE_WORDS]
        if found:
            return "adverse", f"{where} reads like a harm ({found[0]})"
    return "favourable", ""
