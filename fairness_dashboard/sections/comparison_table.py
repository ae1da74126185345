"""A comparison table as the metric pages show it: with a pairwise reference, the subgroup × subgroup heatmap
of its comparisons first; then the table, sorted worst first when subgroups are ordered so."""

from __future__ import annotations

import streamlit as st

from fairness_core import plotting

from ..presentation import formats
from ..settings import controls


def draw(table, *, pairwise: bool, order, level, title: str, **heatmap) -> None:
    """Draw comparison table `table` (``subgroup``, ``reference``, ``disparity``, ...): when `pairwise`, above it
    ``plotting.pairwise_heatmap(table, order=order, level=level, title=title, **heatmap)`` (`heatmap`: its
    ``distance_measure``, ``value_label`` and ``label``, as the page's comparison calls for), full width; then the
    table sorted by :func:`fairness_dashboard.settings.controls.by_value`, with the readable headers of :func:`fairness_dashboard.presentation.formats.column_config`."""
    if pairwise:
        st.plotly_chart(plotting.pairwise_heatmap(table, order=order, level=level, title=title, **heatmap),
                        width="stretch")
    shown = controls.by_value(table)
    st.dataframe(shown, hide_index=True, column_config=formats.column_config(shown.columns))
