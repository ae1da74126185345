"""The command line on hostile configurations, weights and flags: exit 2 with one line that says what is wrong and
what to do, never a traceback (exit 3), never a silent pass."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import ROOT

CREDIT = ROOT / "sample_data" / "credit_decisions.csv"
FLAGS = ["--label", "repaid", "--positive", "1", "--score", "score_logistic", "--protected", "sex"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fairness_core", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def one_error_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.mark.parametrize("items, expected", [
    (3_000_000, "is larger than a review configuration can be (at most 512 KiB)"),
    (20_000, "slice.0.values: 20,000 items; a configuration lists at most 10,000"),
])
def test_a_huge_config_file_is_refused_with_one_line(tmp_path, items, expected):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"version": 1, "mapping": {"label": "repaid", "positive_label": 1},
                                "slice": [{"column": "a", "values": [{}] * items}]}))
    line = one_error_line(cli("metrics", str(CREDIT), "--config", str(path), "--out", str(tmp_path / "o.json")))
    assert expected in line
    assert len(line) < 400
