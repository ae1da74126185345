"""The review as one self-contained HTML file: opens offline, prints cleanly, carries its configuration."""

from __future__ import annotations

import base64
import html
import math

import pandas as pd

from .._disparity.compare import keyword
from .export import neutralize_formulas

CONFIG_ELEMENT_ID = "review-config"
REVIEW_ELEMENT_ID = "review-json"
_STYLE = """
body { font-family: "Liberation Sans", Arial, sans-serif; margin: 2rem auto; max-width: 1200px; color: #222;
       line-height: 1.4; padding: 0 1rem; }
h1 { font-size: 1.7rem; } h2 { font-size: 1.35rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; }
h3 { font-size: 1.1rem; }
.block { break-inside: avoid; page-break-inside: avoid; margin: 1rem 0 1.5rem; }
.meta td, .meta th { text-align: left; padding: .1rem .8rem .1rem 0; vertical-align: top; }
table.data { border-collapse: collapse; font-size: .82rem; width: 100%; table-layout: auto; }
table.data th, table.data td { border: 1px solid #ddd; padding: .2rem .35rem; overflow-wrap: anywhere; }
table.data th { background: #f3f3f3; text-align: left; }
.scroll { overflow-x: auto; }
.verdict { padding: .15rem .5rem; border-radius: .3rem; font-weight: bold; font-size: .8rem; margin-right: .4rem; }
.pass { background: #d8f0dc; color: #17521f; } .fail { background: #f8d7d7; color: #7a1212; }
.inconclusive { background: #fdf1cc; color: #6b5200; } .not_assessable { background: #e8e8e8; color: #444; }
.note { color: #555; font-size: .9rem; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  .scroll { overflow: visible; } table.data { font-size: 7.5pt; }
  .no-print { display: none; } h2 { break-before: page; } h2.first { break-before: avoid; }
}
"""


def render_report(review) -> str:
    """The review as a self-contained HTML document.

    Charts are interactive Plotly figures with plotly.js embedded once (no network needed);
    tables are plain HTML (every column, wrapped, so printing cuts none); all data text is
    escaped. The review's configuration is embedded as JSON (element id ``review-config``, and a
    download link) so that it can be uploaded to the app with the same data to restore the view,
    and the whole review's JSON (``review-json``) holds every number.

    Parameters
    ----------
    review : Review
        From :func:`build_review`.

    Returns
    -------
    str
        The HTML text.
    """
    import plotly.io as pio

    from .. import plotting

    level = review.config.ci
    first = [True]

    def figure(fig) -> str:
        fig.update_layout(width=None, height=max(int(fig.layout.height or 420), 380))
        out = pio.to_html(fig, full_html=False, include_plotlyjs=first[0], config={"displaylogo": False,
                                                                                     "responsive": True})
        first[0] = False
        return f'<div class="block">{out}</div>'

    parts = [f"<h1>Fairness review: {_e(review.source.get('name', 'data'))}</h1>", _meta(review),
             '<h2 class="first">Policy verdicts</h2>']
    for model in review.models:   # each model's rules under its name; the labels' rules apart, never the model's
        if model.verdicts:
            parts += [f"<h3>{_e(model.name)}</h3>", _verdicts(model.verdicts)]
    if review.dataset_verdicts:
        parts += ["<h3>Rules about the labels (properties of the data, not of a model)</h3>",
                  _verdicts(review.dataset_verdicts)]
    parts += ["<h2>The data</h2>",
              _p(f"Base rate (share of positive labels): {review.base_rate[0]:.4g}"
                 + ("" if level is None else f" ({level * 100:g} % interval {review.base_rate[1]:.4g}–"
                                                f"{review.base_rate[2]:.4g})")),
              "<h3>Subgroups</h3>", _table(review.subgroups), "<h3>Rows left out</h3>", _table(review.exclusions, "No row was left out."),
              "<h3>Base-rate disparity</h3>", _findings(review.dataset_findings), _table(review.dataset_parity.table)]
    if review.edf is not None:
        parts += [f"<h3>Smoothed empirical differential fairness: {review.edf.value:.4g}</h3>", _table(review.edf.table)]
    if review.consistency is not None:
        parts += _consistency(review.consistency)
    for model in review.models:
        title = (f"Model {model.name}" + ("" if model.threshold is None else f" at threshold {model.threshold:g}")
                 if model.kind == "score" else f"Given predictions ({model.name})")
        parts += [f"<h2>{_e(title)}</h2>", _findings(model.findings), _verdicts(model.verdicts),
                  "<h3>Performance at the threshold</h3>", _table(model.performance)]
        if model.auc_table is not None:
            table = model.auc_table.copy()
            table.attrs = {k: v for k, v in model.auc_table.attrs.items() if k == "ci"}
            parts += ["<h3>Subgroup AUCs</h3>",
                      _p(f"Bias AUC score {model.bias_auc.value:.4g}; overall AUC {model.bias_auc.overall_auc:.4g}."),
                      figure(plotting.auc_chart(table, title=f"AUCs per subgroup, {model.name}", level=level)),
                      _table(table)]
        assessed = [m for m in model.rates if m not in ("equalized_odds", "theil_index")]
        metrics = [m if m != "statistical_parity" else "selection_rate" for m in assessed]
        pairwise = keyword(review.config.rate_reference) == "pairwise"
        references = None if pairwise else {
            rate: model.rates[metric].table for rate, metric in zip(metrics, assessed)}
        parts += ["<h3>Rates per subgroup</h3>",
                  figure(plotting.rate_chart(model.rate_table, metrics, references, title="Rates per subgroup",
                                             level=level)), _table(model.rate_table)]
        for metric, result in model.rates.items():
            parts += [f"<h3>{_e(metric.replace('_', ' ').capitalize())} disparity ({result.reduction}, "
                      f"{result.distance_measure}, against {_e(result.reference)}): {result.value:.4g}</h3>",
                      _table(result.table)]
        ratio_tables = {"p% score": model.p_percent.table, "Equal opportunity score": model.equal_opportunity.table}
        parts += ["<h3>p% and equal opportunity scores</h3>",
                  figure(plotting.ratio_score_chart(ratio_tables, title="Each subgroup against the rest",
                                                    level=level))]
        parts += [_table(t) for t in ratio_tables.values()]
        if model.calibration is not None:
            result = model.calibration
            parts += ["<h3>Calibration</h3>",
                      figure(plotting.reliability_chart(model.reliability, title=f"Reliability diagram, {model.name}",
                                                        small=result.errors, level=level)),
                      figure(plotting.calibration_error_chart(
                          result.errors, None if keyword(review.config.cal_reference) == "pairwise" else result.table,
                          distance_measure=result.distance_measure, level=level,
                          title="Calibration error per subgroup")),
                      _table(result.errors), _table(result.table)]
        elif model.calibration_note:
            parts += ["<h3>Calibration</h3>", _p(model.calibration_note)]
        if model.subgroup_thresholds is not None:
            parts += _subgroup_thresholds(model.subgroup_thresholds, review.config)
        if model.classwise is not None:
            parts += _classwise(model.classwise, level, figure)
    if review.differences:
        parts += [f"<h2>Differences from the baseline model {_e(review.config.baseline)}</h2>",
                  _p("Each model minus the baseline, with paired intervals (both models score the same rows): a "
                     "paired bootstrap for the rate disparities and the ECE, DeLong's covariance of correlated "
                     "AUCs for the AUCs.")]
        titles = {"rates": "Rate disparities and ratio scores", "aucs": "AUCs",
                  "calibration": "Expected calibration error"}
        for kind, table in review.differences.items():
            parts += [f"<h3>{titles[kind]}</h3>", _table(table)]
    config = review.config.to_json()
    link = "data:application/json;base64," + base64.b64encode(config.encode("utf-8")).decode("ascii")
    parts += ["<h2>Configuration</h2>",
              _p("Upload this file with the same data in the dashboard (Data page) to restore this view."),
              f'<p class="no-print"><a download="review-config.json" href="{link}">Download the configuration</a></p>',
              f"<pre>{_e(config)}</pre>",
              _json_script(CONFIG_ELEMENT_ID, config), _json_script(REVIEW_ELEMENT_ID, review.to_json())]
    title = _e(f"Fairness review: {review.source.get('name', 'data')}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_STYLE}</style></head>'
            f"<body>{''.join(parts)}</body></html>\n")


_REFERENCES = {"rest": "the rest of the population", "overall": "the whole population",
               "pairwise": "every other subgroup"}
_CLASS_METRICS = {"recall": "Recall", "precision": "Precision", "fscore": "F-score"}
_CLASS_REDUCTIONS = {"std": "the standard deviation across subgroups", "difference": "the signed difference first - second",
                     "absolute_difference": "the absolute difference |first - second|"}


def _consistency(result) -> list:
    from .records import consistency_table

    counted = (f"every one of the {result.n_rows:,} rows" if result.n_sampled >= result.n_rows else
               f"a random sample of {result.n_sampled:,} of the {result.n_rows:,} rows (seed 0), standard error "
               f"{result.std_error:.4g}")
    return ["<h3>Consistency (similar rows, similar labels)</h3>",
            _p(f"Share of differing neighbours {result.value:.4g} (perfect 0); consistency (Zemel et al.) "
               f"{result.zemel_consistency:.4g}. The {result.n_neighbors} nearest neighbours of {counted}, on the "
               f"standardised features {', '.join(result.features)}"
               + (f"; {result.n_excluded:,} rows with a missing feature value left out." if result.n_excluded else ".")),
            _table(consistency_table(result))]


def _subgroup_thresholds(effect, config) -> list:
    overall = effect.table.iloc[0]
    changes = "; ".join(f"the {rate.replace('_', ' ')} disparity goes from {single:.4g} to {own:.4g}"
                        for rate, single, own in effect.disparities.itertuples(index=False))
    sentence = (f"With these thresholds, overall accuracy is {overall['accuracy_own']:.4g} "
                f"({overall['accuracy_single']:.4g} at the single threshold {effect.threshold:g})"
                + (f"; {changes} ({config.rate_reduction}, {config.rate_distance}, against "
                   f"{_REFERENCES.get(keyword(config.rate_reference), f'subgroup {config.rate_reference}')})."
                   if changes else "."))
    return ["<h3>Per-subgroup thresholds</h3>", _p(sentence), _table(effect.table), _table(effect.disparities)]


def _classwise(result, level, figure) -> list:
    from .. import plotting

    metric = _CLASS_METRICS.get(result.metric, result.metric)
    what = _CLASS_REDUCTIONS.get(result.reduction, result.reduction)
    pair = f" ({', '.join(result.subgroups)})" if result.reduction != "std" else ""
    value = (f"{result.value:.4g}" + ("" if level is None or math.isnan(result.ci_low)
                                      else f" ({level * 100:g} % interval {result.ci_low:.4g}–{result.ci_high:.4g})"))
    return [f"<h3>Class-wise bias: unweighted average bias {_e(value)}</h3>",
            _p(f"Per class: {what}{pair} of the subgroups' {metric}; then the unweighted mean over the "
               f"{result.n_classes_used} classes used. Perfect value 0." + (f" {result.reason}" if result.reason else "")),
            figure(plotting.classwise_chart(result.table, result.metric, level=level,
                                            title=f"{metric} per class and subgroup")),
            _table(result.per_class), _table(result.table)]


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _p(text: str) -> str:
    return f"<p>{_e(text)}</p>"


def _meta(review) -> str:
    source, mapping = review.source, review.config.mapping
    rows = [("Data", source.get("name", "")), ("SHA-256", source.get("sha256", "not recorded")),
            ("Rows", f"{source.get('rows_used', 0):,} analysed of {source.get('rows_input', 0):,} "
                     f"(slice: {source.get('slice', 'all rows')})"),
            ("Label", f"{mapping.label} (positive: {mapping.positive_label})"),
            ("Models", ", ".join(list(mapping.scores) + ([mapping.predicted_label] if mapping.predicted_label else []))),
            ("Subgroups", ", ".join(list(mapping.protected) + list(mapping.indicators))
             + f"; minimum size {mapping.min_size}"),
            ("Intervals", "off" if review.config.ci is None else f"{review.config.ci * 100:g} %, "
                                                                   f"{review.config.n_boot:,} resamples, seed 0"),
            ("Created", f"{review.created} by fairness_core {review.version}")]
    if source.get("engine"):
        rows.insert(3, ("Computed by", f"{source['engine']}, from count tables (the rows never left it); "
                                       f"not computed: {', '.join(source.get('not_computed', []))}"))
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f'<table class="meta block">{body}</table>'


def _verdicts(verdicts) -> str:
    if not verdicts:
        return ""
    items = "".join(f'<li><span class="verdict {_e(v.status)}">{_e(v.status.replace("_", " "))}</span>'
                    f'{_e(v.sentence)}'
                    + (f' <span class="note">{_e(v.note)}</span>' if v.note and v.note not in v.sentence else "")
                    + "</li>" for v in verdicts)   # a sentence may already end with its note
    return f'<ul class="block">{items}</ul>'


def _findings(findings) -> str:
    if not findings:
        return ""
    return '<ul class="block">' + "".join(f"<li>{_e(f)}</li>" for f in findings) + "</ul>"


def _table(frame: pd.DataFrame, empty: str = "None.") -> str:
    if frame.empty:
        return _p(empty)
    shown = neutralize_formulas(frame.reset_index(drop=True))
    shown.attrs = {}
    body = shown.to_html(index=False, escape=True, na_rep="", float_format=lambda v: f"{v:.6g}",
                         classes="data", border=0)
    return f'<div class="block scroll">{body}</div>'


def _json_script(element_id: str, text: str) -> str:
    # JSON unicode escapes keep the text valid JSON and leave no markup inside the script element.
    safe = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return f'<script type="application/json" id="{element_id}">{safe}</script>'
