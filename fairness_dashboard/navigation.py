"""The app's pages (files, titles, URL paths) and the server-start hook that keeps their navigation.

A page's URL path is its title in lowercase with hyphens ("Rate disparities" -> ``/rate-disparities``).

Streamlit 1.67 decides when the first session of a server process starts whether the app uses its
older ``pages/``-directory mode (``PagesManager.uses_pages_directory``, true when a ``pages/``
folder sits next to the entry script); only the first ``st.navigation`` call clears it. In that
mode the first request lists ``pages/*.py`` under their file names, runs a page file directly,
bypassing ``app.py``, and answers a URL path that is no file name (``/rate-disparities``) with a
"Page not found" dialog, all before any code of the app runs. So the flag is cleared when the
server starts (:func:`server_lifespan`, the lifespan hook of the ``st.App`` that ``app.py``
declares for ``streamlit run``); see docs/architecture.md, "Streamlit behaviours we had to work
around".
"""

from __future__ import annotations

import asyncio
import re
from contextlib import asynccontextmanager
from typing import AsyncIterator

import streamlit as st

from . import streamlit_internals
from .session import memo

# (script path relative to app.py, title); the first is the default page.
PAGES: tuple[tuple[str, str], ...] = (
    ("pages/data.py", "Data"),
    ("pages/overview.py", "Overview"),
    ("pages/subgroup_aucs.py", "Subgroup AUCs"),
    ("pages/rate_disparities.py", "Rate disparities"),
    ("pages/calibration.py", "Calibration"),
    ("pages/classwise.py", "Class-wise bias"),
    ("pages/dataset_metrics.py", "Dataset metrics"),
    ("pages/discover.py", "Discover subgroups"),
    ("pages/over_time.py", "Over time"),
    ("pages/definitions.py", "Metric definitions"),
)
TITLES: tuple[str, ...] = tuple(title for _, title in PAGES)


def slug(title: str) -> str:
    """The URL path of the page titled `title`: lowercase, runs of other characters as one hyphen.

    Examples
    --------
    >>> slug("Class-wise bias")
    'class-wise-bias'
    >>> slug("Subgroup AUCs")
    'subgroup-aucs'
    """
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def url(title: str, anchor: str = "") -> str:
    """A root-relative link to the page titled `title`, optionally to an anchor on it.

    Examples
    --------
    >>> url("Metric definitions", "ece")
    '/metric-definitions#ece'
    """
    if title not in TITLES:
        raise ValueError(f"no page titled {title!r}; pages: {', '.join(TITLES)}")
    return "/" + slug(title) + (f"#{anchor}" if anchor else "")


def pages() -> list:
    """The ``st.Page`` objects of every page, in navigation order."""
    return [st.Page(path, title=title, url_path=slug(title), default=i == 0)
            for i, (path, title) in enumerate(PAGES)]


@asynccontextmanager
async def server_lifespan(app) -> AsyncIterator[None]:
    """Server hook (``st.App(lifespan=...)``): no request ever runs in ``pages/``-directory mode, the libraries'
    objects are out of the garbage collector's view (``fairness_dashboard.session.memo.freeze_startup_heap``), and while the server runs,
    the memo and state of every ended session are released (``fairness_dashboard.session.memo.sweep_ended_sessions``).

    Parameters
    ----------
    app : streamlit.App
        The app being served (unused).
    """
    streamlit_internals.use_navigation_pages()
    memo.freeze_startup_heap()
    sweep = asyncio.create_task(memo.sweep_ended_sessions(), name="release ended sessions")
    try:
        yield
    finally:
        sweep.cancel()
