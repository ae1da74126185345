"""Labels, help texts and number formats shared by the pages."""

from __future__ import annotations

import math
import re

import numpy as np

from fairness_core import DENOMINATOR_NAMES, reference_keyword, wilson_interval
from fairness_core.plotting import RATE_LABELS

# Widget labels named by the issue, so documentation and tests can find them.
LABEL_COLUMN = "Label column"
POSITIVE_LABEL = "Positive label"
OUTCOME = "For the person, a positive prediction is"
SCORE_COLUMN = "Score column"
PREDICTED_COLUMN = "Predicted label column"
PROTECTED = "Protected attributes"
IDENTITY = "Identity columns"
THRESHOLD = "Decision threshold"
POWER_P = "Power mean p"
OVERALL_WEIGHT = "Overall AUC weight"
N_BINS = "Number of bins"
STRATEGY = "Binning strategy"
DISTANCE = "Distance"
REDUCTION = "Reduction"
REFERENCE = "Reference"
REFERENCE_GROUP = "Reference subgroup"
MODEL = "Model"
INCLUDE_SMALL = "Include small subgroups in summaries"
ORDER_SUBGROUPS = "Order subgroups"
NO_PREDICTED = "(no predicted label)"  # the option for None, never compared with a column name
INTERSECT = "Intersect protected attributes"
ATTRIBUTE_BINS = "Bins for numeric attributes"
MIN_SIZE = "Minimum subgroup size"
SLICE_BY = "Slice by"
KEEP_ALL_CLASSES = "Keep all classes"
SHOW_INTERVALS = "Show intervals"
CONFIDENCE_LEVEL = "Confidence level"
N_BOOT = "Bootstrap replicates"
ADJUST = "Multiple comparisons"
MAX_DIFFERENCE = "Maximum difference"
UPLOAD = "Upload a CSV or Parquet file"
COUNTED_INTERVALS = ("Data counted where it lies: the bootstrap resamples counts per membership pattern, which "
                     "DuckDB counts with one more pass over the rows per table and per threshold.")
COUNTED_SLICE = ("Not available for data on this machine counted where it lies: every row is counted. To analyse a "
                 "part, point the source at the files of that part, or analyse a random sample (Data page).")

LEVELS = (0.90, 0.95, 0.99)
N_BOOTS = (200, 500, 1000, 2000)
# "Multiple comparisons" choice -> fairness_core's `adjust` option.
ADJUSTMENTS = {"none": None, "bonferroni": "bonferroni", "holm": "holm", "fdr_bh": "fdr_bh"}
ADJUST_LABELS = {"none": "None", "bonferroni": "Bonferroni", "holm": "Holm", "fdr_bh": "Benjamini–Hochberg"}
STATUS_BADGES = {"pass": ("Pass", "green"), "fail": ("Fail", "red"), "inconclusive": ("Inconclusive", "orange"),
                 "not_assessable": ("Not assessable", "gray")}
STATUS_WORDS = {"pass": "pass", "fail": "fail", "inconclusive": "inconclusive", "not_assessable": "not assessable"}

DISTANCE_LABELS = {"diff": "difference |a - b|", "ratio": "ratio (larger / smaller)"}
REDUCTION_LABELS = {"max": "max", "mean": "mean"}
REFERENCE_LABELS = {
    "rest": "rest of the population",
    "overall": "whole population",
    "pairwise": "every other subgroup (pairwise)",
    "named": "a chosen subgroup",
}
# Rate name in group_rates -> metric name of rate_disparity.
RATE_TO_METRIC = {"selection_rate": "statistical_parity", **{k: k for k in RATE_LABELS if k != "selection_rate"}}

HELP = {
    OUTCOME: "Whether the event the score predicts is good or bad for the person it is about. Adverse (deny, "
             "default, reject, flag as high risk, remove as toxic): the four-fifths rule and the p% score compare "
             "the rates of the favourable prediction, the equal opportunity score its rate among people whose "
             "true label is favourable, and the Theil index counts a favourable prediction as the benefit. The "
             "score keeps its meaning: AUCs and calibration do not change.",
    UPLOAD: "One row per prediction: the true label, model score(s) and/or a predicted label, and protected "
            "attributes. Files up to 1 GB. **Parquet is recommended** for large files: it is several times smaller "
            "than the same CSV and faster to read, and keeps each column's type. Nothing is stored after your "
            "session.",
    POWER_P: "Exponent of the power mean over subgroups. Negative values stress the worst subgroups "
             "(-5 in the Jigsaw competition); 1 is the plain mean; 0 the geometric mean.",
    OVERALL_WEIGHT: "Weight of the overall AUC in the bias AUC score; the rest goes to the mean of the "
                    "three power means.",
    THRESHOLD: "A row is predicted positive when its score is at least this value (on the score's own scale).",
    DISTANCE: "How a subgroup's rate a is compared with the reference rate b: |a - b| (perfect 0) or "
              "max(a, b) / min(a, b) (perfect 1).",
    REDUCTION: "How the per-subgroup disparities are summarised: the largest, or the mean. Small subgroups "
               "and undefined values are left out and counted.",
    REFERENCE: "What each subgroup is compared with.",
    N_BINS: "Number of probability bins for the reliability diagrams and ECE.",
    STRATEGY: "uniform: equal-width bins over [0, 1]; quantile: bins holding equal numbers of rows.",
    INTERSECT: "On: one subgroup per observed combination of the protected attributes (e.g. race and sex). "
               "Off: each value of each attribute is its own subgroup.",
    ATTRIBUTE_BINS: "A numeric protected attribute with more than 10 distinct values is cut into this many "
                    "quantile bins, named by their ranges.",
    MIN_SIZE: "Smaller subgroups stay in every table, flagged 'small', and are left out of summaries.",
    SLICE_BY: "Restrict every page to a slice of the rows: choose columns, then the values (or the range) "
              "to keep. All conditions must hold.",
    KEEP_ALL_CLASSES: "For a label with more than two classes: binary metrics compare the positive label with "
                      "all other classes; the Class-wise bias page uses every class.",
    SHOW_INTERVALS: "Confidence intervals on every figure, table and chart of every page: Wilson intervals for "
                    "rates and shares, DeLong intervals for AUCs, Fisher's z for the correlation score, and a "
                    "bootstrap of the counts (stratified by subgroup) for disparities, power means, calibration "
                    "errors, the Theil index, class-wise and dataset metrics. The bootstrap uses the fixed seed 0, "
                    "so the same data and options always give the same intervals.",
    CONFIDENCE_LEVEL: "Coverage of every interval shown.",
    N_BOOT: "Bootstrap resamples for the intervals of disparities and other composite figures; more resamples "
            "give steadier interval ends and take longer. Seed 0: the same data and options give the same "
            "intervals.",
    ADJUST: "With many subgroups, some intervals exclude parity by chance. Bonferroni and Holm widen the "
            "intervals of each table (and adjust its parity marks) so that the chance of any false mark stays "
            "below 1 - level; Benjamini-Hochberg controls the share of false marks instead.",
    MAX_DIFFERENCE: "Policy bound for a difference |a - b| of rates (in [0, 1]): each selected rate's largest "
                    "difference, and equalized odds, must be at most this value.",
}

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&])")
_WWW = re.compile(r"(www)(?=\\\.)", re.IGNORECASE)
_JOINED = re.compile(r"([:@])(?!\s)")  # a ':' or '@' before a space (or a line's end) starts nothing
ZWJ = "\u200d"


def md(text: object) -> str:
    r"""Data text made safe for every element that renders Markdown, so it is shown literally.

    Streamlit renders Markdown in st.markdown, captions, st.error/warning/info/success, toasts,
    st.metric labels and values, ``help=`` tooltips, widget labels, radio options, expander, tab,
    status and button labels. Pass every piece of text that comes from the data (file, column,
    subgroup, class and label names, model names, messages built from them) through this
    function, once, and never anything else.

    Parameters
    ----------
    text : object
        Any value; converted with ``str``.

    Returns
    -------
    str
        The text with

        - a backslash before each of ``\ ` * _ { } [ ] ( ) # + - . ! | < > ~ $ &``: no link,
          image, HTML, emphasis, code, heading, list, table, strikethrough, LaTeX (``$``) or
          character reference (``&lt;``) can form;
        - a zero-width joiner (U+200D) after every ``:`` and ``@`` that is not followed by a space,
          and inside every ``www.``:
          Streamlit's ``:smile:`` emoji, ``:material/...:`` icons and ``:red[...]`` directives,
          and the bare-URL and e-mail autolinks of GitHub Markdown (``http://2130706433/``,
          ``www.x.example``, ``a@x.example``; found after escapes are resolved, so a backslash
          cannot stop them) never form;
        - line breaks (CR, LF) as spaces, so a value cannot start a heading, a list or a code block.

        Displayed, it reads as the original text (the joiners are invisible).

    Examples
    --------
    >>> md("[click](http://x.example/)")
    '\\[click\\]\\(http:\u200d//x\\.example/\\)'
    >>> md(":red[x] a@b. Note: plain")
    ':\u200dred\\[x\\] a@\u200db\\. Note: plain'
    """
    escaped = _MD_SPECIAL.sub(r"\\\1", str(text).replace("\r", " ").replace("\n", " "))
    return _JOINED.sub(r"\1" + ZWJ, _WWW.sub(r"\1" + ZWJ, escaped))


def num(value: float, digits: int = 4) -> str:
    """Format a metric value by its magnitude: `digits` significant digits.

    Values from 0.0001 up are written in full with `digits` significant digits (0.4485, 2.271,
    0.05234, 1,234); smaller nonzero values in scientific notation (2.345e-5), so a nonzero value
    never reads 0.0000; 0 is "0", NaN "undefined", infinity "∞" (the caption next to the number
    says why).

    Examples
    --------
    >>> num(0.448468), num(2.27083), num(0.0523449), num(2.3456e-5), num(0.0), num(float("inf"))
    ('0.4485', '2.271', '0.05234', '2.346e-5', '0', '∞')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    value = float(value)
    if math.isnan(value):
        return "undefined"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")  # rounded first: 0.99996 -> 1.000e+00
    exponent = int(exponent)
    if exponent < -4:
        return f"{mantissa}e{exponent}"
    return f"{value:,.{max(digits - 1 - exponent, 0)}f}"


def level_text(level: float) -> str:
    """'95 %' for 0.95."""
    return f"{level * 100:g} %"


def ci_text(low: float, high: float, level: float, digits: int = 4) -> str:
    """'95 % CI 1.861–2.253' (Markdown-safe; ends formatted by :func:`num`); 'undefined' ends when there is none."""
    if _undefined(low) or _undefined(high):
        return f"{level_text(level)} CI undefined"
    return f"{level_text(level)} CI {num(low, digits)}–{num(high, digits)}"


def _undefined(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _pair(subgroup: str, reference: str) -> str:
    """'Other vs rest', 'A vs B', 'Other vs whole population' (Markdown-escaped)."""
    ref = {"rest": "rest", "overall": "whole population"}.get(reference, reference)
    return f"{md(subgroup)} vs {md(ref)}"


def _comparison_size(row, rate: str | None) -> str:
    """'244 actual negatives', '244 and 310 actual negatives' (pair), or '1,234 rows'."""
    if rate is not None and "denominator" in row:
        den, ref_den = int(row["denominator"]), int(row["reference_denominator"])
        who = DENOMINATOR_NAMES[rate]
        if row["reference"] in ("rest", "overall"):
            return f"{den:,} {who}"
        return f"{den:,} and {ref_den:,} {who}"
    return f"{int(row['size']):,} rows"


def _zero_side(row, rate: str) -> str:
    """'Other has a false positive rate of 0 (0 of 69 actual negatives)' for an infinite ratio."""
    label = RATE_LABELS[rate].lower()
    if float(row["subgroup_value"]) == 0:
        name, den = md(row["subgroup"]), row.get("denominator")
    else:
        name = {"rest": "The rest", "overall": "The whole population"}.get(row["reference"], md(row["reference"]))
        den = row.get("reference_denominator")
    counted = f" (0 of {int(den):,} {DENOMINATOR_NAMES[rate]})" if den is not None else ""
    return f"{name} has a {label} of 0{counted}"


def disparity_caption(result, rate: str | None) -> str:
    """The line under a reduced-disparity tile: its worst comparison and size, zeros, left-outs, interval.

    `result` is a DisparityResult (rate disparity or equalized odds); `rate` the rate it compares
    (None for equalized odds, whose comparisons carry no single denominator). Markdown-safe.
    """
    table = result.table
    used = table if result.n_small_excluded == 0 else table[~table["small"].astype(bool)]
    disparity = used["disparity"].astype(float)
    parts = []
    if result.reduction == "max" and result.worst is not None:
        row = table[(table["subgroup"] == result.worst[0]) & (table["reference"] == result.worst[1])].iloc[0]
        parts.append(f"{_pair(row['subgroup'], row['reference'])} ({_comparison_size(row, rate)})")
        if math.isinf(result.value):
            if rate is not None:
                parts.append(_zero_side(row, rate))
            else:
                larger = "true" if float(row["tpr_disparity"]) >= float(row["fpr_disparity"]) else "false"
                parts.append(f"its {larger} positive rate is 0 on one side")
    elif result.reduction == "mean":
        finite = used[np.isfinite(disparity)]
        largest = ""
        if len(finite):
            row = finite.loc[finite["disparity"].astype(float).idxmax()]
            largest = f"; largest: {_pair(row['subgroup'], row['reference'])} ({_comparison_size(row, rate)})"
        parts.append(f"Mean of {result.n_used:,} comparison{'s' if result.n_used != 1 else ''}{largest}")
        if result.n_infinite:
            zeros = used[np.isinf(disparity)]
            which = "; ".join(_zero_side(r, rate) for _, r in zeros.iterrows()) if rate is not None else ""
            parts.append(f"{result.n_infinite:,} infinite left out" + (f": {which}" if which else ""))
    if result.n_undefined:
        parts.append(f"{result.n_undefined:,} undefined left out")
    if math.isnan(result.value):
        small = f" ({result.n_small_excluded:,} with a small subgroup)" if result.n_small_excluded else ""
        parts.append(f"no comparison could be used{small}")
    elif result.level is not None:
        interval = ci_text(result.ci_low, result.ci_high, result.level)
        if result.n_boot_undefined:
            interval += f" ({result.n_boot_undefined:,} of {result.n_boot:,} resamples undefined)"
        parts.append(interval)
    return " · ".join(parts)


def ratio_score_caption(result, level: float | None) -> str:
    """The line under a p% / equal opportunity score tile: the lowest subgroup, its size and, when the
    library gives one, the interval of the minimum. Markdown-safe."""
    parts = []
    if result.worst is not None:
        row = result.table[result.table["subgroup"] == result.worst].iloc[0]
        parts.append(f"Lowest: {md(result.worst)} vs rest ({int(row['size']):,} rows)")
    else:
        parts.append("no subgroup could be used")
    low, high = getattr(result, "ci_low", float("nan")), getattr(result, "ci_high", float("nan"))
    if level is not None:
        parts.append(ci_text(low, high, level) if not (_undefined(low) or _undefined(high))
                     else "no interval is computed for this score")
    return " · ".join(parts)


def bias_auc_caption(result, level: float) -> str:
    """The bootstrap interval of the bias AUC score (and how many resamples left it undefined)."""
    low, high = getattr(result, "ci_low", float("nan")), getattr(result, "ci_high", float("nan"))
    text = ci_text(low, high, level)
    n_undefined, n_boot = getattr(result, "n_boot_undefined", 0), getattr(result, "n_boot", 0)
    if n_undefined:
        text += f" ({n_undefined:,} of {n_boot:,} resamples undefined)"
    return text


def theil_caption(result) -> str:
    """The line under a Theil index tile (a TheilResult): its bootstrap interval, how many resamples
    left it undefined, and the bootstrap size."""
    return (bias_auc_caption(result, result.level)
            + f" · bootstrap with {result.n_boot:,} resamples (seed 0)")


def correlation_caption(result) -> str:
    """The line under the correlation score tile (a CorrelationScoreResult): the score's interval and
    Fisher's z interval of r behind it. Markdown-safe."""
    return (ci_text(result.ci_low, result.ci_high, result.level)
            + f" · from Fisher's z interval of r, {num(result.r_ci_low)} to {num(result.r_ci_high)} "
              f"(r = {num(result.r)}, {result.n:,} rows)")


def overall_auc_caption(table, level: float) -> str:
    """DeLong's interval of the overall AUC (from ``table.attrs``), with its note when it is not DeLong's."""
    low, high = table.attrs.get("overall_auc_ci", (float("nan"), float("nan")))
    note = table.attrs.get("overall_auc_ci_note") or ""
    return ci_text(float(low), float(high), level) + (f" ({md(note)})" if note else "")


def power_mean_caption(result, table, column: str, include_small: bool, level: float | None) -> str:
    """The line under a power-mean tile: the power mean's bootstrap interval, then the lowest AUC of
    `column` among the subgroups used and its size. Markdown-safe."""
    used = table if include_small else table[~table["small"].astype(bool)]
    values = used[column].astype(float)
    parts = []
    if level is not None:  # first: the interval is the power mean's, not the lowest subgroup's
        low, high = (getattr(result, "power_mean_ci", None) or {}).get(column, (float("nan"), float("nan")))
        parts.append(ci_text(low, high, level))
    if values.notna().any():
        row = used.loc[values.idxmin()]
        parts.append(f"Lowest: {md(row['subgroup'])} {num(float(row[column]))} ({int(row['size']):,} rows: "
                     f"{int(row['n_positive']):,} positive, {int(row['n_negative']):,} negative)")
    else:
        parts.append("no subgroup has this AUC defined")
    return " · ".join(parts)


def binned_auc_caption(largest: float) -> str:
    """The note under AUCs computed from binned score levels, with the largest bound on their error."""
    return (f"Each AUC is computed from the score's counts in equal bins, so it lies within its max binning error "
            f"(a column of the table; largest {num(largest)}) of the exact AUC. For exact AUCs choose AUC score "
            "levels: Exact on the Data page.")


def base_rate_caption(scored, level: float | None) -> str:
    """'3,251 of 7,214 rows positive · 95 % CI 0.439–0.462 (Wilson)' under a base-rate tile."""
    n = int(scored.n_rows)
    k = int(round(scored.base_rate * n)) if n else 0   # the base rate is k / n exactly
    out = f"{k:,} of {n:,} rows positive"
    if level is not None and n:
        low, high = wilson_interval(k, n, level)
        out += f" · {ci_text(float(low), float(high), level, 3)} (Wilson)"
    return out


def small_rows_text(subgroups) -> str:
    """'14 of 34 subgroups are smaller than 30 rows; they hold 120 rows (1.7 %) ...' (Markdown-safe)."""
    k, n_small = len(subgroups.names), int(subgroups.small.sum())
    if n_small == 0:
        return f"All {k:,} subgroups have at least {subgroups.min_size:,} rows."
    rows, total = subgroups.n_rows_small, subgroups.n_samples
    if rows is None:   # overlapping subgroups counted where the data lies: rows in several are not known
        return (f"{n_small:,} of {k:,} subgroups are smaller than {subgroups.min_size:,} rows; they are left out of "
                "summaries unless small subgroups are included.")
    share = f" ({100 * rows / total:.1f} %)" if total else ""
    return (f"{n_small:,} of {k:,} subgroups are smaller than {subgroups.min_size:,} rows; they hold {rows:,} of "
            f"{total:,} rows{share}, left out of summaries unless small subgroups are included.")


def classwise_caption(result) -> str:
    """The line under the unweighted average bias tile (an UnweightedAverageBiasResult): the interval of
    the mean, then the class with the largest reduced value and how many subgroups it rests on. Markdown-safe."""
    per = result.per_class[result.per_class["value"].notna()]
    parts = []
    if result.level is not None and not math.isnan(result.value):  # first: the interval is the mean's
        parts.append(bias_auc_caption(result, result.level))
    if len(per):
        row = per.loc[per["value"].abs().idxmax()]
        parts.append(f"Largest: class {md(row['class'])} {num(float(row['value']))} "
                     f"({int(row['n_subgroups']):,} subgroups)")
    else:
        parts.append(md(result.reason) if result.reason else "no class could be used")
    return " · ".join(parts)


def edf_caption(result) -> str:
    """The line under the smoothed EDF tile (a SmoothedEdfResult): the pair that attains it with their
    sizes, then the interval. Markdown-safe."""
    parts = []
    if result.pair is not None:
        sizes = result.table.set_index("subgroup")["size"]
        a, b = result.pair
        parts.append(f"{md(a)} ({int(sizes[a]):,} rows) vs {md(b)} ({int(sizes[b]):,} rows)")
    if result.level is not None and not math.isnan(result.value):
        parts.append(bias_auc_caption(result, result.level))
    return " · ".join(parts)


def verdict_markdown(verdict) -> str:
    """A policy verdict as a coloured badge and its sentence (escaped)."""
    label, color = STATUS_BADGES[verdict.status]
    return f":{color}-badge[{label}] {md(verdict.sentence)}"

def outcome_sentence(label, positive, outcome: str, guessed_because: str = "") -> str:
    """The Data page's one sentence on what a positive prediction means for the person (Markdown-safe).

    >>> outcome_sentence("deny", "yes", "adverse", "the label's name reads like a harm (deny)")[:58]
    'A positive prediction means deny = yes, which is **adverse**'
    """
    event = f"{md(label)} = {md(positive)}"
    if outcome == "adverse":
        text_ = (f"A positive prediction means {event}, which is **adverse** for the person: the four-fifths rule, "
                 f"the p% and equal opportunity scores and the Theil index compare the favourable prediction (not "
                 f"{event}).")
    else:
        text_ = (f"A positive prediction means {event}, which is **favourable** for the person: the four-fifths "
                 f"rule, the p% and equal opportunity scores and the Theil index compare it.")
    return text_ + (f" Proposed because {md(guessed_because)}; change it above if it is wrong."
                    if guessed_because else "")


# Column headers for every table the pages show (snake_case names from fairness_core).
COLUMN_LABELS = {
    "subgroup": "Subgroup", "size": "Rows", "share": "Share", "n_positive": "Positives",
    "n_negative": "Negatives", "n_background_positive": "Background positives",
    "n_background_negative": "Background negatives", "small": "Small", "note": "Note",
    "tp": "TP", "fp": "FP", "tn": "TN", "fn": "FN", **RATE_LABELS,
    "subgroup_auc": "Subgroup AUC", "bpsn_auc": "BPSN AUC", "bnsp_auc": "BNSP AUC",
    "reference": "Compared with", "reference_size": "Reference rows", "subgroup_value": "Subgroup value",
    "reference_value": "Reference value", "disparity": "Disparity", "tpr_disparity": "TPR disparity",
    "fpr_disparity": "FPR disparity", "passes": "Passes", "verdict": "Verdict", "ece": "ECE", "mce": "MCE",
    "brier_score": "Brier score", "ece_expected": "ECE if calibrated", "ece_debiased": "ECE, bias-corrected",
    "subgroup_expected": "Subgroup ECE if calibrated", "reference_expected": "Reference ECE if calibrated",
    "reason": "Reason", "rows": "Rows", "score": "Score",
    "class": "Class", "n_true": "True rows", "n_predicted": "Predicted rows", "recall": "Recall",
    "precision": "Precision", "fscore": "F-score", "value": "Value", "n_subgroups": "Subgroups",
    "base_rate": "Base rate", "smoothed_positive_rate": "Smoothed positive rate",
    "smoothed_negative_rate": "Smoothed negative rate", "used": "Used",
    "numerator": "Numerator", "denominator": "Denominator", "reference_numerator": "Reference numerator",
    "reference_denominator": "Reference denominator", "small_reason": "Why small", "p_value": "p-value",
    "excludes_parity": "Interval excludes parity", "n_boot_undefined": "Undefined resamples",
    "accuracy": "Accuracy", "f1": "F1", "subgroup_auc_max_binning_error": "Subgroup AUC: max binning error",
    "bpsn_auc_max_binning_error": "BPSN AUC: max binning error",
    "bnsp_auc_max_binning_error": "BNSP AUC: max binning error",
}
DECIMAL_COLUMNS = {*RATE_LABELS, "subgroup_auc", "bpsn_auc", "bnsp_auc", "subgroup_value", "reference_value",
                   "disparity", "tpr_disparity", "fpr_disparity", "ece", "mce", "brier_score", "score", "recall",
                   "ece_expected", "ece_debiased", "subgroup_expected", "reference_expected",
                   "precision", "fscore", "value", "base_rate", "smoothed_positive_rate", "smoothed_negative_rate",
                   "accuracy", "f1", "subgroup_auc_max_binning_error", "bpsn_auc_max_binning_error",
                   "bnsp_auc_max_binning_error"}


def reference_mode(reference) -> str:
    """'rest', 'overall' or 'pairwise' for those keywords (plain strings); 'named' for a subgroup, which
    the pages pass as ``fc.named_reference(name)`` so that a subgroup called "rest" is never the keyword."""
    return reference_keyword(reference) or "named"


def reference_text(reference) -> str:
    """The reference in words (Markdown-safe): 'rest of the population', ..., or 'subgroup <name>'."""
    mode = reference_mode(reference)
    return REFERENCE_LABELS[mode] if mode != "named" else f"subgroup {md(str(reference))}"


def reference_legend(reference) -> str:
    """The legend text of a chart's reference markers.

    Parameters
    ----------
    reference : str or fairness_core.NamedReference
        The keyword ``'rest'``, ``'overall'`` or ``'pairwise'`` (plain strings), or a subgroup as
        ``fc.named_reference(name)``.

    Returns
    -------
    str
        'Rest of population', 'Whole population', or 'Reference: <name>' for a named subgroup, even
        one called "rest" (a named reference equals the keyword's string, so it is told apart by
        its type, never by value). Plain text: the chart escapes it with ``plotting.plot_text``.
    """
    mode = reference_mode(reference)
    return {"rest": "Rest of population", "overall": "Whole population"}.get(mode, f"Reference: {reference}")


def column_config(columns) -> dict:
    """st.dataframe column_config for `columns`: readable headers, metric values to 4 significant digits ("%.4g")."""
    import streamlit as st

    config = {}
    for col in columns:
        label = COLUMN_LABELS.get(col, col)
        bound = next((b for b in ("_ci_low", "_ci_high") if col.endswith(b)), None)
        if bound is not None and col[: -len(bound)] in DECIMAL_COLUMNS:
            base = COLUMN_LABELS.get(col[: -len(bound)], col[: -len(bound)])
            config[col] = st.column_config.NumberColumn(f"{base}: CI {bound[4:]}", format="%.4g")
        elif col == "p_value":
            config[col] = st.column_config.NumberColumn(label, format="%.4g")
        elif col in DECIMAL_COLUMNS:
            config[col] = st.column_config.NumberColumn(label, format="%.4g")
        elif col == "share":
            config[col] = st.column_config.NumberColumn(label, format="percent")
        elif col in WIDE_TEXT_COLUMNS:  # explanations (of an ∞ or an undefined value) read in full, not cut
            config[col] = st.column_config.TextColumn(label, width="large")
        else:
            config[col] = label
    return config


# Text columns that explain a value: drawn wide so that a note is not cut to "one valu…".
WIDE_TEXT_COLUMNS = ("note", "small_reason", "reason")
