"""Rows of metric tiles that wrap onto a new line when the page is narrow, instead of cutting their labels.

``st.columns(5)`` gives each tile a fifth of the main column, so at a 1,024-px window "Power mean: subgroup" was
cut to "Power me…". :func:`row` lays the tiles out in a horizontal container that wraps (Streamlit's flex
layout), each tile at least :data:`TILE_WIDTH` pixels wide: as many per line as fit, the rest below.
"""

from __future__ import annotations

import streamlit as st

TILE_WIDTH = 240   # px: the longest tile label ("False negative rate disparity (max)", 198 px), its help icon and padding


def row(n: int) -> list:
    """`n` containers for tiles (a metric and its caption each), side by side while they fit, wrapping when not.

    Parameters
    ----------
    n : int >= 1

    Returns
    -------
    list of DeltaGenerator
        One container per tile, in order; use each as a column (``with tile:`` or ``tile.metric(...)``).
    """
    line = st.container(horizontal=True, wrap=True, gap="medium")
    return [line.container(width=TILE_WIDTH) for _ in range(n)]
