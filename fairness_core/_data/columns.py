"""ColumnMapping: which columns of a table play which role (label, scores, protected attributes, ...)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


OUTCOMES = ("favourable", "adverse")
OUTCOME_MESSAGE = ("The 'positive_outcome' of a ColumnMapping says whether a positive prediction is good or bad for "
                   "the person: 'favourable' or 'adverse'. Got {got!r} instead.")


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
        metrics do not change (ARCHITECTURE §5.0).
    weight : str or None, default=None
        A column of sample weights (survey or importance weights; finite, >= 0): every count becomes
        the sum of its rows' weights and every size Kish's effective sample size (see ``sample_weight``
        of the metric functions). Rows with a missing weight or a weight of 0 are excluded, counted.
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

    def __post_init__(self):
        if self.positive_outcome not in OUTCOMES:
            raise ValueError(OUTCOME_MESSAGE.format(got=self.positive_outcome))

    @property
    def adverse(self) -> bool:
        """Whether a positive prediction is adverse for the person (``positive_outcome == 'adverse'``)."""
        return self.positive_outcome == "adverse"
