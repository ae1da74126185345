"""Data on this machine, the boundary: which directories the server may read, and the checks that every path it
reads lies under one of them (links resolved), before the path is read and again before each query.

The server names the directories in the environment variable ``FAIRNESS_LOCAL_DATA`` (several separated by
``os.pathsep``); without it, nothing on the machine can be read through the app. A path is checked before
the file system is looked at (:func:`candidates`: ``..`` resolved, no answer about files elsewhere), each
match by its real path (:func:`real_inside`: links followed), and DuckDB reads through :func:`connect` only:
the checked files, checked again before each query, or a database opened read-only with external access
off, so its views cannot read other files. ``fairness_dashboard.data.local``'s sources are built from the paths
checked here.
"""

from __future__ import annotations

import glob
import os

ENV = "FAIRNESS_LOCAL_DATA"
NOT_CONFIGURED = (
    "Data on this machine is switched off on this server. Tip: start it with {env} set to the directories it may "
    "read, e.g. `{env}=/data/logs streamlit run app.py`."
)
OUTSIDE = ("{path!r} lies outside the directories this server may read ({roots}). Tip: give a path under one of "
           "them (links are followed before the check).")
SERVED_TO_OTHERS = (
    "This server listens on {address}, so other machines can reach it, and through this page read the files under "
    "{roots}. Tip: unless that is intended, restart it on this machine only (the default: `make run`, or "
    "`streamlit run app.py --server.address 127.0.0.1`)."
)


def roots() -> list[str]:
    """The directories the server may read (real paths of the existing ones in ``FAIRNESS_LOCAL_DATA``)."""
    raw = os.environ.get(ENV, "")
    found = [os.path.realpath(os.path.expanduser(p)) for p in raw.split(os.pathsep) if p.strip()]
    return [p for p in found if os.path.isdir(p)]


def served_to_others(address: str | None) -> bool:
    """Whether a server listening on `address` (Streamlit's ``server.address``; empty or None: every interface)
    can be reached from other machines: any address but a loopback one (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if address is not None and address.strip().lower() == "localhost":
        return False
    try:
        return not ipaddress.ip_address((address or "").strip()).is_loopback
    except ValueError:   # empty (every interface) or a host name
        return True


def real_inside(path: str, allowed: list[str]) -> str:
    """The real path of `path` (links resolved), the very path that is checked and then read; ValueError
    ``OUTSIDE`` unless it lies under one of the `allowed` directories."""
    real = os.path.realpath(path)
    if not any(os.path.commonpath([real, root]) == root for root in allowed):
        raise ValueError(OUTSIDE.format(path=path, roots=roots_text(allowed)))
    return real


def candidates(text: str, allowed: list[str]) -> list[str]:
    """The paths `text` names: itself if absolute, else under each root (the first root with a match).

    The path, normalized (``..`` resolved) with any glob characters in it, must lie under a root before the
    file system is looked at, so no answer says whether a file elsewhere exists (ValueError ``OUTSIDE``).
    A root is a literal directory: glob characters in its own name (``/data/[x]``) are escaped, and only
    the part of `text` below it is expanded.
    """
    text = os.path.expanduser(text.strip())
    bases = []
    for root in allowed:
        base = os.path.normpath(text if os.path.isabs(text) else os.path.join(root, text))
        if base == root or base.startswith(root.rstrip(os.sep) + os.sep):
            bases.append((base, glob.escape(root) + base[len(root):]))
    if not bases:
        raise ValueError(OUTSIDE.format(path=text, roots=roots_text(allowed)))
    for base, pattern in bases:
        if os.path.isdir(base):
            inside = sorted(p for p in glob.glob(os.path.join(glob.escape(base), "*")) if os.path.isfile(p))
            if inside:
                return inside
        matches = sorted(p for p in glob.glob(pattern) if os.path.isfile(p))
        if matches:
            return matches
    return []


def allowed() -> list[str]:
    """The directories the server may read (:func:`roots`); ValueError ``NOT_CONFIGURED`` when there are none."""
    found = roots()
    if not found:
        raise ValueError(NOT_CONFIGURED.format(env=ENV))
    return found


def roots_text(directories: list[str]) -> str:
    """The directories as a message names them: joined by commas."""
    return ", ".join(directories)


class CheckedConnection:
    """A DuckDB connection that checks, immediately before each query or read, that every file of the source is still
    the real path that was checked, under the allowed directories (ValueError ``OUTSIDE`` otherwise).

    A file swapped for a link to outside after :meth:`LocalSource.from_files` checked it would otherwise be read
    by every later query of the counts (a threshold's scan, the intervals' atoms). Everything else is the
    connection's own."""

    def __init__(self, connection, files: tuple):
        self._connection, self._files = connection, files

    def _check(self) -> None:
        permitted = allowed()
        for path in self._files:
            if os.path.realpath(path) != path:   # a link now stands where the checked file was
                raise ValueError(OUTSIDE.format(path=path, roots=roots_text(permitted)))
            real_inside(path, permitted)

    def execute(self, *args, **kwargs):
        self._check()
        return self._connection.execute(*args, **kwargs)

    def read_csv(self, *args, **kwargs):
        self._check()
        return self._connection.read_csv(*args, **kwargs)

    def read_parquet(self, *args, **kwargs):
        self._check()
        return self._connection.read_parquet(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._connection, name)


def connect(files: tuple, database: str | None, memory_limit: str):
    """The DuckDB connection a source on this machine reads through, with DuckDB's `memory_limit` (e.g. "1GB").

    Parameters
    ----------
    files : tuple of str
        The source's files, real paths checked by :func:`real_inside` (empty for a database).
    database : str or None
        The real path of a DuckDB database file, checked likewise; None for files.
    memory_limit : str

    Returns
    -------
    CheckedConnection or duckdb.DuckDBPyConnection
        For files, a :class:`CheckedConnection` (every file checked again before each query or read); for a
        database, a connection to it opened read-only with ``enable_external_access`` off, so its views cannot
        read other files.
    """
    import duckdb

    if database is None:
        return CheckedConnection(duckdb.connect(config={"memory_limit": memory_limit}), files)
    return duckdb.connect(database, read_only=True,
                          config={"enable_external_access": False, "memory_limit": memory_limit})
