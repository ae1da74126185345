"""The Discover subgroups page's way from a subgroup found to every page: the sidebar slice's conditions that select
exactly its rows (when the slice can hold it), and the button that makes them the slice of every page."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc

from ..data import profiling
from ..presentation import escape
from ..session import state

APPLIED = "discover:applied"   # session key: the slice the button just set, said once on the next run
_BIN = re.compile(r"^([\[(])(\S+), (\S+)([\])])$")   # a numeric column's quantile bin, e.g. "(39.25, 46.15]"


def slice_conditions(token: str, parsed: list | None, attributes: pd.DataFrame, rows: int) -> tuple:
    """The sidebar slice's conditions that select exactly a subgroup's rows, or None and why not.

    A value of a column the slice lists by value (``profiling.slice_values``) is kept as that value; a quantile bin
    of a numeric column, ``(a, b]``, as the range from just above a to b, within the slice's own range of the column.
    The conditions must select exactly the subgroup's `rows` among the analysed rows: a bin's printed ends are
    rounded, so a bin is held only when its range selects the same rows.

    Parameters
    ----------
    token : str
        The dataset's token.
    parsed : list of (str, str) or None
        The subgroup's (column, value text) pairs (:func:`parse`).
    attributes : DataFrame of shape (n_rows, n_columns)
        The searched columns of the analysed rows.
    rows : int
        The subgroup's rows among them (held-out plus search rows).

    Returns
    -------
    conditions : tuple of fairness_core.Condition, or None
    reason : str
        Why the slice cannot hold the subgroup (plain text), '' when it can.
    """
    if not parsed:
        return None, "its conditions could not be read back"
    frame = st.session_state[state.FRAME]
    profile = profiling.column_profile(token, frame).set_index("column")
    held = []
    for column, value in parsed:
        if not (profile.at[column, "numeric"] or profile.at[column, "n_unique"] <= profiling.MAX_SLICE_VALUES):
            return None, f"the slice offers no column of more than {profiling.MAX_SLICE_VALUES} values ({column})"
        offered = profiling.slice_values(token, column, frame)
        if isinstance(offered, list):
            if value not in offered:
                return None, f"the slice does not offer the value {value} of {column}"
            held.append(fc.Condition(column, values=(value,)))
            continue
        bounds = _BIN.match(value)
        try:
            low, high = float(bounds.group(2)), float(bounds.group(3))
        except (AttributeError, ValueError):
            return None, f"the bin {value} of {column} is not a range of numbers"
        low = np.nextafter(low, np.inf) if bounds.group(1) == "(" else low
        high = np.nextafter(high, -np.inf) if bounds.group(4) == ")" else high
        held.append(fc.Condition(column, low=float(max(low, offered[0])), high=float(min(high, offered[1]))))
    if int(fc.Slice(tuple(held)).mask(attributes).sum()) != rows:
        return None, "the slice's conditions would not select exactly its rows (a numeric bin's ends are rounded)"
    return tuple(held), ""


def slice_section(token: str, names: list, conditions: list, reasons: list, excludes: list) -> None:
    """A subgroup picker and the button that makes the subgroup chosen the slice of every page (the sidebar's Slice:
    every page then analyses its rows alone, and compares the protected subgroups within it).

    Parameters
    ----------
    token : str
        The dataset's token (the slice's widgets are kept per dataset).
    names : list of str
        Each subgroup found in words (plain text).
    conditions : list of tuple of fairness_core.Condition or None
        Each subgroup's slice conditions (:func:`slice_conditions`), None when the slice cannot hold it.
    reasons : list of str
        Why not, where `conditions` is None.
    excludes : list of bool
        Whether each subgroup's interval excludes parity: the first such subgroup is offered first.
    """
    held = [i for i, c in enumerate(conditions) if c is not None]
    st.markdown("**Look closer at a subgroup found**: make it the slice of every page (sidebar, Slice); every "
                "page then analyses its rows alone and compares the protected subgroups within it.")
    if not held:
        st.caption(escape.md("The slice cannot hold any of these subgroups: " + "; ".join(sorted(set(reasons))) + "."))
        return
    first = next((i for i in held if excludes[i]), held[0])
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    # The options are the subgroups' names and the widget has no key: a new search offers other names, so the
    # picker is a new widget (a choice kept by position would show a subgroup of an earlier search).
    options = {f"{i + 1}. {names[i]}": i for i in held}
    chosen = options[c1.selectbox("Subgroup", list(options), index=held.index(first))]
    c2.button("Make it the slice of every page", type="primary", on_click=_use_as_slice,
              args=(token, conditions[chosen], names[chosen]))
    others = [i for i, c in enumerate(conditions) if c is None]
    if others:
        st.caption(escape.md(f"Not offered: subgroup {', '.join(str(i + 1) for i in others)} ("
                             + "; ".join(sorted({reasons[i] for i in others})) + ")."))


def _use_as_slice(token: str, conditions: tuple, name: str) -> None:
    """Make `conditions` the sidebar slice's (beside its conditions on other columns): the kept values of its widgets,
    whose own state is dropped so they are drawn with them (``fairness_dashboard.settings.page_frame``)."""
    current = st.session_state.get(state.SLICE) or fc.Slice()
    columns = {c.column for c in conditions}
    kept = [c.column for c in current.conditions if c.column not in columns]
    _keep(f"slice:{token}:columns", kept + [c.column for c in conditions])
    for c in conditions:
        if c.values:
            _keep(f"slice:{token}:{c.column}:values", list(c.values))
        else:
            _keep(f"slice:{token}:{c.column}:range", (float(c.low), float(c.high)))
    st.session_state[APPLIED] = name


def _keep(name: str, value) -> None:
    st.session_state[state.KEEP_PREFIX + name] = value
    st.session_state.pop("w:" + name, None)


def applied_note() -> None:
    """Once, after the button: which subgroup is now the slice and how to undo it."""
    name = st.session_state.pop(APPLIED, None)
    if name:
        st.success(escape.md(f"Every page now analyses the rows of {name} (the sidebar's Slice). Remove its "
                             "columns under Slice by to analyse every row again."))


def parse(name: str, columns) -> list | None:
    """The (column, value) pairs of a subgroup's name from ``fc.discover_subgroups`` (``col=value & col=value``,
    the columns in the order searched), or None when it cannot be read back."""
    def split(rest: str, start: int):
        for i in range(start, len(columns)):
            head = f"{columns[i]}="
            if not rest.startswith(head):
                continue
            tail = rest[len(head):]
            for end in [m.start() for m in re.finditer(" & ", tail)] + [len(tail)]:
                after = tail[end + 3:] if end < len(tail) else None
                more = [] if after is None else split(after, i + 1)
                if more is not None:
                    return [(columns[i], tail[:end])] + more
        return None

    return split(name, 0)


def readable(conditions: list) -> str:
    """``[("race", "Black"), ("single", "no")]`` as ``race = Black and single = no`` (plain text)."""
    return " and ".join(f"{column} = {value}" for column, value in conditions)
