"""Margins reserved for a figure's labels before the browser draws it.

Plotly draws a figure, measures what pushes out of its margins (tick labels with ``automargin``, a
legend beside or under the plot) and, when the margins must grow, draws the whole figure again: the Rate
disparities page's two charts took 33 and 47 ms each to draw in Chromium, and 16 and 23 ms with margins that already
fit (``Plotly.newPlot``, measured apart). :func:`fit_margins` sets each margin to what its
labels will need, from the text's width in the app's font, so that the first pass is the only one.
The estimate errs wide (a few pixels of extra space); where it falls short, Plotly grows the margin
as before, so no label is ever clipped by it.
"""

from __future__ import annotations

import html
import math
import re

# Advance widths of Source Sans 3 (the app's font) in thousandths of an em, each rounded up to its group's
# widest character, as measured in Chromium (canvas ``measureText``). Other characters count 1 em.
_WIDTHS = {ch: width for chars, width in (
    (" ", 200), ("|ijl',.:;", 255), ("I!f", 292), ("()[]{}-", 311), ("tr/\\", 350), ("*s?z\"", 426),
    ("xcvyYJLFke", 496), ("#$+0123456789<=>^~_", 500), ("agXVESTZ`oAhun", 547), ("bdpqPRCKB", 588),
    ("&DG", 617), ("UNH", 652), ("OQ", 664), ("wM", 727), ("W", 786), ("%m@", 847),
) for ch in chars}
_TAG = re.compile(r"<[^>]*>")
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)

PAD = 12            # Plotly's padding of every push when all margins are at least 12 px
SAFETY = 3          # pixels added to every estimated push
TICK_GAP = 10       # tick labels to the plot (the Streamlit theme's margin pad of 8, and Plotly's own gap)
AXIS_TITLE = 33     # a y axis title: its line and standoff; an x axis title takes X_TITLE
X_TICKS, X_TITLE = 26, 30
LEGEND_ROW = 29     # a row of a legend's entries with its padding, as the app draws it (1 row 29 px, 2 rows 58, 3 87)
LEGEND_TITLE = 27                 # a title above a legend's entries
LEGEND_SYMBOL = 44  # an entry's symbol, the gap after it, its end padding and the legend's border
LEGEND_GAP = 6      # a legend under the plot: from the x axis title (or its tick labels) to the legend's top
LEGEND_MOST = 10 * LEGEND_ROW + LEGEND_TITLE + PAD + SAFETY   # a legend under the plot at most: 10 rows, a title
PLOT_LEAST = 200    # pixels of plot kept above a legend under it: the figure grows taller instead
TITLE_SIZE = 17     # a chart's title: bold 16 px in the app's theme, estimated a little wide
TITLE_LINE = 22     # each further line of a wrapped title
TITLE_INSET = 12    # the title's start from the figure's left edge, and room at its end
PANEL_TITLE = "panel title"   # the name of a panel's title annotation (_common._panels): wrapped within its panel
NARROWEST, WIDEST = 560, 1200     # the figure widths planned for (pixels): the narrowest is the main column at
#                                   a 1,024-px window with the sidebar open; narrower, a legend under the plot may
#                                   wrap to more rows than planned, and Plotly grows the margin as before
SIDES_AT_MOST = 0.8              # the left and right margins together, at most, as a share of the narrowest width
DEFAULT_HEIGHT = 450
UNSET = {"t": 100, "b": 80}       # Plotly's top and bottom margins when unset (left and right are fitted from 0)


def text_width(text, size: float = 12.0) -> float:
    """Estimated width of `text` as Plotly shows it in the app's font: the sum of its characters' advance widths.

    ``width = size / 1000 * sum(_WIDTHS[c])`` over the characters of the widest line, after Plotly's markup
    (``<b>``, ``<br>``, ...) is taken out and HTML entities are read as the one character they show; a character
    not in the table (outside printable ASCII) counts 1000 (one em, as wide as a CJK character).

    Parameters
    ----------
    text : object
        Plotly text (tick label, legend entry), converted with ``str``; ``<br>`` starts a new line.
    size : float, default 12
        Font size in pixels.

    Returns
    -------
    float
        Pixels: the widest line's width.

    Examples
    --------
    >>> text_width("ab") == (547 + 588) * 12 / 1000
    True
    >>> text_width("a&amp;b<br>c", 10) == (547 + 617 + 588) * 10 / 1000
    True
    """
    lines = _BREAK.split(str(text))
    return max(sum(_WIDTHS.get(ch, 1000) for ch in html.unescape(_TAG.sub("", line))) for line in lines) * size / 1000


def wrap_text(text: str, width: float, size: float = 12.0) -> list[str]:
    """`text` broken into lines at its spaces (and at its own ``<br>``), each at most `width` pixels wide where the
    words allow (:func:`text_width`); a word wider than `width` keeps a line of its own.

    Parameters
    ----------
    text : str
        Plotly text (escaped, possibly with markup such as ``<b>``; a space inside a tag is not a break).
    width : float
        Pixels.
    size : float, default 12
        Font size in pixels.

    Returns
    -------
    list of str
        The lines, in order; ``"<br>".join`` gives the wrapped text.

    Examples
    --------
    >>> wrap_text("aaa bbb ccc", text_width("aaa bbb"))
    ['aaa bbb', 'ccc']
    >>> wrap_text("one<br>two", 1000)
    ['one', 'two']
    """
    out = []
    for line in _BREAK.split(str(text)):
        current = ""
        for word in re.split(r" (?![^<]*>)", line):
            joined = f"{current} {word}" if current else word
            if current and text_width(joined, size) > width:
                out.append(current)
                current = word
            else:
                current = joined
        out.append(current)
    return out


def fit_margins(fig, *, width_range: tuple[int, int] = (NARROWEST, WIDEST)):
    """Set `fig`'s margins to what its title, tick labels and legend need (never less than its own), in place; a
    long title is wrapped and a legend under the plot goes just under the x axis title.

    Each label's push is its estimated size (:func:`text_width` for text) plus Plotly's padding ``PAD``:

    - left: the widest tick label of the y axes on the left edge, ``TICK_GAP``, and ``AXIS_TITLE`` with a title;
    - bottom: a row of x tick labels (``X_TICKS`` at 12 px), and ``X_TITLE`` with a title;
    - top: a title wider than the narrowest width is wrapped onto more lines (:func:`wrap_text` at ``TITLE_SIZE``,
      ``TITLE_INSET`` from its edges), and a panel's title (an annotation named ``PANEL_TITLE``) wider than its
      panel, each further line adding ``TITLE_LINE``;
    - a legend beside the plot at ``x >= 1`` (Plotly's default 1.02), as wide as its widest entry
      (text + ``LEGEND_SYMBOL``): ``r = (box + (x - 1) (W - l)) / x`` at the widest width W;
    - a legend under the plot (horizontal, at ``y < 0`` or unset), its entries wrapped into rows at the
      narrowest width: ``b = drop + box`` for a box of rows x ``LEGEND_ROW``, where
      ``drop`` is the x axes' push (tick labels and title, as for the bottom margin) and ``LEGEND_GAP``; the
      legend is moved to that drop below the plot (``y = -drop / (H - t - b)``, ``yanchor='top'``), so that it
      never overlaps the x axis title, as a share of the plot's height did on short plots (AUCs of six
      subgroups) and left a wide gap on tall ones. A legend taller than ``LEGEND_MOST`` is shown that tall
      (``legend.maxheight``; Plotly scrolls the rest), and when the plot would be shorter than ``PLOT_LEAST``
      the figure's height grows to keep it.

    What the labels add to the left and right margins is scaled down so that the two together leave
    ``1 - SIDES_AT_MOST`` of the narrowest width to the plot (wider, Plotly grows them). Colour bars, axes at the
    top or right, rotated tick labels and legends inside the plot are left to Plotly.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        A figure whose layout gives its own margins (unset: 0 left and right, Plotly's 100 top and 80 bottom)
        and height (unset: 450 px, Streamlit's).
    width_range : (int, int)
        The narrowest and widest widths in pixels the figure is drawn at.

    Returns
    -------
    plotly.graph_objects.Figure
        `fig`, with ``layout.margin`` l, r, t and b set (integers, pixels), a long title wrapped, and a legend
        under the plot placed just under its x axis title.
    """
    layout = fig.layout
    narrow, wide = width_range
    height = layout.height or DEFAULT_HEIGHT
    asked = {side: max(PAD, UNSET.get(side, 0) if getattr(layout.margin, side) is None
                       else getattr(layout.margin, side)) for side in "lrtb"}
    margins = dict(asked)
    margins["l"] = max(margins["l"], math.ceil(_left(fig) + PAD + SAFETY))
    margins["b"] = max(margins["b"], math.ceil(_bottom(fig) + PAD + SAFETY))
    legend = _legend(fig)
    under = None   # a legend under the plot: the pixels of its box
    if legend is not None:
        entries, title, orientation, x, y = legend
        if orientation == "h":
            room = max(narrow - margins["l"] - margins["r"], 100)
            rows, used = 1, 0.0
            for w in entries:
                if used and used + w > room:
                    rows, used = rows + 1, 0.0
                used += w
            if y is None or y < 0:
                under = rows * LEGEND_ROW + (LEGEND_TITLE if title else 0) + PAD + SAFETY
        else:
            box = max([*entries, text_width(title) + LEGEND_SYMBOL if title else 0]) + PAD + SAFETY
            x = 1.02 if x is None else x
            if x >= 1:   # beside the plot, at `x` plot-widths from its left edge
                margins["r"] = max(margins["r"], math.ceil((box + (x - 1) * (wide - margins["l"])) / x))
    # Keep a plot at the narrowest width: what the labels add to the left and right margins is scaled down to fit
    # (the figure's own margins stay); wider, Plotly grows them as it needs.
    added = margins["l"] - asked["l"] + margins["r"] - asked["r"]
    room = SIDES_AT_MOST * narrow - asked["l"] - asked["r"]
    if added > max(room, 0):
        margins.update({side: asked[side] + (margins[side] - asked[side]) * max(room, 0) / added for side in "lr"})
    # Titles wrapped at the narrowest width (Plotly draws each on one line, cut at the figure's or its panel's edge):
    # the figure's title, and each panel's title (_common._panels) within its panel.
    title = layout.title.text if layout.title is not None else None
    lines = wrap_text(title, narrow - TITLE_INSET, TITLE_SIZE) if title else []
    if len(lines) > 1:
        fig.update_layout(title_text="<br>".join(lines))
        margins["t"] += (len(lines) - 1) * TITLE_LINE
    plot_width = narrow - margins["l"] - margins["r"]
    more = 0
    for note in layout.annotations or ():
        if note.name == PANEL_TITLE and note.text:
            lines = wrap_text(note.text, _domain_width(layout, note.x) * plot_width, (note.font.size or 12) + 1)
            if len(lines) > 1:
                note.text = "<br>".join(lines)
                more = max(more, len(lines) - 1)
    margins["t"] += more * TITLE_LINE
    if under is not None:   # under the plot: its top a fixed drop under the x axes' tick labels and title
        if under > LEGEND_MOST:   # shown LEGEND_MOST tall, Plotly scrolls the rest
            fig.update_layout(legend_maxheight=LEGEND_MOST - PAD - SAFETY)
            under = LEGEND_MOST
        drop = _bottom(fig) + LEGEND_GAP
        margins["b"] = max(margins["b"], math.ceil(drop + under))
        if height - margins["t"] - margins["b"] < PLOT_LEAST:   # the figure grows rather than the plot shrinking
            height = margins["t"] + margins["b"] + PLOT_LEAST
            fig.update_layout(height=height)
        fig.update_layout(legend={"y": -drop / (height - margins["t"] - margins["b"]), "yanchor": "top"})
    fig.update_layout(margin={side: int(v) for side, v in margins.items()})
    return fig


def _domain_width(layout, x: float) -> float:
    """The share of the plot's width of the panel centred at `x` (paper coordinates): the domain of the x axis whose
    centre is nearest `x`; 1 without x axes."""
    domains = [axis.domain or (0.0, 1.0) for axis in _axes(layout, "x").values()] or [(0.0, 1.0)]
    low, high = min(domains, key=lambda d: abs((d[0] + d[1]) / 2 - float(x if x is not None else 0.5)))
    return high - low


def _axes(layout, letter: str) -> dict:
    """``{"x": xaxis, "x2": xaxis2, ...}`` of `layout`'s axes of `letter`."""
    return {name.replace("axis", ""): layout[name] for name in layout if re.fullmatch(f"{letter}axis\\d*", name)}


def _values(fig, letter: str, axis_id: str | None = None) -> list:
    """The `letter` values (``"x"``, ``"y"``) of every trace drawn on axis `axis_id` (``"y"``, ``"y2"``; None: on
    any axis of that letter)."""
    out = []
    for trace in fig.data:
        values = getattr(trace, letter, None)
        on = getattr(trace, f"{letter}axis", None) or letter
        if (axis_id is None or on == axis_id) and not isinstance(values, (dict, str, type(None))):
            out.extend(values)
    return out


def _tick_width(fig, letter: str, axis_id: str, axis) -> float:
    """The widest tick label of an axis: its ``ticktext``, its categories, or a number such as -0.25."""
    size = axis.tickfont.size or 12
    if axis.showticklabels is False:
        return 0.0
    if axis.ticktext is not None:
        return max((text_width(t, size) for t in axis.ticktext), default=0.0)
    values = _values(fig, letter, axis_id)
    if axis.type == "category" or any(isinstance(v, str) for v in values):
        return max((text_width(v, size) for v in values if v is not None), default=0.0)
    numbers = [float(v) for v in (axis.range or values) if v is not None and math.isfinite(float(v))]
    low, high = min(numbers, default=0.0), max(numbers, default=1.0)
    label = "0.25" if max(abs(low), abs(high)) < 10 else f"{max(abs(low), abs(high)):.0f}"   # a tick at most as long
    negative = low < -0.05 * (high - low)   # a tick below 0 is drawn (a range padded below 0 draws none)
    return text_width(("+" if negative else "") + label, size)


def _on_edge(layout, axis) -> bool:
    """Whether `axis` sits on the figure's left (a y axis) or bottom (an x axis) edge: the axis it is anchored to
    starts at 0 of its domain."""
    anchor = axis.anchor if axis.anchor not in (None, "free") else None
    other = layout[anchor.replace("x", "xaxis", 1) if anchor.startswith("x") else anchor.replace("y", "yaxis", 1)] \
        if anchor else None
    return other is None or other.domain is None or other.domain[0] <= 0.01


def _left(fig) -> float:
    """The largest push of the y axes on the left edge: tick labels, their gap and the title."""
    out = 0.0
    for axis_id, axis in _axes(fig.layout, "y").items():
        if axis.side == "right" or not _on_edge(fig.layout, axis):
            continue
        title = axis.title.text if axis.title is not None else None
        out = max(out, _tick_width(fig, "y", axis_id, axis) + TICK_GAP + (AXIS_TITLE if title else 0))
    return out


def _bottom(fig) -> float:
    """The largest push of the x axes on the bottom edge: a row of tick labels (none rotated) and the title."""
    out = 0.0
    for axis_id, axis in _axes(fig.layout, "x").items():
        if axis.side == "top" or axis.showticklabels is False or not _on_edge(fig.layout, axis):
            continue
        title = axis.title.text if axis.title is not None else None
        out = max(out, X_TICKS - 12 + (axis.tickfont.size or 12) + (X_TITLE if title else 0))
    return out


def _legend(fig):
    """(entry widths, title, orientation, x, y) of the legend, or None when none is drawn."""
    shown = [t for t in fig.data if t.showlegend is not False and t.name is not None]
    if fig.layout.showlegend is False or not shown or (fig.layout.showlegend is None and len(fig.data) < 2
                                                         and not any(t.showlegend for t in shown)):
        return None
    legend = fig.layout.legend
    size = legend.font.size or 12
    title = legend.title.text if legend.title is not None else None
    entries = [text_width(t.name, size) + LEGEND_SYMBOL for t in shown]
    return entries, title, legend.orientation, legend.x, legend.y
