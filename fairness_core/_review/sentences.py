"""The sentences of findings: rates, ratios, intervals and references written as words."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from .._data.checks import check_option
from .._disparity.compare import keyword
from .outcome_words import NEUTRAL


TEXT_MESSAGE = "The {name!r} parameter of {func} must be a non-empty str or None. Got {got!r} instead."


ADJUST_NAMES = {"max_t": "max-t", "bonferroni": "Bonferroni", "holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}

# Words per rate: (label, who the rate is about, what happened to them, who the denominator counts).
# {pos} / {neg}: the positive / negative prediction; {pos_out} / {neg_out}: the actual outcomes.
_WORDS = {
    "selection_rate": ("selection rate", "", "were {pos}", "people"),
    "true_positive_rate": ("true positive rate", " who {pos_out}", "were {pos}", "people who {pos_out}"),
    "false_positive_rate": ("false positive rate", " who {neg_out}", "were {pos}", "people who {neg_out}"),
    "false_negative_rate": ("false negative rate", " who {pos_out}", "were {neg}", "people who {pos_out}"),
    "false_omission_rate": ("false omission rate", " who were {neg}", "{pos_out}", "people who were {neg}"),
    "false_discovery_rate": ("false discovery rate", " who were {pos}", "{neg_out}", "people who were {pos}"),
    "error_rate": ("error rate", "", "received a wrong prediction", "people"),
}


# Whether a rate counts positive predictions (selection, TPR, and the false positives of FPR and FDR) or
# negative ones (the false negatives of FNR and FOR); the error rate counts wrong predictions of either kind.
_COUNTS_POSITIVE = {"selection_rate": True, "true_positive_rate": True, "false_positive_rate": True,
                    "false_discovery_rate": True, "false_negative_rate": False, "false_omission_rate": False}


def higher_is_adverse(rate: str, positive_outcome: str = "favourable", func: str = "rate_findings") -> bool:
    """Whether a higher `rate` is worse for the people it describes.

    A rate of positive predictions (selection rate, true and false positive rates, false discovery
    rate) is the rate of an adverse decision when the positive prediction is adverse (a detention),
    and of a favourable one when it is favourable (a loan); a rate of negative predictions (false
    negative and false omission rates) the other way round; a wrong prediction (error rate) is
    always adverse. This is the definitions page's guide: punitive decisions look at the false
    positive and false discovery rates, assistive ones at the false negative and false omission rates.

    Parameters
    ----------
    rate : str
        A rate name (``_WORDS``), e.g. ``'selection_rate'``.
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        Whether a positive prediction is good or bad for the person.
    func : str
        The caller, named in the error message.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        For a `positive_outcome` other than 'favourable' or 'adverse'.

    Examples
    --------
    >>> higher_is_adverse("selection_rate"), higher_is_adverse("false_positive_rate", "adverse")
    (False, True)
    """
    check_option(positive_outcome, ("favourable", "adverse"), "positive_outcome", func)
    if rate == "error_rate":
        return True
    return _COUNTS_POSITIVE[rate] == (positive_outcome == "adverse")


# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------

_NAN2 = (float("nan"), float("nan"))


class _Texts:
    """The words for the prediction and the outcomes, with neutral defaults (``outcome_words.NEUTRAL``)."""

    def __init__(self, func, positive_text, negative_text, positive_outcome_text, negative_outcome_text):
        for name, value in (("positive_text", positive_text), ("negative_text", negative_text),
                            ("positive_outcome_text", positive_outcome_text),
                            ("negative_outcome_text", negative_outcome_text)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValueError(TEXT_MESSAGE.format(name=name, func=func, got=value))
        neutral = NEUTRAL.texts()   # no label named: the words of outcome_words for positive and negative labels
        self.pos = positive_text.strip() if positive_text else neutral["positive_text"]
        if negative_text:
            self.neg = negative_text.strip()
        else:
            self.neg = f"not {self.pos}" if positive_text else neutral["negative_text"]
        self.pos_out = positive_outcome_text.strip() if positive_outcome_text else neutral["positive_outcome_text"]
        self.neg_out = negative_outcome_text.strip() if negative_outcome_text else neutral["negative_outcome_text"]

    def words(self, rate: str) -> tuple[str, str, str, str]:
        label, who, what, people = _WORDS[rate]
        kw = {"pos": self.pos, "neg": self.neg, "pos_out": self.pos_out, "neg_out": self.neg_out}
        return label, who.format(**kw), what.format(**kw), people.format(**kw)


def _isnan(x) -> bool:
    return x is None or (isinstance(x, (float, np.floating)) and np.isnan(x))


def _int(x) -> int:
    return -1 if _isnan(x) else int(x)


def _pct(v: float) -> str:
    """A rate as a percentage: 44.8 %; two significant digits below 0.1 %."""
    p = 100.0 * float(v)
    if 0 < abs(p) < 0.05:
        return f"{p:.2g} %"
    return f"{p:.1f} %"


def _rate_text(k: int, n: int, v: float) -> str:
    """A rate as a percentage, or as 'k of n' when it is 0 or 1 (a ratio cannot describe those)."""
    if _isnan(v):
        return "undefined"
    if k >= 0 and n > 0 and (k == 0 or k == n):
        return f"{k:,} of {n:,}"
    return _pct(v)


def _ratio_text(r: float) -> str:
    return f"{r:,.2f}"


def _fraction_text(r: float) -> str:
    """A ratio below 1 ('0.44'), with two significant digits below 0.1 ('0.012')."""
    return f"{r:.2f}" if r >= 0.1 or r == 0 else f"{r:.2g}"


def _points(d: float) -> str:
    return f"{100.0 * d:.1f}"


def _interval_text(low: float, high: float, fmt) -> Optional[str]:
    """'1.86–2.25', '-23.1 to -14.2', or '1.47 or more (no upper bound)'; None if undefined."""
    if _isnan(low) or _isnan(high):
        return None
    if np.isinf(high):
        return f"{fmt(low)} or more (no upper bound)"
    if low < 0 or high < 0:
        return f"{fmt(low)} to {fmt(high)}"
    return f"{fmt(low)}–{fmt(high)}"


def _level_text(level: float) -> str:
    return f"{100.0 * level:g} %"


def _adjust_text(adjust: Optional[str], n_comparisons: Optional[int]) -> str:
    if not adjust:
        return ""
    return f" ({ADJUST_NAMES.get(adjust, adjust)}-adjusted for {n_comparisons} comparisons)"


def _reduced_interval_text(level_txt: Optional[str], interval: Optional[str], reduction: str, n: int) -> str:
    """' (95 % interval for the largest of 4 comparisons: 19.1–27.0 points)', or '' without an interval.

    The interval of a max or mean holds for the reduction over every comparison (its low end at the
    comparisons' simultaneous level), so it may differ from the one comparison's own interval that a
    finding beside it gives: it says so.
    """
    if not (level_txt and interval):
        return ""
    if n <= 1:
        return f" ({level_txt} interval {interval})"
    what = "largest" if reduction == "max" else "mean"
    return f" ({level_txt} interval for the {what} of {n:,} comparisons: {interval})"


def _reference_name(reference: str, mode: str, *, people: bool = False) -> str:
    """How the reference reads: everyone else, the whole population, or the subgroup's name
    (``people in X`` after 'the rate of', with `people`)."""
    if keyword(mode) == "rest":
        return "everyone else"
    if keyword(mode) == "overall":
        return "the whole population"
    return f"people in {reference}" if people else reference


def _lead(subgroup: str, reference: str, mode: str, rate: str, a: float, b: float, ratio: float,
          texts: _Texts) -> str:
    """'People in X who did not reoffend were flagged high risk at 2.04× the rate of everyone else'.

    A lower rate reads as a fraction of the reference's, '... at 0.44× the rate of everyone else'
    (`ratio` is max/min, so that is 1 / ratio), not 'at a lower rate, by a factor of 2.27'.
    """
    _, who, what, _ = texts.words(rate)
    subject = f"People in {subgroup}{who} {what}"
    ref = _reference_name(reference, mode, people=True)
    if a == b:
        return f"{subject} at the same rate as {ref}"
    if np.isinf(ratio):
        side = "higher" if a > b else "lower"
        return f"{subject} at a {side} rate than {ref}"
    if a > b:
        return f"{subject} at {_ratio_text(ratio)}× the rate of {ref}"
    return f"{subject} at {_fraction_text(1.0 / ratio)}× the rate of {ref}"


def _few_text(subgroup, size, den, reference, mode, ref_den, min_size, rate, texts: _Texts) -> str:
    """'Native American has too few people to assess at this sample size (18; minimum 30)'."""
    label, _, _, people = texts.words(rate)
    if 0 <= size < min_size:
        return f"{subgroup} has too few people to assess at this sample size ({size:,} people; minimum {min_size})"
    if 0 <= den < min_size:
        return (f"{subgroup} has too few {people} to assess the {label} at this sample size "
                f"({den:,} of {size:,} people; minimum {min_size})")
    ref = _reference_name(reference, mode)
    ref = ref[0].upper() + ref[1:] if keyword(mode) in ("rest", "overall") else ref
    if 0 <= ref_den < min_size:
        return (f"{ref} has too few {people} to assess the {label} at this sample size "
                f"({ref_den:,} {people}; minimum {min_size})")
    return f"{ref} has too few people to assess at this sample size (minimum {min_size})"


# ---------------------------------------------------------------------------------------------
# Sentences
# ---------------------------------------------------------------------------------------------


def _details(f: dict, rate: str, texts: _Texts, n_comparisons) -> str:
    """The parenthesis: rates, difference, intervals, group sizes."""
    label, _, _, people = texts.words(rate)
    a_txt = _rate_text(f["numerator"], f["denominator"], f["subgroup_value"])
    b_txt = _rate_text(f["reference_numerator"], f["reference_denominator"], f["reference_value"])
    parts = [f"{label} {a_txt} vs {b_txt}, a difference of {_points(f['difference'])} percentage points"]
    if np.isinf(f["ratio"]):
        parts[0] += "; the ratio is infinite because one rate is 0"
    if f["level"] is not None:
        r_int = None if np.isinf(f["ratio"]) else _ratio_interval(f)
        d_int = _interval_text(*f["difference_ci"], _points)
        got = [p for p in ((f"ratio {r_int}" if r_int else None),
                           (f"difference {d_int} points" if d_int else None)) if p]
        if got:
            parts.append(f"{_level_text(f['level'])} interval{'s' if len(got) > 1 else ''}"
                         f"{_adjust_text(f['adjust'], n_comparisons)}: " + ", ".join(got))
        else:
            parts.append("no interval could be computed")
    else:
        parts.append("no interval computed")
    if f["denominator"] >= 0 and f["reference_denominator"] >= 0:
        parts.append(f"{f['denominator']:,} vs {f['reference_denominator']:,} {people}")
    return "; ".join(parts)


def _ratio_interval(f: dict) -> Optional[str]:
    """The ratio's interval in the lead's orientation: a / b, so a lower rate's '0.44×' has '0.31–0.59'."""
    low, high = f["ratio_ci"]
    if f["subgroup_value"] >= f["reference_value"] or _isnan(low) or _isnan(high):
        return _interval_text(low, high, _ratio_text)
    return _interval_text(1.0 / high, 1.0 / low, _fraction_text)


def _disparity_sentence(f: dict, rate: str, texts: _Texts, n_comparisons, min_size) -> str:
    lead = _lead(f["subgroup"], f["reference"], f["reference_mode"], rate, f["subgroup_value"],
                 f["reference_value"], f["ratio"], texts)
    if f["excludes_parity"] is False and f["subgroup_value"] != f["reference_value"]:
        lead += ", but the disparity is not distinguishable from parity at this sample size"
    sentence = f"{lead} ({_details(f, rate, texts, n_comparisons)})."
    if f["drives"]:
        what = f["drives"].replace("drives the max ", "")
        among = "pairs" if keyword(f["reference_mode"]) == "pairwise" else "subgroups"
        sentence += f" It is the largest {what} among the {among} assessed."
    if f["small"]:
        sentence += (" " + _few_text(f["subgroup"], f["size"], f["denominator"], f["reference"],
                                     f["reference_mode"], f["reference_denominator"], min_size, rate, texts)
                     + ", so treat it with caution.")
    return sentence


def _too_small_sentence(f: dict, rate: str, texts: _Texts, min_size) -> str:
    few = _few_text(f["subgroup"], f["size"], f["denominator"], f["reference"], f["reference_mode"],
                    f["reference_denominator"], min_size, rate, texts)
    lead = _lead(f["subgroup"], f["reference"], f["reference_mode"], rate, f["subgroup_value"],
                 f["reference_value"], f["ratio"], texts)
    label = texts.words(rate)[0]
    a_txt = _rate_text(f["numerator"], f["denominator"], f["subgroup_value"])
    b_txt = _rate_text(f["reference_numerator"], f["reference_denominator"], f["reference_value"])
    detail = f"{label} {a_txt} vs {b_txt}"
    a_int = _interval_text(*f["subgroup_value_ci"], _pct) if f["level"] is not None else None
    if a_int:
        detail += f"; {_level_text(f['level'])} interval of the rate in {f['subgroup']} {a_int}"
    return (f"{few}. The observed disparity is large but rests on too few people to rank: {lead[0].lower() + lead[1:]} ({detail}; "
            f"{f['denominator']:,} vs {f['reference_denominator']:,} {texts.words(rate)[3]}).")


# ---------------------------------------------------------------------------------------------
# reduction_finding
# ---------------------------------------------------------------------------------------------


def _zero_side(row: pd.Series, mode: str, people: str) -> str:
    """'Asian: 0 of 23 people who did not reoffend' for the side of an infinite ratio whose rate is 0."""
    if float(row["subgroup_value"]) == 0:
        name, n = str(row["subgroup"]), _int(row.get("denominator", np.nan))
    else:
        name, n = _reference_name(str(row["reference"]), mode), _int(row.get("reference_denominator", np.nan))
    return f"{name}: 0 of {n:,} {people}" if n >= 0 else f"{name}: a rate of 0"
