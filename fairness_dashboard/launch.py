"""Where the dashboard's files are, and how ``fairness-core app`` (``fairness_core._cli``) serves them.

In a checkout the entry script is the top-level ``app.py``, with ``pages/``, ``.streamlit/config.toml`` and the
sample data (``sample_data/*.csv``) beside it. The wheel carries the same files in ``fairness_dashboard/app/``
(pyproject.toml maps the checkout's top level there), so each has one source; :data:`APP_DIR` is the folder of
either. Streamlit resolves page paths (``pages/data.py``) against the entry script's folder and reads the
``.streamlit/config.toml`` beside the entry script wherever the server is started from: both layouts serve the
same pages with the same settings (127.0.0.1 only, no error details, no data export, the upload limit), also when
the installed script is started with ``streamlit run`` directly.

This module never imports Streamlit: :func:`serve` becomes ``python -m streamlit run``, its documented command line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from .local_paths import ENV

HERE = Path(__file__).resolve().parent
# The folder of the entry script app.py: fairness_dashboard/app when installed from the wheel, else (a checkout, or an
# editable install of one) the checkout's top level.
APP_DIR = HERE / "app" if (HERE / "app" / "app.py").is_file() else HERE.parent


def entry_script() -> Path:
    """The dashboard's entry script, ``app.py`` in :data:`APP_DIR`."""
    return APP_DIR / "app.py"


def streamlit_arguments(port: int | None = None, address: str | None = None) -> list[str]:
    """The arguments of ``streamlit`` that serve :func:`entry_script`.

    Parameters
    ----------
    port : int or None
        The port to listen on (None: the configuration's, Streamlit's default 8501).
    address : str or None
        The address to listen on (None: the configuration's, 127.0.0.1: this machine only).

    Returns
    -------
    list of str
        E.g. ``["run", ".../fairness_dashboard/app/app.py", "--server.port", "8502"]``.

    Examples
    --------
    >>> streamlit_arguments(8502, "0.0.0.0")[2:]
    ['--server.port', '8502', '--server.address', '0.0.0.0']
    """
    arguments = ["run", str(entry_script())]
    if port is not None:
        arguments += ["--server.port", str(port)]
    if address is not None:
        arguments += ["--server.address", address]
    return arguments


def serve(port: int | None = None, address: str | None = None, data_roots: Sequence[str] = ()) -> NoReturn:
    """Replace this process by the Streamlit server of :func:`entry_script`: ``python -m streamlit run``, with this
    interpreter, so that Ctrl-C and a SIGTERM (``docker stop``) reach the server itself.

    Parameters
    ----------
    port, address
        As for :func:`streamlit_arguments`.
    data_roots : sequence of str
        The directories the Data page's "Data on this machine" may read (``FAIRNESS_LOCAL_DATA``); empty: the
        environment's setting, if any.
    """
    if data_roots:
        os.environ[ENV] = os.pathsep.join(str(Path(root).resolve()) for root in data_roots)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os.execv(sys.executable, [sys.executable, "-m", "streamlit", *streamlit_arguments(port, address)])
