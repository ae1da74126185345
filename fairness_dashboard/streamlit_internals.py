"""Every use of Streamlit's internal API, in one module: the app's other modules use Streamlit's public API only.

Streamlit gives no public way to run code when a server starts, to learn which session a thread runs,
or to release a session that has ended, so the app reaches into its internals for these (each
function says what it needs and why):

- :func:`session_id`: the running script's session (``get_script_run_ctx``), for the per-session memo;
- :func:`server_runtime`, :func:`app_session`, :func:`is_connected`, :func:`end_session`: the server's
  ``Runtime`` and a session's ``AppSession``, for the sweep that releases ended sessions
  (``fairness_dashboard.session.memo.release_ended_sessions``);
- :func:`use_navigation_pages`: ``PagesManager.uses_pages_directory``, cleared when the server starts
  (``fairness_dashboard.navigation.server_lifespan``);
- :func:`logger`: Streamlit's logger, so the app's log lines go where Streamlit's do.

``tests/ui/test_streamlit_internals.py`` asserts that every attribute, method and signature used
here exists on the installed Streamlit, and ``pyproject.toml`` (the app extra) bounds Streamlit below its next
minor release: move the bound only once that test passes on the new release.
"""

from __future__ import annotations

import logging

from streamlit import runtime
from streamlit.logger import get_logger
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx


def logger(name: str) -> logging.Logger:
    """Streamlit's logger for `name`: its handler and level (``logger.level``; info by default)."""
    return get_logger(name)


def session_id() -> str | None:
    """The id of the session whose script runs in this thread, or None outside a session (plain Python, a test)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return None if ctx is None else ctx.session_id


def server_runtime():
    """The server's ``streamlit.runtime.Runtime``, or None where no server runs (AppTest, plain Python)."""
    return runtime.get_instance() if runtime.exists() else None


def app_session(session: str):
    """The ``AppSession`` of session `session` (its state, its shutdown), or None without a server or session."""
    server = server_runtime()
    return None if server is None else server.get_app_session(session)


def is_connected(server, session: str) -> bool:
    """Whether a browser is connected to session `session` of the runtime `server`."""
    return server.is_active_session(session)


def end_session(server, session: str, app: object | None) -> None:
    """Release an ended session: clear the state of its ``AppSession`` `app` and shut it down (when still alive),
    remove its uploaded files, and close it in the runtime `server`.

    Must run on the server's event loop, as ``AppSession.shutdown`` and ``Runtime.close_session`` require.
    A session whose TTL ran out is no longer found by ``close_session``, but Streamlit's session store keeps it
    (and every object its page scripts' widgets still refer to) until its TTL cache is next written or asked its
    length; so the cache is asked its length (streamlit/streamlit#12506).
    """
    if app is not None:
        app.session_state.clear()
        app.shutdown()
    server.uploaded_file_mgr.remove_session_files(session)
    server.close_session(session)
    cache = getattr(getattr(getattr(server, "_session_mgr", None), "_session_storage", None), "_cache", None)
    if cache is not None:
        len(cache)


def use_navigation_pages() -> None:
    """Switch off Streamlit's older ``pages/``-directory mode for every later session of this server.

    Streamlit decides when the first session of a server process starts whether the app uses that mode
    (``PagesManager.uses_pages_directory``, true when a ``pages/`` folder sits next to the entry script);
    only the first ``st.navigation`` call clears it, after the first request was already answered in it.
    """
    PagesManager.uses_pages_directory = False
