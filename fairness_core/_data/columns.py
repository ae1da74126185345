"""ColumnMapping: which columns of a table play which role (label, scores, protected attributes, ...)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


OUTCOMES = ("favourable", "adverse")
OUTCOME_MESSAGE = ("The 'positive_outcome' of a ColumnMapping says whether a positive prediction is good or bad for "
                   "the person: 'favourable' or 'adverse'. Got {got!r} instead.")

WORDS_MESSAGE = ("The 'label_words' of a ColumnMapping are words for the label's values, e.g. {{'yes': 'denied', "
                 "'no': 'approved'}}. Got {got!r} instead.")

TIME_MESSAGE = ("The 'time' of a ColumnMapping is the name of a column of times (dates, datetimes or integers), "
                "or None. Got {got!r} instead.")


@dataclass(frozen=True)
class ColumnMapping:
    """Which columns of a table play which role. Hashable, so it can key a cache.

    Attributes
    ----------
    label : str
        The true outcome column (two values).
    positive_label : any
        The label value that means "positive" (e.g. 1, True, "toxic").
    scores : tuple of str
        Model score columns (numeric, any scale).
    predicted_label : str or None
        A column of given predicted labels, used when no threshold is applied to a score.
    protected : tuple of str
        Categorical protected attributes (numeric ones with many values are binned).
    indicators : tuple of str
        Identity indicator columns (member when value >= indicator_threshold).
    intersect : bool
        Intersect the protected attributes (observed value combinations) or not.
    min_size : int
        Subgroups with fewer rows are flagged small.
    n_bins : int
        Quantile bins for numeric protected attributes with many values.
    indicator_threshold : float
    all_classes : bool
        Keep a label (and predicted label) with more than two classes. The binary metrics then
        use the positive label against all other classes; class-wise metrics use every class.
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        Whether the event the score predicts (the positive label; a positive prediction) is good or
        bad for the person: ``'adverse'`` for labels such as deny, default, reject, recidivism or
        fraud. The four-fifths rule and the p% score then compare the rates of the *favourable*
        prediction (the negative one), the equal opportunity score its rate among people whose true
        label is favourable (1 - FPR), and the Theil index counts a favourable prediction as the
        benefit. The score's direction stays with the positive label, so ranking and calibration
        metrics do not change.
    weight : str or None, default=None
        A column of sample weights (survey or importance weights; finite, >= 0): every count becomes
        the sum of its rows' weights and every size Kish's effective sample size (see ``sample_weight``
        of the metric functions). Rows with a missing weight or a weight of 0 are excluded, counted.
    label_words : tuple of (str, str), default=()
        Optional words for the label's values, as ``(value as text, word)`` pairs (a dict is accepted), e.g.
        ``{"yes": "denied", "no": "approved"}``: findings then say "were denied" and "labelled approved"
        instead of "were predicted deny = yes" and "labelled deny = no" (``_review.outcome_words``). Words
        only: no number depends on them.
    time : str or None, default=None
        A column of times (dates, datetimes, ISO 8601 text, or integers such as a week number or a
        release), read as the data gives them: a time zone is kept and periods follow its local
        calendar. Only :func:`over_time` reads it, to assign each row to a period; every other
        metric ignores it. Rows without a time are left out of the periods, counted.
    """

    label: str
    positive_label: Any
    scores: tuple = ()
    predicted_label: Optional[str] = None
    protected: tuple = ()
    indicators: tuple = ()
    intersect: bool = True
    min_size: int = 30
    n_bins: int = 4
    indicator_threshold: float = 0.5
    all_classes: bool = False
    positive_outcome: str = "favourable"
    weight: Optional[str] = None
    label_words: tuple = ()
    time: Optional[str] = None

    def __post_init__(self):
        if self.time is not None and (not isinstance(self.time, str) or not self.time):
            raise ValueError(TIME_MESSAGE.format(got=self.time))
        if self.positive_outcome not in OUTCOMES:
            raise ValueError(OUTCOME_MESSAGE.format(got=self.positive_outcome))
        words = self.label_words.items() if isinstance(self.label_words, dict) else self.label_words
        try:   # hashable (value text, word) pairs; an empty word means none
            pairs = tuple((str(value), " ".join(str(word).split())) for value, word in words)
        except (TypeError, ValueError):
            raise ValueError(WORDS_MESSAGE.format(got=self.label_words)) from None
        object.__setattr__(self, "label_words", tuple((v, w) for v, w in pairs if w))

    @property
    def adverse(self) -> bool:
        """Whether a positive prediction is adverse for the person (``positive_outcome == 'adverse'``)."""
        return self.positive_outcome == "adverse"
