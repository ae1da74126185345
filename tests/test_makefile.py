"""`make run` on a fresh checkout says what it installs and shows pip's progress; `make test` stays quiet."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _dry_run(tmp_path: Path, target: str) -> list[str]:
    """The commands `make -n <target>` prints in a fresh copy (no .venv), one per line."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    # A clean environment for make's own variables: under `make test` a nested make would print its directory.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}
    done = subprocess.run(["make", "--no-print-directory", "-n", target, "PYTHON=python3"], cwd=tmp_path,
                          capture_output=True, text=True, check=True, timeout=60, env=env)
    return done.stdout.splitlines()


def test_make_run_announces_the_install_and_shows_progress(tmp_path):
    lines = _dry_run(tmp_path, "run")
    installs = [line for line in lines if "pip install" in line]
    assert installs == [".venv/bin/python -m pip install --progress-bar on --disable-pip-version-check -e '.[app]'"]
    echo = [line for line in lines if line.startswith("echo ")]
    assert len(echo) == 1 and "Installing fairness_core and the app's dependencies" in echo[0] and "several minutes" in echo[0]
    # the announcement comes before the install, and the app starts after it
    assert lines.index(echo[0]) < lines.index(installs[0]) < len(lines) - 1
    # this machine only by default (ADDRESS=0.0.0.0 opens it to others on purpose)
    assert lines[-1] == ".venv/bin/streamlit run app.py --server.address 127.0.0.1 --server.port 8501"


def test_make_test_keeps_its_log_quiet(tmp_path):
    installs = [line for line in _dry_run(tmp_path, "test") if "pip install" in line]
    assert installs == [".venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'"]
