"""fairness_dashboard.streamlit_internals against the installed Streamlit: every internal attribute, method and signature it uses
exists, so an upgrade that moves one fails here (not in a server that silently stops releasing ended sessions).

pyproject.toml (the app extra) bounds Streamlit below its next minor release because of these internals: raise the bound
only once this file passes on the new release. No server is started.
"""

import dataclasses
import inspect
import logging
import tomllib
from collections.abc import Sized

import streamlit
from streamlit import runtime
from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.runtime import RuntimeConfig
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext
from streamlit.runtime.state.session_state import SessionState
from streamlit.runtime.uploaded_file_manager import UploadedFileManager
from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

from tests.support import ROOT
from fairness_dashboard import streamlit_internals


def parameters(func) -> list[str]:
    return [p for p in inspect.signature(func).parameters if p != "self"]


def test_the_running_session_is_found_by_its_script_run_context():
    assert "suppress_warning" in parameters(get_script_run_ctx)
    assert "session_id" in {f.name for f in dataclasses.fields(ScriptRunContext)}
    ctx = get_script_run_ctx(suppress_warning=True)
    assert streamlit_internals.session_id() == (None if ctx is None else ctx.session_id)


def test_the_runtime_answers_what_the_sweep_asks_of_it():
    assert callable(runtime.exists) and callable(runtime.get_instance) and parameters(runtime.get_instance) == []
    assert parameters(Runtime.exists) == []
    if not runtime.exists():  # no server in this test process (as in the suite): nothing to ask
        assert streamlit_internals.server_runtime() is None and streamlit_internals.app_session("x") is None
    for method in ("get_app_session", "is_active_session", "close_session"):
        assert parameters(getattr(Runtime, method)) == ["session_id"], method
    assert isinstance(inspect.getattr_static(Runtime, "uploaded_file_mgr"), property)
    for manager in (UploadedFileManager, MemoryUploadedFileManager):
        assert parameters(manager.remove_session_files) == ["session_id"]


def test_an_app_session_has_a_state_to_clear_and_a_shutdown():
    assert isinstance(inspect.getattr_static(AppSession, "session_state"), property)
    assert inspect.signature(AppSession.session_state.fget).return_annotation in (SessionState, "SessionState")
    assert parameters(SessionState.clear) == [] and parameters(AppSession.shutdown) == []


def test_the_session_store_keeps_ended_sessions_in_a_sized_cache():
    # Runtime.__init__ keeps its session manager as _session_mgr, made from RuntimeConfig.session_manager_class
    # with RuntimeConfig.session_storage; end_session asks that storage's _cache its length.
    assert "self._session_mgr = config.session_manager_class(" in inspect.getsource(Runtime.__init__)
    fields = {f.name: f for f in dataclasses.fields(RuntimeConfig)}
    assert fields["session_manager_class"].default is WebsocketSessionManager
    assert fields["session_storage"].default_factory is MemorySessionStorage
    storage = MemorySessionStorage()
    manager = WebsocketSessionManager(storage, MemoryUploadedFileManager("/upload"), None, None)
    assert manager._session_storage is storage
    assert isinstance(storage._cache, Sized) and len(storage._cache) == 0


def test_end_session_calls_exactly_what_it_was_checked_for():
    calls = []

    class Server:
        def __init__(self):
            self.uploaded_file_mgr = self

        def remove_session_files(self, session_id):
            calls.append(("remove_session_files", session_id))

        def close_session(self, session_id):
            calls.append(("close_session", session_id))

    class App:
        session_state = {"frame": 1}

        def shutdown(self):
            calls.append(("shutdown",))

    app = App()
    streamlit_internals.end_session(Server(), "s", app)
    assert calls == [("shutdown",), ("remove_session_files", "s"), ("close_session", "s")] and app.session_state == {}


def test_the_pages_directory_mode_is_a_class_attribute_read_at_every_run():
    assert "uses_pages_directory" in vars(PagesManager)
    assert "PagesManager.uses_pages_directory" in inspect.getsource(PagesManager)
    before = PagesManager.uses_pages_directory
    try:
        streamlit_internals.use_navigation_pages()
        assert PagesManager.uses_pages_directory is False
    finally:
        PagesManager.uses_pages_directory = before


def test_the_logger_is_streamlits():
    log = streamlit_internals.logger("fairness_dashboard.test")
    assert isinstance(log, logging.Logger) and log.name == "fairness_dashboard.test"


def test_requirements_bound_streamlit_below_a_release_this_file_has_not_checked():
    text = (ROOT / "pyproject.toml").read_text()
    (requirement,) = tomllib.loads(text)["project"]["optional-dependencies"]["app"]
    installed = tuple(int(part) for part in streamlit.__version__.split(".")[:2])
    bound = requirement.split(",")[-1].strip()
    assert requirement.startswith("streamlit") and bound.startswith("<")
    assert "tests/ui/test_streamlit_internals.py" in text   # the comment that says when to raise it
    assert installed < tuple(int(part) for part in bound[1:].split(".")) <= (installed[0], installed[1] + 1)


def test_the_internals_the_test_suite_patches_are_there():
    """tests/conftest.py replaces AppTest's wait for a script run and its per-run script cache: both must still be
    there, with what the replacements assume."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner

    from tests.conftest import PATCHED

    wait = inspect.signature(PATCHED["require_widgets_deltas"])
    assert list(wait.parameters) == ["runner", "timeout"] and wait.parameters["timeout"].default == 3
    assert all(callable(getattr(LocalScriptRunner, name, None)) for name in ("script_stopped", "request_stop", "join"))
    assert PATCHED["app_test.ScriptCache"] is ScriptCache and PATCHED["local_script_runner.ScriptCache"] is ScriptCache
    assert callable(getattr(ScriptCache, "get_bytecode", None))


def test_the_patched_names_are_the_ones_streamlit_calls():
    """The patches of tests/conftest.py replace module globals: they take effect only while Streamlit calls them by
    those names (a call moved into a method, or a cache made elsewhere, would leave the suite on Streamlit's own
    slower paths without a word). Each call site, and each patch in place."""
    from streamlit.testing.v1 import app_test, local_script_runner
    from streamlit.testing.v1.app_test import AppTest
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner

    from tests import conftest

    assert "require_widgets_deltas(self, timeout)" in inspect.getsource(LocalScriptRunner)
    assert "ScriptCache()" in inspect.getsource(LocalScriptRunner.__init__)
    assert "ScriptCache()" in inspect.getsource(AppTest)
    assert local_script_runner.require_widgets_deltas is conftest._wait_for_script_run
    assert app_test.ScriptCache() is local_script_runner.ScriptCache() is conftest._SCRIPTS   # one cache per process
    assert set(conftest.PATCHED) == {"require_widgets_deltas", "app_test.ScriptCache",
                                     "local_script_runner.ScriptCache"}
