"""Memory bounded and released: the per-session memo is bounded by bytes, an ended session's memo is released,
and a file over the app's rows x columns maximum gets a message and leaves nothing behind."""

import threading

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from fairness_core._data.reading import TOO_MANY_CELLS_MESSAGE
from tests.app.helpers import PAGES, ROOT, csv_bytes, each_section, scored_table, widget
from fairness_dashboard.data import loading as data
from fairness_dashboard.presentation import escape, labels
from fairness_dashboard.session import memo, state

MB = 2 ** 20


def test_buffers_counts_arrays_by_their_base_and_tables_deeply():
    base = np.zeros(MB // 8)  # 1 MiB
    assert memo.buffers(base) == {id(base): MB}
    assert memo.buffers(base[::2]) == {id(base): MB}  # a view holds its whole base
    frame = pd.DataFrame({"x": np.arange(1000), "s": [f"name {i}" for i in range(1000)]})
    assert memo.buffers(frame) == {id(frame): int(frame.memory_usage(deep=True).sum()),
                                   id(frame.attrs): memo.sys.getsizeof(frame.attrs)}
    labels = np.array(["yes", "no"] * 50_000, dtype=object)  # two objects, 100,000 pointers
    size = memo.buffers(labels)[id(labels)]
    assert labels.nbytes < size < labels.nbytes + 200
    both = memo.buffers({"a": base, "b": base[:10], "c": [base]})
    assert both[id(base)] == MB and sum(both.values()) < MB + 1024  # the base once; the dict, list and keys


def test_the_memo_evicts_the_least_recently_used_entries_beyond_its_bytes():
    store = memo.SessionMemo(max_bytes=int(2.5 * MB))
    arrays = {k: np.full(MB // 8, float(i)) for i, k in enumerate("abcd")}
    store.put("f", ("a",), arrays["a"], 10)
    store.put("g", ("b",), arrays["b"], 10)
    assert store.get("f", ("a",)) == (True, arrays["a"])  # "a" is now the most recently used
    store.put("f", ("c",), arrays["c"], 10)  # 3 MiB > 2.5 MiB: "b" goes, whatever its function
    assert store.get("g", ("b",)) == (False, None) and store.keys("f") == [("a",), ("c",)]
    assert 2 * MB <= store.nbytes < 2 * MB + 4096 and store.evicted == 1
    store.put("f", ("d",), arrays["d"], 1)  # one entry per function for "f": "a" and "c" go
    assert store.keys("f") == [("d",)] and len(store) == 1 and store.nbytes < MB + 4096
    # an array held by two entries is counted once, until both are gone
    store.put("g", ("d again",), {"same": arrays["d"]}, 10)
    assert store.nbytes < MB + 4096
    store.put("h", ("big",), np.zeros(3 * MB // 8), 10)  # larger than the budget: kept alone
    assert len(store) == 1 and store.get("h", ("big",))[0] and 3 * MB <= store.nbytes < 3 * MB + 4096
    store.clear()
    assert len(store) == 0 and store.nbytes == 0


def test_a_large_release_is_collected_and_no_script_run_collects(monkeypatch):
    import tomllib

    # Streamlit's gc.collect(2) after every script run is off (a third of a second per rerun at 10^6 rows) ...
    assert tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["runner"]["postScriptGC"] is False
    # ... so the memo collects when it lets go of a large entry (an old upload), and only then: soon after, in a
    # timer thread, not in the script run that released it.
    calls = []
    monkeypatch.setattr(memo.gc, "collect", lambda *a: calls.append(threading.current_thread()))
    monkeypatch.setattr(memo, "COLLECT_BYTES", 2 * MB)
    monkeypatch.setattr(memo, "COLLECT_DELAY_SECONDS", 0.2)
    store = memo.SessionMemo()
    store.put("rows", ("old",), np.zeros(3 * MB // 8), 1)
    store.put("small", ("x",), np.zeros(10), 1)
    store.put("small", ("y",), np.zeros(10), 1)   # a small entry released: no collection
    assert memo._collector is None or not memo._collector.is_alive()
    store.put("rows", ("new",), np.zeros(3 * MB // 8), 1)   # the old upload's 3 MiB released
    assert calls == []   # not yet: the run that released it goes on undisturbed
    memo._collector.join(10)
    assert calls == [memo._collector] and calls[0] is not threading.current_thread()


def test_the_start_up_heap_is_frozen_so_a_collection_walks_only_what_sessions_make():
    import gc

    try:
        memo.freeze_startup_heap()
        # the libraries' objects (Plotly's and fairness_core's included: over 100,000) are out of the collector's
        # view; what it still tracks is what was made after the freeze
        assert gc.get_freeze_count() > 100_000 and len(gc.get_objects()) < 0.01 * gc.get_freeze_count()
        assert "plotly.graph_objects" in memo.sys.modules
        made = [[i] for i in range(1000)]   # what a session makes afterwards is tracked as usual
        assert len(gc.get_objects()) >= len(made)
    finally:
        gc.unfreeze()


def upload(at: AppTest, name: str, payload: bytes) -> AppTest:
    widget(at, "radio", "Source").set_value("upload").run()
    if not at.file_uploader:  # a file is loaded: replace it
        widget(at, "button", "Replace file").click().run()
    at.file_uploader[0].set_value((name, payload, "text/csv")).run()
    return at


def test_every_page_renders_within_a_small_byte_budget(monkeypatch):
    # 4 MiB: less than one page's working set at 30,000 rows, so entries are evicted and recomputed.
    monkeypatch.setattr(memo, "MAX_BYTES", 4 * MB)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    upload(at, "budget.csv", csv_bytes(scored_table(30_000)))
    widget(at, "multiselect", labels.PROTECTED).set_value(["race", "sex"]).run()
    store = at.session_state[memo.MEMO_KEY]
    assert store.max_bytes == 4 * MB
    largest = 0
    for page in PAGES:
        at.switch_page(page).run()
        for section in each_section(at, page):   # every secondary section of the page in turn
            assert not at.exception and not at.error, (page, section, at.exception, [e.value for e in at.error])
            entries = list(store._entries.values())
            largest = max([largest] + [sum(parts.values()) for _, parts in entries])
            assert store.nbytes <= store.max_bytes or len(store) == 1, (page, section, store.nbytes)
    assert largest > MB  # the rows of the mapping (ScoredData) alone are more than 1 MiB
    assert store.evicted > 0  # entries went to keep within the budget, and were made again when needed


def session_script():
    """A session memoizing one 1 MiB array."""
    import numpy as np

    from fairness_dashboard.session.memo import memo

    @memo(4)
    def block(i):
        return np.full(2 ** 17, float(i))

    block(1)


class FakeRuntime:
    """What release_ended_sessions uses of Streamlit's Runtime: which sessions are connected, their uploaded
    files, closing them."""

    def __init__(self):
        self.active, self.closed, self.files_removed = set(), [], []
        self.uploaded_file_mgr = self

    def is_active_session(self, session_id):
        return session_id in self.active

    def remove_session_files(self, session_id):
        self.files_removed.append(session_id)

    def close_session(self, session_id):
        self.closed.append(session_id)


class FakeAppSession:
    """An AppSession: its state and its shutdown."""

    def __init__(self):
        self.session_state, self.shut_down = {"frame": np.zeros(10)}, False

    def shutdown(self):
        self.shut_down = True


def test_an_ended_session_releases_its_memo_after_the_disconnected_ttl(monkeypatch):
    at = AppTest.from_function(session_script)
    at.run()
    assert not at.exception
    store = at.session_state[memo.MEMO_KEY]
    assert store.nbytes >= MB and memo._SESSIONS["test session id"].memo() is store  # registered by session id
    # three sessions of a server, as the server registers them: the first with its AppSession, the third dropped
    # by Streamlit already (its memo and AppSession gone, its uploaded files still there)
    app_session = FakeAppSession()
    second = memo.SessionMemo()
    second.put("f", (1,), np.zeros(MB // 8), 4)
    dropped = memo.SessionMemo()
    ref = memo.weakref.ref
    monkeypatch.setattr(memo, "_SESSIONS", {"gone": memo._Session(ref(store), ref(app_session)),
                                            "open": memo._Session(ref(second), None),
                                            "dropped": memo._Session(ref(dropped), None)})
    del dropped
    runtime = FakeRuntime()
    runtime.active = {"open"}  # the first browser is gone, the second still connected
    assert memo.release_ended_sessions(runtime, ttl=120, now=1000.0) == []  # first seen disconnected
    assert memo.release_ended_sessions(runtime, ttl=120, now=1119.0) == []  # within the TTL: it may come back
    assert len(store) == 1
    assert memo.release_ended_sessions(runtime, ttl=120, now=1120.0) == ["gone", "dropped"]
    assert runtime.closed == runtime.files_removed == ["gone", "dropped"] and list(memo._SESSIONS) == ["open"]
    assert len(store) == 0 and store.nbytes == 0 and app_session.shut_down and app_session.session_state == {}
    assert len(second) == 1 and second.nbytes >= MB  # the connected session keeps its results
    # a session that reconnects within the TTL starts its clock again
    runtime.active = set()
    memo.release_ended_sessions(runtime, ttl=120, now=2000.0)
    runtime.active = {"open"}
    memo.release_ended_sessions(runtime, ttl=120, now=2060.0)
    runtime.active = set()
    assert memo.release_ended_sessions(runtime, ttl=120, now=2130.0) == []
    assert memo.release_ended_sessions(runtime, ttl=120, now=2250.0) == ["open"] and len(second) == 0


def test_a_file_over_the_cell_maximum_gets_the_message_and_nothing_is_kept(monkeypatch):
    monkeypatch.setattr(data, "MAX_CELLS", 8_000)  # 1,000 rows of 8 columns
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    upload(at, "fits.csv", csv_bytes(scored_table(1_000)))
    assert not at.exception and not at.error
    assert at.session_state[state.DATASET_NAME] == "fits.csv"
    refused = csv_bytes(scored_table(1_001, seed=1))
    upload(at, "too_big.csv", refused)
    assert not at.exception
    expected = TOO_MANY_CELLS_MESSAGE.format(name="too_big.csv", rows="more than 1,000", columns=8, limit=8_000,
                                             max_rows=1_000)
    assert [e.value for e in at.error] == [escape.md(expected)]
    # nothing of the refused file is kept: not as the dataset, not in the memo
    assert at.session_state[state.DATASET_TOKEN] != data.token_of(refused)
    assert at.session_state[state.DATASET_NAME] != "too_big.csv"
    frame = at.session_state[state.FRAME]
    assert frame is None or len(frame) == 1_000
    store = at.session_state[memo.MEMO_KEY]
    assert len(store) > 0 and all(dict(key).get("token") != data.token_of(refused) for _, key in store._entries)
