# More than 500 lines: one concept (the report's blocks in document order, one short function per section).
"""The review as one self-contained HTML file: opens offline, prints cleanly, carries its configuration.

The markup is in Jinja2 templates (``fairness_core/templates/report.html.j2`` and its ``report.css``), rendered
with autoescape on: this module hands the template text and numbers, never markup, so no data text (a subgroup
or column name, a file name, a finding's sentence) can reach the page unescaped. The one exception is the HTML
that plotly itself makes for a figure, which the template passes with ``|safe``.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import math

import pandas as pd

from .._disparity.compare import keyword
from .export import neutralize_formulas
from .bottom_line import bottom_line, plain_name, who
from .outcome_words import mapping_phrases
from .gate import GATING_STATUSES, STATUS_ORDER, changes_by_rule, gate_status, joint_level
from .suggest import MEASURES
from .report_layout import fit_labels, heading_settings, split_columns, unwrapped
from .report_text import (COLUMN_NAMES, DISTANCE_NAMES, QUANTITY_NAMES, interval_text, number_text, shown_table,
                          threshold_text)

CONFIG_ELEMENT_ID = "review-config"
REVIEW_ELEMENT_ID = "review-json"
TEMPLATE = "report.html.j2"


@functools.lru_cache(maxsize=None)
def _environment():
    """The report's Jinja2 environment (made on first use: jinja2 is imported only to render a report):
    templates from ``fairness_core/templates``, autoescape on."""
    import jinja2
    from markupsafe import Markup

    def escaped(value):
        # Autoescape, in the entities the report has always used (html.escape: &#x27; and &quot;); markup
        # (plotly's, tojson's) passes as it is. Jinja applies this to every {{ }} before its own escape.
        if hasattr(value, "__html__"):
            return value
        return Markup(html.escape(str(value), quote=True))

    def text(value):
        # A table cell or header, escaped as pandas' to_html escaped it (a text node needs only &, < and >).
        return Markup(str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))

    env = jinja2.Environment(loader=jinja2.PackageLoader("fairness_core", "templates"), autoescape=True,
                             finalize=escaped, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["text"] = text
    # tojson writes the embedded JSON as the review writes it (key order kept, one space of indent)
    env.policies["json.dumps_kwargs"] = {"sort_keys": False, "indent": 1, "ensure_ascii": False}
    return env


def render_report(review) -> str:
    """The review as a self-contained HTML document.

    Charts are interactive Plotly figures with plotly.js embedded once (no network needed);
    tables are plain HTML (every column, wrapped, so printing cuts none); all data text is
    escaped (Jinja2 templates with autoescape). The review's configuration is embedded as JSON (element id
    ``review-config``, and a download link) so that it can be uploaded to the app with the same data to
    restore the view, and the whole review's JSON (``review-json``) holds every number.

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
    weighted = bool(review.config.mapping.weight)   # counts are sums of weights, sizes effective sizes
    first = [True]

    def table(frame, empty: str = "None.") -> dict:
        return _table(frame, empty, weighted=weighted)

    def figure(fig, min_height: int = 380) -> dict:
        fig.update_layout(width=None, height=max(int(fig.layout.height or 420), min_height))
        fit_labels(fig)   # margins that hold the subgroup labels, printed too
        out = pio.to_html(fig, full_html=False, include_plotlyjs=first[0], config={"displaylogo": False,
                                                                                     "responsive": True})
        first[0] = False
        return {"kind": "figure", "plotly_html": out}   # plotly's own markup: the template's one |safe

    # With two or more models every verdict line names its model (a line is read, quoted and printed alone);
    # with one, its heading does.
    several = len(review.models) > 1
    # Page one is the answer, as the Overview's first screen: the outcome in one sentence, each model's bottom line
    # and scorecard, the gate; then the details.
    blocks = [_h1(f"Fairness review: {review.source.get('name', 'data')}"), _p(_outcome_text(review.config.mapping))]
    # the labels' one rule (base-rate disparity) is about the subgroup its largest comparison names
    labels_whom = [who(review.dataset_parity)] if len(review.dataset_verdicts) == 1 else None
    for model in review.models:
        line = bottom_line(model.verdicts, model.subjects or None, review.dataset_verdicts, labels_whom,
                           intervals=level is not None)
        lead = f"Bottom line for {model.name}" + ("" if model.threshold is None else
                                                  f" at threshold {threshold_text(model.threshold)}")
        blocks.append(_p(f"{lead}. {' '.join(line)}" if line else f"{lead}: no policy rule applies."))
        if model.verdicts:
            blocks.append(figure(plotting.scorecard_chart(
                model.verdicts, [plain_name(v.rule) for v in model.verdicts], details=model.subjects or None,
                changes=changes_by_rule(model.verdicts, review.changes or (), model.name)), min_height=0))
    blocks += [*_gate(review), _meta(review), _h2("Policy verdicts")]
    for model in review.models:   # each model's rules under its name; the labels' rules apart, never the model's
        if model.verdicts:
            blocks += [_h3(model.name), _verdicts(model.verdicts, model.name if several else "")]
    if review.dataset_verdicts:
        blocks += [_h3("Rules about the labels (properties of the data, not of a model)"),
                   _verdicts(review.dataset_verdicts, "Labels" if several else "")]
    if review.changes:   # the release gate's judgement of each candidate against the baseline
        blocks += _changes(review.changes, review.config)
    blocks += [_h2("The data"),
               _p(f"Base rate (share of positive labels): {number_text(review.base_rate[0])}"
                  + ("" if level is None else f" ({level * 100:g} % interval "
                                                 f"{interval_text(review.base_rate[1], review.base_rate[2])})")),
               _h3("Subgroups"), table(review.subgroups), _h3("Rows left out"),
               table(review.exclusions, "No row was left out."),
               _h3("Base-rate disparity"), _findings(review.dataset_findings), table(review.dataset_parity.table)]
    if review.edf is not None:
        blocks += [_h3(f"Smoothed empirical differential fairness: {number_text(review.edf.value)}"),
                   table(review.edf.table)]
    if review.consistency is not None:
        blocks += _consistency(review.consistency)
    for model in review.models:
        title = (f"Model {model.name}" + ("" if model.threshold is None else
                                          f" at threshold {threshold_text(model.threshold)}")
                 if model.kind == "score" else f"Given predictions ({model.name})")
        blocks += [_h2(title), _findings(model.findings), _verdicts(model.verdicts, model.name if several else ""),
                   _h3("Performance at the threshold"), table(model.performance)]
        if model.auc_table is not None:
            auc = model.auc_table.copy()
            auc.attrs = {k: v for k, v in model.auc_table.attrs.items() if k == "ci"}
            blocks += [_h3("Subgroup AUCs"),
                       _p(f"Bias AUC score {number_text(model.bias_auc.value)}; overall AUC "
                          f"{number_text(model.bias_auc.overall_auc)}."),
                       figure(plotting.auc_chart(auc, title=f"AUCs per subgroup, {model.name}", level=level)),
                       table(auc)]
        assessed = [m for m in model.rates if m not in ("equalized_odds", "theil_index")]
        metrics = [m if m != "statistical_parity" else "selection_rate" for m in assessed]
        pairwise = keyword(review.config.rate_reference) == "pairwise"
        references = None if pairwise else {
            rate: model.rates[metric].table for rate, metric in zip(metrics, assessed)}
        blocks += [_h3("Rates per subgroup"),
                   figure(plotting.rate_chart(model.rate_table, metrics, references, title="Rates per subgroup",
                                              level=level)), table(model.rate_table)]
        for metric, result in model.rates.items():
            against = None if result.reference is None else _AGAINST.get(keyword(result.reference),
                                                                          f"against subgroup {result.reference}")
            distance = DISTANCE_NAMES.get(result.distance_measure, result.distance_measure)
            settings = heading_settings(result.reduction, distance, against)
            blocks += [_h3(f"{QUANTITY_NAMES.get(metric, metric)}{settings}: {number_text(result.value)}"),
                       table(result.table)]
        ratio_tables = {"p% score": model.p_percent.table, "Equal opportunity score": model.equal_opportunity.table}
        blocks += [_h3("p% and equal opportunity scores"),
                   figure(plotting.ratio_score_chart(ratio_tables, title="Each subgroup against the rest",
                                                     level=level))]
        blocks += [table(t) for t in ratio_tables.values()]
        if model.calibration is not None:
            result = model.calibration
            blocks += [_h3("Calibration"),
                       figure(plotting.reliability_chart(model.reliability, title=f"Reliability diagram, {model.name}",
                                                         small=result.errors, level=level)),
                       figure(plotting.calibration_error_chart(
                           result.errors, None if keyword(review.config.cal_reference) == "pairwise" else result.table,
                           distance_measure=result.distance_measure, level=level,
                           title="Calibration error per subgroup")),
                       table(result.errors), table(result.table)]
        elif model.calibration_note:
            blocks += [_h3("Calibration"), _p(model.calibration_note)]
        if model.subgroup_thresholds is not None:
            blocks += _subgroup_thresholds(model.subgroup_thresholds, review.config)
        if model.suggestion is not None:
            blocks += _suggestion(model.suggestion)
        if model.classwise is not None:
            blocks += _classwise(model.classwise, level, figure, table)
    if review.discovery is not None:
        blocks += _discovery(review.discovery, level, figure, table)
    if review.over_time is not None:
        blocks += _over_time(review, figure, table)
    if review.differences:
        blocks += [_h2(f"Differences from the baseline model {review.config.baseline}"),
                   _p("Each model minus the baseline, with paired intervals (both models score the same rows): a "
                      "paired bootstrap for the rate disparities and the ECE, DeLong's covariance of correlated "
                      "AUCs for the AUCs.")]
        titles = {"rates": "Rate disparities and ratio scores", "aucs": "AUCs",
                  "calibration": "Expected calibration error"}
        for kind, frame in review.differences.items():
            blocks += [_h3(titles[kind]), table(frame)]
    config = review.config.to_json()
    link = "data:application/json;base64," + base64.b64encode(config.encode("utf-8")).decode("ascii")
    blocks += [_h2("Configuration"),
               _p("Upload this file with the same data in the dashboard (Data page) to restore this view."),
               {"kind": "download", "filename": "review-config.json", "href": link,
                "text": "Download the configuration"},
               {"kind": "pre", "text": config},
               _json_script(CONFIG_ELEMENT_ID, config), _json_script(REVIEW_ELEMENT_ID, review.to_json())]
    template = _environment().get_template(TEMPLATE)
    return template.render(title=f"Fairness review: {review.source.get('name', 'data')}",
                           blocks=[b for b in blocks if b is not None])


_REFERENCES = {"rest": "the rest of the population", "overall": "the whole population",
               "pairwise": "every other subgroup"}
# How a rate disparity's heading says what each subgroup was compared with.
_AGAINST = {"rest": "against the rest", "overall": "against the whole population", "pairwise": "between every pair"}
_CLASS_METRICS = {"recall": "Recall", "precision": "Precision", "fscore": "F-score"}
_CLASS_REDUCTIONS = {"std": "the standard deviation across subgroups", "difference": "the signed difference first - second",
                     "absolute_difference": "the absolute difference |first - second|"}


def _consistency(result) -> list:
    from .records import consistency_table

    counted = (f"every one of the {result.n_rows:,} rows" if result.n_sampled >= result.n_rows else
               f"a random sample of {result.n_sampled:,} of the {result.n_rows:,} rows (seed 0), standard error "
               f"{number_text(result.std_error)}")
    return [_h3("Consistency (similar rows, similar labels)"),
            _p(f"Share of differing neighbours {number_text(result.value)} (perfect 0); consistency (Zemel et al.) "
               f"{number_text(result.zemel_consistency)}. The {result.n_neighbors} nearest neighbours of {counted}, "
               f"on the standardised features {', '.join(result.features)}"
               + (f"; {result.n_excluded:,} rows with a missing feature value left out." if result.n_excluded else ".")),
            _table(consistency_table(result))]


def _subgroup_thresholds(effect, config) -> list:
    overall = effect.table.iloc[0]
    changes = "; ".join(f"the {_lower(QUANTITY_NAMES.get(rate, rate))} goes from {number_text(single)} to "
                        f"{number_text(own)}" for rate, single, own in effect.disparities.itertuples(index=False))
    sentence = (f"With these thresholds, overall accuracy is {number_text(overall['accuracy_own'])} "
                f"({number_text(overall['accuracy_single'])} at the single threshold "
                f"{threshold_text(effect.threshold)})"
                + (f"; {changes} ({config.rate_reduction}, "
                   f"{DISTANCE_NAMES.get(config.rate_distance, config.rate_distance)}, against "
                   f"{_REFERENCES.get(keyword(config.rate_reference), f'subgroup {config.rate_reference}')})."
                   if changes else "."))
    return [_h3("Per-subgroup thresholds"), _p(sentence), _table(effect.table), _table(effect.disparities)]


def _lower(name: str) -> str:
    """A name inside a sentence: its first letter lower case, unless it is an acronym ("BPSN AUC")."""
    return name if name[:2].isupper() else name[:1].lower() + name[1:]


def _classwise(result, level, figure, table=None) -> list:
    from .. import plotting

    metric = _CLASS_METRICS.get(result.metric, result.metric)
    what = _CLASS_REDUCTIONS.get(result.reduction, result.reduction)
    pair = f" ({', '.join(result.subgroups)})" if result.reduction != "std" else ""
    table = table or _table
    interval = "" if level is None or math.isnan(result.ci_low) else interval_text(result.ci_low, result.ci_high)
    value = number_text(result.value) + (f" ({level * 100:g} % interval {interval})" if interval else "")
    return [_h3(f"Class-wise bias: unweighted average bias {value}"),
            _p(f"Per class: {what}{pair} of the subgroups' {metric}; then the unweighted mean over the "
               f"{result.n_classes_used} classes used. Perfect value 0." + (f" {result.reason}" if result.reason else "")),
            figure(plotting.classwise_chart(result.table, result.metric, level=level,
                                            title=f"{metric} per class and subgroup")),
            table(result.per_class), table(result.table)]


# Blocks: what the template lays out, in document order. Each holds text and numbers, never markup.

def _h1(text) -> dict:
    return {"kind": "h1", "text": str(text)}


def _h2(text, first: bool = False) -> dict:
    return {"kind": "h2", "text": str(text), "first": first}


def _h3(text) -> dict:
    return {"kind": "h3", "text": str(text)}


def _p(text) -> dict:
    return {"kind": "p", "text": str(text)}


def _meta(review) -> dict:
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
            ("Created", f"{review.created} by fairness-core {review.version}")]
    if mapping.weight:
        rows.insert(3, ("Weights", f"{mapping.weight}: every count is a sum of weights (total "
                                   f"{source.get('weight_total', float('nan')):,.6g}), every size an effective sample "
                                   f"size (Kish; {source.get('effective_rows', float('nan')):,.0f} for every row)"))
    if source.get("engine"):
        rows.insert(3, ("Computed by", f"{source['engine']}, from count tables (the rows never left it); "
                                       "not computed: " + "; ".join(source.get("not_computed", []))))
    return {"kind": "meta", "rows": rows}


def _verdicts(verdicts, model: str = ""):
    """A list of verdicts; `model` (a model's name, or "Labels") starts every line when it is not empty."""
    if not verdicts:
        return None
    items = [{"status": v.status, "label": v.status.replace("_", " "), "model": model, "sentence": v.sentence,
              "note": v.note if v.note and v.note not in v.sentence else ""}   # a sentence may already end with its note
             for v in _fails_first(verdicts)]
    return {"kind": "verdicts", "entries": items}


def _fails_first(items) -> list:
    """Verdicts or changes, what fails first, then inconclusive and not assessable ones, then passes (stable)."""
    return sorted(items, key=lambda item: STATUS_ORDER[item.status])


def _gate(review) -> list:
    """The release gate as the command line judges it with the review's configuration: its exit status, what gates,
    and each gating verdict that is not a pass, fails first (those that do not gate without strictness marked)."""
    try:
        gated, changes = review.gating()
    except ValueError as exc:   # the configured gate names what this review lacks
        return [_h3("Release gate"), _p(f"Not judged: {exc}")]
    strict = bool(review.config.gate_strict)
    status = gate_status(gated, changes, strict=strict)
    names = review.config.gate_rules
    what = (f"what the configuration names ({', '.join(names)})" if names else
            "every rule of the models" + (" and of the labels" if review.config.gate_labels else "")
            + (f" and every change from the baseline {review.config.baseline}" if review.changes else ""))
    if review.gate_period:   # the latest period's rules only
        period = review.latest_period()[0]
        over = review.over_time
        what = (f"the rules of the latest period of {over.config.mapping.time}, {period} "
                f"({int(over.periods['rows'].iloc[-1]):,} rows), only: "
                + (f"those the configuration names ({', '.join(names)})" if names else
                   "its rate rules" + (" and its rule about the labels" if review.config.gate_labels else ""))
                + "; the rules of every row, and the AUC and calibration rules, are reported, not gating")
    bad = GATING_STATUSES[strict]
    failing = sum(v.status in bad for _, v in gated) + sum(c.status in bad for c in changes)
    text = (f"{'Fails' if status else 'Passes'} (exit status {status} of the command line): {failing} of "
            f"{len(gated) + len(changes)} gating verdicts {'fail' if not strict else 'are not a pass'}. What gates: "
            f"{what}" + ("; inconclusive and not assessable verdicts fail too (strict)." if strict else
                         "; an inconclusive or not assessable verdict is listed but does not fail the gate."))
    several = len(review.models) > 1
    entries = [{"status": v.status, "label": v.status.replace("_", " "),
                "model": "Labels" if model is None else model if several else "", "sentence": v.sentence,
                "note": "" if v.status in bad else "(does not fail the gate unless it is strict)"}
               for model, v in gated if v.status != "pass"]
    entries += [{"status": c.status, "label": c.status.replace("_", " "), "model": "", "sentence": c.sentence,
                 "note": "" if c.status in bad else "(does not fail the gate unless it is strict)"}
                for c in changes if c.status != "pass"]
    entries.sort(key=lambda entry: STATUS_ORDER[entry["status"]])
    return [_h3("Release gate"), _p(text)] + ([{"kind": "verdicts", "entries": entries}] if entries else [])


def _outcome_text(mapping) -> str:
    """The declared outcome and the label's coding in one sentence, e.g. "The label deny has the positive value yes
    (the event the scores predict); a positive prediction is adverse for the person, so the four-fifths rule and the
    p% and equal opportunity scores compare the favourable prediction (predicted deny ≠ yes)." In the data's own
    words where the mapping gives them (:func:`mapping_phrases`: "... the favourable prediction (approved)")."""
    head = (f"The label {mapping.label} has the positive value {mapping.positive_label} (the event the scores "
            f"predict); a positive prediction is {mapping.positive_outcome} for the person, so the four-fifths rule "
            f"and the p% and equal opportunity scores compare ")
    which = "favourable" if mapping.positive_outcome == "adverse" else "positive"
    return head + f"the {which} prediction ({mapping_phrases(mapping).favourable_prediction}) across subgroups."


def _suggestion(suggestion) -> list:
    """Where every rate rule passes across thresholds, the suggested threshold and each threshold's verdicts and
    overall cost."""
    def runs(status: str) -> str:   # the thresholds of a status, to 3 decimals: "0.959 to 0.978, 0.99"
        return ", ".join(threshold_text(a) if a == b else f"{threshold_text(a)} to {threshold_text(b)}"
                         for a, b in suggestion.bands(status)) or "none"

    measure = _lower(COLUMN_NAMES.get(suggestion.measure, suggestion.measure))
    how = ("the highest" if MEASURES[suggestion.measure] == "max"
           else f"the closest to its value at the current threshold {threshold_text(suggestion.current)}")
    text = (f"Every rate rule passes with its whole interval at: {runs('pass')}; none fails but one is "
            f"inconclusive at: {runs('inconclusive')}. "
            + (f"Suggested threshold: {threshold_text(suggestion.suggested)}, the passing one whose {measure} is {how}."
               if suggestion.basis == "pass" else
               f"No threshold passes every rule with its interval. Suggested threshold: "
               f"{threshold_text(suggestion.suggested)}, "
               f"where no rule fails (one is inconclusive: the data are too few to decide it"
               + (f"; about {suggestion.rows_needed:,.0f} rows in the smallest subgroup would" if
                  math.isfinite(suggestion.rows_needed) else "") + f"), the one whose {measure} is {how}."
               if suggestion.basis == "no_fail" else
               "At every threshold a rule fails or cannot be assessed, so none is suggested."))
    # the table's column per rule (named by the rule's key) under the rule's plain name
    shown = suggestion.suggested if suggestion.suggested is not None else next(iter(suggestion.verdicts), None)
    rules = [v.rule for v in suggestion.verdicts[shown]] if shown is not None else []
    plain = [plain_name(rule) for rule in rules]
    names = {rule.name: name if plain.count(name) == 1 else rule.label for rule, name in zip(rules, plain)}
    return [_h3("Thresholds where the rules pass (suggestion)"), _p(text), _table(suggestion.table, names=names)]


def _changes(changes, config) -> list:
    """The changes from the baseline that are not a pass, each a verdict line under its candidate's name, and how
    many are within the tolerance."""
    shown = _fails_first(c for c in changes if c.status != "pass")
    passed = len(changes) - len(shown)
    level, pass_level = joint_level(changes), changes[0].pass_level
    intro = (f"Each other model against the baseline {config.baseline} on the same rows, for non-inferiority with "
             f"the tolerance {config.max_worsening:g} (in the units of a difference of rates; twice it for the p% and equal opportunity scores, ratios of rates): a rate disparity, ratio score, "
             f"subgroup, BPSN or BNSP AUC or subgroup ECE fails when it is worse than the baseline's by more than the "
             f"tolerance across its paired interval"
             + ("" if level is None else f" (its low end a joint bound over the {len(changes)} changes: max-t "
                                         f"within the rates' and the ECEs' paired replicates, Bonferroni for the "
                                         f"AUCs; at most {level * 100:.4g} %)")
             + ", passes when the whole interval is within it"
             + ("" if pass_level is None or pass_level == level else
                f" (its high end at {pass_level * 100:.4g} %: the candidate passes only if every change does, which "
                f"needs no adjustment)")
             + f", and is otherwise inconclusive. {passed} of {len(changes)} changes pass" + (":" if shown else "."))
    entries = [{"status": c.status, "label": c.status.replace("_", " "), "model": "", "sentence": c.sentence,
                "note": ""} for c in shown]
    blocks = [_h3(f"Changes from the baseline model {config.baseline}"), _p(intro)]
    return blocks + ([{"kind": "verdicts", "entries": entries}] if entries else [])


def _discovery(found, level, figure, table) -> list:
    """Subgroup discovery: per model the ranked subgroups (conditions, held-out size, value against the rest, the
    difference with its interval, whether it excludes parity after Benjamini-Hochberg) and a chart of the top ones,
    with how the rows were split; findings, never gating."""
    from ..plotting._discovered import discovery_chart

    what = COLUMN_NAMES.get(found.quantity, found.quantity)
    blocks = [_h2("Discovered subgroups"),
              _p(f"For each model, the intersections of up to {found.depth} of the columns "
                 f"{', '.join(found.columns)} whose {_lower(what)} differs most from that of every other row, worst "
                 "first. These are findings to look at, not policy rules: they never change the exit status (the "
                 "release gate).")]
    for model, result in found.results.items():
        side = {"higher": f"a higher {_lower(what)} than the rest is worse",
                "lower": f"a lower {_lower(what)} than the rest is worse",
                "either": "a difference either way counts"}[result.direction]
        if result.level is not None:
            split = (f"The rows were split at random (seed 0): the search ranked every intersection with at least "
                     f"{result.min_size:,} rows on {result.search_rows:,} rows, and each subgroup found was then "
                     f"estimated on the other {result.estimate_rows:,} (held-out) rows alone, so that its value and "
                     f"its {result.level * 100:g} % interval (of the difference from the rest) are not inflated by "
                     "its selection as the worst. 'Interval excludes parity' is after Benjamini-Hochberg over the "
                     f"{len(result.table)} subgroups listed (false discovery rate {(1 - result.level) * 100:g} %).")
        else:
            split = (f"Without intervals, the search ranked and reports on all {result.search_rows:,} rows: values "
                     "selected as the worst of many look worse than they are.")
        shown = result.table[["rank", "subgroup", "depth", "size", "value", "rest_value", "difference", "ci_low",
                              "ci_high", "p_value", "excludes_parity"]].rename(columns={
                                  "size": "held_out_size" if result.level is not None else "size",
                                  "ci_low": "difference_ci_low", "ci_high": "difference_ci_high"})
        blocks += [_h3(f"{model}: {what}"),
                   _p(f"{split} Here {side}; {result.examined:,} intersections were counted."),
                   figure(discovery_chart(result.table, title=f"Subgroups found, {model}", level=result.level,
                                          value_label=_lower(what))) if not result.table.empty else None,
                   table(shown, f"No intersection has at least {result.min_size:,} rows.")]
    blocks += [_p(f"{model} was not searched: {why}.") for model, why in found.skipped]
    return blocks


def _over_time(review, figure, table) -> list:
    """Fairness over time: the periods, each rule's summary (first failure, latest verdict, trend), per model a
    chart per rule on the time axis they share and the table of every period's verdicts."""
    from ..plotting._over_time import over_time_chart
    from .records import over_time_rules

    over = review.over_time
    level = over.config.ci
    periods = over.periods
    labels = [str(p) for p in periods["period"]]
    rules = {(m.name, v.rule.name): v.rule for m in review.models for v in m.verdicts}
    rules |= {("labels", v.rule.name): v.rule for v in review.dataset_verdicts}
    for name, reviews in over.models.items():   # every rule per period, also one the whole data lacks
        for r in reviews:
            rules.update({(name, v.rule.name): v.rule for v in (r.verdicts if r is not None else ())
                          if (name, v.rule.name) not in rules})

    def rule_name(model, rule):
        found = rules.get((model, rule))
        return plain_name(found) if found is not None else rule.replace("_", " ")

    no_period = int(over.exclusions.loc[over.exclusions["reason"].isin(["no time", "time outside the edges"]),
                                        "rows"].sum()) if not over.exclusions.empty else 0
    zone = f" (in its time zone {over.time_zone})" if over.time_zone else ""
    thresholds = ", ".join(f"{name} {threshold_text(t)}" for name, t in over.thresholds.items())
    intro = (f"The rate rules of each model and the rule about the labels per {over.period or 'value'} of "
             f"{over.config.mapping.time}{zone}: {len(labels)} periods"
             + (f", from {labels[0]} to {labels[-1]}" if labels else "")
             + ". Each period is judged on its own rows"
             + ("" if level is None else f", with its own {level * 100:g} % interval")
             + (f", at the thresholds of every row ({thresholds})" if thresholds else "")
             + "; a period without rows is not assessable, never a value of 0"
             + (f"; {no_period:,} rows have no time and are in no period." if no_period else ".")
             + " Over many periods a rule that holds can fail in one of them by chance; the trend and the test "
               "that every period is equal look at the whole series.")
    blocks = [_h2("Fairness over time"), _p(intro)]
    if review.gate_period:
        blocks.append(_p(f"The release gate judged the latest period, {review.latest_period()[0]}, only."))
    shown_periods = periods[["period", "start", "rows", "n_positive", "small_subgroups"]].assign(
        start=periods["start"].astype(str))
    summary = over_time_rules(over)
    summary = summary.assign(rule=[rule_name(m, r) for m, r in zip(summary["model"], summary["rule"])],
                             model=[("Labels" if m == "labels" else m) for m in summary["model"]],
                             latest_status=summary["latest_status"].map(lambda s: s.replace("_", " ")))
    summary = summary.drop(columns=["metric"])
    blocks += [_h3("Periods"), table(shown_periods),
               _h3("Each rule over time"),
               _p("Per rule: the periods with each verdict, the first period whose whole interval is beyond the "
                  "rule's bound (a fail) with that interval, the latest verdict, and the weighted trend of the "
                  "estimates per period (Knapp-Hartung interval) with the p-value of Cochran's Q test that every "
                  "period's value is equal (both need intervals and two periods with one)."),
               table(summary)]
    for model in list(over.models) + ["labels"]:
        part = over.verdicts[over.verdicts["model"] == model]
        if part.empty:
            continue
        blocks.append(_h3("The labels (a property of the data)" if model == "labels" else f"Model {model}"))
        for rule in dict.fromkeys(part["rule"]):
            series = part[part["rule"] == rule].sort_values("position")
            found = rules.get((model, rule))
            name = rule_name(model, rule)
            metric = series["metric"].iloc[0]
            blocks.append(figure(over_time_chart(
                series, labels, bound=None if found is None else found.bound,
                bound_label=None if found is None else f"bound {found.bound:g}", title=f"{name} per period",
                level=level, value_label=QUANTITY_NAMES.get(metric, metric)), min_height=0))
        rows = part.sort_values(["position"], kind="stable")[
            ["period", "rule", "value", "ci_low", "ci_high", "status", "rows", "note"]]
        rows = rows.assign(rule=[rule_name(model, r) for r in rows["rule"]]).rename(
            columns={"ci_low": "value_ci_low", "ci_high": "value_ci_high"})
        blocks.append(table(rows))
    return blocks


def _findings(findings):
    if not findings:
        return None
    return {"kind": "findings", "entries": [str(f) for f in findings]}


def _table(frame: pd.DataFrame, empty: str = "None.", weighted: bool = False, names=None) -> dict:
    """A table block: the columns by their human names and every cell as the report prints it (estimates and
    interval ends to 3 significant digits, an interval's two ends as one column, counts with thousands separators,
    thresholds to 3 decimals, missing values empty: ``report_text.shown_table``), after neutralizing
    spreadsheet formulas. `weighted`: the counts are sums of weights; `names`: columns the report layer does not
    name (a suggestion's rules) by name."""
    if frame.empty:
        return {"kind": "table", "columns": [], "rows": [], "parts": [], "empty": empty}
    columns, rows = shown_table(neutralize_formulas(frame.reset_index(drop=True)), weighted=weighted, names=names)
    # A table wider than the printed page is split by columns into parts that fit it, its key columns
    # (subgroup, reference) repeated in each: never one-character columns on A4.
    split = split_columns(columns, rows)
    short_header, short_cells = unwrapped(columns, rows)
    parts = [{"columns": [columns[i] for i in part], "rows": [[row[i] for i in part] for row in rows],
              "short_header": [short_header[i] for i in part], "short_cells": [short_cells[i] for i in part],
              "caption": "" if len(split) == 1 else f"Part {n} of {len(split)}"}
             for n, part in enumerate(split, 1)]
    return {"kind": "table", "columns": columns, "rows": rows, "parts": parts, "empty": empty}


def _json_script(element_id: str, text: str) -> dict:
    # The template's tojson writes it with JSON unicode escapes for <, > and &: valid JSON, no markup.
    return {"kind": "json", "element_id": element_id, "data": json.loads(text)}
