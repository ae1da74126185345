"""Plotly figure builders: tidy result tables -> ``plotly.graph_objects.Figure``.

Pure functions of the tables that :mod:`fairness_core` returns, shared by the app and notebooks.
Plotly is imported inside each function, so ``import fairness_core`` never loads it.
Colours come from Plotly's colour-blind-safe "Safe" palette, assigned by subgroup position, so
a subgroup keeps its colour on every chart of the same data.

Table conventions the charts read when present; without them a chart has no
error bars, no interval text and no stars:

- ``<col>_ci_low`` / ``<col>_ci_high`` beside an estimate column ``<col>``: drawn as error bars and
  written into the hover as "0.8562 (95 % CI 0.6112–0.9634)". The level comes from the ``level``
  argument or ``table.attrs["ci"]`` (comparison tables: ``attrs["row_level"]`` first, the level of
  intervals adjusted for multiple comparisons); unknown, the hover says "CI" without a percentage.
- ``small`` (bool) and ``small_reason`` (text) per subgroup: small subgroups are hatched (bars),
  open and faded (markers) or dotted and faded (lines), with the reason on hover and a legend entry
  that says what the mark means.
- ``excludes_parity`` (bool or NA) in comparison tables: a star beside the subgroup's bar.

Policy and reference lines are drawn with :func:`add_rule_line`. The AUC chart's x range fits the
data rather than spanning 0-1 unless asked (see :func:`auc_chart`). Every per-subgroup chart takes
an ``order`` (e.g. worst first) and keeps each subgroup's colour whatever the order. Pairwise
comparisons, which have no single reference per subgroup, are drawn by :func:`pairwise_heatmap`.

Every piece of data text (subgroup, class and reference names, notes, titles) goes through
:func:`plot_text`, because Plotly renders a subset of HTML in names, tick labels, hover text and
annotations.
"""

from __future__ import annotations

import importlib
import typing

# Where each public name is defined. The modules are imported when a name is first read (``__getattr__``, PEP 562):
# ``import fairness_core`` reaches ``plotting._common`` and ``plotting._margins`` for a few constants and text
# widths, and must not pay for every chart module with them.
_SOURCES = {
    "auc_chart": "_auc", "reliability_chart": "_calibration", "calibration_error_chart": "_calibration_errors",
    "classwise_chart": "_classwise", "pairwise_heatmap": "_pairwise", "rate_chart": "_rates",
    "ratio_score_chart": "_ratio_scores", "model_auc_heatmap": "_review", "threshold_chart": "_review",
    "threshold_tradeoff_chart": "_review", "tradeoff_chart": "_review", "STATUS_COLORS": "_review", "rule_subgroups_chart": "_rule_subgroups",
    "scorecard_chart": "_scorecard",
    **{name: "_common" for name in (
        "AUC_COLUMNS", "AUC_MIN_SPAN", "LEVEL_MESSAGE", "PARITY_LEGEND", "PARITY_TEXT", "RATE_LABELS",
        "RULE_AXIS_MESSAGE", "RULE_COLOR", "RULE_VALUE_MESSAGE", "SMALL_LEGEND", "SMALL_OPACITY", "SMALL_PATTERN",
        "SMALL_TEXT", "add_rule_line", "plot_text", "rule_line_parts", "subgroup_colors")},
}

if typing.TYPE_CHECKING:   # the same names for readers of the source (type checkers, the API reference)
    from ._auc import auc_chart
    from ._calibration import reliability_chart
    from ._calibration_errors import calibration_error_chart
    from ._classwise import classwise_chart
    from ._pairwise import pairwise_heatmap
    from ._common import (AUC_COLUMNS, AUC_MIN_SPAN, LEVEL_MESSAGE, PARITY_LEGEND, PARITY_TEXT, RATE_LABELS,
                          RULE_AXIS_MESSAGE, RULE_COLOR, RULE_VALUE_MESSAGE, SMALL_LEGEND, SMALL_OPACITY, SMALL_PATTERN,
                          SMALL_TEXT, add_rule_line, plot_text, rule_line_parts, subgroup_colors)
    from ._rates import rate_chart
    from ._ratio_scores import ratio_score_chart
    from ._review import STATUS_COLORS, model_auc_heatmap, threshold_chart, threshold_tradeoff_chart, tradeoff_chart
    from ._rule_subgroups import rule_subgroups_chart
    from ._scorecard import scorecard_chart


def __getattr__(name: str):
    """A public name, from its module, imported on first use (then kept in the package's namespace)."""
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{source}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    """The package's names, the public ones included before their first use."""
    return sorted(set(globals()) | set(_SOURCES))


__all__ = ["AUC_COLUMNS", "RATE_LABELS", "STATUS_COLORS", "add_rule_line", "auc_chart", "classwise_chart", "pairwise_heatmap",
           "plot_text", "rate_chart", "ratio_score_chart", "reliability_chart", "rule_line_parts", "subgroup_colors",
           "calibration_error_chart", "threshold_chart", "model_auc_heatmap", "tradeoff_chart", "scorecard_chart",
           "threshold_tradeoff_chart", "rule_subgroups_chart"]
