"""The history of saved reviews as one self-contained HTML page: their verdicts per rule and their key metrics side
by side in time, a warning row wherever their configurations differ, and a chart per key metric.

Rendered with the review report's Jinja2 environment (autoescape on) from ``templates/history.html.j2``: this module
hands the template text and numbers, never markup; the one exception is plotly's own figure markup.
"""

from __future__ import annotations

from .report import _environment
from .report_text import QUANTITY_NAMES, STATUS_NAMES, interval_text, number_text

TEMPLATE = "history.html.j2"
# Headline metrics the report's QUANTITY_NAMES does not name.
METRIC_NAMES = {"bias_auc_score": "Bias AUC score", "calibration_disparity": "Calibration disparity",
                "base_rate": "Base rate of the labels", "unweighted_average_bias": "Unweighted average bias"}
HISTORY_ELEMENT_ID = "history-json"


def render_history(history) -> str:
    """A :class:`ReviewHistory` as a self-contained HTML page (plotly.js embedded once: it opens offline).

    Two tables with one row per review, oldest first: every rule's verdict with its estimate and interval, and
    every key metric of the review's ``headline`` (the rate disparities, equalized odds, the p% and equal
    opportunity scores, the bias AUC score and overall AUC, the calibration disparity, the labels' base rate);
    before a review whose configuration differs from the one before it, a warning row says in which settings and
    how. Then one line chart per key metric, a line per model, a dotted line where the settings differ. Every
    piece of data text is escaped; the history's JSON is embedded (element id ``history-json``).

    Parameters
    ----------
    history : ReviewHistory
        From :func:`review_history`.

    Returns
    -------
    str
        The HTML text.
    """
    import plotly.io as pio

    from ..plotting._history import history_chart

    reviews = history.reviews
    labels = [f"{n}: {created}" for n, created in zip(reviews["review"], reviews["created"])]
    warnings = _warnings(history)
    changed = sorted(warnings)
    names = sorted(set(reviews["name"].dropna().astype(str)))
    blocks = [{"kind": "h1", "text": "Review history"},
              {"kind": "p", "text": f"{len(reviews)} saved reviews" + (f" of {', '.join(names)}" if names else "")
               + ", in the order they were created (UTC). "
               + (f"The configurations differ {len(changed)} time(s): the warning rows say where; a metric that moves "
                  "there may have moved because of the settings, not of the model." if changed else
                  "Every review was made with the same settings (thresholds, subgroups, minimum size, weights, "
                  "favourable outcome, rules, intervals, engine).")}]
    head = ["Review", "Created", "Data", "SHA-256", "Rows", "Exit status"]
    common = [[{"text": str(r.review)}, {"text": str(r.created)}, {"text": "" if r.name is None else str(r.name)},
               {"text": "not recorded" if not isinstance(r.sha256, str) else r.sha256[:12] + "…"},
               {"text": "" if r.rows is None or r.rows != r.rows else f"{int(r.rows):,}"},
               {"text": "" if r.exit_status is None or r.exit_status != r.exit_status else str(int(r.exit_status))}]
              for r in reviews.itertuples(index=False)]

    verdicts = history.verdicts
    rules = list(dict.fromkeys(zip(verdicts["model"], verdicts["rule"])))
    words = dict(zip(zip(verdicts["model"], verdicts["rule"]), verdicts["label"]))
    cells = {(v.review, v.model, v.rule): v for v in verdicts.itertuples(index=False)}

    def verdict_cell(review, model, rule) -> dict:
        v = cells.get((review, model, rule))
        if v is None:
            return {"text": "not in this review"}
        interval = interval_text(v.ci_low, v.ci_high)
        return {"status": v.status, "label": STATUS_NAMES.get(v.status, v.status),
                "text": number_text(v.value) + (f" ({interval})" if interval else "")}

    blocks += [{"kind": "h2", "text": "Verdicts per rule", "first": True},
               _history_table(head + [_who(m, words[m, r]) for m, r in rules], common,
                              [[verdict_cell(n, m, r) for m, r in rules] for n in reviews["review"]], warnings)]
    metrics = history.metrics
    keys = list(dict.fromkeys(zip(metrics["model"], metrics["metric"])))
    values = {(m.review, m.model, m.metric): m.value for m in metrics.itertuples(index=False)}
    blocks += [{"kind": "h2", "text": "Key metrics", "first": False},
               _history_table(head[:2] + [_who(m, QUANTITY_NAMES.get(k, _words(k))) for m, k in keys],
                              [row[:2] for row in common],
                              [[{"text": number_text(values.get((n, m, k)))} for m, k in keys]
                               for n in reviews["review"]], warnings)]
    first = [True]
    for metric in dict.fromkeys(metrics["metric"]):
        name = QUANTITY_NAMES.get(metric, _words(metric))
        fig = history_chart(metrics[metrics["metric"] == metric], labels, changed=changed, title=f"{name} per review",
                            value_label=name)
        fig.update_layout(width=None)
        blocks.append({"kind": "figure", "plotly_html": pio.to_html(
            fig, full_html=False, include_plotlyjs=first[0], config={"displaylogo": False, "responsive": True})})
        first[0] = False
    blocks.append({"kind": "json", "element_id": HISTORY_ELEMENT_ID, "data": history.to_dict()})
    return _environment().get_template(TEMPLATE).render(title="Review history", blocks=blocks)


def _words(key: str) -> str:
    """A metric key the report does not name, in words: "bias_auc_score" -> "Bias AUC score"."""
    if key in METRIC_NAMES:
        return METRIC_NAMES[key]
    text = str(key).replace("_", " ")
    return text[:1].upper() + text[1:]


def _who(model: str, what: str) -> str:
    """A column's header: the model (or "Labels") and the rule or metric."""
    return f"{'Labels' if model == 'labels' else model}: {what}"


def _warnings(history) -> dict:
    """Per review whose configuration differs from the one before it, the warning row's text."""
    out = {}
    for review, part in history.differences.groupby("review", sort=True):
        changes = "; ".join(f"{d.setting}: {d.before} before, {d.after} here" for d in part.itertuples(index=False))
        out[int(review)] = (f"Review {int(review)} was made with other settings than review {int(review) - 1}: "
                            f"{changes}.")
    return out


def _history_table(columns: list, common: list, cells: list, warnings: dict) -> dict:
    """A history table block: a row per review (its common cells, then its own), a warning row before each review
    whose configuration differs."""
    rows = []
    for position, (left, right) in enumerate(zip(common, cells), start=1):
        if position in warnings:
            rows.append({"kind": "warning", "text": warnings[position]})
        rows.append({"kind": "row", "cells": left + right})
    return {"kind": "history", "columns": columns, "rows": rows}
