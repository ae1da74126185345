"""How the review report fits a printed A4 page: charts with margins that hold their labels, tables split by
columns into parts no wider than the page, and headings that leave out absent settings. (Its words and numbers:
``report_text``.)

Everything here works on plain values (column names, cell texts, a Plotly figure's layout); nothing makes markup.
"""

from __future__ import annotations

import html
import math
import re

from ..plotting._margins import _values, text_width
from .report_text import COLUMN_NAMES

# The printed page: A4 (210 mm) less Chromium's default margins (about 10 mm each side), at 96 px per inch.
PAGE_WIDTH_PX = 700
# A printed table cell (report.css: 7.5 pt = 10 px text, .35rem of padding each side and a 1 px border).
CELL_CHAR_PX = 5.8
CELL_PAD_PX = 13
# A text column longer than this wraps (at its spaces, or anywhere: report.css sets overflow-wrap: anywhere).
WRAP_CHARS = 26
# A number, or a cell of at most SHORT_CELL characters without a space, is never wrapped (``table.data .n``), nor a
# header of at most SHORT_HEADER characters; longer headers wrap onto two lines.
SHORT_CELL = 12
SHORT_HEADER = 10
# Plotly's tick labels: average advance of a character of its default sans-serif font, as a share of the font
# size, with room to spare for print (glyphs measured on screen come out a little wider in a PDF).
LABEL_CHAR_EM = 0.6
LABEL_PAD_PX = 24
_TAG = re.compile(r"<[^>]*>")

# Columns that say which row a row is: repeated at the left of every part of a split table (by key or name).
_KEYS = ("subgroup", "reference", "first", "second", "class", "model", "rate", "metric", "kind")
KEY_COLUMNS = _KEYS + tuple(COLUMN_NAMES[k] for k in _KEYS)
_INTERVAL = re.compile(r"-?[0-9.,e-]+ to -?[0-9.,e-]+")


def heading_settings(*settings) -> str:
    """The settings of a heading, in parentheses, leaving out those that are absent.

    Parameters
    ----------
    *settings : str or None
        Each setting as the words the heading shows; None (or an empty string) for a setting that does
        not apply.

    Returns
    -------
    str
        ``" (a, b)"`` for the settings given, or an empty string when none is.

    Examples
    --------
    >>> heading_settings("max", None, "against rest")
    ' (max, against rest)'
    >>> heading_settings(None, "")
    ''
    """
    shown = [str(s) for s in settings if s is not None and str(s) != "" and str(s) != "None"]
    return f" ({', '.join(shown)})" if shown else ""


def _width_px(texts, header: str) -> float:
    """Estimated printed width of a column: its longest cell (text wrapped past WRAP_CHARS, at a word if it has
    one), or half its header (a header wraps onto two lines, at its spaces: never less than its longest word)."""
    longest = 0
    for text in texts:
        n = len(text)
        if n > WRAP_CHARS:
            n = max(WRAP_CHARS, max((len(w) for w in text.split()), default=0)) if " " in text else WRAP_CHARS
        longest = max(longest, n)
    word = max((len(w) for w in header.split()), default=0)   # a header wraps at its spaces only (report.css)
    longest = max(longest, len(header) if len(header) <= SHORT_HEADER else
                  min(max(math.ceil(len(header) / 2), word), WRAP_CHARS), 1)
    return CELL_CHAR_PX * longest + CELL_PAD_PX


def unwrapped(columns: list, rows: list) -> tuple:
    """Which headers and which columns' cells are printed on one line (short ones: a number is never cut).

    Returns
    -------
    tuple of (list of bool, list of bool)
        Per column: its header is short; every cell of it is short and has no space.

    Examples
    --------
    >>> unwrapped(["size", "subgroup_value_ci_low"], [["243", "a b"]])
    ([True, False], [True, False])
    >>> unwrapped(["Disparity interval"], [["-0.0804 to 0.0524"]])   # an interval is never cut either
    ([False], [True])
    """
    headers = [len(c) <= SHORT_HEADER for c in columns]
    cells = [all((len(row[i]) <= SHORT_CELL and " " not in row[i]) or _INTERVAL.fullmatch(row[i]) for row in rows)
             for i in range(len(columns))]
    return headers, cells


def split_columns(columns: list, rows: list, width_px: float = PAGE_WIDTH_PX) -> list:
    """Split a table's columns into parts that each fit `width_px`, the key columns repeated in every part.

    Parameters
    ----------
    columns : list of str
        The column names, in order.
    rows : list of list of str
        Every row's cells as the text shown.
    width_px : float, default=PAGE_WIDTH_PX
        The width a part may take (the printed page).

    Returns
    -------
    list of list of int
        Column positions of each part, in order; one part holding every column when the table fits. The
        leading key columns (``subgroup``, ``reference``, ...; at most two, and the first column always) start
        every part; each other column is in exactly one part, in the table's order.

    Examples
    --------
    >>> split_columns(["subgroup", "a", "b"], [["x", "1", "2"]])
    [[0, 1, 2]]
    >>> split_columns(["subgroup", "a", "b"], [["x", "1", "2"]], width_px=60)
    [[0, 1], [0, 2]]
    """
    widths = [_width_px([row[i] for row in rows], name) for i, name in enumerate(columns)]
    if sum(widths) <= width_px or len(columns) <= 2:
        return [list(range(len(columns)))]
    keys = [0]
    if len(columns) > 3 and columns[1] in KEY_COLUMNS:
        keys.append(1)
    room = width_px - sum(widths[k] for k in keys)
    parts, current, used = [], [], 0.0
    for i in range(len(keys), len(columns)):
        if current and used + widths[i] > room:
            parts.append(keys + current)
            current, used = [], 0.0
        current.append(i)
        used += widths[i]
    if current:
        parts.append(keys + current)
    return parts


def label_width_px(label: str, font_size: float = 12) -> float:
    """Estimated printed width in pixels of a Plotly tick label (its HTML entities and tags as displayed): at least
    ``LABEL_CHAR_EM`` of the font size a character, and at least its width in the app's font
    (``plotting._margins.text_width``: a wide letter, or a character outside ASCII, is wider than that).

    Examples
    --------
    >>> label_width_px("yes") == 3 * 0.6 * 12
    True
    >>> label_width_px("性别") == 2 * 12.0
    True
    """
    return max(len(html.unescape(_TAG.sub("", str(label)))) * LABEL_CHAR_EM * font_size, text_width(label, font_size))


def _category_labels(fig, letter: str) -> list:
    """The text labels a figure shows on its `letter` ('x' or 'y') axes: string values of its traces on that
    axis, and the axes' own ``ticktext``; none when no such axis shows tick labels."""
    axes = [fig.layout[name] for name in fig.layout if name.startswith(f"{letter}axis")]
    if axes and all(axis.showticklabels is False for axis in axes):   # no label shown (the scorecard's rows)
        return []
    labels = [v for v in _values(fig, letter) if isinstance(v, str)]
    for name in fig.layout:
        if name.startswith(f"{letter}axis") and fig.layout[name].ticktext:
            labels += [str(t) for t in fig.layout[name].ticktext]
    return labels


def fit_labels(fig):
    """Give a figure margins that hold its axis labels, on screen and in print.

    Every x and y axis gets ``automargin=True`` (Plotly widens the margin to the labels it measures), and the
    left margin is at least the estimated width of the longest y label plus ``LABEL_PAD_PX`` (Plotly's own
    measure, made on screen, falls a few pixels short of the glyphs of a printed PDF: the first letters of a
    label were cut off). The bottom margin holds x labels the same way when they would be turned.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Changed in place.

    Returns
    -------
    plotly.graph_objects.Figure
        The same figure.
    """
    size = fig.layout.font.size or 12
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    margin = fig.layout.margin
    y_labels = _category_labels(fig, "y")
    if y_labels:
        needed = max(label_width_px(t, size) for t in y_labels) + LABEL_PAD_PX
        fig.update_layout(margin_l=max(margin.l or 0, math.ceil(needed)))
    x_labels = _category_labels(fig, "x")
    if x_labels and max(label_width_px(t, size) for t in x_labels) > 80:   # Plotly turns long x labels
        needed = max(label_width_px(t, size) for t in x_labels) + LABEL_PAD_PX
        fig.update_layout(margin_b=max(margin.b or 0, math.ceil(needed)))
    return fig
