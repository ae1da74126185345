"""fairness_dashboard.presentation.escape.md: what it writes for each construct Streamlit's Markdown would act on.

What Chromium then renders is checked by tests/browser/test_injection_browser.py; these pin the text.
"""

from __future__ import annotations

import re

import pytest

from fairness_dashboard.presentation.escape import ZWJ, md


@pytest.mark.parametrize("raw, escaped", [
    ("[click](http://evil.example/)", rf"\[click\]\(http:{ZWJ}//evil\.example/\)"),
    ("![x](http://evil.example/b.png)", rf"\!\[x\]\(http:{ZWJ}//evil\.example/b\.png\)"),
    ("<img src=x onerror=alert(2)>", r"\<img src=x onerror=alert\(2\)\>"),
    ("$\\frac{1}{2}$", r"\$\\frac\{1\}\{2\}\$"),
    (":red[x]", rf":{ZWJ}red\[x\]"),                      # Streamlit's colour directive
    (":smile: :material/home:", rf":{ZWJ}smile: :{ZWJ}material/home:{ZWJ}"),  # emoji and icons
    ("http://2130706433/", f"http:{ZWJ}//2130706433/"),   # a bare URL (autolinked after escapes resolve)
    ("see www.evil.example", rf"see www{ZWJ}\.evil\.example"),
    ("WWW.evil.example", rf"WWW{ZWJ}\.evil\.example"),
    ("a@evil.example", rf"a@{ZWJ}evil\.example"),        # an e-mail autolink
    ("&lt;b&gt;", r"\&lt;b\&gt;"),                        # a character reference stays as typed
    ("a\n# b\r\n- c", r"a \# b  \- c"),                   # no heading or list from a line break
    ("Tip: a @ b", "Tip: a @ b"),                         # ':' or '@' before a space starts nothing
])
def test_md_escapes_every_construct(raw, escaped):
    assert md(raw) == escaped


def test_md_reads_as_the_original_once_markdown_unescapes_it():
    raw = "".join(chr(c) for c in range(32, 127)) + " www.x.example a@b :red[x] http://x"
    shown = re.sub(r"\\(.)", r"\1", md(raw)).replace(ZWJ, "")  # CommonMark drops the backslash of an escape
    assert shown == raw
