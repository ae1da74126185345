"""The documentation's "Gate a release in CI" (docs/model-review.md): its plain shell step and its GitHub Actions job, run as written on the
bundled credit sample laid out as a model's repository would hold it (``scored/holdout.csv``).

The Actions job's own steps (``uses:``: checkout, setup-python, upload-artifact) are GitHub's; its ``run:`` steps
are run here in the job's workspace with the shell GitHub runs them with (``bash -e``), except the install from
the checked-out project, which this suite's environment already is (``tests/test_packaging.py`` builds and
installs the wheel in a fresh environment)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support import ROOT

PAGE = ROOT / "docs" / "model-review.md"
SECTION = "## Gate a release in CI"


def blocks(language: str) -> list:
    """The section's fenced code blocks in `language`: from its heading to the next one of its level."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start:end if end >= 0 else len(text)]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.S)


@pytest.fixture
def workspace(tmp_path) -> Path:
    """A model repository's checkout: the scored hold-out rows where the section's commands read them; `python`
    on PATH is this suite's interpreter, as setup-python's would be."""
    (tmp_path / "scored").mkdir()
    shutil.copyfile(ROOT / "sample_data" / "credit_decisions.csv", tmp_path / "scored" / "holdout.csv")
    return tmp_path


def run(script: str, cwd: Path, *options: str) -> subprocess.CompletedProcess:
    """`script` run by bash with `options` in `cwd`, this suite's interpreter first on PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["bash", "--noprofile", "--norc", *options, "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True)


def actions_step(script: str, cwd: Path) -> subprocess.CompletedProcess:
    """A ``run:`` step as GitHub Actions runs it on Linux (``bash --noprofile --norc -eo pipefail {0}``)."""
    return run(script, cwd, "-eo", "pipefail")


def test_the_shell_step_passes_the_sample_candidate_and_fails_it_when_the_rules_gate(workspace):
    [script] = blocks("bash")
    done = run(script, workspace)
    assert (done.returncode, done.stdout, done.stderr) == (0, "fairness gate: passed (fairness-review.html)\n", "")
    html = (workspace / "fairness-review.html").read_text(encoding="utf-8")
    assert "Passes (exit status 0 of the command line)" in html and "What gates: what the configuration names " \
                                                                   "(changes)" in html
    # the section's variant: the four-fifths rule gates too, and both models fail it
    strict = script.replace("--gate changes", "--gate four_fifths,changes")
    failed = run(strict, workspace)
    assert failed.returncode == 1
    assert failed.stdout == "fairness gate: failed, see the lines above and fairness-review.html\n"
    lines = failed.stderr.splitlines()
    assert [line.split(", rule ")[0] for line in lines] == ["fail: model score_logistic", "fail: model score_boosting"]
    assert lines[0].startswith("fail: model score_logistic, rule four_fifths: estimate 0.3154, ")
    # what the section says of the changes: 7 pass, 34 inconclusive, none fails
    review = subprocess.run([sys.executable, "-m", "fairness_core", "metrics", "scored/holdout.csv", "--label",
                             "repaid", "--positive", "1", "--score", "score_logistic", "--score", "score_boosting",
                             "--protected", "sex", "--protected", "age_group", "--baseline", "score_logistic",
                             "--gate", "changes", "--quiet"], cwd=workspace, capture_output=True, text=True)
    changes = [c["status"] for c in json.loads(review.stdout)["changes"]]
    assert (changes.count("pass"), changes.count("inconclusive"), changes.count("fail")) == (7, 34, 0)


def test_the_github_actions_job_runs_its_gate_and_keeps_the_report(workspace):
    [text] = blocks("yaml")
    workflow = yaml.safe_load(text)
    [job] = workflow["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest" and workflow[True] == ["pull_request"]   # YAML 1.1 reads `on` as True
    steps = job["steps"]
    assert [s.get("uses", "run").split("@")[0] for s in steps] == [
        "actions/checkout", "actions/checkout", "actions/setup-python", "run", "run", "actions/upload-artifact"]
    checkout = steps[1]["with"]
    assert checkout["path"] == "fairness-dashboard" and checkout["ref"] == "v0.5.0"
    install, gate = steps[3]["run"], steps[4]["run"]
    assert install == f"pip install ./{checkout['path']}"   # the checked-out project, never a name (see docstring)
    assert steps[5]["if"] == "always()" and steps[5]["with"]["path"] == "fairness-review.html"

    done = actions_step(gate, workspace)
    assert (done.returncode, done.stderr) == (0, "")
    assert (workspace / steps[5]["with"]["path"]).stat().st_size > 100_000   # the self-contained report, kept
    # the job's gate is the shell step's command: one gate, two ways to run it
    [script] = blocks("bash")
    command = " ".join(script.split("status=$?")[0].split("\n", 1)[1].replace("\\\n", " ").split())
    assert " ".join(gate.split()) == command
    # the same step on a candidate worse for one subgroup's positives fails the job with the gate's lines
    frame = (workspace / "scored" / "holdout.csv").read_text(encoding="utf-8").splitlines()
    header = frame[0].split(",")
    at = {c: header.index(c) for c in ("sex", "repaid", "score_boosting")}
    worse = [frame[0]]
    for line in frame[1:]:
        cells = line.split(",")
        if cells[at["sex"]] == "Female" and cells[at["repaid"]] == "1":
            cells[at["score_boosting"]] = f"{float(cells[at['score_boosting']]) * 0.5:.6f}"
        worse.append(",".join(cells))
    (workspace / "scored" / "holdout.csv").write_text("\n".join(worse) + "\n", encoding="utf-8")
    failed = actions_step(gate, workspace)
    assert failed.returncode == 1 and failed.stderr
    assert all(line.startswith("fail: score_boosting against the baseline score_logistic: ")
               for line in failed.stderr.splitlines())
