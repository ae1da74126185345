"""The release gate: which verdicts decide a review's exit status, and a candidate model's change from a baseline
model judged with paired intervals against a tolerance.

A gate is what a pipeline acts on, so it judges the model, never the data: the rules about the labels (base-rate
disparity) are reported and gate only when named. A candidate gated on change is judged for non-inferiority: the
tolerance is the largest worsening that still counts as no worse, given in the units of a difference of rates (a
rate disparity's under the distance "diff", an AUC's, an ECE's: all differences of probabilities) and converted to
each quantity's own units (``_review.change_levels.change_tolerance``: a ratio of rates, the p% and equal
opportunity scores and the rate disparities under the distance "ratio", gets ``RATIO_PER_DIFFERENCE`` = 2 times
it). A change fails only where the low end of its paired interval of worsening lies beyond its tolerance, the low
ends joint one-sided bounds over every change judged (a max-t over the paired bootstrap's replicates within the
changes drawn together, Bonferroni between those families: ``_review.change_levels``; so a candidate is failed on
a change that is real, whatever the number of changes, with a chance of at most (1 - level) / 2 that an equal
candidate fails); it passes where the high end is within it, that end at the unadjusted level (the high end of the
interval at the review's level: a one-sided bound at 1 - (1 - level) / 2, 97.5 % by default): the candidate passes
only when every change passes, and a claim that holds only if each of its parts holds needs no adjustment (the
intersection-union principle, Berger 1982), so each part is tested at the one-sided level itself and no tighter
bound would keep the chance of passing a candidate worse by more than the tolerance within (1 - level) / 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Optional

import numpy as np
import pandas as pd

from .._policy.verdicts import BOUND_RTOL
from .change_levels import (PROBABILITY_QUANTITIES, RATIO_PER_DIFFERENCE, RATIO_SCORES,  # noqa: F401
                            change_tolerance, is_ratio)

#: +1 where a larger value is worse (a disparity, an ECE), -1 where a smaller one is (a score, an AUC).
WORSE_SIGN = {"equalized_odds": 1, "p_percent_score": -1, "equal_opportunity_score": -1, "subgroup_auc": -1,
              "bpsn_auc": -1, "bnsp_auc": -1, "ece": 1}
QUANTITY_WORDS = {"equalized_odds": "equalized odds disparity", "p_percent_score": "p% score",
                  "equal_opportunity_score": "equal opportunity score", "subgroup_auc": "subgroup AUC",
                  "bpsn_auc": "BPSN AUC", "bnsp_auc": "BNSP AUC", "ece": "ECE"}
#: In a gate's names: every change from the baseline; ``"changes:<quantity>"`` names one quantity's changes.
CHANGES = "changes"
UNKNOWN_RULE_MESSAGE = ("The gate names {names}, which {verb} not a rule of this review. Its rules: {known}; with a "
                        "baseline also 'changes' (every change from it) or 'changes:<quantity>'. Tip: name a rule "
                        "(or its metric) as the report lists it.")
UNKNOWN_CHANGE_MESSAGE = ("The gate names {names}, but {problem}. Tip: {tip}.")
GATING_STATUSES = {False: ("fail",), True: ("fail", "inconclusive", "not_assessable")}
#: The order of the gate's lines: what fails first, then what could not be decided.
STATUS_ORDER = {"fail": 0, "inconclusive": 1, "not_assessable": 2, "pass": 3}


@dataclass(frozen=True)
class ChangeVerdict:
    """A candidate model's change from the baseline model in one quantity, judged against a tolerance.

    Attributes
    ----------
    model, baseline : str
        The candidate's and the baseline's score column.
    quantity : str
        What changed: a rate's reduced disparity (``'false_positive_rate'`` ...), ``'equalized_odds'``,
        ``'p_percent_score'``, ``'equal_opportunity_score'``, ``'subgroup_auc'``, ``'bpsn_auc'``, ``'bnsp_auc'``
        or ``'ece'``.
    subgroup : str or None
        The subgroup of a per-subgroup quantity (AUCs, ECE); None for a reduced disparity or a score.
    worsening : float
        How much worse the candidate is, in the quantity's units: candidate - baseline for a disparity or an ECE,
        baseline - candidate for a score or an AUC (negative: better). NaN when undefined.
    ci_low, ci_high : float
        Its paired interval at `level` (NaN without intervals).
    tolerance : float
        The largest worsening that passes, in the quantity's own units (:func:`change_tolerance`: the gate's
        tolerance for a difference, :data:`RATIO_PER_DIFFERENCE` times it for a ratio of rates).
    status : {'pass', 'fail', 'inconclusive', 'not_assessable'}
        'pass': the whole interval is at most the tolerance; 'fail': the whole interval is above it;
        'inconclusive': the interval straddles it. Without an interval the point value decides.
    sentence : str
        The verdict in words, e.g. "m2 against the baseline m1: BPSN AUC of A worse by 0.061 (99.8 % interval
        0.032-0.090), more than the tolerance 0.01 across the whole interval: fails. Tolerance 0.01
        (non-inferiority, in AUC units): the largest drop of the AUC that still counts as no worse."
    level : float or None
        The level of the interval's low end, which decides a fail: its family's joint one-sided level
        (``_review.change_levels``: a max-t over the paired replicates of the rates' changes, or of the ECEs';
        Bonferroni's over every change judged for the AUCs'), between the review's level and Bonferroni's.
    pass_level : float or None
        The level of the interval's high end, which decides a pass: the review's level, unadjusted (a pass must
        hold for every change; see the module's docstring).
    """

    model: str
    baseline: str
    quantity: str
    subgroup: Optional[str]
    worsening: float
    ci_low: float
    ci_high: float
    tolerance: float
    status: str
    sentence: str
    level: Optional[float] = None
    pass_level: Optional[float] = None


def change_table(differences: dict, baseline: str, *, include_small: bool = False,
                 sources: bool = False) -> pd.DataFrame:
    """Every change a candidate is gated on, from a review's difference tables, signed so that positive is worse.

    Parameters
    ----------
    differences : dict of str to DataFrame
        ``Review.differences``: ``'rates'`` (:func:`compare_models`: ``model, quantity, difference,
        difference_ci_low, difference_ci_high``), ``'aucs'`` (:func:`compare_model_aucs`: also ``subgroup, auc,
        small``) and optionally ``'calibration'`` (:func:`compare_model_calibration`: ``subgroup, small``), each
        difference being model - baseline.
    baseline : str
        The baseline model, whose own rows are left out.
    include_small : bool, default=False
        Judge small subgroups' AUCs and ECEs too (by default they are left out, as from every reduction).
    sources : bool, default=False
        Add what the joint low ends of the gate need (``_review.change_levels``): ``kind`` (the key of
        `differences` the row comes from), ``sign`` (:data:`WORSE_SIGN`'s) and ``se`` (an AUC's
        ``difference_se``, DeLong's; NaN for the others).

    Returns
    -------
    DataFrame
        One row per change: ``model, quantity, subgroup, worsening, ci_low, ci_high`` (worsening = sign x
        difference, sign from :data:`WORSE_SIGN`, +1 for a rate disparity; the interval flipped with it). The rates'
        rows first, then the AUCs (subgroup, BPSN, BNSP; the overall AUC is performance, not a disparity), then the
        ECEs of the subgroups.
    """
    parts = []
    for kind, table in differences.items():
        rows = table[table["model"] != baseline]
        if kind == "rates":
            quantity, subgroup = rows["quantity"].astype(str), pd.Series([None] * len(rows), index=rows.index)
        elif kind == "aucs":
            rows = rows[rows["auc"] != "overall_auc"]
            quantity, subgroup = rows["auc"].astype(str), rows["subgroup"]
        else:   # calibration: each subgroup's ECE (the row of all rows is the model's, not a subgroup's)
            rows = rows[rows["subgroup"].notna()]
            quantity, subgroup = pd.Series(["ece"] * len(rows), index=rows.index), rows["subgroup"]
        if "small" in rows.columns and not include_small:
            keep = ~rows["small"].fillna(False).astype(bool)
            rows, quantity, subgroup = rows[keep], quantity[keep], subgroup[keep]
        sign = np.array([WORSE_SIGN.get(q, 1) for q in quantity], dtype=np.float64)
        diff, low, high = (rows[c].to_numpy(dtype=np.float64) if c in rows.columns   # no intervals: no ends
                           else np.full(len(rows), np.nan) for c in
                           ("difference", "difference_ci_low", "difference_ci_high"))
        ends = np.sort(np.stack([sign * low, sign * high]), axis=0)   # NaN sorts last: both ends NaN stay NaN
        part = pd.DataFrame({"model": rows["model"].to_numpy(dtype=object), "quantity": quantity.to_numpy(),
                             "subgroup": subgroup.to_numpy(dtype=object), "worsening": sign * diff,
                             "ci_low": ends[0], "ci_high": ends[1]})
        if sources:
            se = rows["difference_se"] if "difference_se" in rows.columns else np.full(len(rows), np.nan)
            part = part.assign(kind=kind, sign=sign, se=np.asarray(se, dtype=np.float64))
        parts.append(part)
    columns = ["model", "quantity", "subgroup", "worsening", "ci_low", "ci_high"] + (
        ["kind", "sign", "se"] if sources else [])
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


def gate_level(level: Optional[float], n_changes: int) -> Optional[float]:
    """The Bonferroni level ``1 - (1 - level) / n_changes`` (`level` for one or none): the low ends' level where a
    change has no jointly drawn replicates (``_review.change_levels``), and the most any low end is adjusted.

    Parameters
    ----------
    level : float in (0, 1) or None
    n_changes : int

    Returns
    -------
    float or None
    """
    if level is None:
        return None
    return 1.0 - (1.0 - level) / max(int(n_changes), 1)


def joint_level(changes) -> Optional[float]:
    """The highest level of the changes' low ends (:attr:`ChangeVerdict.level`; None when none has one): the most any
    low end is adjusted, for sentences that describe every change's low end at once.

    Parameters
    ----------
    changes : sequence of ChangeVerdict

    Returns
    -------
    float or None
    """
    levels = [c.level for c in changes if c.level is not None]
    return max(levels) if levels else None


def changes_by_rule(verdicts, changes, model: str) -> Optional[list]:
    """For each of `model`'s verdicts, its change from the baseline in the rule's own quantity, else None.

    A change matches a rule when it is of the whole model (no subgroup) and its ``quantity`` is the rule's metric:
    a rate's reduced disparity, equalized odds, the p% or equal opportunity score. The scorecard's "vs baseline"
    column (``plotting.scorecard_chart(changes=...)``) in the app and the report.

    Parameters
    ----------
    verdicts : sequence of Verdict
        The candidate's verdicts, in the scorecard's order.
    changes : sequence of ChangeVerdict
        Every change from the baseline (:func:`model_changes`).
    model : str
        The candidate's score column.

    Returns
    -------
    list of (ChangeVerdict or None), one per verdict; or None when no change is of `model` (the baseline itself, or
    no baseline).
    """
    own = {c.quantity: c for c in changes if c.model == model and c.subgroup is None}
    return [own.get(v.rule.metric) for v in verdicts] if own else None


def _words(quantity: str, subgroup) -> str:
    what = QUANTITY_WORDS.get(quantity, f"{quantity.replace('_', ' ')} disparity")
    return what if subgroup is None else f"{what} of {subgroup}"


def change_verdicts(table: pd.DataFrame, baseline: str, tolerance: float, level: Optional[float],
                    pass_level: Optional[float] = None, *, rate_distance: str = "diff") -> tuple:
    """Each row of :func:`change_table` judged against its tolerance (non-inferiority).

    With an interval: pass if ``ci_high <= tol``, fail if ``ci_low > tol``, else inconclusive (as a policy rule
    judges a bound), where tol is the row's :func:`change_tolerance` of `tolerance`; without one the point value
    decides; an undefined change is not assessable. A value within a relative 1e-9 of tol counts as on it. The
    sentence states tol in the quantity's units (and, for a ratio, the gate's tolerance it comes from).

    Parameters
    ----------
    table : DataFrame
        :func:`change_table`'s rows: ``ci_low`` at `level` (or at the row's own ``level`` where the table has that
        column: the joint low ends of ``_review.change_levels``), ``ci_high`` at `pass_level`.
    baseline : str
    tolerance : float >= 0
        The largest worsening that still counts as no worse, in the units of a difference of rates: as given for a
        difference of probabilities, :data:`RATIO_PER_DIFFERENCE` times it for a ratio of rates.
    level : float or None
        The level of the intervals' low ends (for the sentences), unless the table gives each row's.
    pass_level : float or None, default=None
        The level of their high ends; None: `level`.
    rate_distance : {'diff', 'ratio'}, default='diff'
        The distance of the rate disparities and equalized odds (``ReviewConfig.rate_distance``): under
        ``'ratio'`` they are ratios of rates too.

    Returns
    -------
    tuple of ChangeVerdict
        In the table's order, each with its own tolerance.
    """
    out = []
    gate_tol = float(tolerance)
    pass_level = level if pass_level is None else pass_level
    own = (table["level"].to_numpy(dtype=np.float64) if "level" in table.columns
           else np.full(len(table), np.nan if level is None else level))
    for row, row_level in zip(table.itertuples(index=False), own):
        row_level = None if level is None or math.isnan(row_level) else float(row_level)
        lvl = "interval" if row_level is None or pass_level != row_level else f"{row_level * 100:.4g} % interval"
        ends = ("" if row_level is None or pass_level == row_level
                else f": low end at {row_level * 100:.4g} %, high end at {pass_level * 100:.4g} %")
        w, low, high = (float(x) + 0.0 for x in (row.worsening, row.ci_low, row.ci_high))   # + 0.0: no -0
        what = _words(row.quantity, row.subgroup)
        head = f"{row.model} against the baseline {baseline}: {what}"
        tol = change_tolerance(row.quantity, gate_tol, rate_distance)
        tolerance = f"the tolerance {tol:g}"
        meaning = f" {_units(row.quantity, tol, gate_tol, rate_distance)}"   # what it means, in the quantity's units
        if math.isnan(w):
            status, sentence = "not_assessable", f"{head} could not be compared (undefined for a model)."
            meaning = ""
        else:
            shown = "unchanged" if w == 0 else f"{'worse' if w > 0 else 'better'} by {abs(w):.3g}"
            above = lambda x: x > tol and not math.isclose(x, tol, rel_tol=BOUND_RTOL)
            if math.isnan(low) or math.isnan(high):
                status = "fail" if above(w) else "pass"
                sentence = (f"{head} {shown}, {'more than' if status == 'fail' else 'within'} {tolerance} "
                            f"(no interval): {'fails' if status == 'fail' else 'passes'}.")
            else:
                status = "fail" if above(low) else "pass" if not above(high) else "inconclusive"
                interval = f"({lvl} of the worsening {low:.3g} to {high:.3g}{ends})"
                sentence = f"{head} {shown} {interval}" + {
                    "fail": f", more than {tolerance} across the whole interval: fails.",
                    "pass": f", within {tolerance} across the whole interval: no worse than the baseline "
                            f"by more than the tolerance, passes.",
                    "inconclusive": f"; the interval straddles {tolerance}: inconclusive."}[status]
        out.append(ChangeVerdict(str(row.model), baseline, str(row.quantity), row.subgroup, w, low, high, tol,
                                 status, sentence + meaning, row_level, pass_level))
    return tuple(out)


def _units(quantity: str, tol: float, gate_tol: float, rate_distance: str) -> str:
    """What the tolerance means for `quantity`, in its own units (a verdict's last sentence)."""
    if quantity in PROBABILITY_QUANTITIES:
        what, units = (("rise of the ECE", "ECE units, a difference of probabilities") if quantity == "ece"
                       else ("drop of the AUC", "AUC units"))
    else:
        what = "drop of the score" if quantity in RATIO_SCORES else "rise of the disparity"
        units = ("units of a difference of rates" if not is_ratio(quantity, rate_distance) else
                 f"the {'score' if quantity in RATIO_SCORES else 'disparity'}'s units, a ratio of rates: "
                 f"{RATIO_PER_DIFFERENCE:g} x the gate's tolerance {gate_tol:g}, which is a difference of rates")
    return f"Tolerance {tol:g} (non-inferiority, in {units}): the largest {what} that still counts as no worse."


def split_names(names: Iterable[str]) -> tuple[list, list]:
    """A gate's names split by what they select.

    Parameters
    ----------
    names : iterable of str
        ``ReviewConfig.gate_rules`` (the command line's ``--gate``).

    Returns
    -------
    (list of str, list of str)
        The rule or metric names, and the names of changes (``changes`` or ``changes:<quantity>``), each in the
        order given.
    """
    names = [str(n) for n in names]
    changes = [n for n in names if n == CHANGES or n.startswith(CHANGES + ":")]
    return [n for n in names if n not in changes], changes


def gated_verdicts(models: Iterable, dataset_verdicts: Iterable, *, rules: Iterable[str] = (),
                   labels: bool = False) -> list:
    """The policy verdicts that decide a gate, each with the model it is about.

    Parameters
    ----------
    models : iterable of ModelReview
        Read: ``name``, ``verdicts``.
    dataset_verdicts : iterable of Verdict
        The rules about the labels.
    rules : iterable of str, default=()
        Rule names or metric names (``Rule.name`` or ``Rule.metric``) that gate; empty: every rule of the models
        (and, with `labels`, the rules about the labels). Names of changes (``changes``, ``changes:<quantity>``,
        :func:`gated_changes`) select no rule: names that are all of changes leave no rule gating.
    labels : bool, default=False
        With no `rules`: the rules about the labels gate too.

    Returns
    -------
    list of (str or None, Verdict)
        The model's name (None for a rule about the labels) and the verdict.

    Raises
    ------
    ValueError
        When a name in `rules` is no rule of the review (``UNKNOWN_RULE_MESSAGE``, listing its rules).
    """
    everything = [(m.name, v) for m in models for v in m.verdicts] + [(None, v) for v in dataset_verdicts]
    names, changes = split_names(rules)
    if not names:   # no names at all: every rule of the models; only names of changes: no rule
        return [] if changes else [(m, v) for m, v in everything if m is not None or labels]
    known = {v.rule.name for _, v in everything} | {v.rule.metric for _, v in everything}
    unknown = [n for n in names if n not in known]
    if unknown:
        listed = sorted({v.rule.name for _, v in everything})
        shown = ", ".join(map(repr, unknown[:5])) + (f" and {len(unknown) - 5:,} more" if len(unknown) > 5 else "")
        raise ValueError(UNKNOWN_RULE_MESSAGE.format(names=shown,
                                                     verb="is" if len(unknown) == 1 else "are",
                                                     known=", ".join(listed) or "none"))
    return [(m, v) for m, v in everything if v.rule.name in names or v.rule.metric in names]


def gated_changes(changes: Iterable[ChangeVerdict], *, rules: Iterable[str] = ()) -> list:
    """The changes from the baseline that decide a gate.

    Parameters
    ----------
    changes : iterable of ChangeVerdict
        ``Review.changes``.
    rules : iterable of str, default=()
        The gate's names. Empty: every change gates. Otherwise only the changes named: ``changes`` (every
        change) or ``changes:<quantity>`` (the changes in one quantity, ``ChangeVerdict.quantity``, e.g.
        ``changes:bpsn_auc`` or ``changes:false_positive_rate``); names of rules alone leave no change gating.

    Returns
    -------
    list of ChangeVerdict

    Raises
    ------
    ValueError
        When a change is named but none was judged (no baseline, or intervals of changes the engine cannot
        compute), or a quantity is named that no change has (the message lists the quantities).
    """
    changes = list(changes)
    names = [str(r) for r in rules]
    if not names:
        return changes
    named = split_names(names)[1]
    if not named:
        return []
    shown = ", ".join(map(repr, named))
    if not changes:
        raise ValueError(UNKNOWN_CHANGE_MESSAGE.format(
            names=shown, problem="no change from a baseline was judged",
            tip="give a baseline score (--baseline COL) among two or more scores, with the rows in memory"))
    if CHANGES in named:
        return changes
    wanted = {n.split(":", 1)[1] for n in named}
    known = list(dict.fromkeys(c.quantity for c in changes))
    unknown = sorted(wanted.difference(known))
    if unknown:
        raise ValueError(UNKNOWN_CHANGE_MESSAGE.format(
            names=shown, problem=f"no change is in {', '.join(map(repr, unknown))}",
            tip=f"name 'changes' or one of {', '.join(CHANGES + ':' + q for q in known)}"))
    return [c for c in changes if c.quantity in wanted]


def gate_lines(gated: list, changes: Iterable[ChangeVerdict], *, strict: bool = False,
               gating_only: bool = False) -> list:
    """One line per gating verdict that is not a pass, failing ones first, then inconclusive and not assessable ones.

    Parameters
    ----------
    gated : list of (str or None, Verdict)
        :func:`gated_verdicts`.
    changes : iterable of ChangeVerdict
        :func:`gated_changes`.
    strict : bool, default=False
        Whether inconclusive and not assessable verdicts gate (their lines then say so).
    gating_only : bool, default=False
        Only the lines of verdicts that set the exit status to 1 (without `strict`: the fails).

    Returns
    -------
    list of str
        E.g. ``"fail: model m2, rule false_positive_rate_diff_max_0.1: estimate 0.132, 95 % interval 0.101 to
        0.16, bound <= 0.1; not assessed: X: 12 rows < minimum 30"`` and ``"fail: m2 against the baseline m1:
        BPSN AUC of A worse by 0.061 ..."``; the rules' and the changes' fails before any other line (each kind in
        its own order otherwise).
    """
    shown = GATING_STATUSES[bool(strict)] if gating_only else ("fail", "inconclusive", "not_assessable")
    lines = []
    for model, v in gated:
        if v.status not in shown:
            continue
        who = "the labels" if model is None else f"model {model}"
        estimate = "undefined" if math.isnan(v.value) else f"{v.value:.4g}"
        interval = ("" if math.isnan(v.ci_low) or math.isnan(v.ci_high) else
                    f", {'' if v.level is None else f'{v.level * 100:g} % '}interval {v.ci_low:.4g} to {v.ci_high:.4g}")
        bound = f"{'<=' if v.rule.direction == 'max' else '>='} {v.rule.bound:g}"
        missed = f"; not assessed: {'; '.join(v.left_out)}" if v.left_out else ""
        note = "" if strict or v.status == "fail" else " (not gating without --strict)"
        lines.append((v.status, f"{v.status.replace('_', ' ')}{note}: {who}, rule {v.rule.name}: estimate "
                                f"{estimate}{interval}, bound {bound}{missed}"))
    for c in changes:
        if c.status in shown:
            note = "" if strict or c.status == "fail" else " (not gating without --strict)"
            lines.append((c.status, f"{c.status.replace('_', ' ')}{note}: {c.sentence}"))
    return [line for _, line in sorted(lines, key=lambda item: STATUS_ORDER[item[0]])]   # stable: order kept within


def gate_status(gated: list, changes: Iterable[ChangeVerdict], *, strict: bool = False) -> int:
    """The exit status of a gate: 1 when a gating verdict fails (with `strict`: or is not a pass), else 0.

    Parameters
    ----------
    gated : list of (str or None, Verdict)
        :func:`gated_verdicts`.
    changes : iterable of ChangeVerdict
        :func:`gated_changes`.
    strict : bool, default=False

    Returns
    -------
    int
    """
    bad = GATING_STATUSES[bool(strict)]
    return int(any(v.status in bad for _, v in gated) or any(c.status in bad for c in changes))
