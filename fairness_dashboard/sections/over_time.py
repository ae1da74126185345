"""The Over time page: every rate and label rule of the review assessed per period of the mapping's time column
(``fairness_core.over_time``), with each period's verdict, the first period a rule failed across its whole
interval, the trend test, and the subgroups' rates per period.

A period (or a subgroup in it) with too few rows is shown as a gap with a note, never as 0. The result is memoized
per session on the data, the mapping and slice, the review's settings, the period and the model (only the chosen
model and the labels are assessed, verdicts only); the charts are built from it.
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
MAX_PERIODS = 120   # each period is a review of its own (its verdicts: about 0.06 CPU-s with intervals, 8 subgroups)
# The verdict colours of the library's charts (Okabe-Ito: pass bluish green, inconclusive orange, fail vermillion).
NO_TIME_MESSAGE = (
    "No time column is mapped, so there are no periods to compare. On the **Data** page, under *Map the columns*, "
    "choose the column that dates each row as **Time column** (dates, datetimes, ISO 8601 text such as 2024-07-31, "
    "or integers such as a week number). This page then assesses every rule per day, week, month or quarter.")
TOO_MANY_MESSAGE = (
    "Per {word}, the time column {column} makes {n:,} periods, more than the {limit} this page assesses (each period "
    "is a review of its own, intervals included). Choose a longer period.")


def assessed(token: str, mapping_key: str, config_json: str, period: str | None, model: str | None,
             _frame: pd.DataFrame, _config: fc.ReviewConfig) -> fc.OverTime:
    """``fc.over_time`` of the loaded table under the session's review configuration, for the chosen model and the
    labels only, verdicts only.

    The page shows one model's verdicts and rate tables: the other models, each period's performance table and
    findings are not computed (``over_time(models=..., verdicts_only=True)``). The model's part and the labels'
    part are memoized apart, so a model change computes only the model's verdicts, and a model or period seen
    before in the session is a lookup. The shown values, intervals and verdicts are those of the full call.

    Parameters
    ----------
    token, mapping_key : str
        The dataset and its mapping and slice (``analysis.current``).
    config_json : str
        ``_config.to_json()`` without its view: every setting a number depends on.
    period : {'day', 'week', 'month', 'quarter'} or None
        None for integer times (each value a period).
    model : str or None
        A score or the predicted label column of the mapping; None: the labels' rule alone.
    _frame : DataFrame
        The table as loaded (``over_time`` applies the configuration's slice itself).
    _config : ReviewConfig

    Returns
    -------
    fairness_core.OverTime
        Its verdicts: the model's rows, then the labels' (the order of ``over_time``).

    Raises
    ------
    ValueError
        As ``fc.over_time``: times that are not dates or integers, a period that does not fit them.
    """
    key = (token, mapping_key, config_json, period)
    labels_part = _labels_over_time.peek(*key, _frame, _config)
    if labels_part is None and model is not None and _model_over_time.peek(*key, model, _frame, _config) is None:
        # Neither part is known (a first visit, a new period): one call computes both from one reading of the rows
        # and their times, and each part is kept as its own call would have made it.
        both = fc.over_time(_frame, _config, period=period, models=(model,), verdicts_only=True)
        mine = both.verdicts["model"] == model
        _model_over_time(*key, model, _frame, _config, _computed=dataclasses.replace(
            both, labels=(), verdicts=both.verdicts.loc[mine].reset_index(drop=True)))
        labels_part = _labels_over_time(*key, _frame, _config, _computed=dataclasses.replace(
            both, models={}, thresholds={}, verdicts=both.verdicts.loc[~mine].reset_index(drop=True)))
    labels_part = labels_part if labels_part is not None else _labels_over_time(*key, _frame, _config)
    if model is None:
        return labels_part
    part = _model_over_time(*key, model, _frame, _config)
    return dataclasses.replace(labels_part, models=part.models, thresholds=part.thresholds,
                               verdicts=pd.concat([part.verdicts, labels_part.verdicts], ignore_index=True))


@memo(8)
def _model_over_time(token: str, mapping_key: str, config_json: str, period: str | None, model: str,
                     _frame: pd.DataFrame, _config: fc.ReviewConfig, _computed: fc.OverTime | None = None
                     ) -> fc.OverTime:
    """One model's verdicts per period, without the labels' rule (memoized; arguments as :func:`assessed`;
    `_computed`: the result already computed, kept as is)."""
    if _computed is not None:
        return _computed
    return fc.over_time(_frame, _config, period=period, models=(model,), verdicts_only=True, labels=False)


@memo(4)
def _labels_over_time(token: str, mapping_key: str, config_json: str, period: str | None, _frame: pd.DataFrame,
                      _config: fc.ReviewConfig, _computed: fc.OverTime | None = None) -> fc.OverTime:
    """The labels' rule per period, with the periods and subgroups (memoized; arguments as :func:`assessed`;
    `_computed`: the result already computed, kept as is)."""
    if _computed is not None:
        return _computed
    return fc.over_time(_frame, _config, period=period, models=(), verdicts_only=True)


@memo(8)
def _drawn(token: str, mapping_key: str, config_json: str, period: str | None, model: str | None, word: str,
           _result: fc.OverTime) -> tuple:
    """The rules' sentences, the verdict strip and the rules' charts of `_result` (memoized on what made it: a
    control that changes none of them, such as the rate of the subgroups' chart, redraws them from the memo).

    Parameters
    ----------
    token, mapping_key, config_json, period, model
        As :func:`assessed`, whose result `_result` is.
    word : str
        The period in words.
    _result : OverTime

    Returns
    -------
    (list of str, Figure, list of Figure)
        The Markdown sentences, the verdict strip and one chart per rule (:func:`_rules`' order).
    """
    rules = _rules(_result, model)
    x, axis = _axis(_result)
    sentences = [rule_sentence(_result, owner, rule, word) for owner, rule in rules]
    return (sentences, verdict_strip(_result, rules, x, axis),
            [rule_chart(_result, owner, rule, x, axis, word) for owner, rule in rules])


@memo(8)
def _rate_chart(token: str, mapping_key: str, config_json: str, period: str | None, model: str, rate: str,
                _result: fc.OverTime):
    """:func:`subgroup_rate_chart` of `_result` (memoized; arguments as :func:`_drawn`, and the rate)."""
    x, axis = _axis(_result)
    return subgroup_rate_chart(_result, model, rate, x, axis)


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
    span = _time_span(token, column, _values)
    if span is None:
        return None
    if not span:
        return 0
    freq = {"day": "D", "week": "W", "month": "M", "quarter": "Q"}[period]
    return int(pd.Period(span[1], freq).ordinal - pd.Period(span[0], freq).ordinal + 1)


@memo(analysis.SMALL)
def _time_span(token: str, column: str, _values: pd.Series) -> tuple | None:
    """The first and last time of the column on their zone's wall clock (as ``over_time`` cuts its periods), read
    once per dataset and column for every period's count; () without times, None when the values are not read as
    times here."""
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
    return () if present.empty else (present.min(), present.max())


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
    key = (token, mapping_key, config.to_json(), None if period == EACH_VALUE else period, model)
    try:
        with progress.computing(f"every rule per {word}", config.ci):
            result = assessed(*key, frame, config)
    except ValueError as exc:
        st.error(escape.md(str(exc)))
        return
    if result.periods.empty:
        st.warning(f"No row has a time in {escape.md(mapping.time)}, so there are no periods to assess.")
        return
    _periods_caption(result, mapping.time, word)
    sentences, strip, charts = _drawn(*key, word, result)
    st.subheader("What changed")
    for sentence in sentences:
        st.markdown("- " + sentence)
    st.caption(f"Each {word} is assessed on its own rows at the review's settings; "
               + ("a rule fails in a period when its whole interval is beyond the bound, so over many periods a rule "
                  "that holds can still fail once by chance. " if config.ci is not None else
                  "intervals are off, so each verdict rests on the point estimate alone and there is no trend test. ")
               + definition_link("over-time-trend", "How periods and the trend are assessed"))
    st.plotly_chart(strip, width="stretch")
    st.subheader("Each rule per " + word)
    for chart in charts:
        st.plotly_chart(chart, width="stretch")
    _missing_caption(result, word)
    if model is not None:
        _rates_section(result, key, word)


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


def _rates_section(result: fc.OverTime, key: tuple, word: str) -> None:
    """The subgroups' rates per period, with a picker of the rate (`key`: :func:`assessed`'s, the model last)."""
    model = key[-1]
    st.subheader(f"Each subgroup's rate per {word}")
    rates = [r for r in labels.RATE_LABELS if r in next(m for m in result.models[model] if m is not None).rate_table]
    rate = controls.kept(st.selectbox, "Rate", "time:rate", "selection_rate", options=rates,
                         format_func=labels.RATE_LABELS.get)
    st.plotly_chart(_rate_chart(*key, rate, result), width="stretch")
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
