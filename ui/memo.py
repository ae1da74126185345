"""A per-session memo: computed objects kept in ``st.session_state``, never pickled, bounded, freed with the session.

``st.cache_data`` pickles a result when it is stored and unpickles it on every hit (0.1-0.3 s per
rerun for a ``ScoredData`` of 10^6 rows), and keeps it for every session until its TTL runs out.
Results memoized here are the objects themselves: a hit costs a dictionary lookup. Each
function keeps its last ``max_entries`` results (least recently used first out) in the session's
state, so they are released when the session ends and one session's uploaded data is never
served to another. Callers must not modify what they get back.
"""

from __future__ import annotations

import functools
import inspect
from collections import OrderedDict
from typing import Callable

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import fairness_core as fc

PREFIX = "memo:"


def memo(max_entries: int, ignore: tuple = ()) -> Callable:
    """Decorator: memoize a function per session on its arguments, but for those named in `ignore` or
    starting with "_".

    As with Streamlit's caches, arguments named with a leading underscore (large objects) are
    not part of the key: the other arguments (small strings, numbers, tuples, frozen options)
    must identify them. A large object in the key would be kept alive by it. Outside a Streamlit
    session (a plain Python call, a test) the function simply runs.
    Exceptions are not memoized. The wrapper's ``peek(...)`` (same arguments) returns the
    memoized result or None without computing it; ``__wrapped__`` is the plain function and
    ``store_key`` the session-state key of its entries.
    """

    def decorate(func: Callable) -> Callable:
        signature = inspect.signature(func)
        name = PREFIX + func.__module__ + "." + func.__qualname__

        def key_of(args, kwargs) -> tuple:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return tuple((k, _hashable(v)) for k, v in bound.arguments.items()
                         if not k.startswith("_") and k not in ignore)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            store = _store(name)
            if store is None:
                return func(*args, **kwargs)
            key = key_of(args, kwargs)
            if key in store:
                store.move_to_end(key)
                return store[key]
            value = func(*args, **kwargs)
            store[key] = value
            while len(store) > max_entries:
                store.popitem(last=False)
            return value

        def peek(*args, **kwargs):
            store = _store(name)
            return None if store is None else store.get(key_of(args, kwargs))

        wrapper.peek = peek
        wrapper.store_key = name
        return wrapper

    return decorate


def _hashable(value):
    """A list argument (a multiselect's value), also inside a tuple, as a tuple: part of a key. A named
    reference keeps its type in the key: ``named_reference("rest")`` is not the keyword ``"rest"``."""
    if isinstance(value, fc.NamedReference):
        return ("named reference", str(value))
    return tuple(map(_hashable, value)) if isinstance(value, (list, tuple)) else value


def _store(name: str) -> OrderedDict | None:
    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    if name not in st.session_state:
        st.session_state[name] = OrderedDict()
    return st.session_state[name]
