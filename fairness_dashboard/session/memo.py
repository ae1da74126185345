"""A per-session memo: computed objects kept in ``st.session_state``, never pickled, bounded by entries and by
bytes, freed when the session ends.

``st.cache_data`` pickles a result when it is stored and unpickles it on every hit (0.1-0.3 s per
rerun for a ``ScoredData`` of 10^6 rows), and keeps it for every session until its TTL runs out.
Results memoized here are the objects themselves: a hit costs a dictionary lookup. Each session
has one :class:`SessionMemo` in its state: each function keeps its last ``max_entries`` results,
and all of them together at most ``MAX_BYTES`` (the least recently used entry of the session goes
first, whatever its function). One session's uploaded data is never served to another.

When a session ends (its browser tab closed, or its connection lost for longer than Streamlit's
``server.disconnectedSessionTTL``), :func:`release_ended_sessions`, run by the server's lifespan
hook (``fairness_dashboard.navigation.server_lifespan``), clears its memo, its state and its uploaded files, and
closes it. Streamlit 1.67 keeps a disconnected session in a store whose expired entries are only
removed when another session disconnects, and never shuts them down (their uploaded files stay);
its session-scoped caches are cleared on every disconnect, a network blip included, and it has no
session-end callback; hence this sweep.
Callers must not modify what they get back.
"""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import functools
import gc
import inspect
import sys
import threading
import time
import types
import weakref
from collections import Counter, OrderedDict
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc

from .. import streamlit_internals

MEMO_KEY = "memo:"
# Bytes of memoized results one session keeps. Measured after every page of an upload mapped with two scores,
# a predicted label and race x sex (8 subgroups): 86 MB at 10^6 rows; at the largest table the app accepts
# (fairness_dashboard.data.loading.MAX_CELLS, 2*10^7 cells) 280 MB for 3.3*10^6 rows of 6 columns, 360 MB for 6.7*10^6 rows of 3
# (one score, race only): a page's working set always fits, so no page evicts what it needs itself.
MAX_BYTES = 512 * 2 ** 20
COLLECT_BYTES = 64 * 2 ** 20   # entries released at once that are worth a garbage collection (an old upload)
# ... collected this long after the release, in a timer thread: a full collection of a large heap took 60 ms of the
# script run that released it (a mapping change at 10^6 rows), while the user waited for the page.
COLLECT_DELAY_SECONDS = 1.0
SWEEP_SECONDS = 30.0  # how often the server looks for ended sessions (at most half the disconnected TTL)
_LOGGER = streamlit_internals.logger(__name__)  # Streamlit's handler and level (info by default)
_LARGE_LIST = 10_000  # a list or tuple longer than this is measured from a sample of its items
_NOT_DATA = (bool, int, float, complex, type, types.ModuleType, types.FunctionType, types.MethodType,
             types.BuiltinFunctionType)


def memo(max_entries: int, ignore: tuple = ()) -> Callable:
    """Decorator: memoize a function per session on its arguments, but for those named in `ignore` or
    starting with "_".

    As with Streamlit's caches, arguments named with a leading underscore (large objects) are
    not part of the key: the other arguments (small strings, numbers, tuples, frozen options)
    must identify them. A large object in the key would be kept alive by it. Outside a Streamlit
    session (a plain Python call, a test) the function simply runs.
    Exceptions are not memoized. The wrapper's ``peek(...)`` (same arguments) returns the
    memoized result or None without computing it; ``keys()`` the keys of the session's entries
    of this function, least recently used first; ``__wrapped__`` is the plain function.
    """

    def decorate(func: Callable) -> Callable:
        signature = inspect.signature(func)
        name = func.__module__ + "." + func.__qualname__

        def key_of(args, kwargs) -> tuple:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return tuple((k, _hashable(v)) for k, v in bound.arguments.items()
                         if not k.startswith("_") and k not in ignore)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            store = session_memo()
            if store is None:
                return func(*args, **kwargs)
            key = key_of(args, kwargs)
            found, value = store.get(name, key)
            if found:
                return value
            value = func(*args, **kwargs)
            store.put(name, key, value, max_entries)
            return value

        def peek(*args, **kwargs):
            store = session_memo()
            return None if store is None else store.get(name, key_of(args, kwargs))[1]

        def keys() -> list:
            store = session_memo()
            return [] if store is None else store.keys(name)

        wrapper.peek = peek
        wrapper.keys = keys
        return wrapper

    return decorate


class SessionMemo:
    """The memoized results of one session, least recently used first, bounded by entries and bytes.

    The size of an entry is that of the arrays and tables it holds (``ndarray.nbytes``,
    ``DataFrame.memory_usage(deep=True)``, a figure's JSON) plus its other objects
    (``sys.getsizeof``). An array held by several entries (a ``ScoredData`` and the counts made
    from its subgroups) is counted once, as long as one of them is kept.

    Parameters
    ----------
    max_bytes : int, optional
        Bytes the entries may hold together (default ``MAX_BYTES``). When a new entry takes them
        over it, the least recently used entries of the session go, whatever their function, but
        the newest always stays (a single result larger than the budget is kept until the next one).
    """

    def __init__(self, max_bytes: int | None = None):
        self.max_bytes = MAX_BYTES if max_bytes is None else max_bytes
        self.nbytes = 0  # bytes held by the entries, shared arrays counted once
        self.evicted = 0  # entries dropped to keep within max_bytes
        self._entries: OrderedDict = OrderedDict()  # (function, key) -> (value, {buffer id: bytes})
        self._per_function: dict[str, OrderedDict] = {}  # function -> its keys, least recently used first
        self._holders: Counter = Counter()  # buffer id -> number of entries holding it
        self._sizes: dict[int, int] = {}
        self._lock = threading.RLock()

    def get(self, name: str, key: tuple) -> tuple[bool, object]:
        """(True, value) for a kept entry, made the most recently used; (False, None) otherwise."""
        with self._lock:
            entry = self._entries.get((name, key))
            if entry is None:
                return False, None
            self._entries.move_to_end((name, key))
            self._per_function[name].move_to_end(key)
            return True, entry[0]

    def put(self, name: str, key: tuple, value, max_entries: int) -> None:
        """Keep `value` under (`name`, `key`), then evict: `name`'s oldest entries beyond `max_entries`, and
        the session's oldest entries while the bytes exceed ``max_bytes`` (never the new one)."""
        parts = buffers(value)
        with self._lock:
            released = self._drop((name, key))
            self._entries[(name, key)] = (value, parts)
            self._per_function.setdefault(name, OrderedDict())[key] = None
            for buffer, size in parts.items():
                if self._holders[buffer] == 0:
                    self._sizes[buffer] = size
                    self.nbytes += size
                self._holders[buffer] += 1
            keys = self._per_function[name]
            while len(keys) > max_entries:
                released += self._drop((name, next(iter(keys))))
            while self.nbytes > self.max_bytes and len(self._entries) > 1:
                released += self._drop(next(iter(self._entries)))
                self.evicted += 1
        if released >= COLLECT_BYTES:
            # Streamlit's collection after every script run is off (.streamlit/config.toml: it took a third of a
            # second per rerun at 10^6 rows); what a large entry held in reference cycles is collected soon after.
            collect_soon()

    def keys(self, name: str) -> list:
        """The keys of `name`'s entries, least recently used first."""
        with self._lock:
            return list(self._per_function.get(name, ()))

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._entries.clear()
            self._per_function.clear()
            self._holders.clear()
            self._sizes.clear()
            self.nbytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def _drop(self, entry_key: tuple) -> int:
        """Forget one entry; the bytes no other entry holds (released)."""
        entry = self._entries.pop(entry_key, None)
        if entry is None:
            return 0
        name, key = entry_key
        del self._per_function[name][key]
        released = 0
        for buffer in entry[1]:
            self._holders[buffer] -= 1
            if self._holders[buffer] == 0:
                del self._holders[buffer]
                size = self._sizes.pop(buffer)
                self.nbytes -= size
                released += size
        return released


def buffers(value) -> dict[int, int]:
    """The memory `value` holds: {id of a buffer: bytes}, each array or table once.

    An array is counted by its base array (a view holds its whole base), a DataFrame or Series by
    ``memory_usage(deep=True)`` (strings included) plus its ``attrs``, a Plotly figure by its JSON
    (``to_plotly_json``). Other objects count ``sys.getsizeof`` each (under their own id) and are
    followed into their items, dataclass fields and attributes; a list or tuple of more than
    10,000 items is measured from a sample of 1,000 of them. Classes, modules and functions count
    nothing.

    Parameters
    ----------
    value : object
        A memoized result: an array, a table, a dataclass such as ``ScoredData``, a figure, or a
        container of them.

    Returns
    -------
    dict
        ``{id(buffer): bytes}``; the entry's size is the sum of the values. The ids stay valid while
        `value` is alive (the memo keeps it), so entries holding the same array share its id.
    """
    out: dict[int, int] = {}
    stack = [value]
    seen: set[int] = set()
    while stack:
        obj = stack.pop()
        if id(obj) in seen or obj is None or isinstance(obj, _NOT_DATA):
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            base = obj
            while isinstance(base.base, np.ndarray):
                base = base.base
            out[id(base)] = _object_array_bytes(base) if base.dtype == object else base.nbytes
        elif isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
            usage = obj.memory_usage(deep=True)
            out[id(obj)] = int(usage.sum() if isinstance(usage, pd.Series) else usage)
            if not isinstance(obj, pd.Index):
                stack.append(obj.attrs)
        elif hasattr(obj, "to_plotly_json"):
            out[id(obj)] = sys.getsizeof(obj)
            stack.append(obj.to_plotly_json())
        elif isinstance(obj, (list, tuple)) and len(obj) > _LARGE_LIST:
            sample = obj[:: len(obj) // 1000]
            out[id(obj)] = sys.getsizeof(obj) + int(
                sum(sum(buffers(item).values()) for item in sample) * len(obj) / len(sample))
        else:
            out[id(obj)] = sys.getsizeof(obj)
            stack.extend(_parts(obj))
    return out


def _object_array_bytes(array: np.ndarray) -> int:
    """Bytes of an object array: its pointers plus its objects, estimated from 1,000 evenly spaced items (a few
    objects repeated, such as the labels of every row, are counted once each)."""
    flat = array.ravel()
    sample = flat[:: max(1, len(flat) // 1000)]
    if len(sample) == 0:
        return array.nbytes
    distinct = {id(item): item for item in sample}
    if len(distinct) <= len(sample) // 10:
        return array.nbytes + sum(map(sys.getsizeof, distinct.values()))
    return array.nbytes + int(sum(map(sys.getsizeof, sample)) * len(flat) / len(sample))


def _parts(obj) -> list:
    """The objects `obj` refers to, for :func:`buffers`."""
    if isinstance(obj, (str, bytes, bytearray, memoryview)):
        return []
    if isinstance(obj, dict):
        return [*obj.keys(), *obj.values()]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj)
    if dataclasses.is_dataclass(obj):
        return [getattr(obj, f.name, None) for f in dataclasses.fields(obj)]
    slots = [getattr(obj, s, None) for c in type(obj).__mro__ for s in getattr(c, "__slots__", ())
             if isinstance(s, str) and s != "__weakref__"]
    return slots + list(getattr(obj, "__dict__", {}).values())


def _hashable(value):
    """A list argument (a multiselect's value), also inside a tuple, as a tuple: part of a key. A named
    reference keeps its type in the key: ``named_reference("rest")`` is not the keyword ``"rest"``."""
    if isinstance(value, fc.NamedReference):
        return ("named reference", str(value))
    return tuple(map(_hashable, value)) if isinstance(value, (list, tuple)) else value


@dataclasses.dataclass
class _Session:
    """What the sweep knows of a session: its memo and AppSession (weakly: a session Streamlit drops on its own
    goes with them, but its id stays, so that its uploaded files are still removed), and since when it is idle."""

    memo: weakref.ref
    app_session: weakref.ref | None
    idle_since: float | None = None


# Every session with a memo, by session id, until the sweep releases it.
_SESSIONS: dict[str, _Session] = {}
_SESSIONS_LOCK = threading.Lock()


def session_memo() -> SessionMemo | None:
    """The current session's memo (made on first use), or None outside a Streamlit session."""
    session_id = streamlit_internals.session_id()
    if session_id is None:
        return None
    store = st.session_state.get(MEMO_KEY)
    if store is None:
        store = st.session_state[MEMO_KEY] = SessionMemo()
        app_session = streamlit_internals.app_session(session_id)
        with _SESSIONS_LOCK:
            _SESSIONS[session_id] = _Session(weakref.ref(store), app_session and weakref.ref(app_session))
    return store


def release_ended_sessions(runtime, ttl: float, now: float | None = None) -> list[str]:
    """Release every session inactive for `ttl` seconds or more: its memo, its state and its uploaded files;
    return their ids.

    A session is inactive while no browser is connected to it (``runtime.is_active_session``);
    a reconnection within `ttl` keeps it, as Streamlit does. An ended session's memo is cleared,
    its ``AppSession`` (when still alive) has its state cleared and is shut down, its uploaded files
    are removed, and ``runtime.close_session`` drops it from Streamlit's store. (Streamlit 1.67
    lets a disconnected session expire from its store without shutting it down, and keeps it there
    until another session disconnects: streamlit/streamlit#12506.) Must run on the server's event
    loop, as ``AppSession.shutdown`` and ``Runtime.close_session`` require.

    Parameters
    ----------
    runtime : streamlit.runtime.Runtime
        The server's runtime (``streamlit.runtime.get_instance()``).
    ttl : float
        Seconds a session may stay disconnected (``server.disconnectedSessionTTL``).
    now : float, optional
        The current ``time.monotonic()`` (for tests).

    Returns
    -------
    list of str
        The ids of the sessions released by this call.
    """
    now = time.monotonic() if now is None else now
    with _SESSIONS_LOCK:
        sessions = list(_SESSIONS.items())
    ended = []
    for session_id, session in sessions:
        if streamlit_internals.is_connected(runtime, session_id):
            session.idle_since = None
        elif session.idle_since is None:
            session.idle_since = now
        elif now - session.idle_since >= ttl:
            with _SESSIONS_LOCK:
                _SESSIONS.pop(session_id, None)
            ended.append(session_id)
            try:
                _release(runtime, session_id, session)
            except Exception:  # one session's failure must not keep the others, or later sweeps, from running
                _LOGGER.exception("Could not release the ended session %s", session_id)
    return ended


def _release(runtime, session_id: str, session: _Session) -> None:
    store = session.memo()
    held = 0 if store is None else store.nbytes
    if store is not None:
        store.clear()
    app_session = session.app_session() if session.app_session is not None else None
    streamlit_internals.end_session(runtime, session_id, app_session)
    with _SESSIONS_LOCK:
        left = len(_SESSIONS)
    _LOGGER.info("Released the ended session %s: %.1f MB of memoized results, its state and its uploaded files "
                 "(%d sessions left)", session_id, held / 1e6, left)


async def sweep_ended_sessions() -> None:
    """Run :func:`release_ended_sessions` every ``SWEEP_SECONDS`` (at most half the disconnected TTL), forever."""
    ttl = float(st.get_option("server.disconnectedSessionTTL"))
    interval = max(0.5, min(SWEEP_SECONDS, ttl / 2))
    while True:
        await asyncio.sleep(interval)
        server = streamlit_internals.server_runtime()
        if server is not None and release_ended_sessions(server, ttl):
            return_freed_memory()


_collector: threading.Timer | None = None
_collector_lock = threading.Lock()


def collect_soon() -> None:
    """A full garbage collection ``COLLECT_DELAY_SECONDS`` from now, in a timer thread (one pending at a time): after
    the script run that released a large entry has drawn its page, not during it."""
    global _collector
    with _collector_lock:
        if _collector is not None and _collector.is_alive():
            return
        _collector = threading.Timer(COLLECT_DELAY_SECONDS, gc.collect)
        _collector.daemon = True
        _collector.start()


def freeze_startup_heap() -> None:
    """Take what the server holds at start-up out of the garbage collector's view (``gc.freeze``).

    A full collection walks every object the collector tracks. Most of them are the libraries' own (modules,
    functions, Plotly's and pandas' tables): about 170,000 once the pages' libraries are imported. Frozen, a full
    collection walks only what sessions made since: 3 ms instead of 95 ms after a 10^6-row upload and four pages,
    and neither Python's automatic collections nor :func:`collect_soon` hold a script run up any more. Frozen
    objects are still freed by reference counting; only a reference cycle among them would stay, and what the
    libraries hold at start-up lives as long as the server does anyway. Called once, by the server's start-up hook
    (``fairness_dashboard.navigation.server_lifespan``), before any session has data.
    """
    import plotly.graph_objects  # noqa: F401  (every metric page draws with it; imported here to be frozen)

    import fairness_core.plotting  # noqa: F401

    gc.collect()
    gc.freeze()


def return_freed_memory() -> None:
    """Collect what the ended sessions left (reference cycles included) and hand freed memory back to the
    system: Arrow's memory pool (pandas' text columns) and the C heap (glibc's ``malloc_trim``, where there is
    one), so the server's resident size shows the release."""
    gc.collect()
    if "pyarrow" in sys.modules:
        sys.modules["pyarrow"].default_memory_pool().release_unused()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
