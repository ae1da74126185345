"""Markdown escaping: data text made safe for every Streamlit element that renders Markdown (:func:`md`)."""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&])")
_WWW = re.compile(r"(www)(?=\\\.)", re.IGNORECASE)
_JOINED = re.compile(r"([:@])(?!\s)")  # a ':' or '@' before a space (or a line's end) starts nothing
ZWJ = "\u200d"


def md(text: object) -> str:
    r"""Data text made safe for every element that renders Markdown, so it is shown literally.

    Streamlit renders Markdown in st.markdown, captions, st.error/warning/info/success, toasts,
    st.metric labels and values, ``help=`` tooltips, widget labels, radio options, expander, tab,
    status and button labels. Pass every piece of text that comes from the data (file, column,
    subgroup, class and label names, model names, messages built from them) through this
    function, once, and never anything else.

    Parameters
    ----------
    text : object
        Any value; converted with ``str``.

    Returns
    -------
    str
        The text with

        - a backslash before each of ``\ ` * _ { } [ ] ( ) # + - . ! | < > ~ $ &``: no link,
          image, HTML, emphasis, code, heading, list, table, strikethrough, LaTeX (``$``) or
          character reference (``&lt;``) can form;
        - a zero-width joiner (U+200D) after every ``:`` and ``@`` that is not followed by a space,
          and inside every ``www.``:
          Streamlit's ``:smile:`` emoji, ``:material/...:`` icons and ``:red[...]`` directives,
          and the bare-URL and e-mail autolinks of GitHub Markdown (``http://2130706433/``,
          ``www.x.example``, ``a@x.example``; found after escapes are resolved, so a backslash
          cannot stop them) never form;
        - line breaks (CR, LF) as spaces, so a value cannot start a heading, a list or a code block.

        Displayed, it reads as the original text (the joiners are invisible).

    Examples
    --------
    >>> md("[click](http://x.example/)")
    '\\[click\\]\\(http:\u200d//x\\.example/\\)'
    >>> md(":red[x] a@b. Note: plain")
    ':\u200dred\\[x\\] a@\u200db\\. Note: plain'
    """
    escaped = _MD_SPECIAL.sub(r"\\\1", str(text).replace("\r", " ").replace("\n", " "))
    return _JOINED.sub(r"\1" + ZWJ, _WWW.sub(r"\1" + ZWJ, escaped))
