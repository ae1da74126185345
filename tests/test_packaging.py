"""`pip install .` gives a working library and command: the wheel built from pyproject.toml, installed into a
fresh virtual environment, imports, carries its templates and its version, and its console command runs.

The fresh environment gets the wheel alone (``--no-deps``, no index); its dependencies are those of the
environment running the tests, made visible through a ``.pth`` file, so the test needs no download.
"""

import email
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairness_core

ROOT = Path(__file__).resolve().parents[1]


def build_context(dest: Path) -> Path:
    """A copy of the checkout as the Dockerfile's build stage gets it (``COPY . .`` less .dockerignore's entries,
    matched here by name): without a build/ folder of an earlier build, whose stale modules setuptools would pack
    into the wheel, and without the tests. Also, builds running at once never share a build/ folder."""
    ignored = [line.strip().removeprefix("**/") for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(*ignored))
    return dest


def fresh_environment(env_dir: Path, *, test_build_backend: bool = False) -> tuple[Path, Path]:
    """A new virtual environment in `env_dir` that sees the test environment's packages behind its own (a ``.pth``
    file in its site-packages), so installing the project into it with ``--no-deps`` needs no download; with
    `test_build_backend`, its own setuptools (the older one ensurepip brings, which may not build the wheel) is
    removed, so a build without isolation uses the test environment's. Returns (its python, its site-packages)."""
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    if test_build_backend:
        subprocess.run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", "setuptools"],
                       capture_output=True, timeout=300)
    return python, site


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    context = build_context(tmp_path_factory.mktemp("build") / "context")
    # --no-isolation: the build backend of the test environment (pyproject.toml's "test" extra), so building needs
    # no download while the suite runs (an isolated build fetches setuptools from the index each time).
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out),
                           str(context)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (built,) = out.glob("fairness_core-*.whl")
    return built


def test_the_wheel_declares_the_version_the_dependencies_and_the_extras(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = email.message_from_bytes(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
        entry_points = z.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert meta["Version"] == fairness_core.__version__
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    requires = meta.get_all("Requires-Dist")
    plain = {r.split(">")[0].split("[")[0].strip() for r in requires if "extra ==" not in r}
    # the library and its embedded engine install by default; the app and the other engines are extras
    assert {"numpy", "pandas", "scipy", "scikit-learn", "pyarrow", "plotly", "duckdb", "sqlglot", "jinja2"} <= plain
    assert "streamlit" not in plain and "pyspark" not in plain
    assert {"app", "engines", "spark", "test", "bench"} <= set(meta.get_all("Provides-Extra"))
    assert any(r.startswith("streamlit") and 'extra == "app"' in r for r in requires)
    assert "fairness-core = fairness_core._cli:run" in entry_points
    # the package data and the typing marker; nothing of the tests or benchmarks
    assert {"fairness_core/py.typed", "fairness_core/templates/report.html.j2",
            "fairness_core/templates/report.css"} <= set(names)
    assert not [n for n in names if n.split("/")[0] in ("tests", "benchmarks", "pages", "app.py", "ui")]


def _files(folder: str, pattern: str = "*") -> set[str]:
    """The checkout's files under `folder` matching `pattern`, as paths from the project root (no bytecode)."""
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob(pattern)
            if p.is_file() and "__pycache__" not in p.parts}


def test_the_wheel_carries_the_library_and_the_app_with_its_settings_and_samples(wheel):
    """Every file of the two packages, and the app's top-level files in fairness_dashboard/app/ as in the checkout
    (app.py with pages/, sample_data/ and .streamlit/config.toml beside it): the same bytes, one source each."""
    app = {"app.py", ".streamlit/config.toml"} | _files("pages", "*.py") | _files("sample_data", "*.csv")
    with zipfile.ZipFile(wheel) as z:
        names = {n for n in z.namelist() if ".dist-info/" not in n}
        installed = {name: z.read(f"fairness_dashboard/app/{name}") for name in sorted(app)}
    assert names == _files("fairness_core") | _files("fairness_dashboard") | {f"fairness_dashboard/app/{n}" for n in app}
    assert installed == {name: (ROOT / name).read_bytes() for name in installed}
    assert {"fairness_dashboard/definitions.md", "fairness_dashboard/measured_coverage.json",
            "fairness_dashboard/app/pages/data.py", "fairness_dashboard/app/sample_data/credit_decisions.csv"} <= names


def test_the_app_command_serves_the_checkout_app_and_says_how_to_install_streamlit(monkeypatch, capsys, tmp_path):
    from fairness_core._cli import main
    from fairness_dashboard import launch

    # a checkout: its top-level app.py, with only the flags given (the rest from .streamlit/config.toml beside it)
    assert launch.entry_script() == ROOT / "app.py" and launch.APP_DIR == ROOT
    assert launch.streamlit_arguments() == ["run", str(ROOT / "app.py")]
    assert launch.streamlit_arguments(8502, "0.0.0.0") == ["run", str(ROOT / "app.py"), "--server.port", "8502",
                                                           "--server.address", "0.0.0.0"]
    served = []
    monkeypatch.setattr(launch, "serve", lambda *args: served.append(args))
    assert main(["app", "--port", "8502", "--data-root", str(tmp_path)]) == 0
    assert served == [(8502, None, [str(tmp_path)])]
    assert main(["app", "--data-root", str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err == f"error: --data-root {str(tmp_path / 'missing')!r} is not a directory\n"

    monkeypatch.setitem(sys.modules, "streamlit", None)   # as if the app extra were not installed
    assert main(["app"]) == 2 and served == [(8502, None, [str(tmp_path)])]
    err = capsys.readouterr().err
    assert err.startswith("error: the app needs Streamlit, which is not installed here.") and len(err.splitlines()) == 1
    assert (f"from its checkout: pip install '.[app]', or from its wheel: pip install "
            f"'fairness_core-{fairness_core.__version__}-py3-none-any.whl[app]'") in err


def test_installed_into_a_fresh_environment_it_imports_and_its_command_writes_a_report(wheel, tmp_path):
    env_dir = tmp_path / "fresh"
    python, _ = fresh_environment(env_dir)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--disable-pip-version-check", str(wheel)], check=True, capture_output=True, timeout=300)
    outside = tmp_path / "elsewhere"   # not the checkout: the import must come from the installed wheel
    outside.mkdir()
    done = subprocess.run([str(python), "-c", "import fairness_core as fc; print(fc.__file__); print(fc.__version__)"],
                          cwd=outside, check=True, capture_output=True, text=True)
    where, version = done.stdout.split()
    assert Path(where).is_relative_to(env_dir) and version == fairness_core.__version__
    command = env_dir / "bin" / "fairness-core"
    helped = subprocess.run([str(command), "--help"], cwd=outside, capture_output=True, text=True, timeout=120)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: fairness-core")
    report = outside / "report.html"
    done = subprocess.run([str(command), "report", str(ROOT / "sample_data" / "credit_decisions.csv"),
                           "--label", "repaid", "--positive", "1", "--score", "score_logistic", "--protected", "sex",
                           "--out", str(report)], cwd=outside, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr   # 1: a rule fails, which is a verdict, not an error
    html = report.read_text()
    assert html.startswith("<!DOCTYPE html>") and "score_logistic" in html and "verdicts: model" in done.stderr


@pytest.mark.parametrize("engine, module, install", [
    ("polars", "polars", "pip install 'polars' (or this project with its 'engines' extra, from its checkout: "
                         "pip install '.[engines]'"),
    ("spark", "pyspark", "pip install 'pyspark' (or this project with its 'spark' extra, from its checkout: "
                         "pip install '.[spark]'"),
    ("duckdb", "duckdb", "pip install 'duckdb' (or this project, from its checkout: pip install '.'"),
])
def test_a_missing_engine_package_says_what_to_install(tmp_path, capsys, monkeypatch, engine, module, install):
    from fairness_core._cli import main

    path = tmp_path / "rows.parquet"
    pd.DataFrame({"y": [0, 1] * 20, "p": np.linspace(0, 1, 40), "g": ["a", "b"] * 20}).to_parquet(path)
    for name in list(sys.modules):   # as if the package were not installed: its import fails
        if name == module or name.startswith(module + "."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)
    status = main(["metrics", str(path), "--engine", engine, "--label", "y", "--positive", "1", "--score", "p",
                   "--protected", "g", "--out", str(tmp_path / "out.json")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"error: --engine {engine} needs the Python package ") and install in err
    assert len(err.strip().splitlines()) == 1


def test_requirements_txt_installs_the_app_into_a_fresh_environment_that_serves_it(tmp_path):
    """``pip install -r requirements.txt`` (as a Dockerfile or Streamlit Community Cloud runs it) installs this
    checkout with its app extra; ``streamlit run app.py`` then serves the app on 127.0.0.1 from that environment.
    The dependencies come from the environment running the tests (a ``.pth`` file), so nothing is downloaded."""
    import socket
    import time
    import urllib.request

    lines = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines == [".[app]"]
    checkout = build_context(tmp_path / "checkout")   # a copy: the build writes into the tree it builds
    env_dir = tmp_path / "fresh"
    python, site = fresh_environment(env_dir, test_build_backend=True)
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--no-build-isolation", "--disable-pip-version-check", "-r", "requirements.txt"],
                          cwd=checkout, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    listed = subprocess.run([str(python), "-m", "pip", "list", "--path", site, "--format", "freeze"],
                            capture_output=True, text=True, check=True).stdout
    assert "fairness_core==" in listed.replace("-", "_")   # the project itself, in the fresh environment
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([str(python), "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                               "--server.headless", "true"], cwd=checkout, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60 * max(1.0, __import__("os").getloadavg()[0] / 2)
        answer = ""
        while time.monotonic() < deadline and answer != "ok":
            assert server.poll() is None, "the server exited"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as response:
                    answer = response.read().decode().strip()
            except OSError:
                time.sleep(0.3)
        assert answer == "ok"
        from tests.browser.test_listen_address_browser import listening

        assert listening(port) == {"127.0.0.1"}   # the checkout's .streamlit/config.toml: this machine only
    finally:
        server.terminate()
        server.wait(timeout=30)
