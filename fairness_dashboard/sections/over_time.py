"""The Over time page: every rate and label rule of the review assessed per period of the mapping's time column
(``fairness_core.over_time``), with each period's verdict, the first period a rule failed across its whole
interval, the trend test, and the subgroups' rates per period.

A period (or a subgroup in it) with too few rows is shown as a gap with a note, never as 0. The result is memoized
per session on the data, the mapping and slice, the review's settings and the period; the charts are built from it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc
from fairness_core.plotting import plot_text

from ..data import analysis
from ..presentation import escape, formats, labels
from ..presentation.definitions import definition_link
from ..session import progress, state
from ..session.memo import memo
from ..settings import controls, review_config
from .over_time_charts import STATUS_ORDER, rule_chart, rule_name, subgroup_rate_chart, verdict_strip

PERIODS = {"day": "Day", "week": "Week (Monday to Sunday)", "month": "Month", "quarter": "Quarter"}
EACH_VALUE = "each value"   # integer times (a week number, a release): each value is a period
PERIOD_WORDS = {"day": "day", "week": "week", "month": "month", "quarter": "quarter", EACH_VALUE: "period"}
MAX_PERIODS = 120   # each period is a review of its own (about 0.35 s with intervals on the credit sample)
# The verdict colours of the library's charts (Okabe-Ito: pass bluish green, inconclusive orange, fail vermillion).
NO_TIME_MESSAGE = (
    "No time column is mapped, so there are no periods to compare. On the **Data** page, under *Map the columns*, "
    "choose the column that dates each row as **Time column** (dates, datetimes, ISO 8601 text such as 2024-07-31, "
    "or integers such as a week number). This page then assesses every rule per day, week, month or quarter.")
TOO_MANY_MESSAGE = (
    "Per {word}, the time column {column} makes {n:,} periods, more than the {limit} this page assesses (each period "
    "is a review of its own, intervals included). Choose a longer period.")


@memo(4)
def assessed(token: str, mapping_key: str, config_json: str, period: str | None, _frame: pd.DataFrame,
             _config: fc.ReviewConfig) -> fc.OverTime:
    """``fc.over_time`` of the loaded table under the session's review configuration (memoized).

    Parameters
    ----------
    token, mapping_key : str
        The dataset and its mapping and slice (``analysis.current``).
    config_json : str
        ``_config.to_json()`` without its view: every setting a number depends on.
    period : {'day', 'week', 'month', 'quarter'} or None
        None for integer times (each value a period).
    _frame : DataFrame
        The table as loaded (``over_time`` applies the configuration's slice itself).
    _config : ReviewConfig

    Returns
    -------
    fairness_core.OverTime

    Raises
    ------
    ValueError
        As ``fc.over_time``: times that are not dates or integers, a period that does not fit them.
    """
    return fc.over_time(_frame, _config, period=period)


@memo(analysis.SMALL)
def n_periods(token: str, column: str, period: str, _values: pd.Series) -> int | None:
    """How many periods ``fc.over_time`` will assess, counted before it runs (each period costs a review).

    Calendar periods: every period from the first time to the last, n = ordinal(last) - ordinal(first) + 1 of
    pandas' ``Period`` (in the times' own zone); integer times: the distinct values.

    Parameters
    ----------
    token : str
        The dataset.
    column : str
        The time column (part of the key).
    period : {'day', 'week', 'month', 'quarter'} or EACH_VALUE
    _values : Series
        The column's values (all rows: the slice can only keep fewer periods).

    Returns
    -------
    int or None
        None when the values are not read as times here (``over_time`` then says why).
    """
    if period == EACH_VALUE:
        return int(_values.nunique())
    if not (isinstance(_values.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(_values)):
        try:
            _values = pd.to_datetime(_values, format="ISO8601")
        except (TypeError, ValueError):
            try:
                _values = pd.to_datetime(_values, format="ISO8601", utc=True)
            except (TypeError, ValueError):
                return None
    if _values.dt.tz is not None:
        _values = _values.dt.tz_localize(None)   # the zone's wall clock, as over_time cuts its periods
    present = _values.dropna()
    if present.empty:
        return 0
    freq = {"day": "D", "week": "W", "month": "M", "quarter": "Q"}[period]
    return int(pd.Period(present.max(), freq).ordinal - pd.Period(present.min(), freq).ordinal + 1)


def draw() -> None:
    """The page below its title: controls, the rules' story in sentences, the verdict strip, one chart per rule and
    the subgroups' rates per period (or how to map a time column when none is)."""
    token, mapping_key, scored = analysis.current()
    if analysis.needs_rows("Fairness over time (each period's rows)"):
        return
    mapping = st.session_state[state.MAPPING]
    if mapping.time is None:
        st.info(NO_TIME_MESSAGE)
        st.page_link("pages/data.py", label="Map a time column on the Data page")
        return
    frame = st.session_state[state.FRAME]
    integers = pd.api.types.is_integer_dtype(frame[mapping.time])
    models = [*mapping.scores, *([mapping.predicted_label] if mapping.predicted_label is not None else [])]
    c1, c2 = st.columns(2)
    period = controls.kept(c1.selectbox, "Period", "time:period", EACH_VALUE if integers else "month",
                           options=[EACH_VALUE] if integers else list(PERIODS),
                           format_func=lambda p: "Each value of the time column" if p == EACH_VALUE else PERIODS[p],
                           help="Each row falls in the calendar period of its time (in the time's own zone); every "
                                "period from the first to the last is shown, those without rows as gaps.")
    model = None
    if models:
        chosen = st.session_state.get(state.MODEL)
        model = controls.kept(c2.selectbox, labels.MODEL, "time:model", chosen if chosen in models else models[0],
                              options=models, format_func=lambda m: _model_name(m, mapping),
                              help="A score column (at its threshold, the same in every period) or the predicted "
                                   "label column.")
    word = PERIOD_WORDS[period]
    count = n_periods(token, mapping.time, period, frame[mapping.time])
    if count is not None and count > MAX_PERIODS:
        st.warning(TOO_MANY_MESSAGE.format(word=word, column=escape.md(mapping.time), n=count, limit=MAX_PERIODS))
        return
    config = dataclasses.replace(review_config.config_from_session(), view=())
    try:
        with progress.computing(f"every rule per {word}", config.ci):
            result = assessed(token, mapping_key, config.to_json(), None if period == EACH_VALUE else period,
                              frame, config)
    except ValueError as exc:
        st.error(escape.md(str(exc)))
        return
    if result.periods.empty:
        st.warning(f"No row has a time in {escape.md(mapping.time)}, so there are no periods to assess.")
        return
    _periods_caption(result, mapping.time, word)
    rules = _rules(result, model)
    st.subheader("What changed")
    for owner, rule in rules:
        st.markdown("- " + rule_sentence(result, owner, rule, word))
    st.caption(f"Each {word} is assessed on its own rows at the review's settings; "
               + ("a rule fails in a period when its whole interval is beyond the bound, so over many periods a rule "
                  "that holds can still fail once by chance. " if config.ci is not None else
                  "intervals are off, so each verdict rests on the point estimate alone and there is no trend test. ")
               + definition_link("over-time-trend", "How periods and the trend are assessed"))
    x, axis = _axis(result)
    st.plotly_chart(verdict_strip(result, rules, x, axis), width="stretch")
    st.subheader("Each rule per " + word)
    for owner, rule in rules:
        st.plotly_chart(rule_chart(result, owner, rule, x, axis, word), width="stretch")
    _missing_caption(result, word)
    if model is not None:
        _rates_section(result, model, x, axis, word)


def _model_name(name: str, mapping: fc.ColumnMapping) -> str:
    """A model's name in the picker: the column, and whether it is a score or the given decisions."""
    return f"{name} (predicted labels)" if name == mapping.predicted_label else f"{name} (score)"


def _rules(result: fc.OverTime, model: str | None) -> list:
    """(model or ``'labels'``, Rule) of every rule of `model`, then the labels' rules, in the review's order."""
    out = []
    for owner, per_period in ((model, result.models.get(model, ())), ("labels", result.labels)):
        first = next((p for p in per_period if p is not None), None)
        if owner is not None and first is not None:
            out += [(owner, v.rule) for v in first.verdicts]
    return out


def _axis(result: fc.OverTime) -> tuple[list, str]:
    """The x values of the periods (their starts, on the zone's wall clock, for calendar periods; their labels
    otherwise) and the axis type."""
    starts = result.periods["start"].tolist()
    if result.period is not None and isinstance(result.period, str):
        return [pd.Timestamp(s).tz_localize(None) if pd.Timestamp(s).tz is not None else pd.Timestamp(s)
                for s in starts], "date"
    return [plot_text(p) for p in result.periods["period"]], "category"


def rule_sentence(result: fc.OverTime, owner: str, rule, word: str) -> str:
    """One rule's story over the periods, Markdown-safe: its first failure across the whole interval (with the
    value), the tally of verdicts, and the trend and equality tests.

    Parameters
    ----------
    result : OverTime
    owner : str
        The model (score or predicted label column) or ``'labels'``.
    rule : Rule
    word : str
        The period in words ('month').

    Returns
    -------
    str
    """
    rows = result.series(rule.name, owner)
    name = escape.md(rule_name(rule))
    tally = rows["status"].value_counts()
    counts = ", ".join(f"{labels.STATUS_WORDS[s]} in {int(tally[s])}" for s in STATUS_ORDER if s in tally)
    first = result.first_failure(rule.name, owner)
    if first is None:
        head = f"**{name}**: never failed across its whole interval"
    else:
        at = rows.loc[rows["period"] == first].iloc[0]
        head = (f"**{name}**: first failed in **{escape.md(first)}** ({formats.num(at['value'], 3)}"
                + (f", {formats.level_text(at['level'])} interval {formats.num(at['ci_low'], 3)}–"
                   f"{formats.num(at['ci_high'], 3)}" if at["level"] is not None and np.isfinite(at["ci_low"]) else "")
                + ")")
    text = f"{head}. Of {len(rows)} {word}s: {counts}."
    if result.config.ci is None:
        return text
    trend = result.trend(rule.name, owner)
    if trend.periods < 3 or not np.isfinite(trend.slope):
        return text + f" Too few {word}s with an interval ({trend.periods}) to test a trend."
    worse = (trend.slope < 0) == (rule.direction == "min")
    level = formats.level_text(trend.level)
    if trend.ci_low > 0 or trend.ci_high < 0:
        verb = f"{'rises' if trend.slope > 0 else 'falls'} ({'worsening' if worse else 'improving'})"
    else:
        verb = "shows no clear trend"
    text += (f" Trend: the value {verb}: {formats.num(trend.slope, 3)} per {word} ({level} interval "
             f"{formats.num(trend.ci_low, 3)} to {formats.num(trend.ci_high, 3)}, {_p(trend.p_value)}).")
    if trend.heterogeneity_p < 1 - trend.level:
        text += (f" The {word}s differ by more than their intervals allow (Cochran's Q = "
                 f"{formats.num(trend.heterogeneity, 3)}, {_p(trend.heterogeneity_p)}).")
    else:
        text += (f" The {word}s do not differ by more than their intervals allow (Cochran's Q = "
                 f"{formats.num(trend.heterogeneity, 3)}, {_p(trend.heterogeneity_p)}).")
    return text


def _p(p: float) -> str:
    """'p < 0.001' or 'p = 0.042'."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _rates_section(result: fc.OverTime, model: str, x: list, axis: str, word: str) -> None:
    """The subgroups' rates per period, with a picker of the rate."""
    st.subheader(f"Each subgroup's rate per {word}")
    rates = [r for r in labels.RATE_LABELS if r in next(m for m in result.models[model] if m is not None).rate_table]
    rate = controls.kept(st.selectbox, "Rate", "time:rate", "selection_rate", options=rates,
                         format_func=labels.RATE_LABELS.get)
    st.plotly_chart(subgroup_rate_chart(result, model, rate, x, axis), width="stretch")
    st.caption("One line per subgroup, with its interval; a subgroup with fewer rows than the minimum size in a "
               f"{word} is an open, faded marker off its line (its line has a gap there), and a period without rows is "
               "a gap. Hover for the rows.")


def _periods_caption(result: fc.OverTime, column: str, word: str) -> None:
    """How many periods, from when to when, and the rows left out of the periods."""
    periods = result.periods
    with_rows = int((periods["rows"] > 0).sum())
    text = (f"{len(periods):,} {word}s of {escape.md(column)}, {escape.md(periods['period'].iloc[0])} to "
            f"{escape.md(periods['period'].iloc[-1])}; {with_rows:,} with rows"
            + (f" (in the time zone {escape.md(result.time_zone)})" if result.time_zone else "") + ".")
    no_period = result.exclusions.loc[result.exclusions["reason"].isin(["no time", "time outside the edges"])]
    if int(no_period["rows"].sum()):
        text += f" {int(no_period['rows'].sum()):,} rows have no time and are in no period."
    st.caption(text)


def _missing_caption(result: fc.OverTime, word: str) -> None:
    """The periods without rows, and the periods whose subgroups are all too small, in words."""
    empty = result.periods.loc[result.periods["rows"] == 0, "period"].tolist()
    text = ("Markers show each period's verdict; error bars its interval; the shaded side of the dashed bound is "
            "where the rule fails. A period with no value is marked × at the foot of the chart, never drawn as 0.")
    if empty:
        text += (f" {len(empty)} {word}s have no rows: " + ", ".join(escape.md(p) for p in empty[:6])
                 + ("…" if len(empty) > 6 else "") + ".")
    st.caption(text)
