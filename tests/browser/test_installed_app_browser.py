"""The app installed from the wheel, as the Dockerfile builds, installs and starts it, in Chromium.

The Dockerfile's own commands are run here (the image itself is not built: this machine has no Docker): its RUN line
that builds the wheel, in a copy of the build context (.dockerignore applied), and its RUN line that installs the
wheel with its ``app`` extra, each in bash with a fresh virtual environment first on PATH; then its CMD, the console
command ``fairness-core app``, from a folder that is not the checkout, without ``--address`` (the default must be
this machine only) and on a free port, and its HEALTHCHECK against that server. No ``.streamlit/config.toml`` of the
checkout can apply there: what the server shows comes from the settings inside the package. The fresh
environment's dependencies are this one's (a ``.pth`` file) and pip is offline (PIP_NO_INDEX, PIP_NO_DEPS), so
nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
import tomllib
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS, ConsoleLog, _free_port, _healthy, _tail, startup_allowance
from tests.browser.test_app_browser import go_to, open_app, screenshot, settle
from tests.browser.test_listen_address_browser import listening
from tests.support import ROOT
from tests.test_packaging import build_context, fresh_environment

pytestmark = pytest.mark.browser

DOCKER_PORT = "8501"


def dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions in order, as (keyword, arguments): comments dropped, continued lines joined."""
    instructions, pending = [], ""
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip().removesuffix("\\").strip() + " "
        if not line.rstrip().endswith("\\"):
            keyword, _, arguments = pending.strip().partition(" ")
            instructions.append((keyword.upper(), arguments.strip()))
            pending = ""
    return instructions


def run_lines(stage: int) -> list[str]:
    """The RUN commands of the Dockerfile's build stage `stage` (0: the one that builds the wheel, 1: the image)."""
    stages, found = -1, []
    for keyword, arguments in dockerfile():
        stages += keyword == "FROM"
        if keyword == "RUN" and stages == stage:
            found.append(arguments)
    return found


def docker_cmd() -> list[str]:
    (cmd,) = [json.loads(arguments) for keyword, arguments in dockerfile() if keyword == "CMD"]
    return cmd


def healthcheck() -> str:
    (check,) = [arguments for keyword, arguments in dockerfile() if keyword == "HEALTHCHECK"]
    return check.split(" CMD ", 1)[1]


def test_the_dockerfile_builds_from_a_slim_base_as_a_user_without_root_rights_on_every_interface():
    instructions = dockerfile()
    keywords = [k for k, _ in instructions]
    assert [a.split()[0] for k, a in instructions if k == "FROM"] == ["python:3.11-slim"] * 2
    users = [a for k, a in instructions if k == "USER"]
    assert users and users[-1] not in ("root", "0") and keywords.index("USER") < keywords.index("CMD")
    assert [a for k, a in instructions if k == "EXPOSE"] == [DOCKER_PORT]
    # inside a container the server must listen on the container's interface for a published port to reach it
    assert docker_cmd() == ["fairness-core", "app", "--address", "0.0.0.0", "--port", DOCKER_PORT]
    assert f"http://127.0.0.1:{DOCKER_PORT}/_stcore/health" in healthcheck()
    (build,) = [line for line in run_lines(0) if " -m build " in line]
    (install,) = run_lines(1)[1:]   # after the user is created
    assert shlex.split(build) == ["python", "-m", "build", "--wheel", "--no-isolation", "--outdir", "dist", "."]
    assert install.startswith("pip install ") and install.endswith('"$(ls dist/fairness_core-*.whl)[app]"')


def which(name: str, env: dict) -> str:
    """The command `name` as `env`'s PATH finds it."""
    found = shutil.which(name, path=env["PATH"])
    assert found, name
    return found


def _bash(line: str, cwd: Path, env: dict) -> None:
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", line], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """A fresh virtual environment with the wheel and its app extra installed by the Dockerfile's RUN commands;
    returns the environment variables (PATH first on its bin folder) to run its commands with."""
    tmp = tmp_path_factory.mktemp("installed-app")
    env_dir = tmp / "env"
    python, site = fresh_environment(env_dir, test_build_backend=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV", "STREAMLIT_"))}
    env.update(PATH=f"{env_dir / 'bin'}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(env_dir), PIP_NO_INDEX="1",
               PIP_NO_DEPS="1", PIP_QUIET="1")
    env.pop("FAIRNESS_LOCAL_DATA", None)
    # the build stage, in its context
    context = build_context(tmp / "context")
    tools, build = run_lines(0)
    assert shlex.split(tools)[:2] == ["pip", "install"]   # the build tools: here the test environment's own
    _bash(build, context, env)
    # the image stage: the wheel copied from the build stage, installed with its app extra
    image = tmp / "image"
    shutil.copytree(context / "dist", image / "dist")
    for line in run_lines(1)[1:]:   # the first creates the user
        _bash(line, image, env)
    listed = subprocess.run([str(python), "-m", "pip", "list", "--path", site, "--format", "freeze"],
                            capture_output=True, text=True, check=True).stdout
    assert "fairness_core==" in listed.replace("-", "_")
    return env


def test_installed_wheel_serves_the_app_with_its_packaged_settings(installed, browser, tmp_path, screenshot_dir):
    home = tmp_path / "home"   # the image's WORKDIR: not the checkout, no .streamlit/config.toml
    home.mkdir()
    data = tmp_path / "data"
    data.mkdir()

    # Streamlit's effective settings for the installed entry script (as `streamlit run` computes them before it
    # serves it), started from here: every setting of the checkout's .streamlit/config.toml
    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    wanted = {f"{section}.{name}": value for section, values in settings.items() for name, value in values.items()}
    assert {"server.address": "127.0.0.1", "client.showErrorDetails": "none", "client.disableDataExport": True,
            "server.maxUploadSize": 1024, "runner.postScriptGC": False, "client.toolbarMode": "viewer",
            "theme.base": "light", "browser.gatherUsageStats": False}.items() <= wanted.items()
    probe = ("import json, sys, streamlit.config as c; from fairness_dashboard import launch; "
             "c._main_script_path = str(launch.entry_script()); c.get_config_options(force_reparse=True); "
             "print(json.dumps([c._main_script_path, {k: c.get_option(k) for k in sys.argv[1:]}]))")
    done = subprocess.run([which("python", installed), "-c", probe, *wanted], cwd=home, env=installed,
                          capture_output=True, text=True, check=True, timeout=120)
    script, effective = json.loads(done.stdout)
    assert Path(script).is_relative_to(installed["VIRTUAL_ENV"]) and effective == wanted

    # the Dockerfile's CMD, this machine only (no --address) on a free port, reading `data` through --data-root
    port = _free_port()
    command = docker_cmd()
    at = command.index("--address")
    del command[at:at + 2]
    command[command.index("--port") + 1] = str(port)
    command += ["--data-root", str(data)]
    log_path = ARTIFACTS / "streamlit-installed.log"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        server = subprocess.Popen([which(command[0], installed), *command[1:]], cwd=home, env=installed, stdout=log, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        started = time.monotonic()
        while not _healthy(base + "/_stcore/health"):
            assert server.poll() is None, f"fairness-core app exited ({server.returncode}):\n{_tail(log_path)}"
            assert time.monotonic() - started < startup_allowance(), f"no answer from {base}:\n{_tail(log_path)}"
            time.sleep(0.2)
        assert listening(port) == {"127.0.0.1"}
        _bash(healthcheck().replace(f":{DOCKER_PORT}/", f":{port}/"), home, installed)

        # a browser that prefers dark: the packaged theme (base light) decides
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme="dark")
        context.set_default_timeout(20_000)
        page = context.new_page()
        console = ConsoleLog.of(page)
        try:
            open_app(page, base)   # the Data page, on the installed sample data
            background = page.get_by_test_id("stApp").evaluate("e => getComputedStyle(e).backgroundColor")
            assert background == "rgb(255, 255, 255)"
            # --data-root: data on this machine is offered
            sources = page.get_by_test_id("stRadio").filter(has_text="Source")
            expect(sources.get_by_text("Data on this machine", exact=True)).to_be_visible()
            screenshot(page, screenshot_dir / "installed_app_data.png")
            sources.get_by_text("Upload a file", exact=True).click()
            settle(page)
            # the packaged upload limit (Streamlit's own is 200 MB)
            expect(page.get_by_test_id("stFileUploaderDropzoneInstructions")).to_contain_text("1GB per file")
            go_to(page, "Overview")
            assert page.evaluate("location.pathname") == "/overview"
            screenshot(page, screenshot_dir / "installed_app_overview.png")
            console.assert_clean()
        finally:
            context.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert server.returncode in (0, -15), _tail(log_path)   # stopped by the signal, not crashed
